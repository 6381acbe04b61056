"""Hostile catalogue, round 23: the file corruptor (issue 19's "bad files" and "faults").

The persona: a folder of files from colleagues, exports and half-finished downloads, each fed
to every reader of ltrbench: the fetch record ``datasets verify`` trusts, a run's tables that
``report`` reads, a tune folder that ``report --tuned`` reads, LETOR and ratings Parquet files,
TOML configs, run manifests and a conversion's ``summary.json``, and every input given as a
link that leads nowhere. Forms: gzip under a plain name, UTF-8/16/32 byte-order marks, UTF-16
without one, NUL bytes, form feeds and NEL, a file cut mid-number, a FIFO or a dangling link
where a file is expected, NaN and 1e999 in JSON, a key twice, a field of the wrong type.

Every reader must answer with one discipline: a clear error naming the file (and line) and what
was expected, or the oracle's verdict (digests from :mod:`hashlib`, row counts written here);
never a traceback, never an "OK" over a file that changed, never a Python exception's text
(``UnicodeDecodeError``) or a multi-line pyarrow message for an error, never "not found" for a
file that is there. Classes, in each test's comment: silent accept (S), unclear error (U).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import (
    DATA,
    QRELS,
    RUN,
    SCORES,
    Res,
    api_refused,
    call,
    cli,
    letor_split,
    refused,
    write_one_seed_run,
)

FETCH = ".ltrbench-fetch.json"
ML100K = {"u.data": b"1\t1\t5\t881250949\n",
          "u.item": b"1|Toy Story (1995)|01-Jan-1995||http://x|0|0|0|1|1|1|0|0|0|0|0|0|0|0|0|0"
                    b"|0|0|0\n",
          "u.user": b"1|24|M|technician|85711\n", "u.genre": b"unknown|0\n"}


def _utf16(b: bytes) -> bytes:
    return b"\xff\xfe" + b.decode("latin-1").encode("utf-16-le")


def _error_line(res: Res) -> str:
    lines = [ln for ln in res.err.splitlines() if ln.startswith("error:")]
    return lines[0] if lines else res.err.strip()[-300:]


# ------------------------------------------------------------ datasets verify: the fetch record
def _ml100k(tmp: Path, record: Callable[[bytes], bytes] | None) -> tuple[Path, str]:
    """An ml-100k copy fetched (its record written), then ``u.data`` edited by hand; the record
    damaged by ``record``. Returns the data dir and the edited file's sha256 (hashlib)."""
    folder = tmp / "data" / "ml-100k"
    folder.mkdir(parents=True)
    for name, data in ML100K.items():
        (folder / name).write_bytes(data)
    raw = json.dumps({"card": "ml-100k", "files": {k: hashlib.sha256(v).hexdigest()
                                                  for k, v in ML100K.items()}}).encode()
    edited = b"1\t1\t1\t881250949\n"
    (folder / "u.data").write_bytes(edited)
    if record is not None:
        (folder / FETCH).write_bytes(record(raw))
    return tmp / "data", hashlib.sha256(edited).hexdigest()


def _verify(tmp: Path, data: Path) -> Res:
    return cli(tmp, "datasets", "verify", "ml-100k", "--data-dir", str(data), "--format", "json")


def test_verify_reads_a_fetch_record_saved_again_with_a_utf8_bom(tmp_path: Path) -> None:
    # S: the record, opened and saved in a Windows editor, was ignored: the edited u.data
    # passed as "unverified" and verify said OK (exit 0); every other JSON reader skips the mark
    data, edited = _ml100k(tmp_path, lambda b: b"\xef\xbb\xbf" + b)
    res = _verify(tmp_path, data)
    assert res.status == 1, (res.status, res.err[-300:])
    files = {f["path"]: f for f in json.loads(res.out)["files"]}
    assert files["u.data"]["status"] == "mismatch"
    assert files["u.data"]["actual"] == edited


DAMAGED_RECORDS: dict[str, Callable[[bytes], bytes]] = {
    "utf16": _utf16,
    "gzip": gzip.compress,
    "cut-mid-digest": lambda b: b[:-30],
    "empty": lambda b: b"",
    "files-as-a-list": lambda b: b'{"card": "ml-100k", "files": ["u.data"]}',
    "digest-as-a-number": lambda b: b'{"card": "ml-100k", "files": {"u.data": 5}}',
}


