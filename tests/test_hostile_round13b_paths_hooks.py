"""Hostile cases of round 13b (issue 19): a security reviewer signing ltrbench off for a shared
analytics cluster attacks the names and paths a user controls.

New here:

- **``..`` after a folder that does not exist**: ``evaluate --per-query new/../q.txt`` exited 0
  and replaced the qrels file with the per-query CSV. :func:`os.path.realpath` resolves ``..``
  lexically over a missing folder, and ``os.stat`` of the path fails, so neither the "same file"
  nor the "same resolved path" check saw the input; the writer then created ``new`` and wrote
  ``new/../q.txt``, which is ``q.txt``. Every output path (file or folder) whose ``..`` follows a
  folder that does not exist (or a file, a FIFO, a dangling link) is now refused before any work,
  naming the option; ``q.txt/../o.csv`` failed at the write as ``q.txt/..: Not a directory``
  without naming ``--per-query``.
- **control characters in a new output file's name** (``'o\\n.csv'``, an escape sequence): a new
  output folder refused them already; a file is refused the same way now.
- **``--run NAME=FILE`` with a name over ``NAME_MAX``**: the check "is the whole value a file?"
  raised ``File name too long`` naming no option; such a value names no file, so the name is a
  label like any other.
- **a custom ranker rewriting ltrbench itself**: ``weighted_mean.__code__ = ...`` (or its
  ``__defaults__``, or a class method's code) kept the function object, which is all the guard
  compared, and every later mean was 0.123 with exit 0; ``PROFILES["ltrbench"] = ...`` stayed
  for every later lookup in the process. Both are now put back and named in the status notes.

Oracles: the set of files and folders under ``tmp_path`` before and after, the input files'
bytes, "exit 2 and the message names the option and what was wrong", the CSV's run column.
"""

from __future__ import annotations

import csv
import io
import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import DATA, QRELS, RATINGS, RUN, SCORES, cli, letor_folder, refused, toy_splits

R2 = RUN.replace(b"0.4", b"0.3")


def _tree(folder: Path) -> dict[str, bytes | None]:
    """Every entry under ``folder``: a file's bytes, ``None`` for a folder or a special file."""
    out: dict[str, bytes | None] = {}
    for root, dirs, files in os.walk(folder):
        for d in dirs:
            out[os.path.relpath(os.path.join(root, d), folder)] = None
        for f in files:
            p = os.path.join(root, f)
            rel = os.path.relpath(p, folder)
            out[rel] = Path(p).read_bytes() if os.path.isfile(p) and not os.path.islink(p) else None
    return out


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "r.txt").write_bytes(RUN)
    (tmp_path / "r2.txt").write_bytes(R2)
    (tmp_path / "d.txt").write_bytes(DATA)
    (tmp_path / "s.txt").write_bytes(SCORES)
    (tmp_path / "sub").mkdir()
    return tmp_path


def _evaluate(work: Path, out: str) -> tuple[str | None, dict[str, bytes | None]]:
    before = _tree(work)
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", out)
    return refused(res, "--per-query"), before


def _nothing_changed(work: Path, before: dict[str, bytes | None]) -> None:
    after = _tree(work)
    assert after == before, (sorted(set(after) ^ set(before)),
                             [k for k in before if after.get(k) != before[k]])


# ------------------------------------------------- '..' after a folder that does not exist
@pytest.mark.parametrize("out", [
    "nx/../q.txt", "nx/../r.txt", "./nx/../r.txt", "nx/ny/../../q.txt", "sub/nx/../../q.txt",
    "/proc/self/cwd/nx/../q.txt",
])
def test_an_output_reaching_an_input_through_a_missing_folder_and_dotdot_is_refused(
        work: Path, out: str) -> None:
    problem, before = _evaluate(work, out)
    assert problem is None, problem
    _nothing_changed(work, before)  # the inputs' bytes, and no folder 'nx' created


def test_the_absolute_spelling_of_the_missing_folder_trick_is_refused(work: Path) -> None:
    problem, before = _evaluate(work, str(work / "nx" / ".." / "r.txt"))
    assert problem is None, problem
    _nothing_changed(work, before)


