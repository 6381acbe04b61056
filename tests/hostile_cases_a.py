"""Hostile cases, part A: silently wrong numbers, inputs destroyed, unclear errors.

Each function takes a fresh folder and returns None (ltrbench behaved) or what went wrong; see
``tests/hostile_catalogue.py``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile_kit import (
    DATA,
    QRELS,
    RATINGS,
    RUN,
    SCORES,
    api_refused,
    call,
    cli,
    close,
    csv_values,
    letor_folder,
    pytrec,
    refused,
    snapshot,
    sub,
    trec_bytes,
    untouched,
    value_or_refused,
    write,
)

Fn = Callable[[Path], "str | None"]
CASES: list[tuple[str, str, Fn, str, bool]] = []


def case(klass: str, source: str = "more", slow: bool = False) -> Callable[[Fn], Fn]:
    def add(fn: Fn) -> Fn:
        CASES.append((fn.__name__.replace("_", "-"), klass, fn, source, slow))
        return fn
    return add


WRONG, DESTROYED, UNCLEAR = "silently wrong numbers", "inputs destroyed", "unclear errors"

# Two runs over 4 qrels queries: A retrieves 1-3, B retrieves 1, 2 and 4.
CMP_Q = {"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 0}, "3": {"e": 1, "f": 1}, "4": {"g": 1}}
CMP_A = {"1": {"a": 0.9, "b": 0.8}, "2": {"d": 0.9, "c": 0.1}, "3": {"e": 0.5}}
CMP_B = {"1": {"b": 0.9, "a": 0.8}, "2": {"c": 0.9}, "4": {"g": 0.3}}


def _compare(tmp: Path, metrics: list[str], profile: str) -> dict[str, dict[str, float]]:
    write(tmp, {"q.txt": trec_bytes(CMP_Q, "qrels"), "a.txt": trec_bytes(CMP_A, "run"),
                "b.txt": trec_bytes(CMP_B, "run")})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "A=a.txt", "--run", "B=b.txt",
              "--profile", profile, "--metrics", *metrics, "--format", "csv")
    if res.status != 0:
        raise RuntimeError(f"exit {res.status}: {res.err.strip()[-200:]}")
    out: dict[str, dict[str, float]] = {}
    for row in csv.DictReader(io.StringIO(res.out)):
        values: dict[str, float] = {}
        for h, v in row.items():
            with contextlib.suppress(TypeError, ValueError):  # text columns (profile, dropped)
                if v and h not in ("run", "best"):
                    values[h] = float(v)
        out[row["run"]] = values
    return out


def _same_query_set(tmp: Path, first: str, more: list[str], profile: str) -> str | None:
    one = _compare(tmp, [first], profile)
    both = _compare(tmp, [first, *more], profile)
    for run in ("A", "B"):
        if not close(one[run][first], both[run][first], 1e-12):
            return (f"run {run}: {first} = {one[run][first]:.4f} alone, "
                    f"{both[run][first]:.4f} beside {more}")
    if both["A"].get("n_queries") != both["B"].get("n_queries"):
        return f"runs compared over different query sets: {both}"
    return None


@case(WRONG, "issue")
def compare_query_set_changes_with_the_metric_list(tmp: Path) -> str | None:
    return _same_query_set(tmp, "ndcg_cut_10", ["map"], "trec_eval-c")


@case(WRONG)
def compare_query_set_changes_with_p5_and_recip_rank(tmp: Path) -> str | None:
    return _same_query_set(tmp, "P_5", ["recip_rank", "map"], "trec_eval-c")


@case(WRONG)
def compare_query_set_under_the_default_profile(tmp: Path) -> str | None:
    return _same_query_set(tmp, "ndcg@10", ["map"], "trec_eval")


def _complete(tmp: Path, metric: str) -> str | None:
    """``--profile trec_eval-c --metrics P_5,map,ndcg_cut_10``: every column is trec_eval -c's."""
    write(tmp, {"q.txt": trec_bytes(CMP_Q, "qrels"), "a.txt": trec_bytes(CMP_A, "run")})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "a.txt", "--profile", "trec_eval-c",
              "--metrics", f"{metric},map", "--format", "csv")
    want = pytrec(CMP_Q, CMP_A, metric, complete=True)
    return value_or_refused(res, metric, want, metric)


@case(WRONG, "issue")
def trec_eval_c_p5_is_averaged_over_every_qrels_query(tmp: Path) -> str | None:
    return _complete(tmp, "P_5")


