"""Round 21b, persona "clocks": a team shares one results folder and one data directory, on
machines whose clocks are not to be trusted (NTP steps, a clock years ahead or before 1970, a
``TZ`` of another zone or of nonsense). Each case names its class: traceback / silently wrong
number / input destroyed / silent accept / unclear error.

The intermediate states of two processes at once (a run folder without its manifest yet, a
half-written ``metrics.csv``, a tune folder another process is writing) are made by hand or
with the real lock, never with sleeps; clocks are faked by replacing the module's clock.
Golden values are hand arithmetic (UTC offsets, seconds)."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_kit import letor_folder, ok, own_error, write_run_tables

from bench.report.select import select_runs
from bench.runs import naming, search
from bench.runs.lock import writer_lock
from bench.runs.manifest import now
from bench.runs.reader import RunDir

UTC = dt.timezone.utc
HASH = "0b0bcb6c1234"


# ------------------------------------------------------------------------------------ helpers
class _Clock:
    """A ``datetime`` stand-in whose ``now`` reads the given times one after another."""

    def __init__(self, *times: dt.datetime) -> None:
        self.times = list(times)

    def now(self, tz: dt.tzinfo | None = None) -> dt.datetime:
        when = self.times.pop(0) if len(self.times) > 1 else self.times[0]
        return when.astimezone(tz) if tz is not None else when.replace(tzinfo=None)


def _fake_clock(monkeypatch: pytest.MonkeyPatch, module: Any, *times: dt.datetime) -> None:
    monkeypatch.setattr(module, "dt", types.SimpleNamespace(
        datetime=_Clock(*times), timezone=dt.timezone, timedelta=dt.timedelta))


@pytest.fixture
def zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``zone("Asia/Kolkata")`` sets this process's TZ (tzset); put back after the test."""
    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()
    yield set_zone
    monkeypatch.undo()
    time.tzset()


