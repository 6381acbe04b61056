"""Round 19, hostile (issue 19): a security auditor, before analysts run ltrbench on shared
machines and publish its outputs, attacks it with hostile names, numbers and files: injection
into the published documents, escape from the folders it reads, parser bombs, files that are not
what they claim, an environment another user can shape.

Found on the base:

* Python's integer-digit limit (CVE-2020-10735: ``int(text)`` and ``str(n)`` raise past 4300
  digits) ended in a ``ValueError`` traceback on every surface that reads or shows an integer:
  a run config's ``seeds = [111...1]`` (5000 digits), a ``[params]`` value, a tune space file, a
  run folder's ``config.toml`` and ``manifest.json`` read by ``report``, a ``leaderboard.json``
  given to ``reproduce``, a qrels relevance, a TREC run score, a metric cutoff
  ``ndcg@111...1`` (command line and Python), and from Python labels, scores, a dict qrels'
  relevance or a run's score of ``10**5000`` and ``RunConfig(seeds=[10**5000])`` -- the error
  meant to refuse the value could not print it; a config's ``seeds = [10**400]`` printed all
  401 digits in its one-line error;
* a run folder's ``metrics.csv`` (or ``manifest.json``) that is a symbolic link to a file outside
  the run folder was read and published under the run's name (ltrbench writes no links; the
  target's owner can change the numbers at any time);
* ``reproduce`` refused ``run_config = "../x/config.toml"`` but followed ``runs/<id>`` when it
  was a link to a folder outside the leaderboard's folder that is no run directory;
* ``report --runs runs/R1`` beside ``runs/r1`` (one folder on a case-blind disk) said only "not
  found";
* a dataset named ``CON``, ``nul.txt`` or ``COM1`` got a plot / cross-check folder of that name,
  which Windows reads as a device (the report folder cannot be copied to a Windows share);
* a relative entry in ``$LTRBENCH_DATA_DIR`` (``data``) was read from whatever folder a command
  ran in, as ``.`` in ``$PATH``: a dataset another user placed in ``/tmp/data`` was read as
  yours.

Oracles: Python's :func:`html.escape` and :mod:`html.parser`, hand-written TeX and Markdown,
strict :mod:`json` (``allow_nan=False`` / ``parse_constant``), the list of Windows' reserved
device names (Microsoft, "Naming Files, Paths, and Namespaces"), hand arithmetic, "exit 2 and
one line naming the file, line and what was expected". Everything runs in-process on tiny
hand-written run folders (no training).
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import os
import re
import sys
import time
import unicodedata
from html.parser import HTMLParser
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
    cli,
    letor_folder,
    ok,
    refused,
    write,
    write_one_seed_run,
)

FAST = ("--no-plots", "--no-progress", "--bootstrap", "50", "--permutations", "200")
BIG = "1" * 5000  # beyond Python's 4300-digit limit of int(text) / str(n)
HUGE = 10**5000
LGB = "lightgbm-lambdarank"
PQ = {LGB: [0.9, 0.8, 0.7, 0.95], "random": [0.3, 0.2, 0.1, 0.4]}


def write_run(root: Path, rid: str, dataset: str, pq: dict[str, list[float]] | None = None,
              qids: list[str] | None = None) -> Path:
    """A finished one-seed run (:func:`hostile_kit.write_one_seed_run`), :data:`PQ` by default."""
    return write_one_seed_run(root, rid, dataset, pq or PQ, qids)


def error_line(res: Res) -> str:
    return next((ln for ln in res.err.splitlines() if "error:" in ln), "")


@pytest.fixture
def trec(tmp_path: Path) -> Path:
    write(tmp_path, {"q.txt": QRELS, "r.txt": RUN, "d.txt": DATA, "s.txt": SCORES})
    return tmp_path


@pytest.fixture
def one_run(tmp_path: Path) -> Path:
    write_run(tmp_path / "runs", "r1", "ds")
    return tmp_path


def _config(folder: Path, text: str) -> Res:
    letor_folder(folder / "ds")
    (folder / "c.toml").write_text('dataset = "ds"\nmodels = ["random"]\nquick = true\n' + text)
    return cli(folder, "run", "--config", "c.toml", "--out", "o", "--no-progress")


# ------------------------------------------- integers beyond Python's digit limit (tracebacks)

def test_traceback_a_config_seed_of_5000_digits_is_refused_naming_line_and_column(
        tmp_path: Path) -> None:
    res = _config(tmp_path, f"seeds = [{BIG}]\n")
    ok(refused(res, "c.toml", "line 4", "column 10", "5000 digits"))
    assert not (tmp_path / "o").exists()


def test_traceback_a_params_value_of_5000_digits_is_refused_naming_its_line(
        tmp_path: Path) -> None:
    res = _config(tmp_path, f"[params]\nlearning_rate = {BIG}\n")
    ok(refused(res, "c.toml", "line 5", "5000 digits"))


def test_traceback_a_tune_space_file_with_a_5000_digit_bound_is_refused(tmp_path: Path) -> None:
    (tmp_path / "sp.toml").write_text(f"[{LGB}]\nnum_leaves = [{BIG}, 2]\n")
    res = cli(tmp_path, "tune", "--dataset", "synthetic", "--models", LGB, "--space", "sp.toml",
              "--out", "t", "--no-progress")
    ok(refused(res, "sp.toml", "line 2", "5000 digits"))


def test_traceback_a_run_config_toml_with_5000_digits_is_a_damaged_run_in_report(
        one_run: Path) -> None:
    cfg = one_run / "runs/r1/config.toml"
    cfg.write_text(cfg.read_text() + f"note = {BIG}\n")
    res = cli(one_run, "report", "--runs", "runs/r1", "--out", "out", *FAST)
    line = error_line(res)
    ok(refused(res, "runs/r1/config.toml", "line 6", "5000 digits"))
    assert line.count("not valid TOML") == 1, line  # said once, not "X: not valid TOML: X: ..."


def test_traceback_a_manifest_number_of_5000_digits_is_a_damaged_run_in_report(
        one_run: Path) -> None:
    man = one_run / "runs/r1/manifest.json"
    man.write_text(man.read_text()[:-1] + f', "n": {BIG}}}')
    res = cli(one_run, "report", "--runs", "runs/r1", "--out", "out", *FAST)
    ok(refused(res, "runs/r1/manifest.json", "line 1", "5000 digits"))


def test_traceback_a_leaderboard_json_with_5000_digits_is_refused_by_reproduce(
        one_run: Path) -> None:
    assert cli(one_run, "report", "--runs", "runs/r1", "--out", "out", *FAST).status == 0
    board = one_run / "out/leaderboard.json"
    text = board.read_text(encoding="utf-8")
    board.write_text(text.rstrip()[:-1] + f', "n": {BIG}}}\n', encoding="utf-8")
    line_no = board.read_text().count("\n", 0, board.read_text().index(BIG)) + 1
    res = cli(one_run, "reproduce", "out/leaderboard.json")
    ok(refused(res, "leaderboard.json", f"line {line_no}", "5000 digits"))


def test_traceback_a_qrels_relevance_of_5000_digits_is_out_of_range_at_its_line(
        trec: Path) -> None:
    (trec / "q.txt").write_bytes(QRELS + f"3 0 z {BIG}\n".encode())
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt")
    ok(refused(res, "q.txt:6", "relevance", "out of range"))
    assert len(error_line(res)) < 400, error_line(res)


def test_traceback_a_trec_run_score_of_5000_digits_is_refused_at_its_line(trec: Path) -> None:
    (trec / "r.txt").write_bytes(RUN.replace(b"0.4", BIG.encode()))
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt")
    ok(refused(res, "r.txt:1", "score"))
    assert len(error_line(res)) < 400, error_line(res)


def test_traceback_a_scores_file_value_of_5000_digits_is_refused_at_its_line(trec: Path) -> None:
    (trec / "s.txt").write_bytes(SCORES.replace(b"0.5", BIG.encode()))
    res = cli(trec, "evaluate", "--data", "d.txt", "--scores", "s.txt")
    ok(refused(res, "s.txt:3", "score"))


def test_traceback_a_score_of_350_digits_beyond_a_float64_is_refused_at_its_line(
        trec: Path) -> None:
    """310 to 4300 digits: Python reads the integer, ``float()`` of it overflowed."""
    (trec / "s.txt").write_bytes(SCORES.replace(b"0.5", b"1" * 350))
    res = cli(trec, "evaluate", "--data", "d.txt", "--scores", "s.txt")
    ok(refused(res, "s.txt:3", "score", "beyond the range of a float64"))


def test_unclear_a_300_digit_integer_score_is_shown_by_its_digit_count(trec: Path) -> None:
    """10^299 as a float64 is rounded: refused (it would tie), in one readable line."""
    (trec / "s.txt").write_bytes(SCORES.replace(b"0.5", b"1" * 300))
    res = cli(trec, "evaluate", "--data", "d.txt", "--scores", "s.txt")
    ok(refused(res, "s.txt:3", "111111111111...(300 digits)", "beyond 2^53"))
    assert len(error_line(res)) < 400, error_line(res)


def test_traceback_a_group_size_of_5000_digits_is_refused_naming_it() -> None:
    from bench.errors import DataError
    from bench.metrics import evaluate

    with pytest.raises(DataError, match=r"group size 100000000000\.\.\.\(5001 digits\)"):
        evaluate([1, 0], [0.2, 0.1], group=[HUGE])


def test_traceback_a_letor_label_of_5000_digits_is_refused_at_its_line(trec: Path) -> None:
    (trec / "d.txt").write_bytes(DATA.replace(b"1 qid:2", BIG.encode() + b" qid:2", 1))
    res = cli(trec, "evaluate", "--data", "d.txt", "--scores", "s.txt")
    ok(refused(res, "d.txt:4"))


def test_traceback_a_metric_cutoff_of_5000_digits_is_refused_on_the_command_line(
        trec: Path) -> None:
    res = cli(trec, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@" + BIG)
    ok(refused(res, "cutoff must be an integer in 1..2147483647"))


def test_traceback_a_metric_cutoff_of_5000_digits_is_refused_from_python() -> None:
    from bench.errors import ConfigError
    from bench.metrics import evaluate

    with pytest.raises(ConfigError, match="cutoff must be an integer"):
        evaluate([1, 0], [0.2, 0.1], qid=[1, 1], metrics=["ndcg@" + BIG])


@pytest.mark.parametrize("where", ["labels", "scores"])
def test_traceback_a_python_int_of_5000_digits_among_the_rows_is_refused_naming_row_1(
        where: str) -> None:
    from bench.errors import DataError
    from bench.metrics import evaluate

    labels: list[Any] = [HUGE, 1, 0] if where == "labels" else [1, 1, 0]
    scores: list[Any] = [HUGE, 0.2, 0.3] if where == "scores" else [0.1, 0.2, 0.3]
    with pytest.raises(DataError) as info:
        evaluate(labels, scores, qid=[1, 1, 1], metrics=["ndcg@3"])
    assert "row 1" in str(info.value), str(info.value)
    assert "5001 digits" in str(info.value), str(info.value)


@pytest.mark.parametrize("side", ["qrels", "run"])
def test_traceback_a_dict_value_of_5000_digits_is_refused_naming_the_query(side: str) -> None:
    from bench.errors import DataError
    from bench.metrics import evaluate_trec

    qrels: dict[str, dict[str, Any]] = {"q": {"d": HUGE if side == "qrels" else 1}}
    run: dict[str, dict[str, Any]] = {"q": {"d": HUGE if side == "run" else 1.0}}
    with pytest.raises(DataError) as info:
        evaluate_trec(qrels, run, metrics=["ndcg@3"])
    assert "5001 digits" in str(info.value), str(info.value)


def test_traceback_run_config_seeds_of_10_to_the_5000_are_refused_in_one_short_line() -> None:
    from bench.benchmark.config import RunConfig
    from bench.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        RunConfig(dataset="synthetic", seeds=[HUGE])
    assert "seeds" in str(info.value)
    assert "5001 digits" in str(info.value)
    assert len(str(info.value)) < 300, str(info.value)


def test_unclear_a_seed_of_10_to_the_400_is_shown_by_its_first_digits_and_count(
        tmp_path: Path) -> None:
    res = _config(tmp_path, "seeds = [1" + "0" * 400 + "]\n")
    ok(refused(res, "c.toml", "seeds", "100000000000...(401 digits)"))
    assert len(error_line(res)) < 300, error_line(res)


def test_unclear_a_4000_digit_seed_within_the_limit_is_shown_by_its_digit_count(tmp_path: Path) -> None:
    """4000 digits: Python reads it; the config's range check names it (no digit-limit text)."""
    res = _config(tmp_path, "seeds = [" + "1" * 4000 + "]\n")
    ok(refused(res, "c.toml", "seeds", "(4000 digits)", "0 to 2147483647"))