@case(WRONG, "issue")
def trec_eval_c_ndcg_cut_10_is_averaged_over_every_qrels_query(tmp: Path) -> str | None:
    return _complete(tmp, "ndcg_cut_10")


@case(WRONG)
def trec_eval_c_recall_5_is_averaged_over_every_qrels_query(tmp: Path) -> str | None:
    return _complete(tmp, "recall_5")


@case(WRONG)
def trec_eval_c_success_1_is_averaged_over_every_qrels_query(tmp: Path) -> str | None:
    return _complete(tmp, "success_1")


@case(WRONG)
def trec_eval_c_map_cut_10_is_averaged_over_every_qrels_query(tmp: Path) -> str | None:
    return _complete(tmp, "map_cut_10")


def _ir_measures(tmp: Path, name: str) -> str | None:
    """An ir_measures name under the default profile: ir_measures' number, a refusal, or a
    warning that names the profile the column used (issue 19: never resolved silently)."""
    import ir_measures

    write(tmp, {"q.txt": trec_bytes(CMP_Q, "qrels"), "a.txt": trec_bytes(CMP_A, "run")})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "a.txt", "--metrics", name,
              "--format", "csv")
    qrels = [ir_measures.Qrel(q, d, r) for q, ds in CMP_Q.items() for d, r in ds.items()]
    run = [ir_measures.ScoredDoc(q, d, s) for q, ds in CMP_A.items() for d, s in ds.items()]
    want = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], qrels, run)
    want_v = float(next(iter(want.values())))
    if res.status == 0 and "profile" in res.err and name in res.err:
        return None  # the column's profile is said
    said = {row.get("metric"): row.get("profile") for row in csv.DictReader(io.StringIO(res.out))}
    if res.status == 0 and said.get(name):
        return None  # the output names the profile this column was computed under
    got = next(iter(csv_values(res).values()), None)
    if res.status == 0 and close(got, want_v):
        return None
    return value_or_refused(res, name, want_v, name) if res.status != 0 else (
        f"{name} = {got}, ir_measures gives {want_v:.4f}; no word about the profile used")


@case(WRONG, "issue")
def ir_measures_ndcg_at_10_under_the_default_profile(tmp: Path) -> str | None:
    return _ir_measures(tmp, "nDCG@10")


@case(WRONG, "issue")
def ir_measures_ap_under_the_default_profile(tmp: Path) -> str | None:
    return _ir_measures(tmp, "AP")


@case(WRONG, "issue")
def ir_measures_rr_under_the_default_profile(tmp: Path) -> str | None:
    return _ir_measures(tmp, "RR")


@case(WRONG)
def ir_measures_p_at_5_under_the_default_profile(tmp: Path) -> str | None:
    return _ir_measures(tmp, "P@5")


def _api(qrels: dict[str, Any], run: dict[str, Any], metric: str, profile: str,
         want: float) -> str | None:
    from bench.metrics import evaluate_trec

    r, exc = call(lambda: evaluate_trec(qrels, run, metrics=metric, profile=profile))
    if exc is not None:
        return f"{type(exc).__name__}: {exc}"
    got = next(iter(r.metrics.values()))
    return None if close(got, want) else f"{profile} {metric} = {got}, the tool gives {want:.4f}"


@case(WRONG, "issue")
def recbole_recall_counts_the_ground_truth(tmp: Path) -> str | None:
    # RecBole recbole/evaluator/metrics.py Recall: hits / pos_len (the ground truth): 1/2
    return _api({"u": {"a": 1, "b": 1}}, {"u": {"a": 2.0, "c": 1.0}}, "recall@2", "recbole", 0.5)


@case(WRONG, "issue")
def recommenders_recall_counts_the_ground_truth(tmp: Path) -> str | None:
    # recommenders python_evaluation.py recall_at_k: hits / actual count: 1/2
    return _api({"u": {"a": 1, "b": 1}}, {"u": {"a": 2.0, "c": 1.0}}, "recall@2", "recommenders",
                0.5)


@case(WRONG, "issue")
def recbole_user_without_a_hit_scores_zero(tmp: Path) -> str | None:
    return _api({"u": {"a": 1}, "v": {"x": 1}}, {"u": {"a": 1.0}, "v": {"y": 1.0}}, "recall@2",
                "recbole", 0.5)