def _run(root: Path, name: str, *, finished: str | None = "2026-11-28T04:00:00+00:00",
         started: str | None = "2026-11-28T03:59:00+00:00", value: float = 0.5,
         manifest: bool = True, dataset: str = "ohsumed", cut: bool = False) -> Path:
    """A hand-made finished (or unfinished) run folder of one model's NDCG@10 ``value``."""
    run = root / name
    run.mkdir(parents=True)
    write_run_tables(run, [(dataset, "lightgbm-lambdarank", "lightgbm", 0, "test", "ndcg@10",
                            value, "ltrbench")],
                     [(dataset, "lightgbm-lambdarank", 0, "test", "1", "ndcg@10", value)],
                     [(dataset, "lightgbm-lambdarank", "lightgbm", 0, 1.0, 0.1, 10.0, 5, 5)])
    if cut:  # a writer stopped half-way through the table's second line
        text = (run / "metrics.csv").read_bytes()
        (run / "metrics.csv").write_bytes(text[: text.index(b"\n") + 12])
    if manifest:
        doc: dict[str, Any] = {"run_id": name, "config_hash": HASH, "started": started,
                               "finished": finished}
        (run / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    return run


def _choice(root: Path, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (choice,) = select_runs([root], **kw).choices
    return choice


def _said(choice: Any) -> str:
    return choice.why + " | " + " | ".join(w for _, w in choice.skipped)


def _unfinished(root: Path, name: str, started: str) -> Path:
    run = root / name
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps(
        {"run_id": name, "config_hash": HASH, "started": started, "finished": None}))
    return run


# ============================================ run ids: one second, clocks stepped, zones
def test_two_runs_of_one_config_in_one_second_get_two_folders(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:  # input destroyed
    _fake_clock(monkeypatch, naming, dt.datetime(2026, 11, 28, 3, 55, 34, tzinfo=UTC))
    a = naming.new_run_dir(tmp_path, "synthetic", "0b0bcb6c1234")
    b = naming.new_run_dir(tmp_path, "synthetic", "0b0bcb6c1234")
    assert a.name == "synthetic-20261128T035534Z-0b0bcb6c"
    assert b.name == "synthetic-20261128T035534Z-0b0bcb6c-2"


def test_run_id_stamp_is_utc_whatever_the_clock_offset(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # 09:25:34 at +05:30 is 03:55:34 UTC  (silently wrong number: a local stamp)
    kolkata = dt.timezone(dt.timedelta(hours=5, minutes=30))
    _fake_clock(monkeypatch, naming, dt.datetime(2026, 11, 28, 9, 25, 34, tzinfo=kolkata))
    assert naming.new_run_dir(tmp_path, "synthetic", HASH).name == \
        "synthetic-20261128T035534Z-0b0bcb6c"


def test_a_clock_before_1970_still_names_a_run(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # traceback: a clock reset to 1969 by a dead RTC battery
    _fake_clock(monkeypatch, naming, dt.datetime(1969, 7, 20, 20, 17, 40, tzinfo=UTC))
    assert naming.new_run_dir(tmp_path, "synthetic", HASH).name == \
        "synthetic-19690720T201740Z-0b0bcb6c"


def test_a_clock_stepped_back_between_two_runs_keeps_both(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # input destroyed: the second run's stamp is an hour earlier, its folder is another one
    _fake_clock(monkeypatch, naming, dt.datetime(2026, 11, 28, 4, 0, 0, tzinfo=UTC),
                dt.datetime(2026, 11, 28, 3, 0, 0, tzinfo=UTC))
    a = naming.new_run_dir(tmp_path, "d", HASH)
    b = naming.new_run_dir(tmp_path, "d", HASH)
    assert (a.name, b.name) == ("d-20261128T040000Z-0b0bcb6c", "d-20261128T030000Z-0b0bcb6c")
    assert sorted(p.name for p in tmp_path.iterdir()) == [b.name, a.name]


def test_eleven_runs_in_one_second_are_numbered_up_to_11(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_clock(monkeypatch, naming, dt.datetime(2026, 11, 28, 3, 55, 34, tzinfo=UTC))
    names = [naming.new_run_dir(tmp_path, "d", HASH).name for _ in range(11)]
    assert names[0] == "d-20261128T035534Z-0b0bcb6c"
    assert names[1:] == [f"d-20261128T035534Z-0b0bcb6c-{n}" for n in range(2, 12)]


@pytest.mark.parametrize("tz", ["Asia/Kolkata", "garbage", "Pacific/Kiritimati",
                                "America/St_Johns", "UTC+3"])
def test_run_id_stamp_is_utc_under_any_tz(tmp_path: Path, zone: Any, tz: str) -> None:
    zone(tz)  # silently wrong number: a stamp in local time sorts runs of two zones wrongly
    before = dt.datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    stamp = naming.new_run_dir(tmp_path, "d", HASH).name.split("-")[1]
    after = dt.datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    assert before <= stamp <= after


@pytest.mark.parametrize("tz", ["Asia/Kolkata", "garbage"])
def test_manifest_times_carry_the_utc_offset_under_any_tz(zone: Any, tz: str) -> None:
    zone(tz)
    before = dt.datetime.now(UTC).replace(microsecond=0)
    text = now()
    after = dt.datetime.now(UTC)
    assert text.endswith("+00:00"), text
    assert before <= dt.datetime.fromisoformat(text) <= after


def test_the_writer_lock_names_its_holder_in_utc_under_kolkata(tmp_path: Path, zone: Any) -> None:
    zone("Asia/Kolkata")  # unclear error: "since 10:00" read by a colleague in UTC
    with writer_lock(tmp_path):
        holder = RunDir(tmp_path).writer()
    assert holder is not None
    assert f"pid {os.getpid()}" in holder
    assert holder.endswith("+00:00"), holder
    assert RunDir(tmp_path).writer() is None  # released


# ============================================ report: which run is "newest", and said so
def test_newest_is_by_instant_across_kolkata_and_utc(tmp_path: Path) -> None:
    # 09:00+05:30 is 03:30Z, before 04:00Z: the UTC run is newer (silently wrong number)
    _run(tmp_path, "a", finished="2026-11-28T09:00:00+05:30", value=0.1)
    _run(tmp_path, "b", finished="2026-11-28T04:00:00+00:00", value=0.2)
    choice = _choice(tmp_path)
    assert choice.run.run_id == "b"
    assert "finished 2026-11-28T04:00:00+00:00" in choice.why


def test_a_time_without_offset_is_utc_not_this_machines_zone(tmp_path: Path, zone: Any) -> None:
    zone("Asia/Kolkata")  # documented: a naive time is UTC (04:00Z > 03:59Z)
    _run(tmp_path, "naive", finished="2026-11-28T04:00:00", value=0.1)
    _run(tmp_path, "utc", finished="2026-11-28T03:59:00+00:00", value=0.2)
    assert _choice(tmp_path).run.run_id == "naive"


def test_a_z_suffix_from_another_tool_is_utc(tmp_path: Path) -> None:
    _run(tmp_path, "z", finished="2026-11-28T04:00:01Z")
    _run(tmp_path, "plus", finished="2026-11-28T04:00:00+00:00")
    assert _choice(tmp_path).run.run_id == "z"


def test_a_finish_time_in_the_future_is_said(tmp_path: Path) -> None:
    # silent accept: a machine whose clock is years ahead wins "newest" for ever
    _run(tmp_path, "ahead", finished="2099-01-01T00:00:00+00:00", started="2099-01-01T00:00:00+00:00")
    _run(tmp_path, "today", finished="2026-11-28T04:00:00+00:00")
    choice = _choice(tmp_path)
    assert choice.run.run_id == "ahead"  # the rule is the rule, but it must be said
    assert "IN THE FUTURE by this machine's clock" in choice.why, choice.why


def test_a_run_in_the_past_is_not_called_future(tmp_path: Path) -> None:
    _run(tmp_path, "old", finished="2020-01-01T00:00:00+00:00", started="2019-12-31T23:00:00+00:00")
    assert "FUTURE" not in _said(_choice(tmp_path))


def test_an_unfinished_run_started_in_the_future_is_said(tmp_path: Path) -> None:
    # silent accept: --include-unfinished picks a killed run of a machine a year ahead
    _run(tmp_path, "today")
    _run(tmp_path, "ahead", finished=None, started="2099-06-01T00:00:00+00:00")
    choice = _choice(tmp_path, include_unfinished=True)
    assert choice.run.run_id == "ahead"
    assert "started 2099-06-01T00:00:00+00:00 (IN THE FUTURE" in choice.why, choice.why


def test_a_skipped_run_says_its_clock_note_too(tmp_path: Path) -> None:
    _run(tmp_path, "stepped", finished="2026-11-28T03:00:00+00:00",
         started="2026-11-28T04:00:00+00:00")
    _run(tmp_path, "later", finished="2026-11-28T05:00:00+00:00")
    choice = _choice(tmp_path)
    (reason,) = [w for r, w in choice.skipped if r.run_id == "stepped"]
    assert "BEFORE IT STARTED (2026-11-28T04:00:00+00:00)" in reason, reason


def test_a_finish_before_its_start_is_said(tmp_path: Path) -> None:
    # silent accept: the clock stepped back an hour while the run trained
    _run(tmp_path, "stepped", finished="2026-11-28T03:00:00+00:00",
         started="2026-11-28T04:00:00+00:00")
    choice = _choice(tmp_path)
    assert "BEFORE IT STARTED (2026-11-28T04:00:00+00:00)" in choice.why, choice.why


def test_a_folder_dated_in_the_future_is_said(tmp_path: Path) -> None:
    # a run folder without a manifest is dated by its mtime: one set in 2099 by a wrong clock
    run = _run(tmp_path, "nomanifest", manifest=False)
    future = dt.datetime(2099, 1, 1, tzinfo=UTC).timestamp()
    os.utime(run, (future, future))
    _run(tmp_path, "today")
    choice = _choice(tmp_path)
    assert choice.run.run_id == "nomanifest"
    assert "dated 2099-01-01T00:00:00+00:00 (IN THE FUTURE" in choice.why, choice.why


def test_a_finish_time_before_1970_is_older_not_a_crash(tmp_path: Path) -> None:
    _run(tmp_path, "rtc", finished="1969-12-31T23:59:59+00:00", started="1969-12-31T23:00:00+00:00",
         value=0.1)
    _run(tmp_path, "ntp", finished="2026-11-28T04:00:00+00:00", value=0.2)
    choice = _choice(tmp_path)
    assert choice.run.run_id == "ntp"
    assert any(r.run_id == "rtc" and "older" in w for r, w in choice.skipped)


def test_a_folder_dated_before_1970_is_older_not_a_crash(tmp_path: Path) -> None:
    # traceback: a negative mtime (a copy from a machine whose clock read 1969)
    run = _run(tmp_path, "rtc", manifest=False, value=0.1)
    os.utime(run, (-86400.0 * 365, -86400.0 * 365))
    _run(tmp_path, "ntp", value=0.2)
    choice = _choice(tmp_path)
    assert choice.run.run_id == "ntp"
    (reason,) = [w for r, w in choice.skipped if r.run_id == "rtc"]
    assert reason.startswith("older, dated 1969-01-01T00:00:00+00:00"), reason


def test_year_one_at_plus_14_compares_without_overflow(tmp_path: Path) -> None:
    # traceback: an aware time at the edge of datetime's range
    _run(tmp_path, "edge", finished="0001-01-01T00:00:00+14:00", started="0001-01-01T00:00:00+14:00")
    _run(tmp_path, "now", finished="2026-11-28T04:00:00+00:00")
    assert _choice(tmp_path).run.run_id == "now"


@pytest.mark.parametrize(("finished", "words"), [
    (1764302134, ["'finished'", "ISO"]),  # epoch seconds from another tool
    ("2026-02-30T00:00:00+00:00", ["'finished'", "2026-02-30"]),
    ("28/11/2026 04:00", ["'finished'", "ISO 8601"]),
])
def test_a_finish_time_that_is_no_iso_time_names_the_manifest(tmp_path: Path, finished: Any,
                                                              words: list[str]) -> None:
    _run(tmp_path, "x", finished=finished)  # unclear error / traceback
    _run(tmp_path, "y")
    ok(own_error(lambda: select_runs([tmp_path]), "manifest.json", *words))


def test_a_tie_in_one_second_uses_the_run_made_last_minus_11_after_minus_9(tmp_path: Path) -> None:
    # silently wrong number: "-11" < "-9" as text, so the last by run id was an older run
    base = "d-20261128T035534Z-0b0bcb6c"
    for i, suffix in enumerate(["", "-2", "-9", "-10", "-11"]):
        _run(tmp_path, base + suffix, value=0.1 * (i + 1))
    choice = _choice(tmp_path)
    assert choice.run.run_id == base + "-11", choice.why
    assert "same time" in choice.why


def test_runs_are_listed_in_the_order_they_were_made_within_one_second(tmp_path: Path) -> None:
    base = "d-20261128T035534Z-0b0bcb6c"
    for suffix in ["-10", "", "-2", "-9"]:
        _run(tmp_path, base + suffix)
    assert [r.run_id for r in search.find_runs(tmp_path)] == \
        [base, base + "-2", base + "-9", base + "-10"]


def test_a_hash_of_digits_is_not_read_as_a_counter(tmp_path: Path) -> None:
    # '12345678' is a config hash, not a run counter: runs of two configs in one second
    a, b = "d-20261128T035534Z-12345678", "d-20261128T035534Z-9abcdef0"
    _run(tmp_path, a)
    _run(tmp_path, b)
    assert [r.run_id for r in search.find_runs(tmp_path)] == [a, b]


# ============================================ report while a run is being written
def test_a_run_folder_without_its_manifest_or_tables_yet_is_not_a_run(tmp_path: Path) -> None:
    _run(tmp_path, "done", value=0.25)
    being = tmp_path / "d-20261128T050000Z-0b0bcb6c"
    being.mkdir()
    (being / "config.toml").write_text('dataset = "ohsumed"\n')  # what a run writes first
    choice = _choice(tmp_path)
    assert choice.run.run_id == "done"
    assert choice.found == 1


def test_a_half_written_metrics_of_a_running_run_is_skipped_as_unfinished(tmp_path: Path) -> None:
    _run(tmp_path, "done", value=0.25)
    _run(tmp_path, "running", finished=None, started="2026-11-28T05:00:00+00:00", cut=True)
    choice = _choice(tmp_path)
    assert choice.run.run_id == "done"
    assert "newest finished run" in choice.why


def test_include_unfinished_refuses_a_run_whose_writer_holds_its_lock(tmp_path: Path) -> None:
    _run(tmp_path, "done")
    running = _run(tmp_path, "running", finished=None, started="2026-11-28T05:00:00+00:00")
    with writer_lock(running):
        ok(own_error(lambda: select_runs([tmp_path], include_unfinished=True),
                     "being written now", f"pid {os.getpid()}", "running"))


def test_include_unfinished_uses_a_killed_run_and_says_unfinished(tmp_path: Path) -> None:
    _run(tmp_path, "done")
    _run(tmp_path, "killed", finished=None, started="2026-11-28T05:00:00+00:00")
    (tmp_path / "killed" / ".writer.lock").write_text("pid 1 on elsewhere since 2026")  # no flock
    choice = _choice(tmp_path, include_unfinished=True)
    assert choice.run.run_id == "killed"
    assert "unfinished" in choice.why


def test_the_finished_run_is_refused_while_its_writer_still_holds_the_lock(tmp_path: Path) -> None:
    # between "finished" written and the lock let go the run may still add a file
    run = _run(tmp_path, "closing")
    with writer_lock(run):
        ok(own_error(lambda: select_runs([tmp_path]), "being written now"))


# ============================================ --resume: the newest started run, by instant
def test_resume_picks_the_latest_start_by_instant_not_by_text(tmp_path: Path) -> None:
    # silently wrong: "10:00+05:30" (04:30Z) > "05:00+00:00" as text
    _unfinished(tmp_path, "kolkata", "2026-11-28T10:00:00+05:30")
    _unfinished(tmp_path, "utc", "2026-11-28T05:00:00+00:00")
    assert search.latest_unfinished(tmp_path, HASH) == tmp_path / "utc"


def test_folds_resume_picks_the_latest_start_by_instant(tmp_path: Path) -> None:
    _unfinished(tmp_path, "kolkata", "2026-11-28T10:00:00+05:30")
    finished = _run(tmp_path, "utc", started="2026-11-28T05:00:00+00:00",
                    finished="2026-11-28T05:10:00+00:00")
    assert search.latest_of_config(tmp_path, (HASH,)) == finished


def test_resume_with_a_start_that_is_no_time_is_passed_over_and_said(tmp_path: Path) -> None:
    _unfinished(tmp_path, "bad", "yesterday")
    _unfinished(tmp_path, "good", "2026-11-28T05:00:00+00:00")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = search.latest_unfinished(tmp_path, HASH)
    assert got == tmp_path / "good"
    assert any("yesterday" in str(w.message) and "started" in str(w.message) for w in caught)


def test_resume_prefers_a_run_with_a_start_time_to_one_without(tmp_path: Path) -> None:
    run = tmp_path / "nostart"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"run_id": "nostart", "config_hash": HASH,
                                                   "finished": None}))
    _unfinished(tmp_path, "dated", "1970-01-01T00:00:00+00:00")
    assert search.latest_unfinished(tmp_path, HASH) == tmp_path / "dated"


def test_resume_of_two_runs_started_in_one_second_takes_the_later_counter(tmp_path: Path) -> None:
    base = "d-20261128T035534Z-0b0bcb6c"
    for suffix in ["-10", "-9"]:
        _unfinished(tmp_path, base + suffix, "2026-11-28T03:55:34+00:00")
    assert search.latest_unfinished(tmp_path, HASH) == tmp_path / (base + "-10")


# ============================================ durations: monotonic clocks
@pytest.mark.parametrize("jump", [-3600.0, 10 * 365 * 86400.0])
def test_a_wall_clock_step_during_a_fit_does_not_change_its_time(monkeypatch: pytest.MonkeyPatch,
                                                                 jump: float) -> None:
    from bench.runners.resources import measure

    real = time.time
    with measure() as out:  # silently wrong number: a negative or ten-year fit time
        monkeypatch.setattr(time, "time", lambda: real() + jump)
    assert 0.0 <= out.seconds < 60.0, out.seconds
    assert 0.0 <= out.cpu_s < 60.0, out.cpu_s


def test_the_heartbeat_is_not_woken_by_a_wall_clock_step(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.benchmark.progress import heartbeat

    shown: list[str] = []
    beat = heartbeat(lambda text, n: shown.append(text), "m", total=10, metric="ndcg",
                     every=3600.0)
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 7200.0)
    beat(1, 0.5)
    assert shown == []


def test_a_wall_clock_going_backwards_between_cache_writes_keeps_entries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.data.letor_cache import cached_parse

    src = tmp_path / "a.txt"
    src.write_text("2 qid:1 1:0.5\n0 qid:1 1:0.25\n")
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 30 * 86400.0)
    cached_parse([src], cache_dir=tmp_path / "c")
    (again,), _ = cached_parse([src], cache_dir=tmp_path / "c")
    assert np.asarray(again.y).tolist() == [2.0, 0.0]
    assert np.asarray(again.X).ravel().tolist() == [0.5, 0.25]


# ============================================ shared data directory: the conversion cache
def _svm(tmp_path: Path, name: str = "a.txt") -> Path:
    src = tmp_path / name
    src.write_text("2 qid:1 1:0.5\n0 qid:1 1:0.25\n1 qid:2 1:1\n")
    return src


def _other_writers_tmp(cache: Path, age_s: float) -> Path:
    from bench.data.letor_cache import cache_root

    root = cache_root(cache)
    root.mkdir(parents=True, exist_ok=True)
    other = root / ".tmp-0123456789abcdef-feedfacefeedfacefeedfacefeedface"
    other.mkdir()
    (other / "X.npy").write_bytes(b"half")
    when = time.time() - age_s
    os.utime(other, (when, when))
    return other


def test_a_clock_two_days_ahead_leaves_another_writers_fresh_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # input destroyed: the data directory's file times come from the file server's clock; a
    # machine two days ahead called another machine's write of a minute ago "stale"
    from bench.data.letor_cache import cached_parse

    other = _other_writers_tmp(tmp_path / "c", age_s=60.0)
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 2 * 86400.0)
    cached_parse([_svm(tmp_path)], cache_dir=tmp_path / "c")
    assert (other / "X.npy").read_bytes() == b"half"


def test_a_temporary_days_old_by_the_file_clock_is_removed(tmp_path: Path) -> None:
    from bench.data.letor_cache import cached_parse

    other = _other_writers_tmp(tmp_path / "c", age_s=3 * 86400.0)
    cached_parse([_svm(tmp_path)], cache_dir=tmp_path / "c")
    assert not other.exists()


def test_a_temporary_dated_in_the_future_is_kept(tmp_path: Path) -> None:
    from bench.data.letor_cache import cached_parse

    other = _other_writers_tmp(tmp_path / "c", age_s=-5 * 86400.0)
    cached_parse([_svm(tmp_path)], cache_dir=tmp_path / "c")
    assert other.exists()


def test_a_clock_before_1970_leaves_a_fresh_temporary(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.data.letor_cache import cached_parse

    other = _other_writers_tmp(tmp_path / "c", age_s=60.0)
    monkeypatch.setattr(time, "time", lambda: -86400.0 * 400)
    cached_parse([_svm(tmp_path)], cache_dir=tmp_path / "c")
    assert other.exists()


def test_one_cache_entry_written_twice_reads_back_the_same_numbers(tmp_path: Path) -> None:
    from bench.data.letor_cache import cache_root, cached_parse, store_entry

    src = _svm(tmp_path)
    (parsed,), sums = cached_parse([src], cache_dir=tmp_path / "c")
    assert sums is not None
    store_entry(tmp_path / "c", sums[0], parsed, src)  # a second writer of the same entry
    (again,), _ = cached_parse([src], cache_dir=tmp_path / "c")
    assert np.asarray(again.y).tolist() == [2.0, 0.0, 1.0]
    assert np.asarray(again.qid).tolist() == [1, 1, 2]
    assert np.asarray(again.X).ravel().tolist() == [0.5, 0.25, 1.0]
    assert not [p for p in cache_root(tmp_path / "c").iterdir() if p.name.startswith(".tmp-")]


# ============================================ tune: one writer per study, stamps in UTC
def _tune_plan(tmp_path: Path, **request: Any) -> Any:
    from bench.benchmark.config import RunConfig
    from bench.benchmark.tune_run import TuneRequest, plan_tune
    from bench.runners.params import Params

    data = letor_folder(tmp_path / "letor")
    config = RunConfig(dataset=str(data), models=("lightgbm-lambdarank",),
                       params=Params(n_trees=3, num_leaves=3, min_data_in_leaf=1,
                                     early_stopping_rounds=3, n_threads=1))
    fields: dict[str, Any] = {"budget_trials": "1", "out": str(tmp_path / "res")}
    return plan_tune(TuneRequest(**{**fields, **request}), lambda: config), data


def _unfinished_tune(tmp_path: Path, lock_text: str | None = None) -> Path:
    """A tune folder as a killed ``tune`` leaves it (a plan, no ``complete``), by hand."""
    folder = tmp_path / "res" / "tune" / "letor-20261128T035534Z"
    folder.mkdir(parents=True)
    (folder / "plan.json").write_text("{}\n")
    (folder / "trials.csv").write_text("model,trial,value\n")
    if lock_text is not None:  # a lock file whose writer is gone (no flock on it)
        (folder / ".writer.lock").write_text(lock_text)
    return folder


def test_tune_resume_refuses_a_study_another_process_is_writing(tmp_path: Path) -> None:
    # silently wrong number: two resumes each ran the budget's missing trials into one study
    from bench.benchmark.pipeline import load_splits
    from bench.benchmark.tune_run import tune_loaded

    folder = _unfinished_tune(tmp_path)
    plan, data = _tune_plan(tmp_path, resume=str(folder))
    with writer_lock(folder, "tune"):
        ok(own_error(lambda: tune_loaded(plan, load_splits(str(data))),
                     "another ltrbench process is writing this tune", f"pid {os.getpid()}",
                     str(folder)))
    assert (folder / "trials.csv").read_text() == "model,trial,value\n"
    assert not (folder / "study.db").exists()


def test_tune_resume_after_the_other_writer_left_is_not_blocked_by_its_lock_file(
        tmp_path: Path) -> None:
    from bench.benchmark.pipeline import load_splits
    from bench.benchmark.tune_run import tune_loaded

    folder = _unfinished_tune(tmp_path, "pid 1 on elsewhere since 2026-01-01T00:00:00+00:00")
    plan, data = _tune_plan(tmp_path, resume=str(folder))
    # past the lock: refused for the hand-made plan's missing fields, not for the dead writer
    ok(own_error(lambda: tune_loaded(plan, load_splits(str(data))), "plan.json lacks"))
    assert not (folder / ".writer.lock").exists()  # the lock is let go, and its file removed


def test_tune_resume_of_a_study_finished_meanwhile_says_complete(tmp_path: Path) -> None:
    # the first writer finished while the second waited for nothing: resume has nothing to do
    from bench.benchmark.pipeline import load_splits
    from bench.benchmark.tune_run import tune_loaded

    folder = _unfinished_tune(tmp_path)
    plan, data = _tune_plan(tmp_path, resume=str(folder))
    (folder / "complete").write_text("2026-11-28T04:00:00+00:00\n")
    ok(own_error(lambda: tune_loaded(plan, load_splits(str(data))), "is complete",
                 "nothing to resume"))


# ============================================ one dataset fetched by two processes at once
_TOY = {"ratings.csv": b"userId,movieId,rating,timestamp\n1,2,3.5,100\n",
        "movies.csv": b"movieId,title,genres\n2,Heat (1995),Action\n"}


def _toy_card(tmp_path: Path) -> Any:
    import hashlib
    import io
    import zipfile

    from bench.datasets.catalogue import Card

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in _TOY.items():
            zf.writestr(f"toy/{name}", data)
    archive = tmp_path / "toy.zip"
    archive.write_bytes(buf.getvalue())
    return Card(name="toy", title="Toy", kind="ratings", loader="movielens", homepage="http://x",
                size="2 files", licence="test data", citation="none", dir="toy",
                archive_format="zip", archive="toy.zip", archive_root="toy",
                url=archive.as_uri(), archive_sha256=hashlib.sha256(buf.getvalue()).hexdigest(),
                files={k: hashlib.sha256(v).hexdigest() for k, v in _TOY.items()})


def _other_fetch_finishes_meanwhile(monkeypatch: pytest.MonkeyPatch, data: Path,
                                    files: dict[str, bytes]) -> None:
    """The other process's fetch renames its copy into place while this one verifies its own."""
    import bench.datasets.fetch as fetch_mod

    verify = fetch_mod._verify_download

    def meanwhile(*args: Any, **kw: Any) -> Any:
        report = verify(*args, **kw)
        (data / "toy").mkdir()
        for name, body in files.items():
            (data / "toy" / name).write_bytes(body)
        return report
    monkeypatch.setattr(fetch_mod, "_verify_download", meanwhile)


def test_a_dataset_fetched_meanwhile_by_another_process_is_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # unclear error: "folder already exists; fetch with --force" for a fetch that succeeded twice
    from bench.datasets.fetch import fetch

    data = tmp_path / "data"
    _other_fetch_finishes_meanwhile(monkeypatch, data, _TOY)
    said: list[str] = []
    dest = fetch(_toy_card(tmp_path), data_dir=data, progress=False, log=said.append)
    assert dest == data / "toy"
    assert (dest / "ratings.csv").read_bytes() == _TOY["ratings.csv"]
    assert any("another process" in m for m in said), said
    assert [p.name for p in data.iterdir()] == ["toy"]  # no staging folder left


def test_a_different_folder_that_appeared_meanwhile_is_kept_and_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # input destroyed: someone's own folder of that name is never replaced without --force
    from bench.datasets.fetch import fetch

    data = tmp_path / "data"
    _other_fetch_finishes_meanwhile(monkeypatch, data, {"ratings.csv": b"mine\n"})
    ok(own_error(lambda: fetch(_toy_card(tmp_path), data_dir=data, progress=False,
                               log=lambda m: None), "already exists", "--force"))
    assert (data / "toy" / "ratings.csv").read_bytes() == b"mine\n"
