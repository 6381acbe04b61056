"""Round 23b, persona I: the operator auditing what every writer leaves behind.

The leftovers of round 23's outputs catalogue, then their siblings: the cross-check folder
``<out>/<dataset-name>/`` that ``run``, ``crosscheck`` and ``reproduce`` write, when a dataset
folder of the user's stands under that name (sealed with the name known at check time, and no
harmless sibling refused); the Python ``verify`` held to a card's counts as the command is; a
card file that is a folder or a FIFO said as what it is; ltrbench's own JSON documents read by
the one strict reader (``NaN``, a key twice); a file set's renames in one order whatever
``PYTHONHASHSEED``; tune's ``best.toml`` and ``summary.json`` written as one set.
Each test names its class of issue 19 (input destroyed, silent accept, unclear error,
traceback, silently wrong number). Commands run in-process; the work behind each check is
replaced by a sentinel, so a refusal is proven to come before any work.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hostile_kit import cli, ok, refused, snapshot, untouched, write_one_seed_run


class _Work(Exception):
    """Raised where the command would start its work: the output checks were passed."""


def _boom(*_a: Any, **_k: Any) -> Any:
    raise _Work("the command went on to its work")


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import bench.benchmark.pipeline as pipeline
    import bench.benchmark.reproduce as reproduce
    import bench.crosscheck.find as find

    for module, name in ((pipeline, "run_benchmark"), (reproduce, "reproduce_run"),
                         (find, "crosscheck_run")):
        monkeypatch.setattr(module, name, _boom)
    (tmp_path / "data").mkdir()
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(tmp_path / "data"))


def _letor(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in ("train.txt", "test.txt"):
        (folder / n).write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n", encoding="utf-8")
    return folder


def _refused_before_work(res: Any, *words: str) -> str | None:
    if "_Work" in res.err:
        return "accepted: the command went on to its work (no refusal)"
    return refused(res, *words)


# ============================================ 1. the cross-check folder <out>/<dataset-name>/
def test_input_destroyed_run_crosscheck_folder_is_a_copy_of_the_dataset_named(
        tmp_path: Path, no_work: None) -> None:
    # run --dataset lightgbm-lambdarank --out W wrote W/lightgbm-lambdarank/crosscheck.md among
    # the user's own copy of that dataset (rank.train, rank.test)
    copy = tmp_path / "w" / "lightgbm-lambdarank"
    copy.mkdir(parents=True)
    for n in ("rank.train", "rank.test"):
        (copy / n).write_text("1 1:0.5\n", encoding="utf-8")
    before = snapshot(copy)
    res = cli(tmp_path, "run", "--dataset", "lightgbm-lambdarank", "--models", "random",
              "--quick", "--out", str(tmp_path / "w"), "--no-progress")
    ok(_refused_before_work(res, "lightgbm-lambdarank", "crosscheck"))
    ok(untouched(before, copy))


def test_silent_accept_guard_run_no_crosscheck_writes_no_dataset_named_folder(
        tmp_path: Path, no_work: None) -> None:
    # guard: with --no-crosscheck nothing lands in W/<dataset>: the command goes on
    copy = _letor(tmp_path / "w" / "lightgbm-lambdarank")
    (copy / "rank.train").write_text("x", encoding="utf-8")
    res = cli(tmp_path, "run", "--dataset", "lightgbm-lambdarank", "--models", "random",
              "--quick", "--out", str(tmp_path / "w"), "--no-crosscheck", "--no-progress")
    assert "_Work" in res.err, (res.status, res.err[-600:])


def test_input_destroyed_crosscheck_of_a_run_of_a_path_dataset_over_its_namesake(
        tmp_path: Path, no_work: None) -> None:
    # crosscheck --run R --out W, R's dataset '/elsewhere/letor': W/letor (a LETOR folder of
    # the user's) received crosscheck.md and crosscheck.json
    run = write_one_seed_run(tmp_path / "runs", "r1", str(tmp_path / "elsewhere" / "letor"),
                             {"lightgbm-lambdarank": [0.5, 0.25]})
    mine = _letor(tmp_path / "w" / "letor")
    before = snapshot(mine)
    res = cli(tmp_path, "crosscheck", "--run", str(run), "--out", str(tmp_path / "w"))
    ok(_refused_before_work(res, "letor", "crosscheck"))
    ok(untouched(before, mine))


def test_input_destroyed_crosscheck_of_a_catalogue_named_run_over_its_namesake(
        tmp_path: Path, no_work: None) -> None:
    # crosscheck --run R of dataset mq2007: the name is known (the run's) before any work
    run = write_one_seed_run(tmp_path / "runs", "r1", "mq2007", {"lightgbm-lambdarank": [0.5]})
    mine = _letor(tmp_path / "w" / "mq2007")
    before = snapshot(mine)
    res = cli(tmp_path, "crosscheck", "--run", str(run), "--out", str(tmp_path / "w"))
    ok(_refused_before_work(res, "mq2007"))
    ok(untouched(before, mine))


def test_silent_accept_guard_crosscheck_beside_a_dataset_of_another_name_goes_on(
        tmp_path: Path, no_work: None) -> None:
    # guard (the earlier attempt's over-refusal): W/other is a dataset, the run's is 'letor'
    run = write_one_seed_run(tmp_path / "runs", "r1", "letor", {"lightgbm-lambdarank": [0.5]})
    _letor(tmp_path / "w" / "other")
    res = cli(tmp_path, "crosscheck", "--run", str(run), "--out", str(tmp_path / "w"))
    assert "_Work" in res.err, (res.status, res.err[-600:])


def test_input_destroyed_reproduce_crosscheck_folder_is_the_runs_dataset_namesake(
        tmp_path: Path, no_work: None) -> None:
    run = write_one_seed_run(tmp_path / "runs", "r1", str(tmp_path / "far" / "ohsumed"),
                             {"lightgbm-lambdarank": [0.5]})
    mine = _letor(tmp_path / "w" / "ohsumed")
    before = snapshot(mine)
    res = cli(tmp_path, "reproduce", "--run", str(run), "--out", str(tmp_path / "w"))
    ok(_refused_before_work(res, "ohsumed"))
    ok(untouched(before, mine))


def test_silent_accept_guard_reproduce_beside_a_dataset_of_another_name_goes_on(
        tmp_path: Path, no_work: None) -> None:
    run = write_one_seed_run(tmp_path / "runs", "r1", "ohsumed", {"lightgbm-lambdarank": [0.5]})
    _letor(tmp_path / "w" / "mq2008")
    res = cli(tmp_path, "reproduce", "--run", str(run), "--out", str(tmp_path / "w"))
    assert "_Work" in res.err, (res.status, res.err[-600:])


def _result(dataset: str) -> Any:
    from bench.crosscheck.result import CrosscheckResult

    return CrosscheckResult(dataset=dataset, run_dir="/r/runs/x", run_id="x", metric="ndcg@10",
                            default_profile="ltrbench")


def test_input_destroyed_write_crosscheck_into_a_dataset_folder_is_refused(tmp_path: Path) -> None:
    # the one writer of the three doors (and the Python API): its own last guard
    from bench.crosscheck import write_crosscheck
    from bench.errors import LtrbenchError

    mine = _letor(tmp_path / "w" / "letor")
    before = snapshot(mine)
    with pytest.raises(LtrbenchError, match="letor"):
        write_crosscheck(_result("/data/letor"), tmp_path / "w")
    ok(untouched(before, mine))


def test_silent_accept_guard_write_crosscheck_over_its_own_earlier_pair(tmp_path: Path) -> None:
    from bench.crosscheck import write_crosscheck

    write_crosscheck(_result("letor"), tmp_path / "w")
    files = write_crosscheck(_result("letor"), tmp_path / "w")
    assert sorted(p.name for p in files.values()) == ["crosscheck.json", "crosscheck.md"]


# ============================================ 2. the Python verify and the card's counts
CARD = """name = "r23bi"
title = "T"
kind = "letor"
loader = "letor"
homepage = "http://x"
size = "4 queries, 12 rows"
licence = "test"
citation = "none"
dir = "r23bi"
n_features = 2
max_label = 2
{extra}
[splits]
train = "train.txt"
vali = "vali.txt"
test = "test.txt"

