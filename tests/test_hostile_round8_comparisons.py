"""Round 8 of the hostile catalogue: run comparisons (``ltrbench evaluate --run A --run B``),
issue 19 item 2, new instances beyond rounds 5 to 7. Oracles: pytrec_eval per query and hand
arithmetic. All of these were right on the round-7 code; they are kept as guards:

* one query set for every metric and run, under ``--missing drop`` (the intersection) and
  ``--missing zero`` (every qrels query, 0 where a run has no line), equal to pytrec_eval's
  per-query values averaged over that set, a trec_eval and an ir_measures name side by side;
* the same file given twice under two spellings of its path is refused; the same content under
  two files is a tie (``tied_with_best``, p = 1);
* runs whose queries are disjoint: refused under ``drop`` (nothing in common), scored under
  ``zero``;
* a comparison on one query: no t-test (NaN), the exact randomization test p = 1.

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import csv
import io
import statistics
from pathlib import Path

import pytest
from hostile_kit import cli, refused

pytrec_eval = pytest.importorskip("pytrec_eval")

CLASSES = {
    "test_one_query_set_for_every_metric_and_run": "silently wrong",
    "test_one_file_under_two_paths_is_refused_and_two_equal_files_tie": "silent accept",
    "test_runs_with_disjoint_queries": "silently wrong",
    "test_a_comparison_on_one_query_has_no_t_test": "silently wrong",
}

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 x 1\n2 0 y 0\n3 0 p 1\n3 0 q 1\n4 0 m 3\n"
RUN_A = ("1 Q0 a 1 1.0 A\n1 Q0 b 2 0.5 A\n1 Q0 c 3 0.2 A\n2 Q0 y 1 2.0 A\n2 Q0 x 2 1.0 A\n"
         "3 Q0 p 1 3.0 A\n")
RUN_B = "1 Q0 c 1 1.0 B\n1 Q0 a 2 0.5 B\n2 Q0 x 1 2.0 B\n2 Q0 y 2 1.0 B\n4 Q0 m 1 1.0 B\n"


def _write(folder: Path, **files: str) -> dict[str, str]:
    out = {}
    for name, text in files.items():
        (folder / f"{name}.txt").write_text(text)
        out[name] = str(folder / f"{name}.txt")
    return out


def _rows(out: str) -> dict[str, dict[str, str]]:
    return {r["run"]: r for r in csv.DictReader(io.StringIO(out))}


def _pytrec(qrels: str, run: str, measure: str) -> dict[str, float]:
    q: dict[str, dict[str, int]] = {}
    r: dict[str, dict[str, float]] = {}
    for line in qrels.splitlines():
        a, _, d, x = line.split()
        q.setdefault(a, {})[d] = int(x)
    for line in run.splitlines():
        a, _, d, _, s, _ = line.split()
        r.setdefault(a, {})[d] = float(s)
    res = pytrec_eval.RelevanceEvaluator(q, {measure.rsplit("_", 1)[0] if "cut" in measure
                                             else measure}).evaluate(r)
    return {k: v[measure] for k, v in res.items()}


@pytest.mark.parametrize("missing", ["drop", "zero"])
def test_one_query_set_for_every_metric_and_run(tmp_path: Path, missing: str) -> None:
    f = _write(tmp_path, q=QRELS, a=RUN_A, b=RUN_B)
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f["a"], "--run", f["b"],
              "--metrics", "map", "ndcg_cut_10", "nDCG@10", "--missing", missing,
              "--format", "csv")
    assert res.status == 0, res.err
    rows = _rows(res.out)
    queries = ["1", "2"] if missing == "drop" else ["1", "2", "3", "4"]
    for run, text in (("a", RUN_A), ("b", RUN_B)):
        assert rows[run]["n_queries"] == str(len(queries))
        for metric, measure in (("map", "map"), ("ndcg_cut_10", "ndcg_cut_10"),
                                ("nDCG@10", "ndcg_cut_10")):
            per_q = _pytrec(QRELS, text, measure)
            want = statistics.fmean(per_q.get(q, 0.0) for q in queries)
            assert float(rows[run][metric]) == pytest.approx(want, abs=1e-12), (run, metric)
        assert rows[run]["missing"] == missing


def test_one_file_under_two_paths_is_refused_and_two_equal_files_tie(tmp_path: Path) -> None:
    f = _write(tmp_path, q=QRELS, a=RUN_A, copy=RUN_A)
    (tmp_path / "sub").mkdir()
    other = str(tmp_path / "sub" / ".." / "a.txt")
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f["a"], "--run", other,
              "--metrics", "map")
    assert refused(res, "same file") is None, res.err
    (tmp_path / "link.txt").symlink_to(f["a"])
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f["a"], "--run",
              str(tmp_path / "link.txt"), "--metrics", "map")
    assert refused(res, "same file") is None, res.err
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f["a"], "--run", f["copy"],
              "--metrics", "map", "--format", "csv")
    assert res.status == 0, res.err
    rows = _rows(res.out)
    assert rows["a"]["best"] == "True"
    assert rows["copy"]["tied_with_best"] == "True"
    assert float(rows["copy"]["p_randomization"]) == 1.0


def test_runs_with_disjoint_queries(tmp_path: Path) -> None:
    f = _write(tmp_path, q=QRELS, f="3 Q0 p 1 1.0 F\n3 Q0 q 2 0.5 F\n4 Q0 m 1 1.0 F\n",
               g="1 Q0 a 1 1.0 G\n2 Q0 x 1 1.0 G\n")
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f["f"], "--run", f["g"],
              "--metrics", "map")
    assert refused(res, "no query in common") is None, res.err
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f["f"], "--run", f["g"],
              "--metrics", "map", "--missing", "zero", "--format", "csv")
    assert res.status == 0, res.err
    rows = _rows(res.out)
    # f: AP 0, 0, 1 (p, q both first), 1 (m first); g: q1 a first of R=2 -> 1/2, q2 1, 0, 0
    assert float(rows["f"]["map"]) == pytest.approx(0.5)
    assert float(rows["g"]["map"]) == pytest.approx(0.375)


def test_a_comparison_on_one_query_has_no_t_test(tmp_path: Path) -> None:
    f = _write(tmp_path, q=QRELS, a=RUN_A, d="1 Q0 c 1 1.0 D\n1 Q0 a 2 0.5 D\n")
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f["a"], "--run", f["d"],
              "--metrics", "map", "--format", "csv")
    assert res.status == 0, res.err
    rows = _rows(res.out)
    assert rows["a"]["n_queries"] == "1"
    assert rows["a"]["dropped"] == "2, 3, 4"  # 4: judged, in no run (named since round 15)
    assert rows["a"]["p_t"] == ""  # one difference has no variance: no t statistic
    assert float(rows["a"]["p_randomization"]) == 1.0  # both sign flips are as extreme
    # AP on query 1: a (2) first, c (1) third of R = 2 -> (1 + 2/3) / 2; d: c then a -> 1
    assert float(rows["a"]["map"]) == pytest.approx((1 + 2 / 3) / 2)
    assert float(rows["d"]["map"]) == pytest.approx(1.0)