@pytest.mark.parametrize("damage", list(DAMAGED_RECORDS))
def test_verify_never_passes_an_edited_file_behind_a_damaged_fetch_record(
        tmp_path: Path, damage: str) -> None:
    # S: a record verify cannot read was taken for no record: the edited file passed, exit 0
    data, _ = _ml100k(tmp_path, DAMAGED_RECORDS[damage])
    res = _verify(tmp_path, data)
    assert not res.traceback, res.err[-500:]
    assert res.status != 0, f"verify passed: {res.out[-300:]}"
    assert FETCH in res.err + res.out, res.err[-300:]


def test_verify_names_a_fetch_record_that_is_a_fifo_instead_of_waiting(tmp_path: Path) -> None:
    # fault: the record was read with read_text(): a FIFO left there (mkfifo by a script that
    # died) blocked `datasets verify` for ever
    import signal

    data, _ = _ml100k(tmp_path, None)
    os.mkfifo(data / "ml-100k" / FETCH)

    def hang(*_: object) -> None:
        raise TimeoutError("datasets verify waited on the FIFO")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(10)
    try:
        res = _verify(tmp_path, data)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    bad = refused(res, FETCH, "not a regular file")
    assert bad is None, bad


def test_verify_refuses_a_fetch_record_naming_a_file_twice(tmp_path: Path) -> None:
    # S: json kept the last of the two digests in silence (the read_json_object rule refuses it)
    data, _ = _ml100k(tmp_path, lambda b: b.replace(b'"files": {', b'"files": {"u.data": "00", '))
    bad = refused(_verify(tmp_path, data), FETCH, "u.data", "twice")
    assert bad is None, bad


# ------------------------------------------------------------------ a run's tables (report)
def _run(tmp: Path) -> Path:
    return write_one_seed_run(tmp / "runs", "r1", "toy", {"lightgbm-lambdarank": [0.5, 0.7, 0.9],
                                                          "random": [0.1, 0.2, 0.3]})


def _report(tmp: Path, run: Path) -> Res:
    return cli(tmp, "report", "--runs", str(run), "--out", str(tmp / "rep"), "--no-plots",
               "--bootstrap", "20", "--permutations", "20")


RUN_TABLES: dict[str, tuple[str, Callable[[bytes], bytes], tuple[str, ...]]] = {
    # U: "cannot read (UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b ...)"
    "metrics-gzip": ("metrics.csv", gzip.compress, ("metrics.csv", "gzip-compressed")),
    "timings-utf16": ("timings.csv", _utf16, ("timings.csv", "UTF-16")),
    "metrics-utf32": ("metrics.csv", lambda b: b"\xff\xfe\x00\x00" + b.decode().encode(
        "utf-32-le"), ("metrics.csv", "UTF-32")),
    # U: a NUL in the profile cell was "no 'test' rows for model 'lightgbm-lambdarank'"
    "metrics-nul-in-a-cell": ("metrics.csv", lambda b: b.replace(b"ltrbench\ntoy,random",
                                                                 b"ltr\x00bench\ntoy,random"),
                              ("metrics.csv:2", "NUL")),
    "metrics-form-feed-in-a-cell": ("metrics.csv", lambda b: b.replace(b",baseline,",
                                                                       b",base\x0cline,"),
                                    ("metrics.csv:3", "form feed")),
    # U: "'seed' is 'seed': expected a whole number": the ratings reader's words are
    # "repeats the header line" (two runs' tables joined with `cat`)
    "metrics-header-again": ("metrics.csv", lambda b: b + b.split(b"\n")[0] + b"\n",
                             ("metrics.csv:4", "repeats the header line")),
    # U: "cannot read (ArrowInvalid: ... Parquet magic bytes not found in footer ...)"
    "per-query-gzip": ("per_query.parquet", gzip.compress,
                       ("per_query.parquet", "gzip-compressed")),
}


