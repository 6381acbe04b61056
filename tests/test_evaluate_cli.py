"""``ltrbench evaluate``: inputs, output formats, per-query file and error messages."""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench import examples
from bench.commands import evaluate as cmd
from bench.data.svmlight import read_svmlight
from bench.errors import LtrbenchError
from bench.metrics import evaluate
from bench.report.evaluation_render import print_evaluation

DATA = str(examples.DATA)
SCORES = str(examples.SCORES)


def _main(argv: list[str]) -> int:
    """The sub-command as ``bench.cli.main`` runs it (errors -> 'error: ...', status 2)."""
    parser = argparse.ArgumentParser(prog="ltrbench")
    cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["evaluate", *argv])
    try:
        return args.func(args)
    except LtrbenchError as exc:
        print(f"error: {exc}")
        return 2


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert _main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bundled_example_is_small_and_regenerates_byte_for_byte() -> None:
    data, scores = examples.build()
    assert examples.DATA.read_text() == data
    assert examples.SCORES.read_text() == scores
    assert examples.DATA.stat().st_size + examples.SCORES.stat().st_size < 200_000


def test_json_output_has_the_documented_shape_and_the_api_values(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["--data", DATA, "--scores", SCORES, "--metrics", "ndcg@1,10", "map@10"])
    assert list(out) == ["profile", "n_queries", "metrics", "metric_profiles", "metric_n_queries",
                         "diagnostics"]
    assert out["profile"] == "ltrbench"
    assert out["metric_profiles"] == {"ndcg@1": "ltrbench", "ndcg@10": "ltrbench",
                                      "map@10": "ltrbench"}
    assert out["n_queries"] == 50
    d = read_svmlight(DATA)
    ref = evaluate(d.y, np.loadtxt(SCORES), qid=d.qid, metrics="ndcg@1,10 map@10")
    assert out["metrics"] == pytest.approx(ref.metrics, abs=1e-15)
    assert out["diagnostics"]["n_blank"] == 6
    assert out["diagnostics"]["n_single_document"] == 2
    assert set(out["diagnostics"]["mean_blank_as_1"]) == {"ndcg@1", "ndcg@10", "map@10"}


def test_table_output_lists_metrics_and_blank_policies(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["--data", DATA, "--scores", SCORES]) == 0
    out = capsys.readouterr().out
    for text in ("profile ltrbench: 50 queries", "ndcg@10", "map@10", "mrr", "blank = 1",
                 "blank queries (no relevant document): 6 (excluded)"):
        assert text in out