def test_the_message_names_the_missing_folder_and_the_dotdot(work: Path) -> None:
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
              "nx/../q.txt")
    assert refused(res, "--per-query", "'nx'", "'..'", "does not exist") is None, res.err


def test_scores_file_behind_a_missing_folder_and_dotdot_is_kept(work: Path) -> None:
    before = _tree(work)
    res = cli(work, "evaluate", "--data", "d.txt", "--scores", "s.txt", "--per-query",
              "nx/../s.txt")
    assert refused(res, "--per-query") is None, res.err
    _nothing_changed(work, before)


def test_a_new_file_behind_a_missing_folder_and_dotdot_leaves_no_stray_folder(work: Path) -> None:
    problem, before = _evaluate(work, "nx/../out.csv")
    assert problem is None, problem
    _nothing_changed(work, before)


def test_an_output_folder_ending_in_dotdot_after_a_missing_folder_is_refused(work: Path) -> None:
    problem, before = _evaluate(work, "nx/..")
    assert problem is None, problem
    _nothing_changed(work, before)


def test_a_file_used_as_a_folder_before_dotdot_is_named(work: Path) -> None:
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
              "q.txt/../o.csv")
    assert refused(res, "--per-query", "'q.txt'", "not a folder") is None, res.err
    assert not (work / "o.csv").exists()


def test_a_file_used_as_a_folder_is_named(work: Path) -> None:
    before = _tree(work)
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
              "r.txt/o.csv")
    assert refused(res, "--per-query", "r.txt") is None, res.err
    _nothing_changed(work, before)


def test_a_fifo_used_as_a_folder_before_dotdot_is_refused_without_blocking(work: Path) -> None:
    os.mkfifo(work / "pipe")
    problem, before = _evaluate(work, "pipe/../q.txt")
    assert problem is None, problem
    _nothing_changed(work, before)


def test_a_dangling_link_before_dotdot_is_refused(work: Path) -> None:
    (work / "dangling").symlink_to(work / "gone")
    problem, before = _evaluate(work, "dangling/../q.txt")
    assert problem is None, problem
    _nothing_changed(work, before)


def test_a_link_to_a_folder_before_dotdot_writes_where_the_kernel_resolves_it(work: Path) -> None:
    """``link/..`` is the link target's parent (as the kernel, ``realpath`` and ``cat`` read it),
    not the folder holding the link: the file lands in ``sub/``, the run beside the link stays."""
    (work / "sub" / "deep").mkdir()
    (work / "link").symlink_to(work / "sub" / "deep")
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
              "link/../r.txt")
    assert res.status == 0, res.err
    assert (work / "r.txt").read_bytes() == RUN
    assert (work / "sub" / "r.txt").read_text().startswith("qid,")


def test_a_link_whose_dotdot_lands_on_the_input_folder_is_refused(work: Path) -> None:
    (work / "link").symlink_to(work / "sub")
    problem, before = _evaluate(work, "link/../q.txt")
    assert problem is None, problem
    _nothing_changed(work, before)


@pytest.mark.parametrize("out", [".//q.txt", "sub/./../q.txt", "sub//..//r.txt"])
def test_doubled_separators_and_dots_do_not_hide_an_input(work: Path, out: str) -> None:
    problem, before = _evaluate(work, out)
    assert problem is None, problem
    _nothing_changed(work, before)