@pytest.mark.parametrize("case", list(RUN_TABLES))
def test_a_damaged_run_table_is_named_as_every_reader_names_it(tmp_path: Path, case: str) -> None:
    name, damage, words = RUN_TABLES[case]
    run = _run(tmp_path)
    (run / name).write_bytes(damage((run / name).read_bytes()))
    res = _report(tmp_path, run)
    bad = refused(res, *words)
    assert bad is None, bad
    assert "Error:" not in _error_line(res)  # no Python exception's name


@pytest.mark.parametrize("name", ["manifest.json", "metrics.csv"])
def test_a_run_file_of_zeros_after_a_power_loss_is_named(tmp_path: Path, name: str) -> None:
    # U: a file written just before a power loss can come back as zeros of its length (ext4's
    # delayed allocation): the manifest was "not valid JSON (Expecting value)"; every text
    # reader names NUL bytes only
    run = _run(tmp_path)
    with open(run / name, "wb") as fh:
        fh.truncate(4096)
    bad = refused(_report(tmp_path, run), name, "filled with NUL bytes")
    assert bad is None, bad


def test_a_damaged_per_query_table_is_one_line(tmp_path: Path) -> None:
    # U: pyarrow's "Couldn't deserialize thrift: ...\nDeserializing page header failed.\n"
    # was printed as three lines, the last one ");" and the advice
    from bench.runs.layout import read_checked

    run = _run(tmp_path)
    raw = (run / "per_query.parquet").read_bytes()
    (run / "per_query.parquet").write_bytes(raw[:40] + b"\x00" + raw[41:])
    _, exc = call(lambda: read_checked(run / "per_query.parquet"))
    assert api_refused(exc, "per_query.parquet") is None, exc
    assert "\n" not in str(exc), str(exc)


# ------------------------------------------------------------------ a tune folder (--tuned)
TRIALS = ("model,library,trial,state,value,metric,profile,cpu_s,wall_s,cum_cpu_s,best_so_far,"
          "best_iteration,params\n"
          + "".join(f"xgboost-ndcg,xgboost,{t},COMPLETE,{v},ndcg@10,ltrbench,0.5,0.5,{c},{b},10,"
                    f"\"{{\"\"num_leaves\"\": {7 + t}}}\"\n"
                    for t, v, c, b in ((0, 0.5, 0.5, 0.5), (1, 0.625, 1.0, 0.625),
                                       (2, 0.5625, 1.5, 0.625))))


@pytest.fixture
def tune_folder(tmp_path: Path) -> Path:
    """A tune folder as tune writes it while it runs (no 'complete' yet): trials.csv, an
    empty-study study.db (SQLite's header), summary.json; hand-written, no Optuna."""
    import sqlite3

    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "trials.csv").write_text(TRIALS, encoding="utf-8")
    with sqlite3.connect(folder / "study.db") as conn:
        conn.execute("CREATE TABLE studies (study_id INTEGER, study_name TEXT)")
    (folder / "summary.json").write_text("{}\n", encoding="utf-8")
    return folder


def _read_tune(folder: Path) -> BaseException | None:
    from bench.report.tuning import read_tune_dir, study_names

    return call(lambda: (read_tune_dir(folder), study_names(folder / "study.db")))[1]


def test_the_hand_written_tune_folder_reads(tune_folder: Path) -> None:
    # the control of the cases below: the folder as written is read without an error
    assert _read_tune(tune_folder) is None


def test_a_gzipped_trials_table_is_named_gzip(tune_folder: Path, tmp_path: Path) -> None:
    # U: "not a trials table ('utf-8' codec can't decode byte 0x8b in position 1 ...)"
    folder = tune_folder
    (folder / "trials.csv").write_bytes(gzip.compress((folder / "trials.csv").read_bytes()))
    exc = _read_tune(folder)
    assert api_refused(exc, "trials.csv", "gzip-compressed") is None, exc
    assert "codec" not in str(exc), exc


def test_a_trials_table_cut_mid_number_is_said_cut(tune_folder: Path, tmp_path: Path) -> None:
    # U: a copy cut mid-number blamed the last row's best_so_far ("is not the running maximum")
    folder = tune_folder
    raw = (folder / "trials.csv").read_bytes()
    (folder / "trials.csv").write_bytes(raw[: raw.rindex(b"0.5625") + 4])  # "0.56" of 0.5625
    assert api_refused(_read_tune(folder), "trials.csv", "truncated") is None