def test_csv_output_and_per_query_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    per_q = tmp_path / "pq" / "per_query.csv"
    assert _main(["--data", DATA, "--scores", SCORES, "--metrics", "ndcg@5 p@5", "--format", "csv",
                  "--profile", "lightgbm", "--per-query", str(per_q)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "metric,value,profile"
    assert [ln.split(",")[0] for ln in lines[1:]] == ["ndcg@5", "p@5"]
    assert [ln.split(",")[2] for ln in lines[1:]] == ["lightgbm", "lightgbm"]
    table = pd.read_csv(per_q)
    assert list(table.columns) == ["qid", "ndcg@5", "p@5"]
    assert len(table) == 50
    assert float(lines[1].split(",")[1]) == pytest.approx(table["ndcg@5"].mean(), abs=1e-12)


def test_profiles_change_the_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    ours = _json(capsys, ["--data", DATA, "--scores", SCORES, "--metrics", "ndcg@10"])
    lgb = _json(capsys, ["--data", DATA, "--scores", SCORES, "--metrics", "ndcg@10", "--profile", "lightgbm"])
    assert lgb["metrics"]["ndcg@10"] > ours["metrics"]["ndcg@10"]  # blanks scored 1
    assert lgb["diagnostics"]["blank_policy"] == "scored 1"


def _copy_without_qid(tmp_path: Path) -> tuple[Path, Path]:
    lines = examples.DATA.read_text().splitlines()
    stripped = [" ".join(t for t in ln.split("#")[0].split() if not t.startswith("qid:")) for ln in lines]
    data = tmp_path / "rank.train"
    data.write_text("\n".join(stripped) + "\n")
    sizes = pd.Series([ln.split()[1] for ln in lines]).value_counts(sort=False).tolist()
    (tmp_path / "rank.train.query").write_text("".join(f"{s}\n" for s in sizes))
    return data, tmp_path / "rank.train.query"


def test_files_without_qid_take_groups_from_the_query_sidecar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, query = _copy_without_qid(tmp_path)
    a = _json(capsys, ["--data", DATA, "--scores", SCORES])
    b = _json(capsys, ["--data", str(data), "--scores", SCORES])
    c = _json(capsys, ["--data", str(data), "--query", str(query), "--scores", SCORES])
    assert a["metrics"] == b["metrics"] == c["metrics"]


def test_sort_by_qid_accepts_interleaved_queries_and_reorders_the_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = examples.DATA.read_text().splitlines(keepends=True)
    scores = examples.SCORES.read_text().splitlines(keepends=True)
    order = np.random.default_rng(0).permutation(len(lines))
    data = tmp_path / "shuffled.txt"
    data.write_text("".join(lines[i] for i in order))
    sc = tmp_path / "shuffled.scores"
    sc.write_text("".join(scores[i] for i in order))
    assert _main(["--data", str(data), "--scores", str(sc)]) == 2
    assert "reappears after other queries" in capsys.readouterr().out
    shuffled = _json(capsys, ["--data", str(data), "--scores", str(sc), "--sort-by-qid",
                              "--metrics", "ndcg@10 map"])
    # average ties: the order of rows inside a query does not matter
    original = _json(capsys, ["--data", DATA, "--scores", SCORES, "--metrics", "ndcg@10 map"])
    assert shuffled["metrics"] == pytest.approx(original["metrics"], abs=1e-12)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("0.5\nabc\n", r"s.txt:2: score 'abc' is not a plain decimal number"),
        ("0.5\n\n0.25\n", r"s.txt:2: expected one number per line, got an empty line"),
        ("0.5\nnan\n", r"s.txt:2: score 'nan' is not a plain decimal number"),
        ("0.5\n0_25\n", r"s.txt:2: score '0_25' is not a plain decimal number"),
        ("0.5\n1e999\n", r"s.txt:2: score '1e999' is beyond the range of a float64"),
        ("0.5\n0.25\n", r"s.txt: 2 scores but the data file has 924 rows"),
        ("", r"s.txt: empty scores file"),
    ],
)
def test_bad_scores_files_name_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        content: str, message: str) -> None:
    path = tmp_path / "s.txt"
    path.write_text(content)
    assert _main(["--data", DATA, "--scores", str(path)]) == 2
    out = capsys.readouterr().out
    assert out.startswith("error: ")
    assert re.search(message, out), out


def test_malformed_svmlight_line_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "bad.txt"
    data.write_text("1 qid:1 1:0.5\n0 qid:1 1:zero\n")
    assert _main(["--data", str(data), "--scores", SCORES]) == 2
    assert "bad.txt:2: malformed SVMlight line" in capsys.readouterr().out


def test_label_errors_name_the_data_file_and_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "neg.txt"
    data.write_text("1 qid:1 1:0.5\n-1 qid:1 1:0.2\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.1\n0.2\n")
    assert _main(["--data", str(data), "--scores", str(scores)]) == 2
    assert "neg.txt:2, row 2: label -1.0 is negative" in capsys.readouterr().out


def test_sort_by_qid_errors_name_the_file_row_and_line_not_the_sorted_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Data rows 1..4 sit on lines 2, 3, 5, 6; sorting by qid gives rows 1, 3, 2, 4, so the
    # negative label (data row 3, line 5) is the evaluator's second row.
    data = tmp_path / "bad.txt"
    data.write_text("# header\n1 qid:1 1:1\n0 qid:2 1:2\n\n-1 qid:1 1:3\n0 qid:2 1:4\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.1\n0.2\n0.3\n0.4\n")
    assert _main(["--data", str(data), "--scores", str(scores), "--sort-by-qid"]) == 2
    assert "bad.txt:5, row 3: label -1.0 is negative" in capsys.readouterr().out
    # a profile-dependent label check (done after sorting) is mapped back the same way
    data.write_text("# header\n1 qid:1 1:1\n0 qid:2 1:2\n\n1.5 qid:1 1:3\n0 qid:2 1:4\n")
    assert _main(["--data", str(data), "--scores", str(scores), "--sort-by-qid"]) == 2
    assert "bad.txt:5, row 3: label 1.5 is not an integer" in capsys.readouterr().out


