"""Hostile cases, round 22: a user on other platforms and other terminals.

Part 1, files made on Windows and macOS and moved to this Linux machine: configs and data with
CRLF, byte-order marks, cp1252 bytes and UTF-16; Windows paths typed as they are on Windows
(``sub\\q.txt``, ``C:\\data``, ``--data-dir D:\\datasets``, whose ``:`` is also the data-directory
list's separator here); macOS' companions (``._train.txt``, ``.DS_Store``, ``__MACOSX/``,
``Icon\\r``) inside dataset and results folders.

Part 2, terminals: a narrow terminal (``COLUMNS=20``, ``0``, ``abc``) on a terminal and off it,
``PYTHONIOENCODING=ascii`` / ``latin-1`` with names the encoding cannot spell, ``TERM=dumb``,
``FORCE_COLOR``; and one ``--no-progress`` on every long command. The rule for tables: every
number and name is printed whole and every column is there (or the command says where the
rest is), the columns stay aligned, and no encoding gives a traceback.

Classes in the test names: traceback, silently wrong, silent accept, unclear error.
Everything runs in-process (``bench.cli.main`` through ``hostile_kit.cli``, or a variant of it
whose standard output is a terminal or has another encoding).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import (
    QRELS,
    RATINGS,
    RUN,
    Res,
    chdir,
    cli,
    csv_values,
    done,
    letor_folder,
    main_status,
    ok,
    own_error,
    refused,
    write_one_seed_run,
)

#: An AppleDouble companion file as macOS writes it on a non-Mac volume or into a zip.
APPLE_DOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \x00\x02\x00\x00\x00\x09"
DS_STORE = b"\x00\x00\x00\x01Bud1\x00\x00\x10\x00"
#: The long commands: each draws progress on a terminal and takes --no-progress.
LONG_COMMANDS = (("run",), ("tune",), ("report",), ("reproduce",), ("convert",),
                 ("crosscheck",), ("crosscheck-versions",), ("datasets", "fetch"))


class _Terminal(io.StringIO):
    """Standard output that says it is a terminal (a person is reading)."""

    def isatty(self) -> bool:
        return True


def term_cli(cwd: Path, *argv: str, tty: bool = True, encoding: str | None = None) -> Res:
    """``ltrbench ARGV`` in-process, its standard output a terminal (``tty``) or a stream of
    ``encoding`` (strict, as ``PYTHONIOENCODING=ascii`` gives); an escaping exception is a
    traceback."""
    raw = io.BytesIO()
    out: io.TextIOBase
    if encoding is not None:
        out = io.TextIOWrapper(raw, encoding=encoding, errors="strict", newline="\n")
        if tty:
            out.isatty = lambda: True  # type: ignore[method-assign]
    else:
        out = _Terminal() if tty else io.StringIO()
    err = io.StringIO()
    with chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main_status(argv, err)
    if encoding is not None:
        out.flush()
        text = raw.getvalue().decode(encoding)
    else:
        text = out.getvalue()
    return Res(status, text, err.getvalue())


def aligned(table: str) -> str | None:
    """None when every row of a boxed table puts its column rules at the same places."""
    rows = [ln for ln in table.splitlines() if ln.count("|") >= 3 or ln.count("│") >= 3]
    marks = {tuple(i for i, c in enumerate(ln) if c in "|│┃") for ln in rows}
    return None if len(marks) == 1 else f"rows disagree on the column rules:\n{table}"


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Qrels, two runs, a LETOR dataset and a sub-folder holding copies of the TREC files."""
    p = tmp_path_factory.mktemp("term")
    (p / "q.txt").write_bytes(QRELS)
    (p / "r.txt").write_bytes(RUN)
    (p / "r2.txt").write_bytes(RUN.replace(b"0.4 t", b"0.95 t"))
    (p / "sub").mkdir()
    for name in ("q.txt", "r.txt"):
        shutil.copy(p / name, p / "sub" / name)
    (p / "sub" / "s.txt").write_bytes(b"0.9\n0.1\n0.5\n0.2\n0.8\n")
    letor_folder(p / "data")
    return p


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "TERM", "TTY_COMPATIBLE"):
        monkeypatch.delenv(var, raising=False)


# ---------------------------------------------------------------- narrow terminals: metrics list


