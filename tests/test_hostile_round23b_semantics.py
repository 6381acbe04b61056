"""Round 23b of the hostile catalogue (issue 19, items 2 and 5): the IR methods reviewer who reads
what each number means (held-out classes "comparisons" and "names").

Every metric is either a measure of a ranking's quality, with a direction (higher is better, or
lower: fall-out, ARP, RMSE), or a number that is no quality at all (RBP's residual: how much
the unjudged documents could still add; ir_measures' ``Judged@k``: pool coverage; the counts
``num_ret``/``num_rel``). A comparison, a leaderboard or its bold "best" cell built on the
second kind crowns a run by the wrong reading. Then: tie breaking under ``trec_eval`` where
arrays carry no document id (trec_eval breaks ties by document id descending: a row index
stands in, and that must be said); the names a reviewer types from another tool
(``mrr_at_10``, Recommenders' ``r_precision_at_k``); and the user's spelling in every message.

Golden values: pytrec_eval (the ties), hand arithmetic (RBP's residual: Moffat & Zobel 2008,
``p^k`` plus ``(1 - p) p^(i-1)`` per unjudged rank i of the top k), torchmetrics' published
``higher_is_better`` class attributes (``torchmetrics/retrieval/*.py``; not installed here,
written down: every retrieval class is ``True`` except ``RetrievalFallOut``, ``False``).

Classes: [wrong] silently wrong number, [accept] silent accept, [trace] traceback,
[unclear] unclear error.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli, refused, write_run_tables

from bench.errors import LtrbenchError
from bench.metrics import evaluate
from bench.report.compare_runs import compare_runs

pytrec_eval = pytest.importorskip("pytrec_eval")

# Four queries, three judged documents each: r relevant, n and m not.
Q = {str(q): {"r": 1, "n": 0, "m": 0} for q in range(4)}
#: r first in every query: no judged non-relevant document above it.
CLEAN = {str(q): {"r": 0.9, "n": 0.5, "m": 0.1} for q in range(4)}
#: n first, an unjudged document zz third.
NOISY = {str(q): {"n": 0.9, "r": 0.5, "zz": 0.1} for q in range(4)}


def _quiet(fn: Any, *args: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _compare(metrics: Any) -> tuple[Any, BaseException | None]:
    return call(lambda: _quiet(compare_runs, Q, {"noisy": NOISY, "clean": CLEAN},
                               metrics=metrics, n_bootstrap=50, n_permutations=100))


# ============================================================= comparisons: no quality, no best
@pytest.mark.parametrize("name", ["rbp_residual@3", "RBP_residual(0.9)@5", "Judged@2",
                                  "judged@3", "rbp_residual"])
def test_a_comparison_refuses_a_primary_metric_that_measures_no_quality(name: str) -> None:
    """[accept] RBP's residual is the uncertainty left (Moffat & Zobel 2008), Judged@k the
    judged share of the top k: neither says which run ranks better, so neither may pick the
    best run and anchor the paired tests. Refused, the name as the user wrote it."""
    _, exc = _compare(name)
    assert api_refused(exc, name, "quality") is None, api_refused(exc, name, "quality")


def test_the_residual_as_a_second_metric_keeps_its_value_and_crowns_nothing() -> None:
    """[wrong] After a quality measure the residual is reported, by hand: 'clean' judges all of
    its top 3, 0.8^3 = 0.512; 'noisy' has zz unjudged at rank 3, 0.512 + 0.2 * 0.8^2 = 0.64;
    the best run is ndcg's ('clean'), not the larger residual's."""
    c, exc = _compare(["ndcg@3", "rbp_residual@3"])
    assert exc is None, exc
    assert c.mean["rbp_residual@3"].tolist() == pytest.approx([0.64, 0.512], abs=1e-12)
    assert c.best == "clean"


def test_the_fall_out_alias_as_the_primary_metric_crowns_the_lowest() -> None:
    """[wrong] ``fall_out@1`` (torchmetrics' spelling) is fall-out: lower is better, as
    ``fallout@1``; 'noisy' puts n first in every query (1/2 of the judged non-relevant)."""
    c, exc = _compare("fall_out@1")
    assert exc is None, exc
    assert c.mean["fall_out@1"].tolist() == [0.5, 0.0]
    assert c.best == "clean"


def test_a_comparison_states_the_best_is_the_lowest_for_a_lower_is_better_metric() -> None:
    """[unclear] The statistics line under a fall-out comparison says the best run is the one
    with the lowest mean (a reader assumes the highest otherwise)."""
    c, exc = _compare("fallout@1")
    assert exc is None, exc
    assert "lowest" in c.statistics(), c.statistics()
    d, _ = _compare("ndcg@3")
    assert "highest" in d.statistics(), d.statistics()


def test_the_paired_test_of_arp_is_against_the_lowest_rank() -> None:
    """[wrong] ARP is a rank (lower is better): 'clean' has its relevant document at rank 1
    (ARP 1), 'noisy' at rank 2 (ARP 2) in every query; 'noisy' is tested against 'clean',
    every difference the same sign: exact sign-flip p = 2 / 2^4 = 0.125."""
    c, exc = _compare("arp")
    assert exc is None, exc
    assert c.best == "clean"
    runs = {r["name"]: r for r in c.as_dict()["runs"]}
    assert runs["clean"]["vs_best"] is None
    assert runs["noisy"]["vs_best"]["p_randomization"] == pytest.approx(0.125)


def test_the_compare_command_refuses_a_residual_first_in_the_users_spelling(tmp_path: Path) -> None:
    """[accept] ``evaluate --run a --run b --metrics RBP_residual@10``: refused, exit 2, the
    name as typed."""
    from hostile_kit import trec_bytes

    (tmp_path / "q").write_bytes(trec_bytes(Q, "qrels"))
    (tmp_path / "a").write_bytes(trec_bytes(CLEAN, "run"))
    (tmp_path / "b").write_bytes(trec_bytes(NOISY, "run"))
    res = cli(tmp_path, "evaluate", "--qrels", "q", "--run", "a", "--run", "b",
              "--metrics", "RBP_residual@10")
    assert refused(res, "RBP_residual@10", "quality") is None, refused(res, "RBP_residual@10",
                                                                      "quality")


# ======================================================================= report: the leaderboard
def _run(root: Path, metrics: dict[str, dict[str, list[float]]], rid: str = "r1") -> Path:
    """A finished one-seed run of dataset 'toy': ``metrics`` maps each metric to each model's
    per-query values (metrics.csv holds their means)."""
    run = root / f"20260101-000000-toy-{rid}"
    run.mkdir(parents=True)
    models = list(next(iter(metrics.values())))
    (run / "config.toml").write_text(
        f'dataset = "toy"\nprofile = "ltrbench"\nmodels = {json.dumps(models)}\nseeds = [0]\n'
        "quick = true\n", encoding="utf-8")
    (run / "manifest.json").write_text(json.dumps(
        {"finished": "2026-01-01T00:00:00+00:00", "seeds": [0], "models": {m: {} for m in models},
         "evaluation": {"profile": "ltrbench"}, "dataset": {"name": "toy"}}), encoding="utf-8")
    m_rows, p_rows, t_rows = [], [], []
    for metric, per_model in metrics.items():
        for m, vals in per_model.items():
            lib = {"lightgbm-lambdarank": "lightgbm", "random": "baseline"}.get(m, "custom")
            p_rows += [("toy", m, 0, "test", str(q), metric, v) for q, v in enumerate(vals)]
            m_rows.append(("toy", m, lib, 0, "test", metric, float(np.mean(vals)), "ltrbench"))
    for m in models:
        lib = {"lightgbm-lambdarank": "lightgbm", "random": "baseline"}.get(m, "custom")
        t_rows.append(("toy", m, lib, 0, 1.0, 0.01, 100.0, 10, 10))
    return write_run_tables(run, m_rows, p_rows, t_rows)


def _fast() -> Any:
    from bench.report.build import LeaderboardOptions

    return LeaderboardOptions(bootstrap_resamples=50, randomization_resamples=100)


#: lightgbm ranks well and judges its top 10; random ranks badly, its top 10 mostly unjudged.
LGB_RND = {"lightgbm-lambdarank": [0.1, 0.0, 0.2, 0.1], "random": [0.6, 0.5, 0.7, 0.9]}
GOOD = {"lightgbm-lambdarank": [0.8, 0.7, 0.9, 0.6], "random": [0.1, 0.2, 0.0, 0.1]}


def test_report_refuses_the_residual_as_primary(tmp_path: Path) -> None:
    """[accept] ``report --primary rbp_residual@10``: the leaderboard would crown 'random'
    (the larger residual, 0.675) as best; refused, exit 2, naming it as typed."""
    run = _run(tmp_path / "runs", {"rbp_residual@10": LGB_RND, "ndcg@10": GOOD})
    res = cli(tmp_path, "report", "--runs", str(run), "--out", str(tmp_path / "o"), "--no-plots",
              "--bootstrap", "50", "--permutations", "100", "--primary", "RBP_residual@10")
    assert refused(res, "RBP_residual@10", "quality") is None, refused(res, "RBP_residual@10",
                                                                      "quality")


@pytest.mark.parametrize("typed", ["Fallout@10", "NDCG@5"])
def test_report_primary_missing_from_the_run_keeps_the_users_spelling(tmp_path: Path,
                                                                      typed: str) -> None:
    """[unclear] A ``--primary`` the run lacks is refused quoting the name as typed
    (``Fallout@10``, not ``fallout@10``)."""
    run = _run(tmp_path / "runs", {"ndcg@10": GOOD})
    res = cli(tmp_path, "report", "--runs", str(run), "--out", str(tmp_path / "o"), "--no-plots",
              "--bootstrap", "50", "--permutations", "100", "--primary", typed)
    assert refused(res, f"--primary {typed}") is None, refused(res, f"--primary {typed}")


def test_report_metrics_missing_from_the_run_keep_the_users_spelling(tmp_path: Path) -> None:
    """[unclear] ``--metrics Fallout@10,NDCG@10``: the one the run lacks is quoted as typed."""
    run = _run(tmp_path / "runs", {"ndcg@10": GOOD})
    res = cli(tmp_path, "report", "--runs", str(run), "--out", str(tmp_path / "o"), "--no-plots",
              "--metrics", "Fallout@10,NDCG@10")
    assert refused(res, "--metrics Fallout@10:") is None, refused(res, "--metrics Fallout@10:")


def test_report_metrics_led_by_the_residual_take_the_next_as_primary(tmp_path: Path) -> None:
    """[wrong] ``metrics=("rbp_residual@10", "p@10")`` without a primary: the default primary is
    the first of them with a best run, p@10 (lightgbm), not the residual (random)."""
    from bench.report.build import LeaderboardOptions
    from bench.report.leaderboard import write_leaderboard

    run = _run(tmp_path / "runs", {"rbp_residual@10": LGB_RND, "p@10": GOOD})
    opts = LeaderboardOptions(metrics=("rbp_residual@10", "p@10"), bootstrap_resamples=50,
                              randomization_resamples=100)
    doc, exc = call(lambda: _quiet(write_leaderboard, [run], tmp_path / "o", options=opts,
                                   plots=False))
    assert exc is None, exc
    table = doc["document"]["tables"][0]
    assert (table["primary_metric"], table["best_model"]) == ("p@10", "lightgbm-lambdarank")


def test_report_api_refuses_the_residual_as_primary(tmp_path: Path) -> None:
    """[accept] The Python door: ``LeaderboardOptions(primary='rbp_residual@10')``."""
    from bench.report.build import LeaderboardOptions
    from bench.report.leaderboard import write_leaderboard

    run = _run(tmp_path / "runs", {"rbp_residual@10": LGB_RND, "ndcg@10": GOOD})
    _, exc = call(lambda: write_leaderboard(
        [run], tmp_path / "o", options=LeaderboardOptions(
            metrics=("rbp_residual@10", "ndcg@10"), primary="rbp_residual@10",
            bootstrap_resamples=50), plots=False))
    assert api_refused(exc, "rbp_residual@10", "quality") is None, api_refused(
        exc, "rbp_residual@10", "quality")


def test_report_default_primary_skips_a_first_metric_that_measures_no_quality(
        tmp_path: Path) -> None:
    """[wrong] A run without ndcg@10 whose first metric is the residual: the default primary is
    the run's first quality measure (p@10: lightgbm best), not the residual (random)."""
    run = _run(tmp_path / "runs", {"rbp_residual@10": LGB_RND, "p@10": GOOD})
    from bench.report.leaderboard import write_leaderboard

    doc, exc = call(lambda: _quiet(write_leaderboard, [run], tmp_path / "o",
                                   options=_fast(), plots=False))
    assert exc is None, exc
    table = doc["document"]["tables"][0]
    assert table["primary_metric"] == "p@10"
    assert table["best_model"] == "lightgbm-lambdarank"


def test_report_bolds_no_best_cell_in_a_column_that_measures_no_quality(tmp_path: Path) -> None:
    """[wrong] "Best value per column in bold": a residual column has no best value; random's
    0.6750 residual printed in bold reads as a win."""
    run = _run(tmp_path / "runs", {"ndcg@10": GOOD, "rbp_residual@10": LGB_RND})
    from bench.report.leaderboard import write_leaderboard

    _, exc = call(lambda: _quiet(write_leaderboard, [run], tmp_path / "o",
                                 options=_fast(), plots=False))
    assert exc is None, exc
    md = (tmp_path / "o" / "leaderboard.md").read_text(encoding="utf-8")
    assert "**0.6750**" not in md
    assert "**0.7500**" in md  # lightgbm's ndcg@10 mean is still the best


def test_report_verdict_on_fall_out_says_lower_is_better(tmp_path: Path) -> None:
    """[unclear] "Verdict: best fallout@10 is lightgbm-lambdarank (0.1000)" reads as the highest
    fall-out winning; the verdict says the lowest is the best."""
    from bench.report.leaderboard import write_leaderboard

    run = _run(tmp_path / "runs", {"fallout@10": LGB_RND})
    _, exc = call(lambda: _quiet(write_leaderboard, [run], tmp_path / "o", options=_fast(),
                                 plots=False))
    assert exc is None, exc
    md = (tmp_path / "o" / "leaderboard.md").read_text(encoding="utf-8")
    assert "Verdict: best fallout@10 is lightgbm-lambdarank (0.1000, the lowest: lower is " \
           "better)" in md, md[:1500]


# ================================================================= metrics list: the direction
def _listing() -> dict[str, Any]:
    res = cli(Path.cwd(), "metrics", "list", "--format", "json")
    assert res.status == 0, res.err
    return json.loads(res.out)  # type: ignore[no-any-return]


def test_metrics_list_names_every_familys_direction() -> None:
    """[unclear] ``ltrbench metrics list --format json``: every row says which way is better:
    ``higher``, ``lower`` (fall-out, ARP, RMSE, MAE) or ``none`` (no quality measure: the
    residual, Judged, the counts)."""
    rows = _listing()["names"]
    by_family: dict[str, set[str]] = {}
    for r in rows:
        assert r.get("better") in ("higher", "lower", "none"), r
        by_family.setdefault(r["family"], set()).add(r["better"])
    want = {"ndcg": "higher", "map": "higher", "gm_map": "higher", "auc": "higher",
            "fallout": "lower", "arp": "lower", "rmse": "lower", "mae": "lower",
            "rbp_residual": "none", "judged": "none", "num_ret": "none", "num_rel": "none",
            "num_q": "none", "rbp": "higher", "infap": "higher", "opa": "higher"}
    for family, better in want.items():
        assert by_family.get(family) == {better}, (family, by_family.get(family))


# torchmetrics' ``higher_is_better`` (``torchmetrics/retrieval/*.py``, 1.4-1.7): every retrieval
# class True except RetrievalFallOut.
TORCHMETRICS_HIGHER = {"RetrievalNormalizedDCG": True, "RetrievalMAP": True, "RetrievalMRR": True,
                       "RetrievalPrecision": True, "RetrievalRecall": True,
                       "RetrievalHitRate": True, "RetrievalFallOut": False,
                       "RetrievalRPrecision": True, "RetrievalAUROC": True}


def test_each_torchmetrics_class_direction_is_the_familys() -> None:
    """[wrong] The family a torchmetrics class computes (the class name typed is answered with
    it) has the class's ``higher_is_better``."""
    from bench.metrics.name_hints import PEER_FUNCTIONS
    from bench.metrics.names import parse_metrics

    better = {r["family"]: r["better"] for r in _listing()["names"]}
    for cls, higher in TORCHMETRICS_HIGHER.items():
        name = PEER_FUNCTIONS[cls.lower()][1]
        family = parse_metrics(name)[0].family
        assert better[family] == ("higher" if higher else "lower"), (cls, family)


# ====================================================== ties under trec_eval without document ids
Y = np.array([1, 0, 0, 0, 1, 0, 2, 1, 0], dtype=float)
S = np.array([0.5, 0.5, 0.5, 0.9, 0.3, 0.3, 0.8, 0.1, 0.4])  # q1: rows 0-2 tied; q2: 4, 5 tied
QID = np.array([1, 1, 1, 2, 2, 2, 3, 3, 3])


def _pytrec_arrays(measure: str, key: str, ids: list[str]) -> float:
    """pytrec_eval with ``ids`` as the document ids of the rows (its tie rule: id descending)."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i, (y, s, q) in enumerate(zip(Y, S, QID, strict=True)):
        qrels.setdefault(str(q), {})[ids[i]] = int(y)
        run.setdefault(str(q), {})[ids[i]] = float(s)
    per = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return float(np.mean([v[key] for v in per.values()]))


def _tie_warnings(**kw: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = evaluate(Y, S, qid=QID, **kw)
    return got, [str(w.message) for w in caught if "tie" in str(w.message).lower()]


@pytest.mark.parametrize("profile", ["trec_eval", "trec_eval-c", "gdeval"])
def test_arrays_under_a_docid_tie_rule_warn_once_naming_the_tied_queries(profile: str) -> None:
    """[wrong] Arrays have no document ids, so trec_eval's rule (id descending) cannot be
    applied: the row index stands in. Said once per call: how many queries have tied scores
    (2 of 3) and the rule used (the later row first)."""
    _, said = _tie_warnings(metrics=["map", "ndcg@10", "mrr"], profile=profile)
    assert len(said) == 1, said
    assert "2 of 3 queries" in said[0], said[0]
    assert "row" in said[0], said[0]
    assert "docno" in said[0], said[0]


def test_msmarco_arrays_with_ties_say_the_ascending_rule() -> None:
    """[wrong] ``msmarco`` orders ties by document id ascending: the row index stands in, the
    earlier row first, said."""
    _, said = _tie_warnings(metrics=["mrr@10"], profile="msmarco")
    assert len(said) == 1, said
    assert "earlier row first" in said[0], said


def test_subtopic_labels_under_trec_eval_with_ties_warn_too() -> None:
    """[wrong] ``evaluate(..., subtopics=ROWS, profile="trec_eval")``: alpha-nDCG ranks the
    rows by the same stand-in rule; said (2 of 3 queries tied in the top 3)."""
    sub = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1], [1, 0], [0, 1], [1, 1]])
    _, said = _tie_warnings(metrics=["alpha_ndcg@3"], profile="trec_eval", subtopics=sub)
    assert said, said
    assert "2 of 3 queries" in said[0], said[0]


def test_arrays_without_ties_under_trec_eval_say_nothing() -> None:
    """[accept] No tied score: nothing to say."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(Y, S + np.arange(9) * 1e-3, qid=QID, metrics=["map"], profile="trec_eval")
    assert not [w for w in caught if "tie" in str(w.message).lower()]


def test_the_row_index_rule_equals_pytrec_eval_with_row_numbers_as_ids() -> None:
    """[wrong] The value under the stand-in rule is pytrec_eval's with the row numbers as
    document ids of one width (byte order = row order): MAP and RR."""
    got, _ = _tie_warnings(metrics=["map", "mrr"], profile="trec_eval")
    ids = [f"{i:03d}" for i in range(9)]
    assert got.metrics["map"] == pytest.approx(_pytrec_arrays("map", "map", ids), abs=1e-12)
    assert got.metrics["mrr"] == pytest.approx(
        _pytrec_arrays("recip_rank", "recip_rank", ids), abs=1e-12)


def test_document_ids_given_break_ties_as_pytrec_eval_and_say_nothing() -> None:
    """[wrong] With ``docno=`` the ties follow trec_eval's rule: no warning, pytrec_eval's MAP
    with those ids (reversed from the row order here)."""
    ids = [f"d{9 - i}" for i in range(9)]
    got, said = _tie_warnings(metrics=["map"], profile="trec_eval", docno=np.array(ids))
    assert not said, said
    assert got.metrics["map"] == pytest.approx(_pytrec_arrays("map", "map", ids), abs=1e-12)


def test_evaluate_command_on_svmlight_under_trec_eval_warns_of_the_stand_in(tmp_path: Path
                                                                          ) -> None:
    """[wrong] ``evaluate --data f.svm --scores s.txt --profile trec_eval``: SVMlight rows have
    no document id; one ``warning:`` line names the tied queries and the row rule."""
    lines = [f"{int(y)} qid:{q} 1:{i}" for i, (y, q) in enumerate(zip(Y, QID, strict=True))]
    (tmp_path / "f.svm").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text("\n".join(str(s) for s in S) + "\n", encoding="utf-8")
    res = cli(tmp_path, "evaluate", "--data", "f.svm", "--scores", "s.txt", "--profile",
              "trec_eval", "--metrics", "map")
    assert res.status == 0, res.err
    said = [ln for ln in res.err.splitlines() if "tie" in ln.lower()]
    assert len(said) == 1, res.err
    assert "2 of 3 queries" in said[0], res.err


# ============================================================================ names from other tools
@pytest.mark.parametrize(("typed", "first"), [("mrr_at_10", "mrr@10"), ("err_at_10", "err@10"),
                                              ("ap_at_5", "ap@5"), ("hits_at_5", "hits@5")])
def test_a_name_at_k_suggests_the_same_name_at_k_first(typed: str, first: str) -> None:
    """[unclear] ``mrr_at_10`` is mrr@10: that is the suggestion, not the diversity metric
    ``nerr_ia@10`` beside it (nor ``P_IA@10`` for ``ap_at_5``)."""
    _, exc = call(lambda: evaluate(Y, S, qid=QID, metrics=[typed]))
    assert api_refused(exc, typed) is None
    text = str(exc).split("did you mean", 1)[-1]
    assert text.strip().startswith(first), str(exc)[-200:]
    assert "ia@" not in text.lower(), str(exc)[-200:]


@pytest.mark.parametrize("typed", ["r_precision_at_k", "r_precision_at_5"])
def test_recommenders_r_precision_at_k_is_answered(typed: str) -> None:
    """[unclear] Microsoft Recommenders' ``r_precision_at_k`` (python_evaluation.py): its mean
    is over the users with a hit in their top min(k, R) only (pandas' mean skips the NaN of the
    others), which no profile reproduces: the answer names the function, says it is not
    offered, and names rprec@k (the same per-user value, R-precision of the run cut at k), not
    the intent-aware precision_ia."""
    _, exc = call(lambda: evaluate(Y, S, qid=QID, metrics=[typed]))
    msg = str(exc)
    assert api_refused(exc, typed, "Recommenders", "rprec@") is None, msg[-300:]
    assert "precision_ia" not in msg.split("(it is not a name")[-1], msg[-300:]


def test_recommenders_spelling_keeps_its_k() -> None:
    """[unclear] ``r_precision_at_5``: the answer's name is rprec@5 (k as typed)."""
    _, exc = call(lambda: evaluate(Y, S, qid=QID, metrics=["r_precision_at_5"]))
    assert isinstance(exc, LtrbenchError), exc
    assert "rprec@5" in str(exc), exc


@pytest.mark.parametrize(("typed", "want"), [("r_precision@10", "rprec@10"), ("R-Precision@5", "rprec@5"),
                                             ("mrr_at_k", "mrr@10"), ("err_at_k", "err@10")])
def test_r_precision_and_literal_k_spellings_suggest_the_same_measure(typed: str, want: str
                                                                       ) -> None:
    """[unclear] R-precision written as other tools do is rprec (not precision@10, a different
    measure); a function's ``_at_k`` with the letter k is the name at a number (not nerr_ia)."""
    _, exc = call(lambda: evaluate(Y, S, qid=QID, metrics=[typed]))
    assert api_refused(exc, typed) is None
    text = str(exc).split("did you mean", 1)[-1]
    assert text.strip().startswith(want), str(exc)[-200:]


@pytest.mark.parametrize("typed", ["novelty", "serendipity", "catalog_coverage"])
def test_recommenders_beyond_accuracy_functions_are_said_not_offered(typed: str) -> None:
    """[unclear] Recommenders' novelty, serendipity, catalog coverage measure the items
    recommended, not a ranking against judgments: answered as not offered, by name."""
    _, exc = call(lambda: evaluate(Y, S, qid=QID, metrics=[typed]))
    assert api_refused(exc, typed, "Recommenders", "not offered") is None, str(exc)[-300:]
