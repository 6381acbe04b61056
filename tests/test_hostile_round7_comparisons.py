"""Hostile cases, round 7: run comparisons (issue 19, item 2).

New instances beyond tests/test_hostile_compare_names.py: runs with disjoint queries, a run given
twice (the same path, a symlink, a hard link, a copy), one run, fifty runs, run names that
collide with the per-query file's own columns or with each other once made spreadsheet-safe,
doc-id spellings (``07`` vs ``7``: ids compare as strings, the one id rule), the per-query
output's profile column, the tests on one or two common queries, identical runs and blank
(NaN) per-query values. Oracles: pytrec_eval and hand arithmetic.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.errors import ConfigError, DataError
from bench.report.compare_runs import compare_runs

pytrec_eval = pytest.importorskip("pytrec_eval")

from hostile_kit import pytrec_per_query  # noqa: E402

QRELS = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d4 1\nq2 0 d5 0\nq3 0 d6 1\nq3 0 d7 0\n"
RUN_A = ("q1 Q0 d3 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq1 Q0 d1 3 1.0 a\n"
         "q2 Q0 d5 1 2.0 a\nq2 Q0 d4 2 1.0 a\nq3 Q0 d6 1 2.0 a\nq3 Q0 d7 2 1.0 a\n")
RUN_B = ("q1 Q0 d1 1 3.0 b\nq1 Q0 d2 2 2.0 b\nq1 Q0 d3 3 1.0 b\n"
         "q2 Q0 d4 1 2.0 b\nq2 Q0 d5 2 1.0 b\nq3 Q0 d7 1 2.0 b\nq3 Q0 d6 2 1.0 b\n")


def _write(folder: Path, **texts: str) -> dict[str, str]:
    out = {}
    for name, text in texts.items():
        path = folder / name.replace("_", ".")
        path.write_text(text)
        out[name] = str(path)
    return out


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from bench.cli import main
    rc = int(main(["evaluate", *argv]))
    got = capsys.readouterr()
    return rc, got.out, got.err




# -- run names -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["qid", "metric", "profile"])
def test_a_run_named_like_a_per_query_column_is_refused_before_any_work(tmp_path: Path,
                                                                       name: str) -> None:
    """Before: a run named ``qid`` overwrote the per-query file's qid column with its values."""
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A, b_run=RUN_B)
    with pytest.raises(ConfigError, match=f"{name!r}.*per-query"):
        compare_runs(f["q_txt"], {name: f["a_run"], "B": f["b_run"]}, metrics="ndcg@10")


def test_a_run_file_named_qid_run_is_one_line_on_the_cli(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path, q_txt=QRELS, qid_run=RUN_A, b_run=RUN_B)
    out = tmp_path / "pq.csv"
    rc, _, err = _cli(["--qrels", f["q_txt"], "--run", f["qid_run"], "--run", f["b_run"],
                       "--metrics", "ndcg@10", "--per-query", str(out)], capsys)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "'qid'" in err
    assert "NAME=" in err
    assert not out.exists()


@pytest.mark.parametrize(("first", "second"), [("=A", "'=A"), ("B", " B"), ("B", "B\t"),
                                                ("@x", "'@x"), ("-x", "'-x"),
                                                ("A", "\uff21"), ("ﬁt", "fit")])
def test_run_names_that_collide_once_written_are_refused(tmp_path: Path, first: str,
                                                          second: str) -> None:
    """``=A`` is written ``'=A`` in a CSV (formula-safe), and ``" B"`` prints as ``B``: two
    rows or columns would read as one run."""
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A, b_run=RUN_B)
    with pytest.raises(ConfigError, match="run names"):
        compare_runs(f["q_txt"], {first: f["a_run"], second: f["b_run"]}, metrics="ndcg@10")


@pytest.mark.parametrize("name", ["a\nb", "a\rb", "a\x1bb", "a\x00b", "a\u200bb", "a\u2028b"])
def test_a_run_name_with_a_control_character_is_refused(tmp_path: Path, name: str) -> None:
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A, b_run=RUN_B)
    with pytest.raises(ConfigError, match="invisible or control character"):
        compare_runs(f["q_txt"], {name: f["a_run"], "B": f["b_run"]}, metrics="ndcg@10")