@case(WRONG)
def recommenders_user_without_a_hit_scores_zero(tmp: Path) -> str | None:
    return _api({"u": {"a": 1}, "v": {"x": 1}}, {"u": {"a": 1.0}, "v": {"y": 1.0}}, "ndcg@2",
                "recommenders", 0.5)


@case(WRONG)
def recbole_ndcg_ideal_dcg_from_the_ground_truth(tmp: Path) -> str | None:
    # RecBole NDCG: idcg over min(pos_len, k) ground-truth items: 1 / (1 + 1/log2 3)
    return _api({"u": {"a": 1, "b": 1}}, {"u": {"a": 2.0, "c": 1.0}}, "ndcg@2", "recbole",
                1 / (1 + 1 / math.log2(3)))


@case(WRONG, "issue")
def ranx_scores_missing_queries_zero(tmp: Path) -> str | None:
    import ranx

    q, r = {"1": {"a": 1}, "2": {"b": 1}}, {"1": {"a": 1.0}}
    want = float(ranx.evaluate(ranx.Qrels(q), ranx.Run(r), "ndcg@10", make_comparable=True))
    return _api(q, r, "ndcg@10", "ranx", want)


@case(WRONG)
def ranx_map_scores_missing_queries_zero(tmp: Path) -> str | None:
    import ranx

    q, r = {"1": {"a": 1, "b": 1}, "2": {"b": 1}, "3": {"c": 2}}, {"1": {"b": 1.0, "z": 2.0}}
    want = float(ranx.evaluate(ranx.Qrels(q), ranx.Run(r), "map", make_comparable=True))
    return _api(q, r, "map", "ranx", want)


def _line_ends(tmp: Path, role: str, end: bytes) -> str | None:
    files = {"q.txt": QRELS, "r.txt": RUN}
    name = {"qrels": "q.txt", "run": "r.txt"}[role]
    files[name] = files[name].replace(b"\n", end)
    write(tmp, files)
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg_cut_10",
              "--format", "csv")
    lf = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
    run = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
    return value_or_refused(res, "ndcg_cut_10", pytrec(lf, run, "ndcg_cut_10"), name)


@case(WRONG, "issue")
def trec_run_with_cr_only_line_ends(tmp: Path) -> str | None:
    return _line_ends(tmp, "run", b"\r")


@case(WRONG)
def trec_qrels_with_cr_only_line_ends(tmp: Path) -> str | None:
    return _line_ends(tmp, "qrels", b"\r")


@case(WRONG)
def trec_run_with_mixed_lf_and_cr_line_ends(tmp: Path) -> str | None:
    write(tmp, {"q.txt": QRELS, "r.txt": RUN.replace(b"\n", b"\r", 2)})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg_cut_10",
              "--format", "csv")
    lf = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 0}}
    run = {"1": {"a": 0.4, "b": 0.9, "c": 0.1}, "2": {"d": 0.2, "e": 0.8}}
    return value_or_refused(res, "ndcg_cut_10", pytrec(lf, run, "ndcg_cut_10"), "r.txt")


def _svm(tmp: Path, data: bytes, scores: bytes, words: tuple[str, ...]) -> str | None:
    write(tmp, {"d.txt": data, "s.txt": scores})
    res = cli(tmp, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics", "ndcg@10",
              "--format", "csv")
    return value_or_refused(res, "ndcg@10", (1 + 1 / math.log2(3)) / 2, *words)


@case(WRONG)
def svmlight_data_with_cr_only_line_ends(tmp: Path) -> str | None:
    return _svm(tmp, DATA.replace(b"\n", b"\r"), SCORES, ("d.txt",))


@case(WRONG)
def scores_file_with_cr_only_line_ends(tmp: Path) -> str | None:
    return _svm(tmp, DATA, SCORES.replace(b"\n", b"\r"), ("s.txt",))


@case(WRONG, "issue")
def frame_qid_mixing_int_and_str(tmp: Path) -> str | None:
    import pandas as pd

    from bench.metrics import evaluate

    labels, scores = [2, 0, 1, 1, 0, 0], [0.1, 0.9, 0.5, 0.2, 0.8, 0.3]
    qid = [1, "1", 1, 2, "2", 2]
    frame = pd.DataFrame({"qid": pd.Series(qid, dtype=object), "label": labels, "score": scores})
    r, exc = call(lambda: evaluate(frame, metrics="ndcg@10"))
    if exc is not None:
        return api_refused(exc, "qid")
    want = evaluate(labels, scores, qid=[str(q) for q in qid], metrics="ndcg@10").metrics
    got = r.metrics["ndcg@10"]
    return None if close(got, want["ndcg@10"]) else (
        f"frame ndcg@10 {got:.4f}, arrays {want['ndcg@10']:.4f}: 1 and '1' split one query")