def test_a_trials_table_joined_with_its_header_says_so(tune_folder: Path) -> None:
    # U: two tunes' trials.csv joined with `cat`: "'trial' is not a number" (row 4)
    raw = (tune_folder / "trials.csv").read_bytes()
    (tune_folder / "trials.csv").write_bytes(raw + raw)
    exc = _read_tune(tune_folder)
    assert api_refused(exc, "trials.csv:5", "repeats the header line") is None, exc


@pytest.mark.parametrize("name", ["trials.csv", "study.db", "summary.json"])
def test_a_tune_file_that_is_a_fifo_is_not_called_missing(tune_folder: Path, tmp_path: Path,
                                                           name: str) -> None:
    # U: "not found: a tune folder holds trials.csv" for a file that `ls` shows
    folder = tune_folder
    (folder / name).unlink()
    os.mkfifo(folder / name)
    exc = _read_tune(folder)
    assert api_refused(exc, name, "not a regular file") is None, exc
    assert "not found" not in str(exc), exc


def test_report_tuned_names_a_best_toml_that_is_a_fifo(tune_folder: Path,
                                                       tmp_path: Path) -> None:
    # U: "t/best.toml: not found; a tune folder holds best.toml" for a FIFO `ls` shows
    os.mkfifo(tune_folder / "best.toml")
    res = cli(tmp_path, "report", "--tuned", "t", "--out", "rep", "--no-plots")
    bad = refused(res, "best.toml", "not a regular file")
    assert bad is None, bad


def test_a_tune_summary_of_zeros_is_named(tune_folder: Path) -> None:
    # U: "not valid JSON (Expecting value)" for a summary.json a crash left as zeros
    with open(tune_folder / "summary.json", "wb") as fh:
        fh.truncate(4096)
    assert api_refused(_read_tune(tune_folder), "summary.json", "filled with NUL bytes") is None


def test_a_study_db_that_is_a_dangling_link_is_said_so(tune_folder: Path, tmp_path: Path) -> None:
    # U: "not found" for a link whose target is gone (a tune folder copied without its target)
    folder = tune_folder
    (folder / "study.db").unlink()
    (folder / "study.db").symlink_to(tmp_path / "gone.db")
    assert api_refused(_read_tune(folder), "study.db", "symbolic link", "gone.db") is None


# ------------------------------------------------------------------ Parquet files
def _letor_parquet() -> bytes:
    import io

    import pandas as pd

    buf = io.BytesIO()
    pd.DataFrame({"qid": [1, 1, 1, 2, 2], "label": [2, 0, 1, 1, 0],
                  "f1": [0.5, 0.1, 0.0, 0.2, 0.9]}).to_parquet(buf)
    return buf.getvalue()


def _evaluate_parquet(tmp: Path, data: bytes) -> Res:
    (tmp / "d.parquet").write_bytes(data)
    (tmp / "s.txt").write_bytes(SCORES)
    return cli(tmp, "evaluate", "--data", "d.parquet", "--scores", "s.txt", "--metrics", "ndcg@3")


def test_a_gzipped_letor_parquet_file_is_named_gzip(tmp_path: Path) -> None:
    # U: "not a readable Parquet file: Parquet magic bytes not found in footer ..."
    bad = refused(_evaluate_parquet(tmp_path, gzip.compress(_letor_parquet())), "d.parquet",
                  "gzip-compressed")
    assert bad is None, bad


def test_svmlight_text_named_parquet_is_said_to_be_text(tmp_path: Path) -> None:
    # U: the same "magic bytes not found" for a text file renamed .parquet; the text readers
    # name Parquet bytes given as text, so the Parquet readers name text given as Parquet
    bad = refused(_evaluate_parquet(tmp_path, DATA), "d.parquet", "holds text")
    assert bad is None, bad


def test_a_sign_in_page_named_parquet_is_said_to_be_a_web_page(tmp_path: Path) -> None:
    # U: the page (HTML is text) was called "text ('<!DOCTYPE html>...'), a CSV or SVMlight
    # file named .parquet?", where every text reader names it a web page to download again
    page = b"<!DOCTYPE html>\n<html><body>Please sign in</body></html>\n"
    bad = refused(_evaluate_parquet(tmp_path, page), "d.parquet", "web page")
    assert bad is None, bad