def test_sort_by_qid_reads_the_data_file_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import bench.data.svmlight_parse as svm

    calls: list[list[str]] = []
    real = svm.parse_svmlight

    def counting(path, **kw):  # type: ignore[no-untyped-def]
        calls.append([str(path)])
        return real(path, **kw)

    monkeypatch.setattr(svm, "parse_svmlight", counting)
    data = tmp_path / "d.txt"
    data.write_text("1 qid:1 1:1\n0 qid:2 1:2\n0 qid:1 1:3\n1 qid:2 1:4\n")
    scores = tmp_path / "s.txt"
    scores.write_text("0.9\n0.1\n0.2\n0.8\n")
    out = _json(capsys, ["--data", str(data), "--scores", str(scores), "--sort-by-qid",
                         "--metrics", "mrr"])
    assert calls == [[str(data)]]
    # each query ranks its relevant document first once the scores follow the rows
    assert out["metrics"] == {"mrr": 1.0}


def test_trec_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 t\n1 Q0 b 2 0.7 t\n2 Q0 c 1 1.0 t\n")
    out = _json(capsys, ["--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"),
                         "--metrics", "mrr p@1"])
    assert out["profile"] == "trec_eval"
    assert out["n_queries"] == 2
    assert out["metrics"] == {"mrr": 0.75, "p@1": 0.5}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--data", DATA], "give either --data FILE --scores FILE, or --qrels FILE --run FILE"),
        (["--qrels", DATA, "--scores", SCORES], "give either"),
        (["--data", DATA, "--scores", SCORES, "--profile", "nope"], "valid profiles: ltrbench, lightgbm"),
        (["--data", DATA, "--scores", SCORES, "--metrics", "ndcg@x"], "unknown metric 'ndcg@x'"),
    ],
)
def test_bad_options_are_errors_listing_what_is_valid(argv: list[str], message: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(argv) == 2
    assert message in capsys.readouterr().out


def test_the_real_cli_entry_point_runs_evaluate(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        from bench.cli import main
        main_parser_ok = True
    except ImportError:  # pragma: no cover - another sub-command is not written yet
        main_parser_ok = False
    if not main_parser_ok:
        pytest.skip("bench.cli cannot be imported")
    try:
        status = main(["evaluate", "--data", DATA, "--scores", SCORES, "--format", "json"])
    except ModuleNotFoundError as exc:  # pragma: no cover
        pytest.skip(f"a sub-command module is missing: {exc}")
    assert status == 0
    assert json.loads(capsys.readouterr().out)["n_queries"] == 50


def _three_runs(tmp_path: Path) -> tuple[str, list[str]]:
    """The hand-computed case of tests/test_report_compare_runs.py as files; two runs share a stem."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq1 0 b 1\nq2 0 a 1\nq2 0 b 1\nq3 0 a 1\nq3 0 b 0\n")
    runs = {  # p@2 per query: A (1, 1, 0.5), B (0, 0.5, 0.5), C (0.5, 1, 0.5)
        "a/bm25.run": "q1 Q0 a 1 0.9 t\nq1 Q0 b 2 0.8 t\nq2 Q0 a 1 0.9 t\nq2 Q0 b 2 0.8 t\n"
                      "q3 Q0 a 1 0.9 t\nq3 Q0 x 2 0.8 t\n",
        "b/bm25.run": "q1 Q0 x 1 0.9 t\nq1 Q0 y 2 0.8 t\nq2 Q0 a 1 0.9 t\nq2 Q0 x 2 0.8 t\n"
                      "q3 Q0 a 1 0.9 t\nq3 Q0 y 2 0.8 t\n",
        "c.run": "q1 Q0 a 1 0.9 t\nq1 Q0 x 2 0.8 t\nq2 Q0 a 1 0.9 t\nq2 Q0 b 2 0.8 t\n"
                 "q3 Q0 a 1 0.9 t\nq3 Q0 x 2 0.8 t\n",
    }
    for name, text in runs.items():
        (tmp_path / name).write_text(text)
    return str(tmp_path / "q.txt"), [str(tmp_path / n) for n in runs]


def test_one_run_prints_what_the_single_run_evaluation_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.metrics import evaluate_trec

    qrels, runs = _three_runs(tmp_path)
    result = evaluate_trec(qrels, runs[0], metrics=["p@2", "mrr"], per_query=True)
    for fmt in ("table", "json", "csv"):
        print_evaluation(result, fmt)
        expected = capsys.readouterr().out
        for run in (runs[0], f"NAME={runs[0]}"):
            argv = ["--qrels", qrels, "--run", run, "--metrics", "p@2", "mrr", "--format", fmt,
                    "--per-query", str(tmp_path / "pq.csv")]
            assert _main(argv) == 0
            assert capsys.readouterr().out == expected
            assert (tmp_path / "pq.csv").read_text() == result.per_query.to_csv(index=False)


def test_several_runs_are_compared_with_hand_computed_p_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, runs = _three_runs(tmp_path)
    out = _json(capsys, ["--qrels", qrels, "--run", runs[0], "--run", runs[1],
                         "--run", f"C={runs[2]}", "--metrics", "p@2"])
    assert [r["name"] for r in out["runs"]] == ["bm25", "bm25-2", "C"]  # stems collide: -2
    assert out["best"] == "bm25"
    assert out["n_queries"] == 3
    assert [r["metrics"]["p@2"]["mean"] for r in out["runs"]] == pytest.approx(
        [2.5 / 3, 1 / 3, 2 / 3], abs=1e-15)
    # randomization: exact enumeration of 2^3 sign flips, 4/8 and 8/8 (see test_report_compare_runs.py)
    assert [r["vs_best"] and r["vs_best"]["p_randomization"] for r in out["runs"]] == [None, 0.5, 1.0]
    assert out["runs"][1]["vs_best"]["p_t"] == pytest.approx(1 - (3 / 5) ** 0.5, abs=1e-12)
    assert "common to all runs" in out["queries"]


def test_comparison_csv_table_and_per_query_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, runs = _three_runs(tmp_path)
    pq = tmp_path / "pq.csv"
    argv = ["--qrels", qrels, "--run", f"A={runs[0]}", "--run", f"B={runs[1]}", "--run",
            f"C={runs[2]}", "--metrics", "p@2", "mrr", "--per-query", str(pq)]
    assert _main([*argv, "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert frame["run"].tolist() == ["A", "B", "C"]
    assert frame["p@2"].tolist() == pytest.approx([2.5 / 3, 1 / 3, 2 / 3], abs=1e-15)
    per_query = pd.read_csv(pq)
    assert per_query.columns.tolist() == ["qid", "metric", "profile", "A", "B", "C"]
    assert set(per_query["profile"]) == {"trec_eval"}
    assert per_query[per_query["metric"] == "p@2"]["B"].tolist() == [0.0, 0.5, 0.5]
    assert _main(argv) == 0
    text = capsys.readouterr().out
    assert "3 runs, 3 common queries" in text
    assert "never scored 0" in text
    assert "0.8333" in text
    assert "best" in text


def test_run_names_keep_an_existing_path_with_an_equals_sign(tmp_path: Path) -> None:
    odd = tmp_path / "k1=0.9.run"
    odd.write_text("")
    assert cmd.run_names([str(odd), f"x={odd}", str(odd)]) == [
        ("k1=0.9", str(odd)), ("x", str(odd)), ("k1=0.9-2", str(odd))]
    with pytest.raises(LtrbenchError, match="'x' is given twice"):
        cmd.run_names(["x=a.run", "x=b.run"])


def test_a_stem_that_another_run_gives_as_its_name_is_refused() -> None:
    # the row named 'b' would be r.txt, and b.txt would print as 'b-2'
    with pytest.raises(LtrbenchError, match=r"--run b.txt would be named 'b'.*b=r.txt"):
        cmd.run_names(["b=r.txt", "b.txt"])
    with pytest.raises(LtrbenchError, match=r"label it: --run NAME=dir/b.run"):
        cmd.run_names(["dir/b.run", "b=x.run"])


def test_column_and_port_numbers_are_ascii_digits_only() -> None:
    # str.isdigit() is true for Arabic-Indic digits, which int() reads: '١' would pick column 1
    from bench.data.dask_cluster import check_scheduler_address

    with pytest.raises(LtrbenchError, match="not a number"):
        check_scheduler_address("127.0.0.1:٨٧٨٦")