@case(WRONG)
def arrays_qid_mixing_int_and_str(tmp: Path) -> str | None:
    from bench.metrics import evaluate

    labels, scores = [2, 0, 1, 1, 0, 0], [0.1, 0.9, 0.5, 0.2, 0.8, 0.3]
    r, exc = call(lambda: evaluate(labels, scores, qid=[1, "1", 1, 2, "2", 2], metrics="ndcg@10",
                                   sort_by_qid=True))
    if exc is not None:
        return api_refused(exc, "qid")
    want = evaluate(labels, scores, qid=["1", "1", "1", "2", "2", "2"], metrics="ndcg@10")
    got = r.metrics["ndcg@10"]
    return None if close(got, want.metrics["ndcg@10"]) else f"ndcg@10 {got:.4f} != {want.metrics}"


@case(WRONG)
def dict_qrels_int_keys_and_run_str_keys_are_one_query(tmp: Path) -> str | None:
    return _api({7: {"a": 1, "b": 0}}, {"7": {"a": 0.1, "b": 0.9}}, "ndcg_cut_10", "trec_eval",
                1 / math.log2(3))


@case(WRONG)
def frame_run_qid_int_and_qrels_qid_str_are_one_query(tmp: Path) -> str | None:
    import pandas as pd

    q = pd.DataFrame({"qid": ["7", "7"], "docno": ["a", "b"], "rel": [1, 0]})
    r = pd.DataFrame({"qid": [7, 7], "docno": ["a", "b"], "score": [0.1, 0.9]})
    return _api(q, r, "ndcg_cut_10", "trec_eval", 1 / math.log2(3))  # type: ignore[arg-type]


def _big_ints(tmp: Path, hi: int, lo: int) -> str | None:
    """Scores beyond 2^53: the relevant document (a) has the larger score; docno order (trec_eval
    ties: docno descending) would put b first, so a collapse into a tie gives ndcg < 1."""
    write(tmp, {"q.txt": b"1 0 a 1\n1 0 b 0\n", "r.txt": f"1 Q0 a 1 {hi} t\n1 Q0 b 2 {lo} t\n"
                .encode()})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg_cut_10",
              "--format", "csv")
    if res.status == 0 and any(w in res.err.lower() for w in ("2^53", "precision", "tie")):
        return None  # warned
    return value_or_refused(res, "ndcg_cut_10", 1.0, "r.txt")


@case(WRONG, "issue")
def integer_scores_above_2_53_collapse_into_ties(tmp: Path) -> str | None:
    return _big_ints(tmp, 2**53 + 1, 2**53)


@case(WRONG)
def integer_scores_near_int64_max_collapse_into_ties(tmp: Path) -> str | None:
    return _big_ints(tmp, 2**63 - 1, 2**63 - 2)


@case(WRONG)
def decimal_scores_beyond_float64_precision_collapse(tmp: Path) -> str | None:
    return _big_ints(tmp, "0.10000000000000000001", "0.1")  # type: ignore[arg-type]


def _mutating_ranker(tmp: Path, body: str, predict_body: str = "pass") -> str | None:
    """A custom ranker that writes into the arrays it is given, trained before LightGBM: the
    run must refuse it (naming it) or LightGBM's numbers must be those of a run without it."""
    letor_folder(tmp / "letor")
    mod = f"mutator_{abs(hash((str(tmp), body, predict_body))):x}"  # one module per case: no import cache
    (tmp / f"{mod}.py").write_text(
        "import numpy as np\n"
        "class Mutator:\n"
        "    def __init__(self, seed=0):\n        self.seed = seed\n"
        "    def fit(self, X, y, group=None, **kw):\n"
        f"        {body}\n        return self\n"
        "    def predict(self, X):\n"
        f"        {predict_body}\n        return np.zeros(len(X))\n")
    (tmp / "c.toml").write_text(f'[custom_models.mutator]\nfactory = "{mod}:Mutator"\n')
    sys.path.insert(0, str(tmp))
    base = ("run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
            "--no-crosscheck", "--seeds", "0", "--format", "json")
    with_m = cli(tmp, *base, "--config", "c.toml", "--models", "mutator,lightgbm", "--out", "r1")
    if with_m.status == 2 and not with_m.traceback:
        return refused(with_m, "mutator")
    cli(tmp, *base, "--models", "lightgbm", "--out", "r2")
    a, b = _test_metric(tmp / "r1"), _test_metric(tmp / "r2")
    if with_m.status != 0 or a is None or b is None or not close(a, b, 1e-12):
        return f"exit {with_m.status}: LightGBM ndcg@10 {a} after the mutating ranker, {b} alone"
    return None