def test_a_letor_parquet_file_cut_short_is_said_cut(tmp_path: Path) -> None:
    # U: a download cut short was "Parquet magic bytes not found in footer. Either the file is
    # corrupted or this is not a parquet file."
    raw = _letor_parquet()
    bad = refused(_evaluate_parquet(tmp_path, raw[: len(raw) - 20]), "d.parquet", "cut short")
    assert bad is None, bad


def test_a_damaged_letor_parquet_file_is_one_line(tmp_path: Path) -> None:
    # U: "...Deserializing page header failed.\n" split the error over two lines
    res = _evaluate_parquet(tmp_path, b"\xef\xbb\xbf" + _letor_parquet())
    bad = refused(res, "d.parquet", "Parquet")
    assert bad is None, bad
    assert len([ln for ln in res.err.strip().splitlines() if ln.strip()]) == 1, res.err


def test_a_gzipped_ratings_parquet_file_is_named_gzip(tmp_path: Path) -> None:
    # U: a ratings.parquet that is ratings.parquet.gz renamed: "magic bytes not found"
    import io

    import pandas as pd

    buf = io.BytesIO()
    pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 1], "rating": [3.0, 4.0, 5.0],
                  "timestamp": [1, 2, 3]}).to_parquet(buf)
    (tmp_path / "r.parquet").write_bytes(gzip.compress(buf.getvalue()))
    res = cli(tmp_path, "convert", "--ratings", "r.parquet", "--layout", "csv", "--user", "user",
              "--item", "item", "--rating", "rating", "--timestamp", "timestamp", "--out", "o",
              "--no-progress")
    bad = refused(res, "r.parquet", "gzip-compressed")
    assert bad is None, bad


# ------------------------------------------------------------------ a link that leads nowhere
DANGLING: dict[str, tuple[dict[str, bytes], str, tuple[str, ...]]] = {
    "scores": ({"d.txt": DATA}, "s.txt", ("evaluate", "--data", "d.txt", "--scores", "s.txt")),
    "qrels": ({"r.txt": RUN}, "q.txt", ("evaluate", "--qrels", "q.txt", "--run", "r.txt")),
    "run": ({"q.txt": QRELS}, "r.txt", ("evaluate", "--qrels", "q.txt", "--run", "r.txt")),
    "data": ({"s.txt": SCORES}, "d.txt", ("evaluate", "--data", "d.txt", "--scores", "s.txt")),
    "config": ({}, "c.toml", ("run", "--config", "c.toml", "--out", "o")),
    "ratings": ({}, "r.csv", ("convert", "--ratings", "r.csv", "--layout", "csv", "--user",
                              "user", "--item", "item", "--out", "o")),
}


@pytest.mark.parametrize("reader", list(DANGLING))
def test_an_input_that_is_a_dangling_link_is_said_so(tmp_path: Path, reader: str) -> None:
    # U: "no such file" for a name `ls` lists (a data folder moved, its links left behind); the
    # dataset reader already says "a symbolic link to ..., which does not resolve": one rule
    files, target, argv = DANGLING[reader]
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / target).symlink_to(tmp_path / "moved" / target)
    bad = refused(cli(tmp_path, *argv), target, "symbolic link", "moved")
    assert bad is None, bad


# ------------------------------------------------------------------ a download never written
ZEROED: dict[str, tuple[dict[str, bytes], str, tuple[str, ...]]] = {
    **{k: DANGLING[k] for k in ("scores", "qrels", "data", "ratings")},
    "letor-parquet": ({"s.txt": SCORES}, "d.parquet",
                      ("evaluate", "--data", "d.parquet", "--scores", "s.txt")),
}


@pytest.mark.parametrize("reader", list(ZEROED))
def test_a_file_of_zeros_is_named_a_download_never_written(tmp_path: Path, reader: str) -> None:
    # U (and a fault): a download manager preallocates the file (aria2) and dies: 8 MB of NUL
    # bytes were read as one line ("a NUL beside every character is UTF-32 text"; a 200 MB one
    # took 24 s and 780 MB to be called a malformed SVMlight line). Sparse: no disk written.
    files, target, argv = ZEROED[reader]
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    with open(tmp_path / target, "wb") as fh:
        fh.truncate(8 << 20)
    bad = refused(cli(tmp_path, *argv), target, "filled with NUL bytes")
    assert bad is None, bad