# ------------------------------------------------------- files that are not what they claim

def test_silent_accept_a_metrics_table_linked_out_of_the_run_folder_is_refused(
        one_run: Path) -> None:
    table = one_run / "runs/r1/metrics.csv"
    (one_run / "theirs.csv").write_bytes(table.read_bytes())
    table.unlink()
    table.symlink_to(one_run / "theirs.csv")
    res = cli(one_run, "report", "--runs", "runs/r1", "--out", "out", *FAST)
    ok(refused(res, "runs/r1/metrics.csv", "symbolic link", "theirs.csv", "outside the run"))
    assert not (one_run / "out").exists()


def test_silent_accept_a_manifest_linked_out_of_the_run_folder_is_refused(one_run: Path) -> None:
    man = one_run / "runs/r1/manifest.json"
    (one_run / "m.json").write_bytes(man.read_bytes())
    man.unlink()
    man.symlink_to(one_run / "m.json")
    res = cli(one_run, "report", "--runs", "runs/r1", "--out", "out", *FAST)
    ok(refused(res, "manifest.json", "symbolic link", "m.json", "outside the run"))


def test_silent_accept_a_folder_of_runs_with_a_linked_out_metrics_table_names_it(
        one_run: Path) -> None:
    table = one_run / "runs/r1/metrics.csv"
    (one_run / "theirs.csv").write_bytes(table.read_bytes())
    table.unlink()
    table.symlink_to(one_run / "theirs.csv")
    res = cli(one_run, "report", "--runs", "runs", "--out", "out", *FAST)
    ok(refused(res, "metrics.csv", "symbolic link", "outside the run"))