def _test_metric(out: Path) -> float | None:
    import pandas as pd

    files = list(out.glob("runs/*/metrics.csv"))
    if not files:
        return None
    m = pd.read_csv(files[0])
    sel = m[(m.model == "lightgbm-lambdarank") & (m.split == "test") & (m.metric == "ndcg@10")]
    return float(sel.value.iloc[0]) if len(sel) else None


@case(WRONG, "issue", slow=True)
def custom_ranker_writing_into_x_in_fit(tmp: Path) -> str | None:
    return _mutating_ranker(tmp, "X[:] = 0")


@case(WRONG, "issue", slow=True)
def custom_ranker_writing_into_y_in_fit(tmp: Path) -> str | None:
    return _mutating_ranker(tmp, "y[:] = y[::-1].copy()")


@case(WRONG, slow=True)
def custom_ranker_scaling_some_rows_of_x_in_fit(tmp: Path) -> str | None:
    return _mutating_ranker(tmp, "X[:5] = X[:5] * 1000.0")


@case(WRONG, "issue", slow=True)
def custom_ranker_writing_into_x_in_predict(tmp: Path) -> str | None:
    return _mutating_ranker(tmp, "pass", "X[:] = 0")


def _ratings_ids(tmp: Path, ids: list[str], role: str) -> str | None:
    """Distinct numeric ids in a ratings table must stay distinct (or be refused)."""
    from bench.data.tabular import load_ratings_table

    rows = [(u, str(10 + n)) if role == "user" else (str(n + 1), u) for n, u in enumerate(ids)]
    write(tmp, {"r.csv": ("u,i,r,t\n" + "".join(f"{u},{i},4,{100 + n}\n"
                                                 for n, (u, i) in enumerate(rows))).encode()})
    r, exc = call(lambda: load_ratings_table(tmp / "r.csv", user="u", item="i", rating="r",
                                             timestamp="t"))
    if exc is not None:
        return api_refused(exc, "r.csv", role[0])
    got = int(r.frame[role].nunique())
    return None if got == len(set(ids)) else (
        f"{len(set(ids))} distinct {role} ids {ids} became {got}: {sorted(set(r.frame[role]))}")


@case(WRONG)
def ratings_user_ids_beyond_int64_written_as_floats_collapse(tmp: Path) -> str | None:
    return _ratings_ids(tmp, ["1e20", "2e20", "3e20"], "user")


@case(WRONG)
def ratings_item_ids_inf_and_big_floats_collapse(tmp: Path) -> str | None:
    return _ratings_ids(tmp, ["inf", "1e300", "-inf"], "item")


@case(WRONG)
def convert_three_users_1e20_2e20_3e20_become_one_query(tmp: Path) -> str | None:
    import json

    rows = ["u,i,r,t"] + [f"{u},{i},{(n + i) % 5 + 1},{100 * n + i}"
                          for n, u in enumerate(["1e20", "2e20", "3e20"]) for i in range(1, 9)]
    write(tmp, {"r.csv": ("\n".join(rows) + "\n").encode()})
    res = cli(tmp, "convert", "--ratings", "r.csv", "--layout", "csv", "--user", "u", "--item",
              "i", "--rating", "r", "--timestamp", "t", "--min-history", "2", "--target-size",
              "2", "--features", "user", "--duplicates", "mean", "--out", "o")
    if res.status == 2 and not res.traceback:
        return refused(res, "r.csv")
    if res.status != 0:
        return f"exit {res.status}: {res.err.strip()[-200:]}"
    text = (tmp / "o/summary.json").read_text()
    queries = [v for k, v in _walk(json.loads(text)) if k == "queries"]
    return None if queries and max(queries) == 3 else (
        f"exit 0: 3 users became {queries} queries per split (ids beyond int64 collapse)")


def _walk(obj: Any) -> list[tuple[str, Any]]:
    if isinstance(obj, dict):
        return [(k, v) for k, v in obj.items()] + [p for v in obj.values() for p in _walk(v)]
    if isinstance(obj, list):
        return [p for v in obj for p in _walk(v)]
    return []