# ------------------------------------------------------------------ TOML
def _config_refused(tmp: Path, raw: bytes, *words: str) -> str | None:
    (tmp / "c.toml").write_bytes(raw)
    return refused(cli(tmp, "run", "--config", "c.toml", "--out", "o"), "c.toml", *words)


CONFIG = b'dataset = "synthetic"\nmodels = ["random"]\nseeds = [0]\n'


def test_a_utf16_config_without_a_bom_is_named_utf16(tmp_path: Path) -> None:
    # U: "Expected '=' after a key ... line 1 reads 'd\x00a\x00t\x00...'": every text reader
    # says UTF-16 (a NUL beside every character)
    bad = _config_refused(tmp_path, CONFIG.decode().encode("utf-16-le"), "UTF-16")
    assert bad is None, bad


def test_a_nul_byte_in_a_config_is_named(tmp_path: Path) -> None:
    # U: "Expected '=' after a key in a key/value pair (at line 2, column 4)"
    bad = _config_refused(tmp_path, CONFIG.replace(b"models", b"mod\x00els"), "NUL", "line 2")
    assert bad is None, bad


@pytest.mark.parametrize(("char", "name"), [(b"\x0c", "form feed"), (b"\xc2\x85", "U+0085")])
def test_a_stray_line_end_in_a_config_is_named(tmp_path: Path, char: bytes, name: str) -> None:
    # U: "Expected newline or end of document after a statement (at line 1, column 22)" named
    # no character; every other text reader names it (inputs.stray_character)
    bad = _config_refused(tmp_path, CONFIG.replace(b"\n", char, 1), name)
    assert bad is None, bad


# ------------------------------------------------------------------ JSON: manifests, records
def _manifest_refused(tmp: Path, edit: Callable[[dict[str, Any]], str], *words: str) -> None:
    run = _run(tmp)
    doc = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    (run / "manifest.json").write_text(edit(doc), encoding="utf-8")
    bad = refused(_report(tmp, run), "manifest.json", *words)
    assert bad is None, bad


def test_a_manifest_whose_evaluation_is_text_is_refused(tmp_path: Path) -> None:
    # S: "evaluation": "ltrbench" (an object by the writer) was read as no evaluation record
    _manifest_refused(tmp_path, lambda d: json.dumps({**d, "evaluation": "ltrbench"}),
                      "'evaluation'")


@pytest.mark.parametrize("token", ["NaN", "-Infinity", "1e999"])
def test_a_manifest_holding_a_number_json_cannot_hold_is_refused(tmp_path: Path,
                                                                 token: str) -> None:
    # S: NaN and Infinity are no JSON (RFC 8259 6), 1e999 is read as inf: ltrbench writes none
    # of them (jsonio: allow_nan=False), so a manifest holding one was edited by another tool
    _manifest_refused(
        tmp_path, lambda d: json.dumps(d).replace('"models": {"lightgbm-lambdarank": {}',
                                                  f'"models": {{"lightgbm-lambdarank": '
                                                  f'{{"n_trees": {token}}}'), token)


def test_a_fold_document_that_is_a_fifo_is_named_not_waited_on(tmp_path: Path) -> None:
    # fault: `report --html` read every folds/*.json with read_text(): a FIFO among them
    # blocked the report for ever
    import signal

    from bench.report.folds import read_fold_docs

    (tmp_path / "folds").mkdir()
    os.mkfifo(tmp_path / "folds" / "toy-folds12345.json")

    def hang(*_: object) -> None:
        raise TimeoutError("the report waited on the FIFO")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(10)
    try:
        exc = call(lambda: read_fold_docs(tmp_path / "folds"))[1]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert api_refused(exc, "toy-folds12345.json", "not a regular file") is None, exc