def test_a_link_between_files_of_one_run_folder_is_read(one_run: Path) -> None:
    """A link that stays inside the run folder is no escape: the report reads it."""
    table = one_run / "runs/r1/metrics.csv"
    os.replace(table, one_run / "runs/r1/metrics-copy.csv")
    table.symlink_to("metrics-copy.csv")
    res = cli(one_run, "report", "--runs", "runs/r1", "--out", "out", *FAST)
    assert res.status == 0, res.err
    doc = json.loads((one_run / "out/leaderboard.json").read_text())
    best = doc["tables"][0]["rows"][0]
    assert best["model"] == LGB
    assert best["metrics"]["ndcg@10"]["mean"] == pytest.approx(0.8375)


def test_a_run_folder_given_through_a_link_is_read_whole(one_run: Path) -> None:
    (one_run / "alias").symlink_to(one_run / "runs/r1")
    res = cli(one_run, "report", "--runs", "alias", "--out", "out", *FAST)
    assert res.status == 0, res.err


def test_a_metrics_table_linked_to_dev_zero_is_refused_without_blocking(one_run: Path) -> None:
    table = one_run / "runs/r1/metrics.csv"
    table.unlink()
    table.symlink_to("/dev/zero")
    start = time.monotonic()
    res = cli(one_run, "report", "--runs", "runs/r1", "--out", "out", *FAST)
    ok(refused(res, "metrics.csv", "not a regular file"))
    assert time.monotonic() - start < 5