# ------------------------------------------------------------------------------ inputs destroyed
def _convert_over(tmp: Path, name: str, data: bytes, *extra: str) -> str | None:
    write(tmp, {f"data/{name}": data})
    before = snapshot(tmp)
    res = cli(tmp, "convert", "--ratings", f"data/{name}", "--layout", "csv", "--user", "user",
              "--item", "item", "--rating", "rating", "--timestamp", "timestamp",
              "--min-history", "2", "--target-size", "2", "--features", "user", "--out", "data",
              *extra)
    return untouched(before, tmp) or refused(res, name)


def _parquet_ratings() -> bytes:
    import io

    import pandas as pd

    frame = pd.read_csv(io.BytesIO(RATINGS))
    buf = io.BytesIO()
    frame.to_parquet(buf)
    return buf.getvalue()


@case(DESTROYED, "issue")
def convert_ratings_named_train_parquet_into_its_own_folder(tmp: Path) -> str | None:
    return _convert_over(tmp, "train.parquet", _parquet_ratings())


@case(DESTROYED, "issue")
def convert_csv_named_train_txt_into_its_own_folder(tmp: Path) -> str | None:
    return _convert_over(tmp, "train.txt", RATINGS)


@case(DESTROYED)
def convert_csv_named_test_txt_into_its_own_folder(tmp: Path) -> str | None:
    return _convert_over(tmp, "test.txt", RATINGS)


@case(DESTROYED)
def convert_ratings_named_vali_parquet_into_its_own_folder(tmp: Path) -> str | None:
    return _convert_over(tmp, "vali.parquet", _parquet_ratings())


@case(DESTROYED)
def convert_out_holds_a_hard_link_of_the_ratings(tmp: Path) -> str | None:
    write(tmp, {"src/r.csv": RATINGS})
    (tmp / "data").mkdir()
    os.link(tmp / "src/r.csv", tmp / "data/train.txt")
    before = snapshot(tmp / "src")
    res = cli(tmp, "convert", "--ratings", "src/r.csv", "--layout", "csv", "--user", "user",
              "--item", "item", "--rating", "rating", "--timestamp", "timestamp",
              "--min-history", "2", "--target-size", "2", "--features", "user", "--out", "data")
    return untouched(before, tmp / "src") or refused(res, "r.csv")


@case(DESTROYED)
def convert_out_holds_a_symlink_to_the_ratings(tmp: Path) -> str | None:
    write(tmp, {"src/r.csv": RATINGS})
    (tmp / "data").mkdir()
    (tmp / "data/train.txt").symlink_to(tmp / "src/r.csv")
    before = snapshot(tmp / "src")
    res = cli(tmp, "convert", "--ratings", "src/r.csv", "--layout", "csv", "--user", "user",
              "--item", "item", "--rating", "rating", "--timestamp", "timestamp",
              "--min-history", "2", "--target-size", "2", "--features", "user", "--out", "data")
    return untouched(before, tmp / "src") or refused(res, "r.csv")


def _per_query_into(tmp: Path, target: str, *, prepare: Callable[[Path], None],
                    check: Callable[[Path], str | None], child: bool = False) -> str | None:
    write(tmp, {"q.txt": QRELS, "r.txt": RUN})
    prepare(tmp)
    argv = ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10",
            "--per-query", target)
    res = sub(tmp, *argv, timeout=60) if child else cli(tmp, *argv)
    return check(tmp) or refused(res, target)


