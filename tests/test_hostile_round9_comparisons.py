"""Round 9 of the hostile catalogue: run comparisons (``ltrbench evaluate --run A --run B``,
:func:`bench.report.compare_runs.compare_runs`), issue 19 item 2. Found and fixed here:

* **Every per-query difference the same non-zero number** (run B one rank worse on every
  query): scipy 1.17's ``ttest_rel`` gives ``t = inf, p = 0`` and the comparison printed
  p_t = 0, a certainty no sample of queries gives (the documented "constant non-zero
  differences -> p = 0"). The t statistic is undefined there (no variance): now p_t is NaN
  (``-`` in the table, ``null`` in JSON, empty in CSV) and the statistics line says it, with
  the randomization test's exact p (``2 / 2^n``);
* an empty metric name in the compared list (``P_1,,map``) was skipped; now refused.

Kept as guards (right before): run names holding ``,`` (quoted in the CSV), a name equal to a
metric's name, a file name holding ``=``, a newline (refused), ids with leading zeros (``007``
and ``7`` two queries, on every output), identical runs (p = 1), constant differences over the
non-blank queries only. Oracles: hand arithmetic, pytrec_eval per query.

:data:`CLASSES` maps each test to its class for the closing counts.
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hostile_kit import api_refused, call, cli, refused

from bench.report import stats
from bench.report.compare_runs import compare_runs

CLASSES = {
    "test_equal_non_zero_differences_have_no_t_p_value": "silently wrong",
    "test_the_cli_says_why_t_is_missing_in_every_format": "silently wrong",
    "test_paired_t_on_equal_differences_over_non_blank_queries": "silently wrong",
    "test_identical_runs_are_p_one_and_varied_differences_keep_scipys_p": "silently wrong",
    "test_an_empty_metric_name_in_a_comparison_is_refused": "silent accept",
    "test_run_names_with_commas_and_metric_names_round_trip_in_csv": "silently wrong",
    "test_a_run_file_name_with_an_equals_sign_is_a_path": "unclear error",
    "test_leading_zero_ids_are_two_queries_in_every_output": "silently wrong",
    "test_recboles_own_spelling_in_a_comparison": "unclear error",
}

N = 5
QRELS = "".join(f"{q} 0 a 1\n{q} 0 b 0\n" for q in range(1, N + 1))
#: A ranks a first on every query (RR 1), B second (RR 1/2): every difference +1/2.
RUN_A = "".join(f"{q} Q0 a 1 2 A\n{q} Q0 b 2 1 A\n" for q in range(1, N + 1))
RUN_B = "".join(f"{q} Q0 b 1 2 B\n{q} Q0 a 2 1 B\n" for q in range(1, N + 1))


def _files(folder: Path, **texts: str) -> dict[str, str]:
    out = {}
    for name, text in texts.items():
        (folder / name).write_text(text)
        out[name] = str(folder / name)
    return out


def _compare(qrels: str, runs: dict[str, str], metrics: str, **kw: object):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare_runs(qrels, runs, metrics=metrics, **kw)  # type: ignore[arg-type]


def test_equal_non_zero_differences_have_no_t_p_value(tmp_path: Path) -> None:
    f = _files(tmp_path, q=QRELS, a=RUN_A, b=RUN_B)
    c = _compare(f["q"], {"a": f["a"], "b": f["b"]}, "recip_rank")
    assert c.best == "a"
    assert math.isnan(c.versus.p_t[1])
    assert math.isnan(c.versus.p_t_holm[1])
    assert c.versus.p_randomization[1] == pytest.approx(2 / 2 ** N, abs=1e-15)  # exact: 2 of 2^5
    text = c.statistics()
    assert "b: all 5 differences to the best run equal (+0.5)" in text
    assert "t undefined" in text
    assert "randomization p = 0.0625" in text
    assert c.as_dict()["runs"][1]["vs_best"]["p_t"] is None


def test_the_cli_says_why_t_is_missing_in_every_format(tmp_path: Path) -> None:
    f = _files(tmp_path, q=QRELS, a=RUN_A, b=RUN_B)
    base = ("evaluate", "--qrels", f["q"], "--run", f["a"], "--run", f["b"], "--metrics",
            "recip_rank")
    table = cli(tmp_path, *base)
    assert table.status == 0, table.err
    flat = " ".join(table.out.split())
    assert "t undefined" in flat
    assert "p t Holm" in flat
    assert "0.0000" not in flat.split("statistics:")[0].split("best")[-1]
    js = cli(tmp_path, *base, "--format", "json")
    doc = json.loads(js.out)
    assert doc["runs"][1]["vs_best"]["p_t"] is None
    assert "t undefined" in doc["statistics"]
    rows = {r["run"]: r for r in csv.DictReader(io.StringIO(
        cli(tmp_path, *base, "--format", "csv").out))}
    assert rows["b"]["p_t"] == ""
    assert rows["b"]["p_randomization"] == "0.0625"


def test_paired_t_on_equal_differences_over_non_blank_queries() -> None:
    """Exact binary fractions: every difference over the non-NaN queries is 0.25 (the NaN
    query's 0.7 would break the constancy if it were counted)."""
    x = np.array([[0.5, 0.75, np.nan, 1.0], [0.5, 0.75, 1.0, 1.0]])
    y = np.array([0.25, 0.5, 0.3, 0.75])
    p = stats.paired_t_test(x, y)
    assert math.isnan(p[0])
    from scipy.stats import ttest_rel
    assert p[1] == pytest.approx(ttest_rel(x[1], y).pvalue, rel=1e-12)
    assert stats.constant_differences(x, y) == [(0, 3, 0.25)]


def test_identical_runs_are_p_one_and_varied_differences_keep_scipys_p() -> None:
    from scipy.stats import ttest_rel

    x = np.array([0.1, 0.4, 0.35, 0.8])
    assert float(stats.paired_t_test(x, x)) == 1.0
    y = np.array([0.0, 0.5, 0.1, 0.6])
    assert float(stats.paired_t_test(x, y)) == pytest.approx(ttest_rel(x, y).pvalue, rel=1e-12)
    assert stats.constant_differences(x, y) == []


@pytest.mark.parametrize("metrics", ["recip_rank,,P_1", "recip_rank,", ",P_1"])
def test_an_empty_metric_name_in_a_comparison_is_refused(tmp_path: Path, metrics: str) -> None:
    f = _files(tmp_path, q=QRELS, a=RUN_A, b=RUN_B)
    _, exc = call(lambda: _compare(f["q"], {"a": f["a"], "b": f["b"]}, metrics))
    assert api_refused(exc, "empty metric name") is None


def test_run_names_with_commas_and_metric_names_round_trip_in_csv(tmp_path: Path) -> None:
    f = _files(tmp_path, q=QRELS, a=RUN_A, b=RUN_B)
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f"x,y={f['a']}", "--run",
              f"P_1={f['b']}", "--metrics", "P_1", "--format", "csv", "--per-query",
              str(tmp_path / "pq.csv"))
    assert res.status == 0, res.err
    rows = {r["run"]: r for r in csv.DictReader(io.StringIO(res.out))}
    assert set(rows) == {"x,y", "P_1"}
    assert float(rows["x,y"]["P_1"]) == 1.0
    assert float(rows["P_1"]["P_1"]) == 0.0
    per = list(csv.DictReader((tmp_path / "pq.csv").open()))
    assert {k for k in per[0]} == {"qid", "metric", "profile", "x,y", "P_1"}
    assert all(r["metric"] == "P_1" and float(r["x,y"]) == 1.0 and float(r["P_1"]) == 0.0
               for r in per)
    bad = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f"a\nb={f['a']}", "--run",
              f["b"], "--metrics", "P_1")
    assert refused(bad, "U+000A") is None