def test_a_report_output_hard_linked_to_the_runs_manifest_leaves_the_manifest_intact(
        one_run: Path) -> None:
    """leaderboard.json of an earlier report hard-linked to the run's manifest (one inode): the
    report writes a new file, it never writes through the link into the run (input destroyed)."""
    man = one_run / "runs/r1/manifest.json"
    before = man.read_bytes()
    (one_run / "out").mkdir()
    os.link(man, one_run / "out/leaderboard.json")
    res = cli(one_run, "report", "--runs", "runs/r1", "--out", "out", *FAST)
    assert res.status in (0, 2), res.err
    assert not res.traceback, res.err
    assert man.read_bytes() == before


def test_silent_accept_reproduce_refuses_a_run_folder_linked_out_of_the_leaderboard_folder(
        tmp_path: Path) -> None:
    from bench.benchmark.reproduce_steps import locate
    from bench.errors import DataError

    base, away = tmp_path / "published", tmp_path / "home-of-someone"
    (base / "runs").mkdir(parents=True)
    away.mkdir()
    (away / "config.toml").write_text('dataset = "synthetic"\n')
    (base / "runs/r9").symlink_to(away)
    with pytest.raises(DataError, match=r"run_config 'runs/r9/config\.toml'"):
        locate(base, "runs/r9/config.toml", "run_config", base / "leaderboard.json",
               file="config.toml")