@case(DESTROYED, "issue")
def per_query_into_a_device_node(tmp: Path) -> str | None:
    def prepare(t: Path) -> None:
        os.mknod(t / "full", 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # a copy of /dev/full

    def check(t: Path) -> str | None:
        mode = os.lstat(t / "full").st_mode
        return None if stat.S_ISCHR(mode) else "the device node was replaced by a file"

    try:
        return _per_query_into(tmp, "full", prepare=prepare, check=check)
    except PermissionError:
        return "SKIP: mknod needs root"


@case(DESTROYED)
def per_query_into_a_fifo(tmp: Path) -> str | None:
    def check(t: Path) -> str | None:
        mode = os.lstat(t / "pipe").st_mode
        return None if stat.S_ISFIFO(mode) else "the FIFO was replaced by a file"

    return _per_query_into(tmp, "pipe", prepare=lambda t: os.mkfifo(t / "pipe"), check=check,
                           child=True)


@case(DESTROYED)
def per_query_through_a_symlink_to_the_qrels(tmp: Path) -> str | None:
    return _per_query_into(tmp, "pq.csv", prepare=lambda t: (t / "pq.csv").symlink_to("q.txt"),
                           check=lambda t: untouched({"q.txt": QRELS}, t))


@case(DESTROYED)
def per_query_is_the_run_by_another_spelling(tmp: Path) -> str | None:
    return _per_query_into(tmp, "sub/../r.txt", prepare=lambda t: (t / "sub").mkdir(),
                           check=lambda t: untouched({"r.txt": RUN}, t))


@case(DESTROYED)
def per_query_is_the_qrels_by_absolute_path(tmp: Path) -> str | None:
    return _per_query_into(tmp, str(tmp / "q.txt"), prepare=lambda t: None,
                           check=lambda t: untouched({"q.txt": QRELS}, t))


@case(DESTROYED)
def per_query_is_the_svmlight_data_through_a_symlinked_folder(tmp: Path) -> str | None:
    write(tmp, {"d/d.txt": DATA, "s.txt": SCORES})
    (tmp / "alias").symlink_to("d")
    res = cli(tmp, "evaluate", "--data", "d/d.txt", "--scores", "s.txt", "--per-query",
              "alias/d.txt")
    return untouched({"d/d.txt": DATA}, tmp) or refused(res, "d.txt")


@case(DESTROYED, slow=True)
def run_out_is_the_dataset_folder(tmp: Path) -> str | None:
    letor_folder(tmp / "letor")
    before = snapshot(tmp / "letor")
    res = cli(tmp, "run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
              "--no-crosscheck", "--models", "random", "--seeds", "0", "--out", "letor")
    return untouched(before, tmp / "letor") or refused(res, "letor")


# ------------------------------------------------------------------------------ unclear errors
@case(UNCLEAR, "issue")
def qrels_relevance_above_31_names_the_file_and_line(tmp: Path) -> str | None:
    write(tmp, {"q.txt": QRELS.replace(b"1 0 c 2", b"1 0 c 100"), "r.txt": RUN})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile", "ltrbench",
              "--metrics", "ndcg@10")
    return refused(res, "q.txt:3", "100")


@case(UNCLEAR)
def qrels_relevance_above_30_under_lightgbm_names_the_file(tmp: Path) -> str | None:
    write(tmp, {"q.txt": QRELS.replace(b"2 0 d 1", b"2 0 d 31"), "r.txt": RUN})
    res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--profile", "lightgbm",
              "--metrics", "ndcg@10")
    return refused(res, "q.txt:4", "31")


