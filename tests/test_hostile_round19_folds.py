"""Round 19, hostile (issue 19): a reviewer checking a paper's five-fold LETOR numbers made with
``ltrbench run --folds``. Every printed number of the fold table is recomputed by hand from the
fold runs' own files (``metrics.csv`` read with :mod:`csv`, ``per_query.parquet`` with pyarrow),
with :mod:`statistics` (sample vs population std), the parts' ``qid:`` fields read by hand
(which queries each part holds), and an exact sign-flip enumeration plus Holm's step-down
written out by hand (the p-values); then the protocol's edges are tried: a ``Fold3/`` that is not what ``S1..S5``
build, fold runs of two datasets or one fold twice, names that end as a fold, the order of
``--folds``, a fold run deleted after its table was written.

One real five-fold run (the ``random`` model, one seed, 15 queries in five parts, one query
without a relevant document) is shared by the cases that need it; the statistics of several
models are checked on fold runs written by hand (no training). Each case names its class
(issue 19): wrong number, silent accept, unclear error, traceback, input destroyed.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import statistics
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from tests.hostile_kit import ROOT, cli, letor_split, own_error, refused, snapshot, untouched

#: The published LETOR rotation (MSLR-WEB download page, Qin & Liu 2013, section 3), written
#: out as the README's table of it: fold -> (train parts, vali part, test part).
PUBLISHED = {1: ((1, 2, 3), 4, 5), 2: ((2, 3, 4), 5, 1), 3: ((3, 4, 5), 1, 2),
             4: ((4, 5, 1), 2, 3), 5: ((5, 1, 2), 3, 4)}


def _parts(root: Path, n: int = 3) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(1, 6):
        (root / f"S{i}.txt").write_bytes(letor_split(n, 100 * i, i))
    return root


def _rows(path: Path) -> list[tuple[float, int]]:
    """(label, qid) of each data line, read by hand: the first field and the ``qid:`` field
    (the SVMlight grammar; no comments or blank lines in these files)."""
    out = []
    for line in path.read_text(encoding="ascii").splitlines():
        fields = line.split()
        out.append((float(fields[0]), int(fields[1].removeprefix("qid:"))))
    return out


def _qids(path: Path) -> list[int]:
    return [q for _, q in _rows(path)]


# ------------------------------------------------------------------ one shared real fold run
@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``run_folds`` over five parts of three queries; query 201 (in S2, Fold3's test part) has
    no relevant document. One seed of ``random`` (test_benchmark_folds averages two)."""
    from bench.benchmark.config import RunConfig
    from bench.benchmark.folds import run_folds

    base = tmp_path_factory.mktemp("folds19")
    root = _parts(base / "root")
    s2 = root / "S2.txt"
    s2.write_bytes(b"".join((b"0" + ln[1:] if b" qid:201 " in ln else ln) + b"\n"
                            for ln in s2.read_bytes().splitlines()))
    cfg = RunConfig(dataset=str(root), models=("random",), seeds=(0,), quick=True,
                    crosscheck=False, metrics=("ndcg@10", "map@10"))
    earlier = base / "out" / "folds" / "root-folds12345.json"  # an earlier five-fold run's
    earlier.parent.mkdir(parents=True)
    earlier.write_text(json.dumps({"dataset": "root", "folds": [f"Fold{k}" for k in range(1, 6)],
                                   "runs": [f"runs/root-Fold{k}-earlier" for k in range(1, 6)],
                                   "tables": []}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_folds(cfg, (1, 2, 3, 4, 5), out_dir=base / "out", progress=False)
    doc = json.loads(result.json.read_text(encoding="utf-8"))
    return {"base": base, "root": root, "result": result, "doc": doc,
            "md": result.markdown.read_text(encoding="utf-8"),
            "said": [str(w.message) for w in caught]}


def _table(done: dict[str, Any], metric: str = "ndcg@10") -> dict[str, Any]:
    return next(t for t in done["doc"]["tables"] if t["metric"] == metric)


def _metrics_csv(run: Path) -> list[dict[str, str]]:
    with open(run / "metrics.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _fold_value(run: Path, metric: str, model: str = "random") -> float:
    """The run's test mean of ``metric`` averaged over its seeds, read with csv."""
    rows = [float(r["value"]) for r in _metrics_csv(run) if r["split"] == "test"
            and r["metric"] == metric and r["model"] == model and r["profile"] == "ltrbench"]
    return statistics.fmean(rows)


def _per_query(run: Path, metric: str, model: str = "random") -> dict[int, float]:
    """qid -> the test value of ``metric`` averaged over seeds (pyarrow, by hand)."""
    t = pq.read_table(run / "per_query.parquet").to_pylist()
    got: dict[int, list[float]] = {}
    for r in t:
        if r["split"] == "test" and r["metric"] == metric and r["model"] == model:
            value = r["value"]
            got.setdefault(int(r["qid"]), []).append(math.nan if value is None else value)
    return {q: statistics.fmean(v) for q, v in got.items() if not any(map(math.isnan, v))}


def _md_row(done: dict[str, Any], metric: str, model: str = "random") -> list[str]:
    block = done["md"].split(f"**root**: {metric} on the test folds")[1].split("**root**")[0]
    line = next(ln for ln in block.splitlines() if ln.startswith(f"| {model} "))
    return [c.strip() for c in line.strip("|").split("|")]


@pytest.mark.parametrize("metric", ["ndcg@10", "map@10"])
def test_fold_values_are_each_runs_test_mean_over_seeds(done: dict[str, Any],
                                                        metric: str) -> None:
    """Wrong number: each FoldK cell is that fold run's metrics.csv test mean over seeds."""
    row = _table(done, metric)["rows"][0]
    want = [_fold_value(r, metric) for r in done["result"].runs]
    assert row["per_fold"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("metric", ["ndcg@10", "map@10"])
def test_the_std_over_folds_is_the_sample_std_of_statistics_stdev(done: dict[str, Any],
                                                                   metric: str) -> None:
    """Wrong number: 'mean ± std (folds)' is statistics.fmean ± statistics.stdev (n - 1), not
    pstdev: the two differ by sqrt(5/4) here, and a paper's ± must say which."""
    row = _table(done, metric)["rows"][0]
    assert row["mean"] == pytest.approx(statistics.fmean(row["per_fold"]), abs=1e-12)
    assert row["std"] == pytest.approx(statistics.stdev(row["per_fold"]), abs=1e-12)
    assert row["std"] != pytest.approx(statistics.pstdev(row["per_fold"]), abs=1e-9)
    assert row["std"] == pytest.approx(float(np.std(row["per_fold"], ddof=1)), abs=1e-12)


def test_the_readme_says_which_std_the_fold_table_prints() -> None:
    """Unclear: the README's fold section printed 'mean ± std (folds)' without saying whether
    the std divides by n or by n - 1 (0.0392 and 0.0351 for its own OHSUMED row)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Five folds, as LETOR results are published")[1].split("\n## ")[0]
    assert "sample std" in section, section[:300]
    assert "n - 1" in section.replace("−", "-"), section[:300]


def test_the_pooled_mean_is_every_test_query_once_from_per_query_values(
        done: dict[str, Any]) -> None:
    """Wrong number: the pooled mean is the mean over all test queries of the five runs,
    each query once (its seeds averaged), the blank query left out."""
    pooled: dict[int, float] = {}
    for run in done["result"].runs:
        got = _per_query(run, "ndcg@10")
        assert not set(got) & set(pooled)
        pooled.update(got)
    row = _table(done)["rows"][0]
    assert row["pooled_mean"] == pytest.approx(statistics.fmean(pooled.values()), abs=1e-12)
    assert 201 not in pooled
    assert len(pooled) == 14


def test_the_pooled_count_is_the_queries_with_a_relevant_document(done: dict[str, Any]) -> None:
    """Wrong number: n_queries (and the header) count the 14 of 15 pooled queries that have a
    relevant document (counted from the part files by hand)."""
    with_relevant = 0
    for i in range(1, 6):
        with_relevant += len({q for lab, q in _rows(done["root"] / f"S{i}.txt") if lab > 0})
    assert with_relevant == 14
    assert _table(done)["n_queries"] == with_relevant
    assert f"pooled ({with_relevant} queries) [95% CI]" in done["md"]


@pytest.mark.parametrize("fold", [1, 2, 3, 4, 5])
def test_fold_k_tests_on_the_part_the_published_rotation_names(done: dict[str, Any],
                                                               fold: int) -> None:
    """Wrong number: fold k's test queries are those of S(k+4) (cyclic), its qid fields read
    by hand; its manifest names the published train / vali / test parts."""
    run = done["result"].runs[fold - 1]
    train, vali, test = PUBLISHED[fold]
    parts = json.loads((run / "manifest.json").read_text())["dataset"]["meta"]["parts"]
    assert parts == {"train": [f"S{i}" for i in train], "vali": f"S{vali}", "test": f"S{test}"}
    tested = {int(r["qid"]) for r in pq.read_table(run / "per_query.parquet").to_pylist()
              if r["split"] == "test"}
    assert tested == set(_qids(done["root"] / f"S{test}.txt"))


def test_the_interval_holds_the_pooled_mean_within_the_query_values(
        done: dict[str, Any]) -> None:
    """Wrong number: a 95% percentile bootstrap interval of a mean lies within the smallest and
    largest per-query value and holds the mean."""
    values = [v for r in done["result"].runs for v in _per_query(r, "ndcg@10").values()]
    row = _table(done)["rows"][0]
    low, high = row["ci"]
    assert min(values) <= low <= row["pooled_mean"] <= high <= max(values)
    assert high - low > 0


def test_the_interval_is_the_same_when_the_table_is_built_again(done: dict[str, Any]) -> None:
    """Wrong number: the bootstrap is seeded; the table built again from the same runs gives the
    written interval to the last bit."""
    from bench.report.folds import fold_table
    from bench.runs.reader import RunDir

    again = fold_table([RunDir(r) for r in done["result"].runs], "ndcg@10")
    assert [again.rows[0].ci_low, again.rows[0].ci_high] == _table(done)["rows"][0]["ci"]


def test_the_pooled_interval_does_not_depend_on_the_order_the_folds_are_given(
        done: dict[str, Any]) -> None:
    """Wrong number: --folds 5,4,3,2,1 pools the same 14 queries as --folds all, yet its
    interval was another ([0.6924, 0.7707] against [0.6955, 0.7738] on one table): the
    bootstrap drew the queries in the order the folds were run."""
    from bench.report.folds import fold_table
    from bench.runs.reader import RunDir

    runs = [RunDir(r) for r in done["result"].runs]
    forward = fold_table(runs, "ndcg@10").rows[0]
    backward = fold_table(runs[::-1], "ndcg@10").rows[0]
    assert (backward.ci_low, backward.ci_high) == (forward.ci_low, forward.ci_high)
    assert backward.per_fold == forward.per_fold[::-1]  # the columns in the order asked


@pytest.mark.parametrize("metric", ["ndcg@10", "map@10"])
def test_the_markdown_prints_the_hand_numbers_to_four_places(done: dict[str, Any],
                                                            metric: str) -> None:
    """Wrong number: each Markdown cell is the number recomputed from the run files, rounded
    to four places (per fold, mean ± std, pooled mean)."""
    cells = _md_row(done, metric)
    per_fold = [_fold_value(r, metric) for r in done["result"].runs]
    assert cells[1:6] == [f"{v:.4f}" for v in per_fold]
    assert cells[6] == f"{statistics.fmean(per_fold):.4f} ± {statistics.stdev(per_fold):.4f}"
    pooled = [v for r in done["result"].runs for v in _per_query(r, metric).values()]
    assert cells[7].startswith(f"{statistics.fmean(pooled):.4f} [")
    assert cells[8] == "best"  # the one model: nothing to test against


def test_the_json_names_the_fold_runs_relative_to_the_results_folder(
        done: dict[str, Any]) -> None:
    """Silent accept: the document's runs are this table's runs, one per fold, in fold order,
    and its run ids are their folders."""
    doc, out = done["doc"], done["base"] / "out"
    assert doc["folds"] == ["Fold1", "Fold2", "Fold3", "Fold4", "Fold5"]
    assert [(out / r).resolve() for r in doc["runs"]] == [r.resolve() for r in
                                                          done["result"].runs]
    assert _table(done)["run_ids"] == [r.name for r in done["result"].runs]
    assert all(not Path(r).is_absolute() for r in doc["runs"])


# ------------------------------------------------------------ fold runs written by hand
def _fake(out: Path, fold: int, values: dict[str, list[float]], *, qids: list[int],
          dataset: str = "toy", profile: str = "ltrbench", metric: str = "ndcg@10",
          tag: str = "") -> Path:
    """A fold run's files as ltrbench writes them: one seed, ``values[model]`` per test query."""
    import pyarrow as pa

    run = out / f"{dataset}-Fold{fold}{tag}"
    run.mkdir(parents=True)
    (run / "config.toml").write_text(f'dataset = "{dataset}:Fold{fold}"\nprofile = "{profile}"\n')
    (run / "manifest.json").write_text(json.dumps({
        "run_id": run.name, "started": "2026-01-01T00:00:00+00:00",
        "finished": "2026-01-01T00:00:01+00:00",
        "dataset": {"name": f"{dataset}:Fold{fold}", "spec": f"{dataset}:Fold{fold}",
                    "meta": {"fold": f"Fold{fold}"}}}))
    lines = io.StringIO()
    w = csv.writer(lines, lineterminator="\n")
    w.writerow(["dataset", "model", "library", "seed", "split", "metric", "value", "profile"])
    rows = []
    for model, vals in values.items():
        w.writerow([f"{dataset}:Fold{fold}", model, "baseline", 0, "test", metric,
                    repr(math.fsum(vals) / len(vals)), profile])
        rows += [{"dataset": f"{dataset}:Fold{fold}", "model": model, "seed": 0,
                  "split": "test", "qid": q, "metric": metric, "value": v}
                 for q, v in zip(qids, vals, strict=True)]
    (run / "metrics.csv").write_text(lines.getvalue())
    pq.write_table(pa.Table.from_pylist(rows), run / "per_query.parquet")
    return run


#: Three models, five folds of two queries (10 pooled: 2^10 sign vectors, an exact test).
THREE = {"a": [0.9, 0.7, 0.8, 0.6, 1.0, 0.5, 0.9, 0.8, 0.7, 0.9],
         "b": [0.5, 0.6, 0.7, 0.6, 0.9, 0.2, 0.8, 0.3, 0.6, 0.8],
         "c": [0.8, 0.7, 0.9, 0.4, 0.9, 0.6, 0.7, 0.8, 0.5, 0.9]}


def _three(out: Path, values: dict[str, list[float]] = THREE, **kw: Any) -> list[Any]:
    from bench.runs.reader import RunDir

    return [RunDir(_fake(out, k, {m: v[2 * k - 2:2 * k] for m, v in values.items()},
                         qids=[10 * k, 10 * k + 1], **kw)) for k in range(1, 6)]


def _exact_p(best: list[float], other: list[float]) -> float:
    """The two-sided sign-flip p over every one of the 2^n sign vectors, by hand."""
    d = [x - y for x, y in zip(best, other, strict=True)]
    obs = abs(math.fsum(d))
    hits = sum(abs(math.fsum(s * x for s, x in zip(signs, d, strict=True))) >= obs - 1e-12
               for signs in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


def test_holm_p_values_are_the_exact_sign_flip_p_stepped_down_by_hand(tmp_path: Path) -> None:
    """Wrong number: p (Holm) vs best over the 10 pooled queries: exact enumeration of the
    1024 sign vectors, then Holm (smallest p times 2, the next times 1, never below the one
    before)."""
    from bench.report.folds import fold_table, render_fold_markdown

    t = fold_table(_three(tmp_path), "ndcg@10")
    assert next(r.model for r in t.rows) == "a"
    assert t.rows[0].p_holm is None
    raw = {m: _exact_p(THREE["a"], THREE[m]) for m in ("b", "c")}
    first, second = sorted(raw, key=raw.__getitem__)
    want = {first: min(1.0, 2 * raw[first])}
    want[second] = max(want[first], min(1.0, raw[second]))
    got = {r.model: r.p_holm for r in t.rows[1:]}
    assert got == pytest.approx(want, abs=1e-12), (got, raw)
    md = render_fold_markdown(t)
    for model, p in want.items():
        line = next(ln for ln in md.splitlines() if ln.startswith(f"| {model} "))
        assert line.rstrip(" |").endswith(f"{p:.4f}"), line


def test_a_rank_metric_ranks_the_lowest_mean_first_and_tests_against_it(tmp_path: Path) -> None:
    """Wrong number: ARP is a mean rank, lower is better: the row with the lowest mean over
    folds is 'best', and the others' p is the exact sign-flip p against it (Holm by hand)."""
    from bench.report.folds import fold_table

    ranks = {"a": [3.0, 2.0, 4.0, 2.0, 1.0, 3.0, 2.0, 2.0, 3.0, 1.0],
             "b": [5.0, 4.0, 6.0, 3.0, 4.0, 5.0, 2.0, 6.0, 4.0, 3.0]}
    t = fold_table(_three(tmp_path, ranks, metric="arp"), "arp")
    assert [r.model for r in t.rows] == ["a", "b"]
    assert t.rows[0].p_holm is None
    assert t.rows[1].p_holm == pytest.approx(_exact_p(ranks["a"], ranks["b"]), abs=1e-12)


def test_the_rows_are_ranked_by_the_mean_over_folds(tmp_path: Path) -> None:
    """Wrong number: rows ordered by mean over folds (a 0.78, c 0.72, b 0.60), each mean the
    statistics.fmean of its five fold values."""
    from bench.report.folds import fold_table

    t = fold_table(_three(tmp_path), "ndcg@10")
    assert [r.model for r in t.rows] == ["a", "c", "b"]
    for r in t.rows:
        folds = [statistics.fmean(THREE[r.model][i:i + 2]) for i in range(0, 10, 2)]
        assert r.per_fold == pytest.approx(folds, abs=1e-12)
        assert r.mean == pytest.approx(statistics.fmean(folds), abs=1e-12)
        assert r.std == pytest.approx(statistics.stdev(folds), abs=1e-12)


def test_two_models_with_one_set_of_values_tie_with_p_one(tmp_path: Path) -> None:
    """Wrong number: a model and its copy under another name: one is 'best', the other's
    p (Holm) is 1 (every difference 0), never a significant gap."""
    from bench.report.folds import fold_table

    t = fold_table(_three(tmp_path, {"x": THREE["a"], "y": THREE["a"], "z": THREE["b"]}),
                   "ndcg@10")
    rows = {r.model: r for r in t.rows}
    assert rows["x"].mean == rows["y"].mean
    assert {rows["x"].p_holm, rows["y"].p_holm} == {None, 1.0}
    assert [r.model for r in t.rows][:2] == ["x", "y"]


def test_a_model_whose_fold_values_are_a_permutation_of_the_best_ties_exactly(
        tmp_path: Path) -> None:
    """Wrong number: the same five fold means in another fold order give the same mean over
    folds to the last bit (the table must not rank one above the other by summation order)."""
    from bench.report.folds import fold_table

    a = [0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.7, 0.7, 0.9, 0.9]
    b = a[8:] + a[:8]  # fold means 0.9, 0.1, 0.2, 0.3, 0.7
    t = fold_table(_three(tmp_path, {"a": a, "b": b}), "ndcg@10")
    assert t.rows[0].mean == t.rows[1].mean
    assert t.rows[0].std == t.rows[1].std


def test_one_fold_table_has_no_std_and_says_so(tmp_path: Path) -> None:
    """Silently wrong number: one fold has no spread: std null, '(one fold: no std)', never
    '± 0.0000'."""
    from bench.report.folds import fold_table, render_fold_markdown

    t = fold_table(_three(tmp_path)[2:3], "ndcg@10")
    assert all(math.isnan(r.std) for r in t.rows)
    md = render_fold_markdown(t)
    assert "(one fold: no std)" in md
    assert "± 0.0000" not in md


def test_fold_runs_of_two_datasets_are_not_one_fold_table(tmp_path: Path) -> None:
    """Silent accept: Fold1..Fold3 of 'toy' and Fold4..Fold5 of 'other' (disjoint queries,
    same models) were tabulated as five folds of 'toy'."""
    from bench.report.folds import fold_table

    runs = _three(tmp_path / "a")[:3]
    from bench.runs.reader import RunDir

    runs += [RunDir(_fake(tmp_path / "b", k, {m: v[2 * k - 2:2 * k] for m, v in THREE.items()},
                          qids=[10 * k, 10 * k + 1], dataset="other")) for k in (4, 5)]
    assert own_error(lambda: fold_table(runs, "ndcg@10"), "dataset", "toy", "other") is None


def test_two_runs_of_one_fold_are_not_two_folds(tmp_path: Path) -> None:
    """Silent accept: two runs that both record Fold2 (disjoint queries: another dataset's
    Fold2 put in place) made a table with the columns Fold1 | Fold2 | Fold2."""
    from bench.report.folds import fold_table
    from bench.runs.reader import RunDir

    runs = _three(tmp_path)[:2]
    runs.append(RunDir(_fake(tmp_path, 2, {m: v[:2] for m, v in THREE.items()},
                             qids=[90, 91], tag="-again")))
    assert own_error(lambda: fold_table(runs, "ndcg@10"), "Fold2", "twice") is None


def test_fold_runs_under_two_profiles_are_refused_naming_both(tmp_path: Path) -> None:
    """Silent accept: folds evaluated under two profiles are no one table."""
    from bench.report.folds import fold_table
    from bench.runs.reader import RunDir

    runs = _three(tmp_path / "a")[:4]
    runs.append(RunDir(_fake(tmp_path / "b", 5, {m: v[8:] for m, v in THREE.items()},
                             qids=[50, 51], profile="trec_eval")))
    assert own_error(lambda: fold_table(runs, "ndcg@10"), "profile", "trec_eval",
                     "ltrbench") is None


def test_fold_runs_with_another_model_set_are_refused_naming_the_run(tmp_path: Path) -> None:
    """Silent accept: a fold where model c is missing would be a column of NaN."""
    from bench.report.folds import fold_table
    from bench.runs.reader import RunDir

    runs = _three(tmp_path / "a")[:4]
    odd = RunDir(_fake(tmp_path / "b", 5, {m: THREE[m][8:] for m in ("a", "b")}, qids=[50, 51]))
    assert own_error(lambda: fold_table([*runs, odd], "ndcg@10"), "models", odd.run_id) is None


def _drop_rows(run: Any, keep: Any) -> None:
    table = pq.read_table(run.path / "per_query.parquet").to_pylist()
    import pyarrow as pa

    pq.write_table(pa.Table.from_pylist([r for r in table if keep(r)]),
                   run.path / "per_query.parquet")


def test_a_model_without_per_query_rows_in_one_fold_is_refused(tmp_path: Path) -> None:
    """Silently wrong number: model c's per-query rows gone from Fold2 (metrics.csv intact):
    its pooled mean and interval were over 8 queries, the others' over 10."""
    from bench.report.folds import fold_table

    runs = _three(tmp_path)
    _drop_rows(runs[1], lambda r: r["model"] != "c")
    assert own_error(lambda: fold_table(runs, "ndcg@10"), "'c'", "per_query.parquet",
                     runs[1].run_id) is None


def test_one_query_row_missing_for_one_model_is_refused_naming_the_query(
        tmp_path: Path) -> None:
    """Silently wrong number: one (model b, query 31) row deleted from Fold3's per-query
    table: b was pooled over 9 queries, a and c over 10, in one table."""
    from bench.report.folds import fold_table

    runs = _three(tmp_path)
    _drop_rows(runs[2], lambda r: not (r["model"] == "b" and r["qid"] == 31))
    assert own_error(lambda: fold_table(runs, "ndcg@10"), "'b'", "query 31") is None


def test_a_metric_the_runs_lack_is_named_with_its_file(tmp_path: Path) -> None:
    """Unclear error: a table of map@10 from runs of ndcg@10 names the metric and metrics.csv."""
    from bench.report.folds import fold_table

    assert own_error(lambda: fold_table(_three(tmp_path), "map@10"), "map@10",
                     "metrics.csv") is None


def test_a_run_without_a_fold_record_is_named_by_its_manifest(tmp_path: Path) -> None:
    """Unclear error: a plain run among fold runs names its manifest's missing fold."""
    from bench.report.folds import fold_table

    runs = _three(tmp_path)
    m = runs[0].path / "manifest.json"
    doc = json.loads(m.read_text())
    doc["dataset"] = {"name": "toy", "spec": "toy"}
    m.write_text(json.dumps(doc))
    assert own_error(lambda: fold_table(runs, "ndcg@10"), "fold", "manifest.json") is None


# ------------------------------------------------------------------ folds built from parts
def _shipped_fold(root: Path, fold: int, test_part: int) -> None:
    """``Fold<fold>/`` beside the parts, its test split the bytes of ``S<test_part>.txt``."""
    _train, _vali, _ = PUBLISHED[fold]
    sub = root / f"Fold{fold}"
    sub.mkdir()
    others = [i for i in range(1, 6) if i != test_part]
    (sub / "train.txt").write_bytes(b"".join((root / f"S{i}.txt").read_bytes()
                                             for i in others[:3]))
    (sub / "vali.txt").write_bytes((root / f"S{others[3]}.txt").read_bytes())
    (sub / "test.txt").write_bytes((root / f"S{test_part}.txt").read_bytes())


def test_a_fold_folder_that_tests_on_another_part_than_the_rotation_is_refused(
        tmp_path: Path) -> None:
    """Silent accept: a Fold3/ beside S1..S5 whose test split is S3 (the rotation tests Fold3 on
    S2) was read for `PATH:Fold3` / `--folds 3` without a word: another protocol's fold."""
    from bench.benchmark.folds import fold_datasets

    root = _parts(tmp_path / "root")
    _shipped_fold(root, 3, test_part=3)
    before = snapshot(root)
    assert own_error(lambda: fold_datasets(str(root), (3,)), "Fold3", "S2.txt") is None
    assert untouched(before, root) is None


def test_path_colon_fold3_of_a_folder_of_another_cut_is_refused_too(tmp_path: Path) -> None:
    """Silent accept: `--dataset PATH:Fold3` (one fold, no --folds) read the same Fold3/."""
    from bench.datasets.resolve import load_path

    root = _parts(tmp_path / "root")
    _shipped_fold(root, 3, test_part=3)
    assert own_error(lambda: load_path(root, fold="Fold3"), "Fold3", "S2.txt") is None


def test_a_fold_folder_that_agrees_with_the_parts_is_read_as_shipped(tmp_path: Path) -> None:
    """Over-refusal guard: MQ2007 ships Fold1..5/ and S1..S5 together; a Fold3/ whose test split
    is S2 (as the rotation says) is accepted and read from the folder."""
    from bench.benchmark.folds import fold_datasets
    from bench.datasets.folds import read_fold

    root = _parts(tmp_path / "root")
    _shipped_fold(root, 3, test_part=2)
    assert fold_datasets(str(root), (3,)) == [f"{root}:Fold3"]
    got = read_fold(root, 3, cache_dir=tmp_path / "cache")
    assert got.meta["fold_source"] == "folder"
    assert sorted(set(got.test.qid.tolist())) == sorted(set(_qids(root / "S2.txt")))


def test_an_empty_part_file_is_refused_naming_it(tmp_path: Path) -> None:
    """Unclear error: a 0-byte S3.txt (a download cut short) is named, not read as no queries."""
    from bench.datasets.folds import read_fold

    root = _parts(tmp_path / "root")
    (root / "S3.txt").write_bytes(b"")
    assert own_error(lambda: read_fold(root, 1, cache_dir=tmp_path / "c"), "S3.txt") is None


def test_fold5_train_is_s5_s1_s2_in_that_order_as_the_part_files_hold_them(tmp_path: Path) -> None:
    """Wrong number: fold 5 trains on S5, S1, S2 (cyclic), rows in that order, validates on
    S3, tests on S4 (the part files' qid fields read by hand)."""
    from bench.datasets.folds import read_fold

    root = _parts(tmp_path / "root")
    got = read_fold(root, 5, cache_dir=tmp_path / "cache")
    assert got.train.qid.tolist() == [q for i in (5, 1, 2) for q in _qids(root / f"S{i}.txt")]
    assert got.vali.qid.tolist() == _qids(root / "S3.txt")
    assert got.test.qid.tolist() == _qids(root / "S4.txt")


# ----------------------------------------------------------------------- --folds spellings
@pytest.mark.parametrize("text", ["1-3", "1 2", "2,all", "+1", "1,2,3,4,5,6", " , ", "1,,",
                                  "0x1", "1e0", "all all", "Fold2", "fold3"])
def test_a_fold_list_that_is_not_one_is_refused_naming_the_option(text: str) -> None:
    """Unclear error / silent accept: each spelling is a one-line --folds error quoting it."""
    from bench.datasets.folds import parse_folds
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match="--folds") as exc:
        parse_folds(text)
    assert repr(text) in str(exc.value)


@pytest.mark.parametrize(("text", "want"), [(" 2", (2,)), ("5,1", (5, 1)), ("all", (1, 2, 3, 4, 5)),
                                            ("1,3,5", (1, 3, 5)), ("ALL ", (1, 2, 3, 4, 5))])
def test_a_fold_list_is_read_in_the_order_given(text: str, want: tuple[int, ...]) -> None:
    from bench.datasets.folds import parse_folds

    assert parse_folds(text) == want


def test_folds_resume_after_a_kill_between_folds_gives_the_uninterrupted_table(
        done: dict[str, Any], tmp_path: Path) -> None:
    """Unclear error: a five-fold run killed in Fold3 (Fold1, Fold2 done; Fold3's manifest
    unfinished; Fold4, Fold5 never started). `--folds all --resume` was refused, its advice
    (resume the fold, run the others) making no fold table; now Fold1 and Fold2 are used again,
    Fold3 goes on in its own folder, Fold4 and Fold5 run, and the table's numbers are the
    uninterrupted run's (the random model is seeded)."""
    import shutil

    from bench.benchmark.config import RunConfig
    from bench.benchmark.folds import run_folds

    out = tmp_path / "out"
    shutil.copytree(done["base"] / "out", out)
    (out / "folds").joinpath("root-folds12345.json").unlink()
    (out / "folds").joinpath("root-folds12345.md").unlink()
    kept = [out / r for r in done["doc"]["runs"]]
    for run in kept[3:]:
        shutil.rmtree(run)
    manifest = json.loads((kept[2] / "manifest.json").read_text())
    manifest["finished"] = None
    (kept[2] / "manifest.json").write_text(json.dumps(manifest))
    (kept[2] / "status" / "random-seed0.json").unlink()  # killed in its one pair
    before = {p: p.read_bytes() for p in (kept[0] / "metrics.csv", kept[1] / "metrics.csv")}
    cfg = RunConfig(dataset=str(done["root"]), models=("random",), seeds=(0,), quick=True,
                    crosscheck=False, metrics=("ndcg@10", "map@10"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = run_folds(cfg, (1, 2, 3, 4, 5), out_dir=out, progress=False, resume=True)
    assert [r.resolve() for r in again.runs[:3]] == [r.resolve() for r in kept[:3]]
    assert all(p.read_bytes() == data for p, data in before.items())
    doc = json.loads(again.json.read_text(encoding="utf-8"))
    for table, was in zip(doc["tables"], done["doc"]["tables"], strict=True):
        assert table["rows"] == was["rows"]
    assert len(list((out / "runs").iterdir())) == 5


def test_folds_with_resume_of_one_run_dir_is_refused_naming_resume_alone(
        done: dict[str, Any], tmp_path: Path) -> None:
    """Unclear error: `--folds all --resume RUN_DIR` names one run for five folds: refused in
    one line that says to give --resume alone; the run is untouched."""
    run = done["base"] / "out" / done["doc"]["runs"][0]
    before = snapshot(run)
    res = cli(tmp_path, "run", "--folds", "all", "--resume", str(run), "--no-progress")
    assert refused(res, "--folds", "--resume RUN_DIR", "--resume alone") is None, res.err
    assert untouched(before, run) is None


def test_folds_of_a_ratings_file_are_refused_naming_the_file(tmp_path: Path) -> None:
    """Unclear error: a ratings file has no LETOR folds: refused naming it, nothing trained."""
    (tmp_path / "ratings.csv").write_text("user,item,rating,timestamp\n1,2,3,4\n")
    res = cli(tmp_path, "run", "--dataset", "ratings.csv", "--folds", "1,3,5",
              "--models", "random", "--quick", "--out", "o", "--no-progress")
    assert refused(res, "--folds", "ratings.csv", "S1..S5") is None, res.err
    assert not (tmp_path / "o" / "runs").exists()


# ------------------------------------------------------------------------------ names
@pytest.mark.parametrize(("dataset", "name"), [("synthetic", "X:Fold2"), ("synthetic", "x:fold2"),
                                               ("ohsumed:Fold3", "X:Fold2")])
def test_a_config_name_that_ends_as_another_fold_is_refused(dataset: str, name: str) -> None:
    """Silent accept: `--name X:Fold2` is refused on the command line, but `name = "X:Fold2"`
    in a config (or RunConfig) was accepted: a plain run (or a Fold3 run) tabulated and
    reported as Fold2 of X."""
    from bench.benchmark.config import RunConfig

    assert own_error(lambda: RunConfig(dataset=dataset, name=name, models=("random",)),
                     "name", name, "Fold") is None


def test_a_config_file_name_ending_as_a_fold_names_the_file(tmp_path: Path) -> None:
    """Unclear error: the refusal of a config file's name names the file and the key."""
    from bench.benchmark.config import RunConfig

    (tmp_path / "c.toml").write_text('dataset = "synthetic"\nname = "paper:Fold1"\n'
                                     'models = ["random"]\n')
    assert own_error(lambda: RunConfig.load(tmp_path / "c.toml"), "c.toml", "name") is None


def test_a_fold_runs_own_name_of_its_own_fold_is_accepted(tmp_path: Path) -> None:
    """Over-refusal guard: what run_folds writes in each fold's config.toml (name NAME:Fold3 on
    dataset PATH:Fold3) is what reproduce runs again: accepted."""
    from bench.benchmark.config import RunConfig

    cfg = RunConfig(dataset=f"{tmp_path}:Fold3", name="paper:Fold3", models=("random",))
    assert cfg.name == "paper:Fold3"


def test_a_name_with_a_fold_inside_keeps_it_in_the_table_title(tmp_path: Path) -> None:
    """Wrong name: fold runs of 'a:Fold2b' are 'a:Fold2b:Fold1' ...; the table is titled
    'a:Fold2b' (only the last ':FoldK' is the fold)."""
    from bench.report.folds import fold_table

    t = fold_table(_three(tmp_path, dataset="a:Fold2b"), "ndcg@10")
    assert t.dataset == "a:Fold2b"
    assert t.folds == ("Fold1", "Fold2", "Fold3", "Fold4", "Fold5")


# ------------------------------------------------------ the table's files after the fact
def test_a_fold_table_whose_run_was_deleted_is_said_by_report_html(
        done: dict[str, Any], tmp_path: Path) -> None:
    """Silent accept: a fold run deleted after its table was written; `report --html` showed
    the table (its Fold2 value from a run that is gone) without a word."""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(done["base"] / "out", out)
    gone = Path(done["doc"]["runs"][1]).name
    shutil.rmtree(out / "runs" / gone)
    res = cli(tmp_path, "report", "--out", "out", "--html", "--no-plots", "--no-progress")
    assert not res.traceback, res.err
    assert res.status == 0, res.err
    said = [ln for ln in res.err.splitlines() if gone in ln and "fold" in ln.lower()]
    assert said, res.err
    html = (out / "leaderboard.html").read_text(encoding="utf-8")
    assert gone in html.split('id="folds"')[1]


def test_a_second_fold_run_into_one_folder_says_it_replaces_the_table(
        done: dict[str, Any]) -> None:
    """Silent accept: `run --folds all` again into one --out replaced the earlier fold table
    (and the runs it names) without a word; the replacement is said, naming the earlier runs."""
    said = [t for t in done["said"] if "root-folds12345" in t]
    assert said, done["said"]
    assert "replac" in said[0], said
    assert "runs/root-Fold1-earlier" in said[0], said
    assert done["doc"]["runs"][0].startswith("runs/root-Fold1-")
    assert "earlier" not in done["doc"]["runs"][0]


def test_a_fold_value_edited_in_its_run_after_the_table_is_said(done: dict[str, Any],
                                                                 tmp_path: Path) -> None:
    """Silent accept: Fold3's metrics.csv changed after the table was written (a run done
    again by hand): the HTML report's fold section says which value no longer holds."""
    import shutil

    from bench.report.folds import stale_notes

    out = tmp_path / "out"
    shutil.copytree(done["base"] / "out", out)
    run = out / done["doc"]["runs"][2]
    rows = _metrics_csv(run)
    for r in rows:
        if r["split"] == "test" and r["metric"] == "ndcg@10":
            r["value"] = "0.25"
    with open(run / "metrics.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    notes = stale_notes(done["doc"], out)
    assert len(notes) == 1, notes
    assert "Fold3" in notes[0], notes
    assert "0.25" in notes[0], notes
    assert str(_table(done)["rows"][0]["per_fold"][2]) in notes[0], notes


def test_an_untouched_fold_table_has_nothing_to_say(done: dict[str, Any]) -> None:
    """Over-refusal guard: the table as written, beside its runs: no note."""
    from bench.report.folds import stale_notes

    assert stale_notes(done["doc"], done["base"] / "out") == []