def test_reproduce_follows_a_link_to_a_run_directory_as_it_takes_an_absolute_path(
        tmp_path: Path) -> None:
    from bench.benchmark.reproduce_steps import locate

    base = tmp_path / "published"
    (base / "runs").mkdir(parents=True)
    run = write_run(tmp_path / "elsewhere", "r1", "ds")
    (base / "runs/r1").symlink_to(run)
    got = locate(base, "runs/r1", "run_dir", base / "leaderboard.json", file=None)
    assert got == base / "runs/r1"


def test_reproduce_refuses_dotdot_in_a_run_config_still(tmp_path: Path) -> None:
    from bench.benchmark.reproduce_steps import locate
    from bench.errors import DataError

    with pytest.raises(DataError, match="outside the folder"):
        locate(tmp_path, "../../etc/passwd", "run_config", tmp_path / "leaderboard.json",
               file="config.toml")


# --------------------------------------------------------------- names that become paths

def test_unclear_a_run_typed_in_another_case_names_the_run_folder_that_is_there(
        one_run: Path) -> None:
    res = cli(one_run, "report", "--runs", "runs/R1", "--out", "out", *FAST)
    ok(refused(res, "runs/R1", "not found", "'runs/r1' is there", "letter case"))


def test_unclear_a_run_id_typed_in_another_case_names_the_run_under_the_results(
        tmp_path: Path) -> None:
    write_run(tmp_path / "out/runs", "r1", "ds")
    res = cli(tmp_path, "report", "--runs", "R1", "--out", "out", *FAST)
    ok(refused(res, "R1", "not found", "out/runs/r1", "letter case"))


def test_unclear_a_run_id_typed_in_nfc_beside_an_nfd_folder_names_the_nfd_folder(
        tmp_path: Path) -> None:
    nfd = unicodedata.normalize("NFD", "caf\u00e9")
    write_run(tmp_path / "runs", nfd, "ds")
    res = cli(tmp_path, "report", "--runs", "runs/caf\u00e9", "--out", "out", *FAST)
    ok(refused(res, "not found", "NFD", "convmv"))