@case(UNCLEAR)
def label_above_31_names_the_file_and_line(tmp: Path) -> str | None:
    write(tmp, {"d.txt": DATA.replace(b"2 qid:1", b"100 qid:1"), "s.txt": SCORES})
    res = cli(tmp, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--metrics", "ndcg@10")
    return refused(res, "d.txt:1", "100")


@case(UNCLEAR, slow=True)
def label_above_31_in_a_training_split_names_the_file(tmp: Path) -> str | None:
    letor_folder(tmp / "letor")
    p = tmp / "letor/train.txt"
    lines = p.read_bytes().split(b"\n")
    lines[4] = b"100" + lines[4][1:]
    p.write_bytes(b"\n".join(lines))
    res = cli(tmp, "run", "--dataset", "./letor", "--quick", "--no-cache", "--no-progress",
              "--no-crosscheck", "--models", "lightgbm", "--seeds", "0", "--out", "res")
    return refused(res, "train.txt", "100")


def _not_a_dataset(tmp: Path, make: Callable[[Path], None]) -> str | None:
    letor_folder(tmp / "src")
    (tmp / "ds").mkdir()
    make(tmp)
    res = cli(tmp, "run", "--dataset", "./ds", "--quick", "--no-cache", "--no-progress",
              "--no-crosscheck", "--models", "random", "--seeds", "0", "--out", "res")
    return refused(res, "test.txt")


@case(UNCLEAR, "issue")
def dataset_folder_whose_test_file_is_a_broken_link(tmp: Path) -> str | None:
    def make(t: Path) -> None:
        for s in ("train", "vali"):
            (t / f"ds/{s}.txt").write_bytes((t / f"src/{s}.txt").read_bytes())
        (t / "ds/test.txt").symlink_to("nosuch.txt")
    return _not_a_dataset(tmp, make)


@case(UNCLEAR)
def dataset_folder_whose_test_file_is_a_directory(tmp: Path) -> str | None:
    def make(t: Path) -> None:
        for s in ("train", "vali"):
            (t / f"ds/{s}.txt").write_bytes((t / f"src/{s}.txt").read_bytes())
        (t / "ds/test.txt").mkdir()
    return _not_a_dataset(tmp, make)


@case(UNCLEAR)
def dataset_fold_folder_without_its_test_file(tmp: Path) -> str | None:
    def make(t: Path) -> None:
        (t / "ds/Fold1").mkdir()
        for s in ("train", "vali"):
            (t / f"ds/Fold1/{s}.txt").write_bytes((t / f"src/{s}.txt").read_bytes())
    return _not_a_dataset(tmp, make)


@case(UNCLEAR)
def dict_run_with_a_nan_score_names_its_keys(tmp: Path) -> str | None:
    from bench.metrics import evaluate_trec

    _, exc = call(lambda: evaluate_trec({"q1": {"dA": 1}}, {"q1": {"dA": float("nan")}},
                                        metrics="map"))
    err = api_refused(exc, "q1", "dA")
    return err or ("names column 'None'" if "None" in str(exc) else None)


def _bad_key(qrels: dict[Any, Any], run: dict[Any, Any], key: str) -> str | None:
    from bench.metrics import evaluate_trec

    _, exc = call(lambda: evaluate_trec(qrels, run, metrics="map"))
    err = api_refused(exc, key)
    return err or ("names row 1, column 'None'" if "column 'None'" in str(exc) else None)


@case(UNCLEAR, "issue")
def dict_qrels_with_a_float_query_id_names_the_key(tmp: Path) -> str | None:
    return _bad_key({1.5: {"dA": 1}}, {"1.5": {"dA": 1.0}}, "1.5")


@case(UNCLEAR)
def dict_run_with_a_none_document_id_names_the_keys(tmp: Path) -> str | None:
    return _bad_key({"q1": {"dA": 1}}, {"q1": {None: 1.0}}, "q1")


@case(UNCLEAR)
def dict_run_with_a_bool_query_id_names_the_key(tmp: Path) -> str | None:
    return _bad_key({"q1": {"dA": 1}}, {True: {"dA": 1.0}}, "True")


@case(UNCLEAR)
def dict_qrels_with_a_text_relevance_names_its_keys(tmp: Path) -> str | None:
    from bench.metrics import evaluate_trec

    _, exc = call(lambda: evaluate_trec({"q1": {"dA": "high"}}, {"q1": {"dA": 1.0}},
                                        metrics="map"))
    err = api_refused(exc, "q1", "dA")
    return err or ("names column 'None'" if "None" in str(exc) else None)


@case(UNCLEAR)
def frame_qrels_with_a_fractional_relevance_names_row_and_column(tmp: Path) -> str | None:
    import pandas as pd

    from bench.metrics import evaluate_trec

    q = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1, 1.5]})
    _, exc = call(lambda: evaluate_trec(q, {"1": {"a": 1.0}}, metrics="map"))
    return api_refused(exc, "rel", "row 2")


@case(UNCLEAR)
def arrays_with_a_nan_score_name_the_row(tmp: Path) -> str | None:
    from bench.metrics import evaluate

    _, exc = call(lambda: evaluate([1, 0, 1], [0.1, float("nan"), 0.3], group=[3]))
    return api_refused(exc, "row 2")


@case(UNCLEAR, "issue")
def full_disk_names_the_path(tmp: Path) -> str | None:
    import builtins
    import errno

    write(tmp, {"q.txt": QRELS, "r.txt": RUN})
    real_open = builtins.open

    class Full:
        def __init__(self, f: Any) -> None:
            self.f = f

        def write(self, *_: Any) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, k: str) -> Any:
            return getattr(self.f, k)

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *a: Any) -> None:
            self.f.close()

    def fake_open(file: Any, mode: str = "r", *a: Any, **k: Any) -> Any:
        f = real_open(file, mode, *a, **k)
        return Full(f) if "pq" in os.fspath(file) and ("w" in mode or "a" in mode) else f

    builtins.open = fake_open  # type: ignore[assignment]
    try:
        res = cli(tmp, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "pq.csv")
    finally:
        builtins.open = real_open
    return refused(res, "pq", "No space left")