def test_a_run_file_name_with_an_equals_sign_is_a_path(tmp_path: Path) -> None:
    f = _files(tmp_path, q=QRELS, **{"run=a.txt": RUN_A, "b.txt": RUN_B})
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", "run=a.txt", "--run", "b.txt",
              "--metrics", "P_1", "--format", "csv")
    assert res.status == 0, res.err
    rows = {r["run"]: r for r in csv.DictReader(io.StringIO(res.out))}
    assert float(rows["run=a"]["P_1"]) == 1.0
    assert float(rows["b"]["P_1"]) == 0.0


def test_leading_zero_ids_are_two_queries_in_every_output(tmp_path: Path) -> None:
    """Ids compare as text on every path ('007' is not '7'): two queries, one relevant at rank
    1 for A in '007' only; B the reverse. Per query P_1: A (1, 0), B (0, 1)."""
    q = "007 0 a 1\n007 0 b 0\n7 0 a 0\n7 0 b 1\n"
    a = "007 Q0 a 1 2 A\n007 Q0 b 2 1 A\n7 Q0 a 1 2 A\n7 Q0 b 2 1 A\n"
    b = "007 Q0 b 1 2 B\n007 Q0 a 2 1 B\n7 Q0 b 1 2 B\n7 Q0 a 2 1 B\n"
    f = _files(tmp_path, q=q, a=a, b=b)
    res = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f["a"], "--run", f["b"],
              "--metrics", "P_1", "--format", "json", "--per-query", str(tmp_path / "pq.csv"))
    assert res.status == 0, res.err
    assert json.loads(res.out)["n_queries"] == 2
    per = {r["qid"]: r for r in csv.DictReader((tmp_path / "pq.csv").open())}
    assert set(per) == {"007", "7"}
    assert (float(per["007"]["a"]), float(per["7"]["a"])) == (1.0, 0.0)
    assert (float(per["007"]["b"]), float(per["7"]["b"])) == (0.0, 1.0)
    one = cli(tmp_path, "evaluate", "--qrels", f["q"], "--run", f["a"], "--metrics", "P_1",
              "--format", "csv", "--per-query", str(tmp_path / "one.csv"))
    assert one.status == 0, one.err
    assert {r["qid"] for r in csv.DictReader((tmp_path / "one.csv").open())} == {"007", "7"}


def test_recboles_own_spelling_in_a_comparison(tmp_path: Path) -> None:
    """RecBole Recall@1 per user: A hits on every user (1), B on none (0)."""
    f = _files(tmp_path, q=QRELS, a=RUN_A, b=RUN_B)
    c = _compare(f["q"], {"a": f["a"], "b": f["b"]}, "Recall@1", profile="recbole")
    assert c.mean["Recall@1"].tolist() == [1.0, 0.0]
    assert c.metric_profiles["Recall@1"] == "recbole"