[files]
"train.txt" = "unknown"
"vali.txt" = "unknown"
"test.txt" = "unknown"
"""


def _rows(qids: list[int]) -> str:
    return "".join(f"{lab} qid:{q} 1:{0.1 + 0.3 * lab:.2f} 2:{0.2 * lab:.2f}\n"
                   for q in qids for lab in (2, 0, 1))


@pytest.fixture
def card_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from bench.datasets import catalogue

    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "r23bi.toml").write_text(CARD.format(extra="n_queries = 4\nn_rows = 12"))
    monkeypatch.setattr(catalogue, "cards_dir", lambda: cards)
    catalogue.load_catalogue.cache_clear()
    folder = tmp_path / "data" / "r23bi"
    folder.mkdir(parents=True)
    for name, q in zip(("train.txt", "vali.txt", "test.txt"), ([1, 2], [3], [4]), strict=True):
        (folder / name).write_text(_rows(q), encoding="utf-8")
    yield tmp_path / "data"
    monkeypatch.undo()
    catalogue.load_catalogue.cache_clear()


def test_silent_accept_python_verify_of_a_copy_missing_a_query(card_data: Path) -> None:
    # fetch.verify said ok for 3 queries under a card of 4 (the command said FAILED)
    from bench.datasets.fetch import verify

    (card_data / "r23bi" / "train.txt").write_text(_rows([1]), encoding="utf-8")
    report = verify("r23bi", data_dir=card_data)
    assert report.ok is False, report
    assert report.card_counts is not None, report
    assert "queries" in report.card_counts, report


def test_silent_accept_python_verify_of_rows_cut_short(card_data: Path) -> None:
    from bench.datasets.fetch import verify

    test = card_data / "r23bi" / "test.txt"
    test.write_text(_rows([4]).splitlines()[0] + "\n", encoding="utf-8")
    report = verify("r23bi", data_dir=card_data)
    assert not report.ok, report
    assert "10 rows" in str(report.card_counts), report


def test_silent_accept_guard_python_verify_of_the_cards_counts_is_ok(card_data: Path) -> None:
    from bench.datasets.fetch import verify

    report = verify("r23bi", data_dir=card_data)
    assert report.ok, report
    assert report.card_counts is None, report


# ============================================ 3. a card file that is a folder or a FIFO
def test_unclear_error_verify_of_a_card_file_that_is_a_folder_says_folder(
        card_data: Path) -> None:
    from bench.datasets.fetch import verify

    test = card_data / "r23bi" / "test.txt"
    test.unlink()
    test.mkdir()
    report = verify("r23bi", data_dir=card_data)
    entry = next(f for f in report.as_dict()["files"] if f["path"] == "test.txt")
    assert not report.ok
    assert "folder" in json.dumps({k: v for k, v in entry.items() if k != "path"}), entry


def test_unclear_error_verify_json_of_a_card_file_that_is_a_fifo_says_fifo(
        card_data: Path, tmp_path: Path) -> None:
    test = card_data / "r23bi" / "vali.txt"
    test.unlink()
    os.mkfifo(test)
    res = cli(tmp_path, "datasets", "verify", "r23bi", "--data-dir", str(card_data),
              "--format", "json")
    doc = json.loads(res.out)
    entry = next(f for f in doc["files"] if f["path"] == "vali.txt")
    assert res.status == 1, (res.status, res.out)
    assert doc["ok"] is False, res.out
    assert "FIFO" in json.dumps({k: v for k, v in entry.items() if k != "path"}), entry


# ============================================ 4. ltrbench's own JSON through the strict reader
def _table() -> dict[str, Any]:
    return {"run_id": "x", "dataset": "letor"}


def test_silently_wrong_number_html_crosscheck_json_with_nan_is_unreadable(tmp_path: Path) -> None:
    # the HTML page showed a cross-check whose gap was NaN (json.loads reads 'NaN' in silence)
    from bench.report.html import crosscheck_html

    (tmp_path / "crosscheck.json").write_text(
        '{"run_id": "x", "ok": true, "metric": "ndcg@10", "checks": [{"gap": NaN}], '
        '"cases": []}', encoding="utf-8")
    html = crosscheck_html(_table(), [tmp_path])
    assert "unreadable" in html, html[:400]
    assert "NaN" in html, html[:400]


def test_silent_accept_html_crosscheck_json_with_a_key_twice_is_unreadable(tmp_path: Path) -> None:
    # '"ok": false' then '"ok": true': json keeps the last and the page said OK
    from bench.report.html import crosscheck_html

    (tmp_path / "crosscheck.json").write_text(
        '{"run_id": "x", "ok": false, "metric": "ndcg@10", "checks": [], "cases": [], '
        '"ok": true}', encoding="utf-8")
    html = crosscheck_html(_table(), [tmp_path])
    assert "unreadable" in html, html[:400]
    assert "twice" in html, html[:400]
    assert "OK" not in html, html[:400]


def test_silently_wrong_number_run_summary_of_a_manifest_with_nan(tmp_path: Path) -> None:
    # summarize_run (run --format json) read a manifest's NaN in silence
    from bench.benchmark.summary import summarize_run
    from bench.errors import LtrbenchError

    run = write_one_seed_run(tmp_path, "r1", "letor", {"random": [0.5]})
    (run / "manifest.json").write_text('{"finished": "x", "seeds": [0], "models": {"random": '
                                       '{}}, "dataset": {"name": "letor"}, "wall_s": NaN}')
    with pytest.raises(LtrbenchError, match="NaN"):
        summarize_run(run)


def test_input_destroyed_convert_record_with_files_twice_is_no_record(tmp_path: Path) -> None:
    # a summary.json listing "files" twice: json kept the second list (train.txt) and convert
    # replaced the user's own train.txt, which the first list did not name
    from bench.adapters.convert import foreign_outputs

    out = tmp_path / "o"
    out.mkdir()
    (out / "train.txt").write_text("mine\n", encoding="utf-8")
    (out / "summary.json").write_text('{"files": ["summary.json"], "files": ["train.txt", '
                                      '"summary.json"]}', encoding="utf-8")
    assert "train.txt" in [Path(f).name for f in foreign_outputs(out)]


# ============================================ 5. a file set's renames in one order
def test_silent_accept_file_set_renames_in_sorted_order_summary_last(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the order followed a set's iteration (PYTHONHASHSEED): a kill among the renames left a
    # different half-set on each run
    from bench.data import atomic

    names = [f"f{c}.txt" for c in "kdjhaibgce"] + ["summary.json", "a.md"]
    moved: list[str] = []
    real = os.replace

    def spy(src: Any, dst: Any) -> None:
        if ".set-" in str(src):
            moved.append(Path(dst).name)
        real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", spy)
    with atomic.replace_file_set(tmp_path / "o", names) as tmp:
        for n in names:
            (tmp / n).write_text(n)
    assert moved == [*sorted(n for n in names if n != "summary.json"), "summary.json"], moved


def test_silent_accept_file_set_stale_removals_in_given_order(tmp_path: Path) -> None:
    # guard: files of the owned names the new set lacks are removed, the rest kept
    from bench.data import atomic

    out = tmp_path / "o"
    out.mkdir()
    for n in ("a.csv", "b.csv", "mine.txt"):
        (out / n).write_text("old")
    with atomic.replace_file_set(out, ["b.csv", "a.csv"]) as tmp:
        (tmp / "a.csv").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == ["a.csv", "mine.txt"]
    assert (out / "a.csv").read_text() == "new"


# ============================================ 6. tune's best.toml and summary.json as one set
def test_input_destroyed_tune_fault_at_summary_keeps_the_earlier_best_toml(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a full disk at summary.json left the new best.toml beside the earlier summary.json
    from bench.benchmark import tune_out

    (tmp_path / "best.toml").write_text("old = 1\n")
    (tmp_path / "summary.json").write_text('{"old": 1}\n')
    real = tune_out.write_text

    def failing(path: Any, text: str) -> Any:
        if str(path).endswith("summary.json"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, text)

    monkeypatch.setattr(tune_out, "write_text", failing)
    with pytest.raises(OSError, match="No space left"):
        tune_out.write_results(tmp_path, {"models": {}}, {"m": "x = 1\n"}, "new = 1\n")
    assert (tmp_path / "best.toml").read_text() == "old = 1\n"
    assert (tmp_path / "summary.json").read_text() == '{"old": 1}\n'


def test_input_destroyed_guard_tune_results_whole_set_written(tmp_path: Path) -> None:
    from bench.benchmark import tune_out

    tune_out.write_results(tmp_path, {"models": {}}, {"m": "x = 1\n"}, "new = 1\n")
    assert (tmp_path / "best.toml").read_text() == "new = 1\n"
    assert json.loads((tmp_path / "summary.json").read_text()) == {"models": {}}
    assert (tmp_path / "best" / "m.toml").read_text() == "x = 1\n"
    assert (tmp_path / "complete").is_file()
    assert not list(tmp_path.glob(".set-*"))


# ============================================ 7. siblings: own documents written strict
def _no_nan(text: str) -> Any:
    def refuse(token: str) -> Any:
        raise AssertionError(f"{token} written: no strict JSON reader takes it")

    return json.loads(text, parse_constant=refuse)


def test_silent_accept_conversion_record_with_a_nan_of_meta_is_strict_json(tmp_path: Path) -> None:
    # write_splits wrote 'NaN' from a user's splits.meta into summary.json: its own reader
    # (strict) then takes the folder for one no conversion wrote
    from hostile_kit import toy_splits

    from bench.adapters.convert import foreign_outputs, write_splits

    splits = toy_splits()
    splits.meta["holdout_fraction"] = float("nan")
    write_splits(splits, tmp_path / "o", parquet=False)
    doc = _no_nan((tmp_path / "o" / "summary.json").read_text(encoding="utf-8"))
    assert doc["split_meta"]["holdout_fraction"] is None, doc["split_meta"]
    assert foreign_outputs(tmp_path / "o") == []


def test_silent_accept_tune_summary_with_a_nan_is_strict_json(tmp_path: Path) -> None:
    from bench.benchmark import tune_out

    tune_out.write_results(tmp_path, {"models": {"m": {"best_value": float("nan")}}},
                           {"m": "x = 1\n"}, "x = 1\n")
    doc = _no_nan((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert doc["models"]["m"]["best_value"] is None


def test_silent_accept_python_verify_and_the_command_give_one_report(card_data: Path,
                                                                     tmp_path: Path) -> None:
    # one function answers both doors: the JSON the command prints is the Python report's
    from bench.datasets.fetch import verify

    (card_data / "r23bi" / "test.txt").write_text(_rows([4, 5]), encoding="utf-8")
    res = cli(tmp_path, "datasets", "verify", "r23bi", "--data-dir", str(card_data),
              "--format", "json")
    assert json.loads(res.out) == verify("r23bi", data_dir=card_data).as_dict()
    assert "5 queries" in json.loads(res.out)["card_counts"], res.out


def test_unclear_error_verify_of_a_card_file_that_is_a_link_to_nothing(card_data: Path) -> None:
    from bench.datasets.fetch import verify

    test = card_data / "r23bi" / "train.txt"
    test.unlink()
    test.symlink_to(card_data / "gone.txt")
    entry = next(f for f in verify("r23bi", data_dir=card_data).files if f.path == "train.txt")
    assert entry.status == "missing", entry
    assert "link to nothing" in str(getattr(entry, "stands", None)), entry


def test_input_destroyed_reproduce_of_a_leaderboard_over_its_datasets_namesake(
        tmp_path: Path, no_work: None) -> None:
    # reproduce LEADERBOARD --out W: the re-runs' cross-check went to W/<dataset>/, a LETOR
    # folder of the user's (the name is in the leaderboard's tables)
    board = tmp_path / "leaderboard.json"
    board.write_text(json.dumps({"tables": [{"dataset": "letor", "rows": []}]}))
    mine = _letor(tmp_path / "w" / "letor")
    before = snapshot(mine)
    res = cli(tmp_path, "reproduce", str(board), "--out", str(tmp_path / "w"))
    ok(_refused_before_work(res, "letor", "crosscheck"))
    ok(untouched(before, mine))


def test_input_destroyed_python_run_out_dir_over_the_splits_namesake(
        tmp_path: Path, no_work: None) -> None:
    # bench.benchmark.run("letor", splits=..., out_dir=W): the cross-check goes to W/letor/
    from hostile_kit import api_refused, call, toy_splits

    from bench.benchmark.api import run

    mine = _letor(tmp_path / "w" / "letor")
    before = snapshot(mine)
    _, exc = call(lambda: run("letor", models="random", quick=True, splits=toy_splits(),
                              out_dir=tmp_path / "w"))
    ok(api_refused(exc, "letor", "crosscheck"))
    ok(untouched(before, mine))


def test_input_destroyed_tune_fault_at_the_second_model_config_keeps_the_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a fault at best/b.toml left the new best/a.toml beside the earlier b.toml and best.toml
    from bench.benchmark import tune_out

    (tmp_path / "best").mkdir()
    for n in ("a", "b"):
        (tmp_path / "best" / f"{n}.toml").write_text("old = 1\n")
    (tmp_path / "best.toml").write_text("old = 1\n")
    real = tune_out.write_text

    def failing(path: Any, text: str) -> Any:
        if str(path).endswith("b.toml"):
            raise OSError(errno.EIO, "Input/output error", str(path))
        return real(path, text)

    monkeypatch.setattr(tune_out, "write_text", failing)
    with pytest.raises(OSError, match="Input/output"):
        tune_out.write_results(tmp_path, {}, {"a": "new = 1\n", "b": "new = 1\n"}, "new = 1\n")
    assert (tmp_path / "best" / "a.toml").read_text() == "old = 1\n"
    assert (tmp_path / "best.toml").read_text() == "old = 1\n"


def test_input_destroyed_run_of_a_linked_dataset_over_its_targets_namesake(
        tmp_path: Path, no_work: None) -> None:
    # --dataset W/mine -> /far/letor: the run is named by the link's target ('letor'), so its
    # cross-check went to W/letor/, a LETOR folder of the user's
    far = _letor(tmp_path / "far" / "letor")
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "mine").symlink_to(far)
    own = _letor(tmp_path / "w" / "letor")
    before = snapshot(own)
    res = cli(tmp_path, "run", "--dataset", str(tmp_path / "w" / "mine"), "--models", "random",
              "--quick", "--out", str(tmp_path / "w"), "--no-progress")
    ok(_refused_before_work(res, "letor", "crosscheck"))
    ok(untouched(before, own))