@pytest.mark.parametrize("columns", ["20"])
def test_silently_wrong_metrics_list_on_a_narrow_terminal_drops_no_column(
        proj: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    """At COLUMNS=20 on a terminal the listing showed two columns cut to 7 characters
    (``ltrbenc``) and dropped the spelling, profile and meaning columns without a word."""
    from bench.metrics.names import describe_names

    monkeypatch.setenv("COLUMNS", columns)
    shown = done(term_cli(proj, "metrics", "list")).out
    header = next(ln for ln in shown.splitlines() if ln.startswith("family"))
    assert header.split() == ["family", "grammar", "spelling", "profile", "meaning"], header
    text = " ".join(shown.split())
    for r in describe_names()[:12]:
        for col in ("family", "grammar", "profile", "meaning"):
            for word in r[col].split():
                assert len(word) > 12 or word in text, (col, word, shown[:600])


@pytest.mark.parametrize("columns", ["0"])
def test_metrics_list_on_a_terminal_with_a_nonsense_width_prints_every_family(
        proj: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    from bench.metrics.names import describe_names

    monkeypatch.setenv("COLUMNS", columns)
    res = done(term_cli(proj, "metrics", "list"))
    for r in describe_names():
        assert r["family"] in res.out


def test_metrics_list_piped_is_one_line_per_name_whatever_columns_says(
        proj: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.metrics.names import describe_names

    monkeypatch.setenv("COLUMNS", "20")
    res = done(term_cli(proj, "metrics", "list", tty=False))
    lines = res.out.splitlines()
    assert len([ln for ln in lines if ln.strip()]) > len(describe_names())
    assert all(r["meaning"] in res.out for r in describe_names())


# ------------------------------------------------------------- encodings the names cannot spell


EVAL2 = ("evaluate", "--qrels", "q.txt", "--run", "modèle-ünï=r.txt", "--run", "模型=r2.txt",
         "--metrics", "ndcg@3")


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_silently_wrong_a_comparison_under_a_narrow_encoding_keeps_its_columns_aligned(
        proj: Path, clean_env: None, encoding: str) -> None:
    """Under PYTHONIOENCODING=ascii the name 模型 was measured as 4 cells and printed as the
    12 characters ``\\u6a21\\u578b``: every cell of its row slid right under the wrong header."""
    res = done(term_cli(proj, *EVAL2, tty=False, encoding=encoding))
    table = res.out.split("queries:")[0]
    ok(aligned(table))
    assert "\\u6a21\\u578b" in table


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_comparison_under_a_narrow_encoding_prints_the_csv_means(
        proj: Path, clean_env: None, encoding: str) -> None:
    import csv

    rows = list(csv.DictReader(io.StringIO(done(cli(proj, *EVAL2, "--format", "csv")).out)))
    res = done(term_cli(proj, *EVAL2, tty=False, encoding=encoding))
    for row in rows:
        assert f"{float(row['ndcg@3']):.4f}" in res.out, (row, res.out)


def test_traceback_an_evaluation_table_on_an_ascii_terminal_with_a_cjk_qrels_name(
        proj: Path, clean_env: None, tmp_path: Path) -> None:
    shutil.copy(proj / "q.txt", tmp_path / "判定.txt")
    shutil.copy(proj / "r.txt", tmp_path / "r.txt")
    want = csv_values(done(cli(tmp_path, "evaluate", "--qrels", "判定.txt", "--run", "r.txt",
                               "--format", "csv")))
    res = done(term_cli(tmp_path, "evaluate", "--qrels", "判定.txt", "--run", "r.txt",
                        encoding="ascii"))
    for metric, value in want.items():
        assert f"{value:.6f}" in res.out, (metric, res.out)


def test_traceback_an_error_naming_a_cjk_file_on_an_ascii_stream_is_one_line(
        proj: Path, clean_env: None) -> None:
    res = term_cli(proj, "evaluate", "--qrels", "判定.txt", "--run", "r.txt", encoding="ascii")
    ok(refused(res, "no such file"))


def test_datasets_list_on_a_latin1_terminal_at_twenty_columns_keeps_every_name(
        proj: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(proj / "ltr"))
    names = [r["name"] for r in json.loads(done(cli(proj, "datasets", "list", "--format",
                                                    "json")).out)["datasets"]]
    monkeypatch.setenv("COLUMNS", "20")
    res = done(term_cli(proj, "datasets", "list", encoding="latin-1"))
    cells = set(re.split(r"[\s|│]+", re.sub(r"\x1b\[[0-9;]*m", "", res.out)))
    assert set(names) <= cells, set(names) - cells


def test_silently_wrong_the_comparison_on_a_dumb_forced_colour_terminal_keeps_its_numbers(
        proj: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import csv

    argv = ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--run", "r2.txt", "--metrics",
            "ndcg@3,map@10")
    rows = list(csv.DictReader(io.StringIO(done(cli(proj, *argv, "--format", "csv")).out)))
    for var, value in (("TERM", "dumb"), ("FORCE_COLOR", "1"), ("COLUMNS", "0")):
        monkeypatch.setenv(var, value)
    out = re.sub(r"\x1b\[[0-9;]*m", "", done(term_cli(proj, *argv)).out)
    for row in rows:
        for key in ("ndcg@3", "map@10"):
            assert f"{float(row[key]):.4f}" in out, (key, out)


# ------------------------------------------------------------------ perf: its table, narrowly


def test_silently_wrong_perf_adapters_at_twenty_columns_cuts_no_stage_name(
        proj: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """``fit:groups`` was printed ``fit:grou…`` and ``features:user`` ``features…``."""
    monkeypatch.setenv("COLUMNS", "20")
    res = done(term_cli(proj, "perf", "adapters", "--ratings", "1500", "--users", "40",
                        "--items", "200", "--features", "user", tty=False))
    assert "…" not in res.out, res.out
    for stage in ("table", "split", "negatives", "labels"):
        assert stage in res.out


# ------------------------------------------------------------- what is left out is said so


def test_unclear_a_run_summary_with_many_crosscheck_errors_says_how_many_are_not_shown() -> None:
    from bench.benchmark.summary import summary_text

    errors = [f"lightgbm-lambdarank seed {s}: gap 0.0{s}" for s in range(6)]
    summary = {"dataset": "d", "split": "test", "profile": "ltrbench", "seeds": [0],
               "metrics": [], "models": {}, "timings": {}, "notes": [],
               "crosscheck": {"ok": False, "errors": errors}, "run_dir": "res/runs/x", "status": {}}
    text = summary_text(summary, metrics=())
    line = next(ln for ln in text.splitlines() if ln.startswith("cross-check"))
    assert all(e in line for e in errors) or ("3 more" in line and "crosscheck" in line), line


def test_unclear_reproduce_text_with_many_differences_says_how_to_see_them_all(
        proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.benchmark.reproduce_folds as rf
    from bench.benchmark.reproduce_steps import Outcome

    diffs = [{"file": "metrics.csv", "key": f"m{i}", "column": "value", "original": 0.5,
              "reproduced": 0.6, "abs_diff": 0.1} for i in range(25)]
    fake = Outcome(source="leaderboard.json", status="mismatch", reran=True, compared=25,
                   n_differences=25, tolerance=0.0, tolerance_reason="same environment",
                   differences=diffs)
    monkeypatch.setattr(rf, "reproduce_document", lambda *a, **k: [fake])
    (proj / "lb.json").write_text("{}", encoding="utf-8")
    res = term_cli(proj, "reproduce", "lb.json", "--no-progress", tty=False)
    assert res.status == 1, (res.status, res.err[-500:])
    assert "5 more" in res.out, res.out
    assert "--format json" in res.out, res.out


# --------------------------------------------------------------------- one --no-progress


@pytest.mark.parametrize("command", LONG_COMMANDS, ids=" ".join)
def test_silent_accept_every_long_command_takes_the_same_no_progress_option(
        command: tuple[str, ...]) -> None:
    """``convert`` and ``crosscheck`` took no --no-progress while run, tune and report did."""
    from bench.cli import load_command

    parser = load_command(command[0])
    if len(command) > 1:
        sub = next(a for a in parser._actions if a.dest == "datasets_command" or
                   (getattr(a, "choices", None) and isinstance(a.choices, dict)))
        parser = sub.choices[command[1]]
    flags = {o: a for a in parser._actions for o in a.option_strings}
    assert "--no-progress" in flags, command
    assert flags["--no-progress"].help == "no progress bar or progress lines on standard error"


def test_convert_with_no_progress_on_a_terminal_writes_no_stage_lines(
        proj: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ratings.csv").write_bytes(RATINGS)
    class _TtyErr(io.StringIO):
        def isatty(self) -> bool:
            return True

    said: list[str] = []
    monkeypatch.setattr("bench.adapters.summary_table.print_summary", lambda *a, **k: None)
    import importlib

    monkeypatch.setattr(importlib.import_module("bench.adapters.convert"), "convert",
                        lambda ratings, out, config, *, progress, **k: (progress("split"),
                                                                        said.append("ran"))[0])
    err = _TtyErr()
    with chdir(tmp_path), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        from bench import cli as bench_cli

        status = bench_cli.main(["convert", "--ratings", "ratings.csv", "--layout", "csv",
                                 "--user", "user", "--item", "item", "--out", "cv",
                                 "--no-progress"])
    assert status == 0, (status, err.getvalue()[-400:])
    assert said == ["ran"]
    assert "convert:" not in err.getvalue(), err.getvalue()


def test_crosscheck_evaluators_with_no_progress_prints_no_progress_lines(
        proj: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.crosscheck.evaluators as ev

    def fake(inputs: object, *, only: object, progress: object) -> None:
        if progress is not None:
            progress("pytrec_eval: 12 measures")  # type: ignore[operator]
        raise KeyboardInterrupt  # stop here: only the progress lines are checked

    monkeypatch.setattr(ev, "crosscheck_evaluators", fake)
    res = cli(tmp_path, "crosscheck", "--evaluators", "--out", "o", "--no-progress")
    assert "pytrec_eval: 12 measures" not in res.err, res.err[-400:]
    assert res.status == 130, (res.status, res.err[-400:])


# ---------------------------------------------------------- Windows paths typed on Linux


@pytest.mark.parametrize("value", ["D:\\datasets", "C:/data/ltr", "E:"])
def test_silent_accept_a_windows_drive_data_dir_is_refused_not_split_at_its_colon(
        proj: Path, tmp_path: Path, value: str) -> None:
    """``--data-dir D:\\datasets`` was read as two folders, ``D`` and ``\\datasets``, with
    ``D`` (a folder made in the current one) the place fetched data would go."""
    res = cli(tmp_path, "datasets", "list", "--data-dir", value)
    ok(refused(res, "--data-dir", value, "Windows"))
    assert not (tmp_path / value[0]).exists()


def test_silent_accept_a_windows_drive_in_the_data_dir_variable_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTRBENCH_DATA_DIR", "C:\\ltr")
    ok(refused(cli(tmp_path, "datasets", "list"), "LTRBENCH_DATA_DIR", "C:\\ltr", "Windows"))


def test_silent_accept_a_windows_list_separator_in_the_data_dir_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/data/ltr;/srv/ltr`` (Windows' ';' between folders) was one folder of that name."""
    monkeypatch.setenv("LTRBENCH_DATA_DIR", f"{tmp_path}/ltr;{tmp_path}/more")
    ok(refused(cli(tmp_path, "datasets", "list"), "LTRBENCH_DATA_DIR", "';'", "':'"))


def test_silent_accept_a_backslash_data_dir_is_refused_naming_the_separator(
        tmp_path: Path) -> None:
    res = cli(tmp_path, "datasets", "list", "--data-dir", "data\\ltr")
    ok(refused(res, "--data-dir", "data\\ltr", "'/'"))
    assert not any(tmp_path.iterdir())


def test_silent_accept_a_windows_data_dir_in_a_config_file_is_refused(proj: Path,
                                                                       tmp_path: Path) -> None:
    from bench.benchmark.config import RunConfig

    (tmp_path / "c.toml").write_text("dataset = \"synthetic\"\ndata_dir = 'D:\\datasets'\n"
                                     "models = [\"random\"]\n", encoding="utf-8")
    ok(own_error(lambda: RunConfig.load(tmp_path / "c.toml"), "D:\\datasets", "Windows"))


@pytest.mark.parametrize("argv", [
    ("evaluate", "--qrels", "sub\\q.txt", "--run", "r.txt"),
    ("evaluate", "--qrels", "q.txt", "--run", "bm25=sub\\r.txt"),
    ("evaluate", "--data", "data/test.txt", "--scores", "sub\\s.txt"),
], ids=["qrels", "named-run", "scores"])
def test_unclear_a_backslash_input_path_names_the_file_that_is_there(
        proj: Path, argv: tuple[str, ...]) -> None:
    """``sub\\q.txt: no such file`` while ``sub/q.txt`` was there: the message now says that a
    backslash is part of a name here and names the file meant."""
    res = cli(proj, *argv)
    typed = next(a.split("=")[-1] for a in argv if "\\" in a)
    ok(refused(res, typed, "Windows", typed.replace("\\", "/")))


def test_unclear_a_dataset_typed_with_a_windows_dot_backslash_names_the_folder(
        proj: Path) -> None:
    res = cli(proj, "run", "--dataset", ".\\data", "--models", "random", "--quick",
              "--no-progress", "--out", "res")
    ok(refused(res, ".\\data", "Windows", "./data"))
    assert not (proj / "res").exists()


@pytest.mark.parametrize("path", ["C:\\ml\\ratings.csv", "C:/ml/ratings.csv"])
def test_unclear_a_drive_letter_ratings_path_says_it_is_a_windows_path(
        tmp_path: Path, path: str) -> None:
    res = cli(tmp_path, "convert", "--ratings", path, "--out", "cv")
    ok(refused(res, path, "Windows"))
    assert not (tmp_path / "cv").exists()


def test_unclear_a_config_dataset_with_backslashes_names_key_and_folder(proj: Path) -> None:
    (proj / "win.toml").write_text("dataset = 'sub\\data'\nmodels = [\"random\"]\n",
                                   encoding="utf-8")
    (proj / "sub" / "data").mkdir(exist_ok=True)
    res = cli(proj, "run", "--config", "win.toml", "--quick", "--no-progress", "--out", "res")
    ok(refused(res, "win.toml", "dataset", "sub\\data", "Windows", "sub/data"))
    assert not (proj / "res").exists()


def test_unclear_report_runs_typed_with_backslashes_names_the_folder(
        proj: Path, tmp_path: Path) -> None:
    write_one_seed_run(tmp_path / "res" / "runs", "d-20260101T000000Z-00000001", "d",
                       {"random": [0.1, 0.2]})
    res = cli(tmp_path, "report", "--runs", "res\\runs", "--out", "rep", "--no-plots",
              "--no-progress")
    ok(refused(res, "res\\runs", "Windows", "res/runs"))


# ------------------------------------------------------------- files that came from Windows


def test_a_config_with_a_bom_and_crlf_reads_as_the_plain_config(proj: Path,
                                                                  tmp_path: Path) -> None:
    from bench.benchmark.config import RunConfig

    text = "dataset = \"synthetic\"\nmodels = [\"random\", \"lightgbm-lambdarank\"]\nseeds = [3, 4]\n"
    (tmp_path / "plain.toml").write_text(text, encoding="utf-8")
    (tmp_path / "win.toml").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    a, b = RunConfig.load(tmp_path / "plain.toml"), RunConfig.load(tmp_path / "win.toml")
    assert (a.models, a.seeds, a.dataset) == (b.models, b.seeds, b.dataset)
    assert tuple(b.seeds) == (3, 4)


def test_unclear_a_notepad_unicode_config_is_refused_naming_utf16_and_iconv(
        tmp_path: Path) -> None:
    from bench.benchmark.config import RunConfig

    (tmp_path / "c.toml").write_bytes("dataset = \"synthetic\"\r\n".encode("utf-16"))
    ok(own_error(lambda: RunConfig.load(tmp_path / "c.toml"), "c.toml", "UTF-16", "iconv"))


def test_unclear_a_cp1252_config_is_refused_naming_line_and_byte(tmp_path: Path) -> None:
    from bench.benchmark.config import RunConfig

    (tmp_path / "c.toml").write_bytes(b"dataset = \"synthetic\"\r\ndescription = \"caf\xe9 "
                                      b"\x93test\x94\"\r\n")
    ok(own_error(lambda: RunConfig.load(tmp_path / "c.toml"), "c.toml:2", "0xe9"))


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_unclear_a_notepad_unicode_trec_file_is_refused_naming_utf16(
        proj: Path, tmp_path: Path, which: str) -> None:
    data = {"qrels": QRELS, "run": RUN}[which]
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "r.txt").write_bytes(RUN)
    name = "q.txt" if which == "qrels" else "r.txt"
    (tmp_path / name).write_bytes(data.decode().replace("\n", "\r\n").encode("utf-16"))
    ok(refused(cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt"), name,
               "UTF-16"))


def test_unclear_a_notepad_unicode_scores_file_is_refused_naming_utf16(proj: Path,
                                                                      tmp_path: Path) -> None:
    (tmp_path / "s.txt").write_bytes("0.9\r\n0.1\r\n0.5\r\n0.2\r\n0.8\r\n".encode("utf-16"))
    res = cli(tmp_path, "evaluate", "--data", str(proj / "data" / "test.txt"), "--scores",
              "s.txt")
    ok(refused(res, "s.txt", "UTF-16"))


def test_crlf_and_bom_trec_files_give_the_lf_numbers(proj: Path, tmp_path: Path) -> None:
    want = csv_values(done(cli(proj, "evaluate", "--qrels", "q.txt", "--run", "r.txt",
                               "--format", "csv")))
    for name, data in (("q.txt", QRELS), ("r.txt", RUN)):
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))
    got = csv_values(done(cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt",
                              "--format", "csv")))
    assert got == want


# -------------------------------------------------------------- macOS companions in folders


def _splits_of(folder: Path) -> dict[str, bytes]:
    from bench.datasets.resolve import load_path

    s = load_path(folder)
    return {k: v.X.tobytes() + v.y.tobytes() + v.qid.tobytes()
            for k, v in (("train", s.train), ("vali", s.vali), ("test", s.test))}


def test_a_letor_folder_with_apple_double_files_and_ds_store_reads_as_the_clean_folder(
        proj: Path, tmp_path: Path) -> None:
    shutil.copytree(proj / "data", tmp_path / "mac")
    for name in ("._train.txt", "._vali.txt", "._test.txt"):
        (tmp_path / "mac" / name).write_bytes(APPLE_DOUBLE)
    (tmp_path / "mac" / ".DS_Store").write_bytes(DS_STORE)
    (tmp_path / "mac" / "__MACOSX").mkdir()
    (tmp_path / "mac" / "__MACOSX" / "._train.txt").write_bytes(APPLE_DOUBLE)
    assert _splits_of(tmp_path / "mac") == _splits_of(proj / "data")


def test_a_fold_root_with_a_macosx_twin_folder_reads_its_fold(proj: Path,
                                                              tmp_path: Path) -> None:
    from bench.datasets.resolve import load_dataset

    shutil.copytree(proj / "data", tmp_path / "root" / "Fold1")
    (tmp_path / "root" / "__MACOSX" / "Fold1").mkdir(parents=True)
    (tmp_path / "root" / "__MACOSX" / "Fold1" / "._train.txt").write_bytes(APPLE_DOUBLE)
    (tmp_path / "root" / "Fold1" / "._vali.txt").write_bytes(APPLE_DOUBLE)
    (tmp_path / "root" / ".DS_Store").write_bytes(DS_STORE)
    s = load_dataset(f"{tmp_path / 'root'}:Fold1")
    assert s.test.n_queries == load_dataset(str(proj / "data")).test.n_queries


def test_a_results_folder_copied_from_a_mac_reports_its_one_run(tmp_path: Path) -> None:
    from bench.report.select import select_runs

    runs = tmp_path / "res" / "runs"
    rid = "d-20260101T000000Z-00000001"
    write_one_seed_run(runs, rid, "d", {"random": [0.1, 0.2]})
    (runs / f"._{rid}").write_bytes(APPLE_DOUBLE)
    (runs / ".DS_Store").write_bytes(DS_STORE)
    (runs / "Icon\r").write_bytes(b"")
    (runs / rid / "._metrics.csv").write_bytes(APPLE_DOUBLE)
    (tmp_path / "res" / "__MACOSX" / "runs").mkdir(parents=True)
    (tmp_path / "res" / "__MACOSX" / "runs" / f"._{rid}").write_bytes(APPLE_DOUBLE)
    chosen = select_runs([tmp_path / "res"])
    assert [c.run.path.name for c in chosen.choices] == [rid]
    assert chosen.choices[0].found == 1


def test_a_movielens_folder_with_apple_double_files_is_read_as_its_ratings(
        tmp_path: Path) -> None:
    from bench.data.movielens import load_movielens

    ml = tmp_path / "ml"
    ml.mkdir()
    (ml / "ratings.csv").write_bytes(RATINGS.replace(b"user,item,", b"userId,movieId,"))
    (ml / "._ratings.csv").write_bytes(APPLE_DOUBLE)
    (ml / ".DS_Store").write_bytes(DS_STORE)
    (ml / "__MACOSX").mkdir()
    (ml / "__MACOSX" / "._ratings.csv").write_bytes(APPLE_DOUBLE)
    assert load_movielens(ml).n_ratings == RATINGS.count(b"\n") - 1  # the lines under the header


# ------------------------------------------- documents on standard output in a narrow encoding


def _fake_crosscheck(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cross-check of a dataset named ``café`` whose Markdown is one table row."""
    from types import SimpleNamespace

    monkeypatch.setattr("bench.crosscheck.find.crosscheck_request", lambda *a, **k: SimpleNamespace(
        result=SimpleNamespace(ok=True), files={"md": "x.md", "json": "x.json"}))
    monkeypatch.setattr("bench.crosscheck.render.render_markdown",
                        lambda result: "| café | 0.5000 | 0.5000 |\n")


def test_silently_wrong_crosscheck_markdown_in_ascii_is_refused_not_escaped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``crosscheck --format markdown > x.md`` under PYTHONIOENCODING=ascii wrote ``caf\\xe9``
    (another name to whatever reads the document) with exit 0, as ``evaluate --format csv``
    did before round 17."""
    _fake_crosscheck(monkeypatch)
    res = term_cli(tmp_path, "crosscheck", "--run", "r", "--format", "markdown", tty=False,
                   encoding="ascii")
    ok(refused(res, "ascii", "PYTHONIOENCODING"))
    assert "caf\\xe9" not in res.out


def test_crosscheck_table_for_a_person_in_ascii_shows_the_escape(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_crosscheck(monkeypatch)
    res = done(term_cli(tmp_path, "crosscheck", "--run", "r", tty=False, encoding="ascii"))
    assert "caf\\xe9 | 0.5000" in res.out, res.out


# ------------------------------------------------------ outputs written as Windows paths


@pytest.mark.parametrize("argv", [
    ("run", "--dataset", "data", "--models", "random", "--quick", "--no-progress", "--out",
     "C:/results"),
    ("report", "--runs", "nothing", "--out", "D:/reports", "--no-progress"),
    ("evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "C:/out/pq.csv"),
], ids=["run-out", "report-out", "per-query"])
def test_silent_accept_an_output_under_a_drive_letter_is_refused_before_any_work(
        proj: Path, tmp_path: Path, argv: tuple[str, ...]) -> None:
    """``--out C:/results`` made a folder ``C:`` in the current folder and wrote there."""
    for name in ("q.txt", "r.txt"):
        shutil.copy(proj / name, tmp_path / name)
    shutil.copytree(proj / "data", tmp_path / "data")
    res = cli(tmp_path, *argv)
    ok(refused(res, next(a for a in argv if a[1:3] == ":/"), "Windows"))
    assert not any(p.name.endswith(":") for p in tmp_path.iterdir())


@pytest.mark.parametrize("url", ["sqlite:///C:\\studies\\s.db", "sqlite:///C:/studies/s.db",
                                 "sqlite:///studies\\s.db"])
def test_silent_accept_a_windows_sqlite_storage_is_refused_and_no_file_made(
        tmp_path: Path, url: str) -> None:
    """``sqlite:///C:\\studies\\s.db`` was one file of that name in the current folder."""
    from bench.benchmark.tune import check_tune_storage

    with chdir(tmp_path):
        ok(own_error(lambda: check_tune_storage(url, []), "--storage", "Windows"))
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------- a locale that cannot spell the file's name


@pytest.mark.parametrize("argv", [
    ("run", "--dataset", "données", "--models", "random", "--quick", "--no-progress"),
    ("evaluate", "--qrels", "données/q.txt", "--run", "r.txt"),
], ids=["dataset-name", "qrels"])
def test_unclear_a_name_the_locale_cannot_spell_names_the_locale_not_a_look_alike(
        proj: Path, monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]) -> None:
    """Under LC_ALL=C (Python's UTF-8 mode off) a config's ``dataset = "données"`` was "unknown
    dataset 'donn\\xe9es' (... not ASCII: a look-alike?)" while the folder was there: the
    process could not ask for the name. File names are ASCII here (``sys`` says so)."""
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "ascii")
    monkeypatch.setenv("LC_ALL", "POSIX")
    ok(refused(cli(proj, *argv), "ascii", "LC_ALL=C.UTF-8", "PYTHONUTF8=1"))


# ---------------------------------------------------------- JSON saved again on Windows


def test_unclear_a_notepad_unicode_leaderboard_json_is_named_utf16_not_byte_0(
        tmp_path: Path) -> None:
    """``reproduce`` said "not UTF-8 text (byte 0)" of a leaderboard saved as UTF-16."""
    (tmp_path / "lb.json").write_bytes('{"tables": []}\r\n'.encode("utf-16"))
    res = cli(tmp_path, "reproduce", "lb.json", "--no-progress")
    ok(refused(res, "lb.json", "UTF-16", "iconv"))


def test_unclear_a_cp1252_byte_in_a_run_manifest_names_line_column_and_byte(
        tmp_path: Path) -> None:
    runs = tmp_path / "res" / "runs"
    rid = "d-20260101T000000Z-00000001"
    run = write_one_seed_run(runs, rid, "d", {"random": [0.1, 0.2]})
    text = (run / "manifest.json").read_bytes()
    (run / "manifest.json").write_bytes(text.replace(b'"d"}', b'"d\xe9"}', 1))
    res = cli(tmp_path, "report", "--runs", "res", "--out", "rep", "--no-plots", "--no-progress")
    ok(refused(res, "manifest.json:1", "0xe9", "column"))


@pytest.mark.parametrize("argv", [
    ("run", "--config", "conf\\run.toml", "--no-progress"),
    ("reproduce", "rep\\leaderboard.json", "--no-progress"),
    ("crosscheck", "--run", "res\\runs\\r1"),
], ids=["config", "leaderboard", "crosscheck-run"])
def test_unclear_other_inputs_typed_with_backslashes_name_the_path_meant(
        tmp_path: Path, argv: tuple[str, ...]) -> None:
    typed = next(a for a in argv if "\\" in a)
    there = tmp_path / typed.replace("\\", "/")
    there.parent.mkdir(parents=True)
    if there.suffix:
        there.write_text("{}" if there.suffix == ".json" else "dataset = \"x\"\n",
                         encoding="utf-8")
    else:
        there.mkdir()
    ok(refused(cli(tmp_path, *argv), "Windows", typed.replace("\\", "/")))


def test_a_zip_made_by_the_macos_finder_installs_the_dataset_without_its_macosx_folder(
        tmp_path: Path) -> None:
    """Finder's "Compress" adds ``__MACOSX/`` (AppleDouble files) beside the one top folder."""
    import zipfile

    from hostile_kit import toy_ratings_card

    from bench.data.movielens import load_movielens
    from bench.datasets.fetch import fetch, verify

    ratings = b"userId,movieId,rating,timestamp\n1,1,4.0,10\n2,1,3.5,11\n"
    src = tmp_path / "toy.zip"
    with zipfile.ZipFile(src, "w") as zf:
        for member, data in (("toy/", b""), ("toy/ratings.csv", ratings), ("toy/.DS_Store", DS_STORE),
                             ("__MACOSX/", b""), ("__MACOSX/toy/._ratings.csv", APPLE_DOUBLE)):
            zf.writestr(member, data)
    card = toy_ratings_card({"ratings.csv": ratings}, url=src.as_uri())
    folder = fetch(card, data_dir=tmp_path / "data", progress=False, log=lambda _m: None)
    assert not (tmp_path / "data" / "__MACOSX").exists()
    assert verify(card, data_dir=tmp_path / "data").ok
    assert load_movielens(folder).n_ratings == 2


def test_silently_wrong_a_run_summary_on_an_ascii_stream_keeps_numbers_under_their_headers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under PYTHONIOENCODING=ascii ``0.9071 ± 0.0100`` was measured as 15 characters and
    printed as 18 (``\\xb1``): the map@10 values stood three columns right of their header."""
    from bench.benchmark.summary import summary_text

    def cell(mean: float, std: float) -> dict[str, object]:
        return {"mean": mean, "std": std, "per_seed": {"0": mean, "1": mean}}

    summary = {"dataset": "d", "seeds": [0, 1], "models": ["lightgbm-lambdarank", "random"],
               "metrics": {"lightgbm-lambdarank": {"test": {"ndcg@10": cell(0.9071, 0.01),
                                                            "map@10": cell(0.8986, 0.02)}},
                           "random": {"test": {"ndcg@10": cell(0.6487, 0.03),
                                               "map@10": cell(0.6447, 0.04)}}},
               "timings": {"lightgbm-lambdarank": {"fit_s": 1.23, "contended": True},
                           "random": {"fit_s": 0.01}},
               "status": {}, "crosscheck": None, "run_dir": "x", "profile": "ltrbench"}
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="backslashreplace")
    monkeypatch.setattr(sys, "stdout", out)
    text = summary_text(summary, metrics=("ndcg@10", "map@10"))
    lines = text.encode("ascii", "backslashreplace").decode("ascii").splitlines()
    header = next(ln for ln in lines if ln.startswith("model"))
    for model, value, fit in (("random", "0.6447", "0.01"), ("lightgbm", "0.8986", "1.23")):
        row = next(ln for ln in lines if ln.startswith(model))
        assert row[header.index("map@10"):].startswith(value), (header, row)
        assert row[header.index("fit s"):].startswith(fit), (header, row)