def test_run_out_through_a_missing_folder_and_dotdot_onto_the_dataset_is_refused(
        tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    before = _tree(tmp_path)
    res = cli(tmp_path, "run", "--dataset", "letor", "--models", "random", "--seeds", "0",
              "--quick", "--no-progress", "--out", "nx/../letor")
    assert refused(res, "--out") is None, res.err
    _nothing_changed(tmp_path, before)


def test_run_out_through_a_missing_folder_and_dotdot_leaves_no_stray_folder(
        tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    before = _tree(tmp_path)
    res = cli(tmp_path, "run", "--dataset", "letor", "--models", "random", "--seeds", "0",
              "--quick", "--no-progress", "--out", "nx/../out")
    assert refused(res, "--out", "'..'") is None, res.err
    _nothing_changed(tmp_path, before)


def test_convert_out_through_a_missing_folder_and_dotdot_onto_the_ratings_is_refused(
        tmp_path: Path) -> None:
    (tmp_path / "rat").mkdir()
    (tmp_path / "rat" / "ratings.csv").write_bytes(RATINGS)
    before = _tree(tmp_path)
    res = cli(tmp_path, "convert", "--ratings", "rat/ratings.csv", "--layout", "csv",
              "--user", "user", "--item", "item", "--rating", "rating", "--timestamp",
              "timestamp", "--out", "nx/../rat")
    assert refused(res, "--out") is None, res.err
    _nothing_changed(tmp_path, before)


def test_report_out_through_a_missing_folder_and_dotdot_is_refused(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    before = _tree(tmp_path)
    res = cli(tmp_path, "report", "--runs", "runs", "--out", "nx/../rep")
    assert refused(res, "--out") is None, res.err
    _nothing_changed(tmp_path, before)


def test_the_python_api_per_query_check_refuses_the_trick(work: Path) -> None:
    from bench.data.outputs import check_output_file
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"per_query.*nx' comes before '\.\.'"):
        check_output_file(work / "nx" / ".." / "q.txt", option="per_query",
                          inputs=[("qrels", work / "q.txt")])
    assert not (work / "nx").exists()


# --------------------------------------------------- control characters in a file's name
@pytest.mark.parametrize("name", ["o\n.csv", "o\r.csv", "o\t.csv", "o\x1b[31m.csv", "o\x7f.csv",
                                  "sub/\x08.csv"])
def test_a_new_output_file_with_a_control_character_is_refused(work: Path, name: str) -> None:
    before = _tree(work)
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", name)
    assert refused(res, "--per-query", "control character",
                   f"U+{ord(next(c for c in name if ord(c) < 32 or ord(c) == 127)):04X}"
                   ) is None, res.err
    _nothing_changed(work, before)


def test_an_output_file_with_a_plain_unicode_name_is_written(work: Path) -> None:
    """The control-character rule is no ASCII-only rule: ``données.csv`` is fine."""
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query",
              "données-データ.csv")
    assert res.status == 0, res.err
    assert (work / "données-データ.csv").read_text(encoding="utf-8").startswith("qid,")


# ---------------------------------------------------------------- --run NAME=FILE labels
def _runs_csv(res_out: str) -> list[str]:
    return [row["run"] for row in csv.DictReader(io.StringIO(res_out))]


def test_a_run_name_longer_than_a_file_name_is_a_label(work: Path) -> None:
    name = "x" * 300
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", f"{name}=r.txt", "--run", "r2.txt",
              "--format", "csv")
    assert res.status == 0, res.err
    assert _runs_csv(res.out) == [name, "r2"]


@pytest.mark.parametrize("name", ["../../escape", "/etc/passwd", "CON", "NUL.txt", ".", "..",
                                  "sub/r.txt"])
def test_a_run_name_that_looks_like_a_path_is_only_a_label(work: Path, name: str) -> None:
    before = _tree(work)
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", f"{name}=r.txt", "--run", "r2.txt",
              "--format", "csv")
    assert res.status == 0, res.err
    assert _runs_csv(res.out) == [name, "r2"]
    _nothing_changed(work, before)


def test_a_run_name_with_a_nul_byte_is_refused(work: Path) -> None:
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "a\x00b=r.txt", "--run", "r2.txt")
    assert refused(res, "run name") is None, res.err


def test_a_run_value_with_an_equals_and_no_such_file_is_name_and_file(work: Path) -> None:
    """``--run sub/x=r.txt``: no file of that whole name, so ``sub/x`` labels ``r.txt``."""
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "sub/x=r.txt", "--run", "r2.txt",
              "--format", "csv")
    assert res.status == 0, res.err
    assert _runs_csv(res.out) == ["sub/x", "r2"]


def test_per_query_over_a_run_given_under_a_label_is_refused(work: Path) -> None:
    before = _tree(work)
    res = cli(work, "evaluate", "--qrels", "q.txt", "--run", "A=r.txt", "--run", "B=r2.txt",
              "--per-query", "nx/../r2.txt")
    assert refused(res, "--per-query") is None, res.err
    _nothing_changed(work, before)


# ------------------------------------------- a ranker rewriting ltrbench's own functions
def _fake_mean(values: Any, weights: Any, f32: bool = False) -> float:
    return 0.123