def _twin_sets(tmp: Path, edit_summary: Callable[[dict[str, Any]], None]) -> Path:
    """A folder as ``convert`` writes it: text and Parquet splits of the same rows and the
    ``summary.json`` vouching for both; ``edit_summary`` changes the record."""
    from bench.data.parquet import write_parquet
    from bench.data.split_sets import digests_of
    from bench.data.svmlight import read_svmlight

    folder = tmp / "conv"
    folder.mkdir()
    for i, split in enumerate(("train", "vali", "test")):
        (folder / f"{split}.txt").write_bytes(letor_split(3, 1 + 10 * i, i))
        write_parquet(read_svmlight(folder / f"{split}.txt"), folder / f"{split}.parquet")
    names = [f"{s}.{x}" for s in ("train", "vali", "test") for x in ("txt", "parquet")]
    doc: dict[str, Any] = {"files": names, "sha256": digests_of(folder, names)}
    edit_summary(doc)
    (folder / "summary.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


def test_a_conversion_record_saved_with_a_bom_still_vouches(tmp_path: Path) -> None:
    # U: the record was "no conversion record ... says they are one dataset" once a Windows
    # editor had saved it: the JSON readers skip the mark (read_json_object)
    from bench.data.folders import read_parquet_folder

    folder = _twin_sets(tmp_path, lambda d: None)
    raw = (folder / "summary.json").read_bytes()
    (folder / "summary.json").write_bytes(b"\xef\xbb\xbf" + raw)
    splits, exc = call(lambda: read_parquet_folder(folder))
    assert exc is None, exc
    assert splits.test.n_rows == 24  # 3 queries of 8 rows, as written


def test_a_conversion_record_that_is_a_fifo_is_named_not_waited_on(tmp_path: Path) -> None:
    # fault: summary.json was read with read_text(): a FIFO there blocked the reader for ever
    import signal

    from bench.data.folders import read_parquet_folder

    folder = _twin_sets(tmp_path, lambda d: None)
    (folder / "summary.json").unlink()
    os.mkfifo(folder / "summary.json")

    def hang(*_: object) -> None:
        raise TimeoutError("the folder reader waited on the FIFO")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(10)
    try:
        exc = call(lambda: read_parquet_folder(folder))[1]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert api_refused(exc, "summary.json", "not a regular file") is None, exc


@pytest.mark.parametrize("damage", ["sha256-as-a-list", "sha256-without-the-file"])
def test_a_record_that_cannot_vouch_for_an_edited_text_split_is_refused(tmp_path: Path,
                                                                         damage: str) -> None:
    # S: the edited test.txt was read through its stale Parquet twin without a word
    from bench.data.folders import read_parquet_folder

    def edit(doc: dict[str, Any]) -> None:
        if damage == "sha256-as-a-list":
            doc["sha256"] = list(doc["sha256"].values())
        else:
            del doc["sha256"]["test.txt"]

    folder = _twin_sets(tmp_path, edit)
    raw = (folder / "test.txt").read_bytes()
    (folder / "test.txt").write_bytes(raw[: raw.index(b"\n") + 1])  # one row left
    exc = call(lambda: read_parquet_folder(folder))[1]
    assert api_refused(exc, "summary.json") is None, exc


# ------------------------------------------------------------------ tune --storage
def _storage_refused(tmp: Path, make: Callable[[Path], None], *words: str) -> str | None:
    from bench.benchmark.study import check_sqlite_url

    make(tmp / "s.db")  # what tune checks before any work (tune --storage sqlite:///PATH)
    return api_refused(call(lambda: check_sqlite_url(f"sqlite:///{tmp / 's.db'}"))[1], *words)


def test_a_storage_that_is_a_dangling_link_is_refused(tmp_path: Path) -> None:
    # S: SQLite followed the link and made the study at its target (a folder the tune never
    # names), and the tune ran; every output that is a link is refused before any work
    bad = _storage_refused(tmp_path, lambda p: p.symlink_to(tmp_path / "elsewhere.db"),
                           "s.db", "symbolic link", "elsewhere.db")
    assert bad is None, bad
    assert not (tmp_path / "elsewhere.db").exists()


def test_a_gzipped_storage_is_named_gzip(tmp_path: Path) -> None:
    # U: "its first bytes are b'\\x1f\\x8b\\x08\\x00...'": the signature every reader names
    bad = _storage_refused(tmp_path,
                           lambda p: p.write_bytes(gzip.compress(b"SQLite format 3\x00")),
                           "s.db", "gzip-compressed")
    assert bad is None, bad