def test_the_csv_summary_on_stdout_is_formula_safe(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A run labelled ``@SUM(1)`` in ``--format csv``: the cell reads ``'@SUM(1)`` (the rule of
    the per-query file, bench.data.csv_cells.formula_safe)."""
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A, b_run=RUN_B)
    rc, out, _ = _cli(["--qrels", f["q_txt"], "--run", f"@SUM(1)={f['a_run']}", "--run",
                       f["b_run"], "--metrics", "ndcg@10", "--format", "csv"], capsys)
    assert rc == 0
    frame = pd.read_csv(io.StringIO(out))
    assert "'@SUM(1)" in frame["run"].tolist()
    assert "@SUM(1)" not in frame["run"].tolist()


# -- a run given twice ---------------------------------------------------------------------

@pytest.mark.parametrize("how", ["same path", "symlink", "hard link", "dot path"])
def test_one_file_given_twice_is_refused_naming_both_runs(tmp_path: Path, how: str,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A)
    other = {"same path": f["a_run"], "symlink": str(tmp_path / "link.run"),
             "hard link": str(tmp_path / "hard.run"),
             "dot path": str(tmp_path / "." / "a.run")}[how]
    if how == "symlink":
        os.symlink(f["a_run"], other)
    if how == "hard link":
        os.link(f["a_run"], other)
    rc, _, err = _cli(["--qrels", f["q_txt"], "--run", f["a_run"], "--run", other,
                       "--metrics", "ndcg@10"], capsys)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "same file" in err
    assert "'a'" in err


def test_a_copy_is_compared_and_shown_as_a_tie_with_p_one(tmp_path: Path) -> None:
    """A copy is a legitimate run: equal means, marked tied, both p-values 1."""
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A, c_run=RUN_A)
    r = compare_runs(f["q_txt"], {"A": f["a_run"], "C": f["c_run"]}, metrics="ndcg@10,map")
    assert r.tied_with_best == ["C"]
    assert r.versus.p_randomization[1] == 1.0
    assert r.versus.p_t[1] == 1.0


# -- query sets ----------------------------------------------------------------------------

def test_runs_with_disjoint_queries_are_a_data_error(tmp_path: Path) -> None:
    a = "".join(line + "\n" for line in RUN_A.splitlines() if line.startswith("q1"))
    b = "".join(line + "\n" for line in RUN_B.splitlines() if not line.startswith("q1"))
    f = _write(tmp_path, q_txt=QRELS, a_run=a, b_run=b)
    with pytest.raises(DataError, match="no query in common"):
        compare_runs(f["q_txt"], {"A": f["a_run"], "B": f["b_run"]}, metrics="ndcg@10")


def test_disjoint_runs_with_missing_zero_are_compared_on_every_judged_query(tmp_path: Path) -> None:
    a = "".join(line + "\n" for line in RUN_A.splitlines() if line.startswith("q1"))
    b = "".join(line + "\n" for line in RUN_B.splitlines() if not line.startswith("q1"))
    f = _write(tmp_path, q_txt=QRELS, a_run=a, b_run=b)
    r = compare_runs(f["q_txt"], {"A": f["a_run"], "B": f["b_run"]}, metrics="P@1",
                     missing="zero")
    assert r.qids.tolist() == ["q1", "q2", "q3"]
    # A: P@1 on q1 = 0 (d3 first), 0, 0; B: 0 (q1 missing), 1 (d4), 0 (d7).
    np.testing.assert_allclose(r.mean["P@1"], [0.0, 1 / 3], atol=1e-15)


@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_runs_is_a_config_error(tmp_path: Path, n: int) -> None:
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A)
    with pytest.raises(ConfigError, match="at least two"):
        compare_runs(f["q_txt"], dict(list({"A": f["a_run"]}.items())[:n]), metrics="ndcg@10")


def test_fifty_runs_each_equal_pytrec_eval_and_holm_over_49(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    docs = {"q1": ["d1", "d2", "d3"], "q2": ["d4", "d5"], "q3": ["d6", "d7"]}
    runs: dict[str, str] = {}
    texts: dict[str, str] = {}
    for i in range(50):
        text = "".join(f"{q} Q0 {d} 0 {s:.6f} r\n" for q, ds in docs.items()
                       for d, s in zip(ds, rng.random(len(ds)), strict=True))
        path = tmp_path / f"r{i:02d}.run"
        path.write_text(text)
        runs[f"r{i:02d}"], texts[f"r{i:02d}"] = str(path), text
    (tmp_path / "q.txt").write_text(QRELS)
    r = compare_runs(str(tmp_path / "q.txt"), runs, metrics="ndcg_cut_10", n_permutations=200)
    for i, name in enumerate(r.names):
        want = np.mean(list(pytrec_per_query(QRELS, texts[name], "ndcg_cut_10").values()))
        assert r.mean["ndcg_cut_10"][i] == pytest.approx(want, abs=1e-12)
    held = ~np.isnan(r.versus.p_t)
    assert held.sum() == 49
    assert (r.versus.p_t_holm[held] >= r.versus.p_t[held] - 1e-15).all()


# -- the one id rule -----------------------------------------------------------------------

def test_doc_ids_07_and_7_are_two_documents_as_in_trec_eval(tmp_path: Path) -> None:
    qrels = "1 0 7 1\n1 0 8 0\n2 0 9 1\n2 0 10 0\n"
    run_07 = "1 Q0 07 1 2.0 a\n1 Q0 8 2 1.0 a\n2 Q0 9 1 2.0 a\n2 Q0 10 2 1.0 a\n"
    run_7 = "1 Q0 7 1 2.0 b\n1 Q0 8 2 1.0 b\n2 Q0 9 1 2.0 b\n2 Q0 10 2 1.0 b\n"
    f = _write(tmp_path, q_txt=qrels, a_run=run_07, b_run=run_7)
    r = compare_runs(f["q_txt"], {"A": f["a_run"], "B": f["b_run"]}, metrics="ndcg_cut_10")
    for i, text in enumerate((run_07, run_7)):
        want = np.mean(list(pytrec_per_query(qrels, text, "ndcg_cut_10").values()))
        assert r.mean["ndcg_cut_10"][i] == pytest.approx(want, abs=1e-15)
    assert r.mean["ndcg_cut_10"].tolist() == [0.5, 1.0]


def test_integer_ids_in_a_frame_equal_their_text_in_a_file(tmp_path: Path) -> None:
    f = _write(tmp_path, q_txt="1 0 7 1\n1 0 8 0\n2 0 9 1\n2 0 10 0\n")
    frame = pd.DataFrame({"qid": [1, 1, 2, 2], "docno": [7, 8, 9, 10],
                          "score": [2.0, 1.0, 1.0, 2.0]})
    text = {"1": {"7": 2.0, "8": 1.0}, "2": {"9": 1.0, "10": 2.0}}
    r = compare_runs(f["q_txt"], {"frame": frame, "dict": text}, metrics="ndcg@10")
    assert r.mean["ndcg@10"][0] == r.mean["ndcg@10"][1]
    assert r.tied_with_best == ["dict"]


# -- per-query output, tests on few queries, blank values -----------------------------------

def test_every_per_query_row_names_its_metrics_profile(tmp_path: Path) -> None:
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A, b_run=RUN_B)
    r = compare_runs(f["q_txt"], {"A": f["a_run"], "B": f["b_run"]},
                     metrics="ndcg_cut_10,nDCG@10,trec_eval-c:P_5")
    frame = r.per_query_frame()
    assert list(frame.columns) == ["qid", "metric", "profile", "A", "B"]
    assert dict(zip(frame["metric"], frame["profile"], strict=True)) == {
        "ndcg_cut_10": "trec_eval", "nDCG@10": "trec_eval-c", "trec_eval-c:P_5": "trec_eval-c"}


@pytest.mark.parametrize("n_common", [1, 2])
def test_the_tests_on_one_or_two_common_queries_give_no_false_certainty(tmp_path: Path,
                                                                        n_common: int) -> None:
    """One query: no t-test (NaN, printed '-'), the randomization test's p is 1 (2 sign flips);
    two: the exact randomization p is at least 0.5 (4 sign flips), the t-test's p is scipy's
    ``ttest_rel`` on the two differences (df = 1)."""
    keep = ("q1",) if n_common == 1 else ("q1", "q2")
    b = "".join(line + "\n" for line in RUN_B.splitlines() if line.startswith(keep))
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A, b_run=b)
    r = compare_runs(f["q_txt"], {"A": f["a_run"], "B": f["b_run"]}, metrics="ndcg@10")
    assert r.qids.tolist() == list(keep)
    other = 1 - r.versus.best
    assert r.versus.p_randomization[other] >= 0.5
    if n_common == 1:
        assert np.isnan(r.versus.p_t[other])
    else:
        from scipy import stats
        v = r.values["ndcg@10"]
        want = stats.ttest_rel(v[r.versus.best], v[other]).pvalue
        assert r.versus.p_t[other] == pytest.approx(want, rel=1e-12)


def test_a_query_blank_in_one_run_is_left_out_of_every_run_and_named(tmp_path: Path) -> None:
    """Profile ltrbench: IDCG from the retrieved list, so a run that retrieved no relevant
    document of q2 has no ndcg there (NaN); the other run's q2 value must not enter its mean."""
    b = RUN_B.replace("q2 Q0 d4 1 2.0 b\n", "")
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A, b_run=b)
    r = compare_runs(f["q_txt"], {"A": f["a_run"], "B": f["b_run"]}, metrics="ndcg@10",
                     profile="ltrbench")
    assert r.no_value == {"ndcg@10": ["q2"]}
    assert not np.isnan(r.mean["ndcg@10"]).any()
    assert np.isnan(r.values["ndcg@10"][:, 1]).all()


def test_a_nan_score_in_a_run_frame_is_refused_naming_the_run(tmp_path: Path) -> None:
    f = _write(tmp_path, q_txt=QRELS, a_run=RUN_A)
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, np.nan]})
    with pytest.raises(DataError, match=r"run 'N'.*row 2.*score"):
        compare_runs(f["q_txt"], {"A": f["a_run"], "N": frame}, metrics="ndcg@10")