class _Scores:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def fit(self, X: Any, y: Any, group: Any = None, **kw: Any) -> _Scores:
        self.rewrite()
        return self

    def rewrite(self) -> None:
        pass

    def predict(self, X: Any) -> Any:
        import numpy as np

        return np.asarray(X[:, 0], dtype=float)


class SwapsMeanCode(_Scores):
    """``weighted_mean.__code__ = ...``: the function object stays, its body changes (every
    later mean was 0.123, exit 0)."""

    def rewrite(self) -> None:
        import bench.metrics.aggregate as agg

        agg.weighted_mean.__code__ = _fake_mean.__code__


class RewritesThree(_Scores):
    """A body (``weighted_mean.__code__``), defaults (``weighted_mean.__defaults__ = (True,)``:
    every later mean in float32) and the code of a class method of ltrbench's data class."""

    def rewrite(self) -> None:
        import bench.metrics.aggregate as agg
        from bench.data.letor import LetorData

        def build(cls: Any, *a: Any, **k: Any) -> Any:
            raise RuntimeError("hijacked")

        agg.weighted_mean.__code__ = _fake_mean.__code__
        agg.weighted_mean.__defaults__ = (True,)
        LetorData.build.__func__.__code__ = build.__code__


def test_a_ranker_rewriting_library_function_bodies_is_put_back_and_named() -> None:
    import bench.metrics.aggregate as agg
    from bench.data.letor import LetorData
    from bench.runners.custom import custom_model, train_custom

    functions = (agg.weighted_mean, LetorData.build.__func__)
    state = [(f.__code__, f.__defaults__) for f in functions]
    result = train_custom(custom_model("mine", f"{__name__}:RewritesThree"), toy_splits(),
                          seed=0)
    assert [(f.__code__, f.__defaults__) for f in functions] == state
    note = result.notes.get("process", "")
    assert "rewrote" in note, note
    assert "weighted_mean" in note, note
    assert "LetorData.build" in note, note


def test_a_run_after_a_ranker_rewrote_the_mean_gives_the_clean_runs_numbers(
        tmp_path: Path) -> None:
    """The oracle: the baseline's metrics equal those of a run without the hostile ranker."""
    import pandas as pd

    from bench.benchmark.config import RunConfig
    from bench.benchmark.pipeline import run_benchmark

    tables = []
    for models, custom in ((("random",), {}),
                           (("mine", "random"), {"mine": f"{__name__}:SwapsMeanCode"})):
        config = RunConfig(dataset="toy", models=models, seeds=(0,), quick=True,
                           crosscheck=False, custom_models=custom)
        run_dir = run_benchmark(config, out_dir=tmp_path / str(len(models)), progress=False,
                                splits=toy_splits())
        m = pd.read_csv(Path(run_dir) / "metrics.csv")
        tables.append(m[m.model == "random"][["split", "metric", "value"]]
                      .reset_index(drop=True))
    pd.testing.assert_frame_equal(tables[0], tables[1])
    assert (tables[1]["value"] != 0.123).all()


class WritesProfileTable(_Scores):
    """``PROFILES["ltrbench"]`` replaced by a linear-gain profile: every later lookup in the
    process (a second fold, a second run from Python) would evaluate with linear gain."""

    def rewrite(self) -> None:
        import dataclasses

        import bench.metrics.profiles as profiles

        profiles.PROFILES["ltrbench"] = dataclasses.replace(profiles.PROFILES["ltrbench"],
                                                            gain="linear")
        profiles.PROFILES.pop("sklearn")


def test_a_ranker_writing_into_ltrbenchs_profile_table_is_put_back_and_named() -> None:
    import bench.metrics.profiles as profiles
    from bench.runners.custom import custom_model, train_custom

    before = dict(profiles.PROFILES)
    result = train_custom(custom_model("mine", f"{__name__}:WritesProfileTable"), toy_splits(),
                          seed=0)
    assert before == profiles.PROFILES
    assert profiles.PROFILES["ltrbench"] is before["ltrbench"]
    assert list(profiles.PROFILES) == list(before)  # the order too (listings follow it)
    assert "bench.metrics.profiles.PROFILES" in result.notes.get("process", ""), result.notes