#: Windows' reserved device names (Microsoft, "Naming Files, Paths, and Namespaces"): a file or
#: folder of that name, with or without an extension, in any case, is the device.
WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                   *(f"LPT{i}" for i in range(1, 10))}


def _is_device(name: str) -> bool:
    return name.split(".")[0].upper() in WINDOWS_DEVICES


@pytest.mark.parametrize("name", ["CON", "con", "nul.txt", "Aux", "COM1", "lpt9.tar.gz", "PRN"])
def test_unclear_a_dataset_named_as_a_windows_device_gets_no_device_folder(name: str) -> None:
    from bench.runs.naming import dataset_slug

    slug = dataset_slug(name)
    assert not _is_device(slug), slug
    assert slug.lower().startswith(name.split(".")[0].lower()), slug  # still reads as the name


def test_con_and_its_lower_case_twin_get_two_folders_a_case_blind_disk_keeps_apart() -> None:
    from bench.runs.naming import dataset_slug

    assert dataset_slug("CON").lower() != dataset_slug("con").lower()


@pytest.mark.parametrize("name", ["CONTROL", "console", "auxiliary", "COM10", "nullable"])
def test_names_that_only_begin_like_a_device_stay_as_written(name: str) -> None:
    from bench.runs.naming import dataset_slug

    assert dataset_slug(name) == name


def test_silent_accept_a_relative_data_directory_entry_in_the_variable_is_refused(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from bench.datasets.fetch import data_dirs
    from bench.errors import ConfigError

    monkeypatch.setenv("LTRBENCH_DATA_DIR", os.pathsep.join([str(tmp_path), "data"]))
    with pytest.raises(ConfigError) as info:
        data_dirs()
    text = str(info.value)
    for word in ("$LTRBENCH_DATA_DIR", "'data'", "relative"):
        assert word in text, text


def test_silent_accept_a_relative_first_data_directory_is_refused_by_a_command(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    planted = tmp_path / "data"  # what another user could leave in /tmp
    planted.mkdir()
    monkeypatch.setenv("LTRBENCH_DATA_DIR", "data")
    res = cli(tmp_path, "datasets", "list")
    ok(refused(res, "$LTRBENCH_DATA_DIR", "'data'", "relative", str(planted)))


def test_a_relative_data_dir_option_is_the_users_own_choice_and_read(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from bench.datasets.fetch import data_dirs

    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(tmp_path / "abs"))
    assert data_dirs("data") == [Path("data")]


# ------------------------------------------------------ published outputs as injection vectors

EVIL_MODEL = ("</script><script>alert(1)</script><img src=x onerror=alert(2)>"
              "\\input{/etc/passwd}\\write18{rm -rf ~}%[x](javascript:alert(3))![i](http://e/x.png)"
              "`b`|c<!--")
EVIL_QIDS = ['q"><svg onload=alert(4)>', "</title><script>alert(5)</script>", "<!--", "q&amp;",
             "javascript:alert(6)"]


@pytest.fixture(scope="module")
def evil_board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("evil")
    pq = {LGB: [0.9, 0.8, 0.7, 0.95, 0.6], EVIL_MODEL: [0.3, 0.2, 0.1, 0.4, 0.5]}
    write_run(base / "runs", "r1", "ds", pq=pq, qids=EVIL_QIDS)
    res = cli(base, "report", "--runs", "runs/r1", "--out", "out", "--html", *FAST)
    assert res.status == 0, res.err
    return base / "out"


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def _parsed(board: Path) -> _Tags:
    p = _Tags()
    p.feed((board / "leaderboard.html").read_text(encoding="utf-8"))
    return p


def test_html_holds_one_script_no_event_attribute_and_no_javascript_url(evil_board: Path) -> None:
    p = _parsed(evil_board)
    assert [t for t, _ in p.tags].count("script") == 1
    assert [t for t, _ in p.tags if t in ("img", "svg") and any(
        (k or "").startswith("on") for k, _ in _)] == []
    attrs = [(k, v or "") for _, a in p.tags for k, v in a]
    assert not [a for a in attrs if a[0].startswith("on")], attrs
    assert not [a for a in attrs if a[0] in ("href", "src") and "javascript:" in a[1]]
    assert p.comments == [], p.comments  # a name's '<!--' opens no comment


def test_html_qid_attributes_are_the_query_ids_exactly(evil_board: Path) -> None:
    p = _parsed(evil_board)
    qids = sorted(v or "" for t, a in p.tags for k, v in a if k == "data-qid")
    assert qids == sorted(EVIL_QIDS)
    text = (evil_board / "leaderboard.html").read_text(encoding="utf-8")
    assert html.escape(EVIL_MODEL, quote=True) in text


def test_latex_prints_the_tex_commands_of_a_model_name_as_text(evil_board: Path) -> None:
    tex = (evil_board / "leaderboard.tex").read_text(encoding="utf-8")
    want = (r"\textless{}/script\textgreater{}\textless{}script\textgreater{}alert(1)"
            r"\textless{}/script\textgreater{}\textless{}img src=x onerror=alert(2)"
            r"\textgreater{}\textbackslash{}input\{/etc/passwd\}\textbackslash{}write18\{rm -rf "
            r"\textasciitilde{}\}\%[x](javascript:alert(3))![i](http://e/x.png)"
            r"\textasciigrave{}b\textasciigrave{}\textbar{}c\textless{}!-{}-")
    rows = [ln for ln in tex.splitlines() if "passwd" in ln]
    assert rows
    assert all(ln.startswith(want + " & ") for ln in rows), rows


def test_latex_has_no_bare_input_write18_or_catcode(evil_board: Path) -> None:
    tex = (evil_board / "leaderboard.tex").read_text(encoding="utf-8")
    assert re.search(r"(?<!textbackslash\{\})\\(input|write18|catcode|openout|read)\b", tex) \
        is None


def _cells(line: str) -> list[str]:
    return re.split(r"(?<!\\)\|", line.strip())[1:-1]


def test_markdown_opens_no_link_image_code_span_or_comment(evil_board: Path) -> None:
    lines = (evil_board / "leaderboard.md").read_text(encoding="utf-8").splitlines()
    rows = [i for i, ln in enumerate(lines) if "passwd" in ln and ln.startswith("|")]
    assert rows
    for i in rows:
        row = lines[i]
        assert re.search(r"(?<!\\)\]\(", row) is None, row  # [x](...), ![i](...) as text
        assert re.search(r"(?<!\\)`", row) is None, row
        for tag in ("<!--", "<script", "<img"):
            assert tag not in row, row
        sep = max(j for j in range(i) if re.fullmatch(r"\|[-:| ]+\|", lines[j].strip()))
        assert len(_cells(row)) == len(_cells(lines[sep - 1])), (row, lines[sep - 1])


def test_leaderboard_json_keeps_the_hostile_model_name_and_is_strict(evil_board: Path) -> None:
    def no_constant(name: str) -> Any:
        raise AssertionError(f"not JSON: {name}")

    doc = json.loads((evil_board / "leaderboard.json").read_text(encoding="utf-8"),
                     parse_constant=no_constant)
    assert {r["model"] for r in doc["tables"][0]["rows"]} == {LGB, EVIL_MODEL}
    assert json.dumps(doc, allow_nan=False)


# ----------------------------------------------------------------------- decompression bombs

def test_a_gzip_bomb_given_as_data_is_refused_by_its_signature_without_reading(
        trec: Path) -> None:
    (trec / "bomb.txt").write_bytes(gzip.compress(b"0 qid:1 1:0\n" * 400_000, 9))
    assert (trec / "bomb.txt").stat().st_size * 500 < 400_000 * 12
    start = time.monotonic()
    res = cli(trec, "evaluate", "--data", "bomb.txt", "--scores", "s.txt")
    ok(refused(res, "bomb.txt:1", "gzip", "gunzip"))
    assert time.monotonic() - start < 2


def test_a_truncated_gzip_given_as_a_qrels_is_refused_by_its_signature(trec: Path) -> None:
    (trec / "q.gz").write_bytes(gzip.compress(QRELS)[:12])
    res = cli(trec, "evaluate", "--qrels", "q.gz", "--run", "r.txt")
    ok(refused(res, "q.gz", "gzip"))


# ------------------------------------------- files the HTML report embeds (exfiltration)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(17)  # the signature and a header


def _embedded(board: Path) -> list[bytes]:
    page = (board / "leaderboard.html").read_text(encoding="utf-8")
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([^"]*)"',
                                                     page)]


def _html_with(one_run: Path, plant: dict[str, Any]) -> Path:
    folder = one_run / "out/ds"
    folder.mkdir(parents=True)
    for name, what in plant.items():
        if isinstance(what, Path):
            (folder / name).symlink_to(what)
        else:
            (folder / name).write_bytes(what)
    res = cli(one_run, "report", "--runs", "runs/r1", "--out", "out", "--html", *FAST)
    assert res.status == 0, res.err
    return one_run / "out"


def test_silent_accept_a_png_link_to_a_private_key_is_not_published_in_the_html(
        one_run: Path) -> None:
    secret = one_run / "id_ed25519"
    secret.write_bytes(b"-----BEGIN OPENSSH PRIVATE KEY-----\nhunter2\n")
    board = _html_with(one_run, {"zz.png": secret})
    assert not [b for b in _embedded(board) if b"PRIVATE KEY" in b]
    page = (board / "leaderboard.html").read_text(encoding="utf-8")
    assert "hunter2" not in page
    assert "zz.png is not embedded: a symbolic link" in page


def test_silent_accept_a_png_named_file_that_is_no_png_is_not_embedded(one_run: Path) -> None:
    board = _html_with(one_run, {"notes.png": b"<script>alert(1)</script>"})
    assert _embedded(board) == []
    assert "notes.png is not embedded: not a PNG image" in (
        board / "leaderboard.html").read_text(encoding="utf-8")


def test_a_real_png_in_the_folder_is_embedded_byte_for_byte(one_run: Path) -> None:
    board = _html_with(one_run, {"mine.png": PNG})
    assert _embedded(board) == [PNG]


def test_silent_accept_a_tuning_figure_linked_elsewhere_is_not_embedded(tmp_path: Path) -> None:
    from bench.report.html_tuning import _figure

    (tmp_path / "secret").write_bytes(PNG + b"secret")  # even a PNG: a link is not embedded
    (tmp_path / "best_so_far.png").symlink_to(tmp_path / "secret")
    got = _figure(tmp_path / "best_so_far.png", "best so far")
    assert "base64" not in got, got
    assert "symbolic link" in got, got


@pytest.mark.parametrize("name", ["CON", "nul.v2", "Com1", "lpt3.x"])
def test_unclear_a_custom_model_named_as_a_windows_device_is_refused(name: str) -> None:
    from bench.benchmark.config import RunConfig
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match="device name on Windows"):
        RunConfig(dataset="synthetic", models=[name],
                  custom_models={name: {"factory": "sklearn.linear_model:Ridge"}})


def test_a_custom_model_that_only_begins_like_a_device_is_accepted() -> None:
    from bench.benchmark.config import RunConfig

    cfg = RunConfig(dataset="synthetic", models=["console"],
                    custom_models={"console": {"factory": "sklearn.linear_model:Ridge"}})
    assert "console" in cfg.models
