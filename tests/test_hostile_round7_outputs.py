"""Hostile outputs, round 7: new instances of issue 19 item 4 (outputs never over inputs).

Hard links of an input under another name (``evaluate --per-query`` onto the run, the qrels,
the SVMlight data or the scores file), chains of symbolic links ending on an input, a path
that reaches an input through a symlinked parent or grand-parent folder or through ``..``, a
``convert`` whose output file is the end of a link chain to its ratings, ``run --out`` and
``tune --out`` given the dataset folder itself (or a link to it), and ``report`` writing into
a folder where a file it writes is a hard link of a run's ``metrics.csv``.

Every case: exit 2 with one ``error:`` line naming the option and the input, and every input
byte-identical afterwards; or, where the command may write there (the output does not lie over
an input file), every input left byte-identical.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import DATA, QRELS, RUN, SCORES, cli, letor_folder, refused, snapshot, untouched

RATINGS = b"u,i,r,t\n" + b"".join(f"{u},{(u * 7 + k * 3) % 60},{1 + (u + k) % 5},{u * 100 + k}\n"
                                  .encode() for u in range(25) for k in range(15))
CSV_ARGS = ("--layout", "csv", "--user", "u", "--item", "i", "--rating", "r", "--timestamp",
            "t", "--split", "random")


def _inputs(tmp: Path) -> dict[str, bytes]:
    (tmp / "in").mkdir()
    for name, data in (("q.txt", QRELS), ("r.txt", RUN), ("d.txt", DATA), ("s.txt", SCORES)):
        (tmp / "in" / name).write_bytes(data)
    return snapshot(tmp / "in")


def _per_query(tmp: Path, out: Path | str, trec: bool = True) -> str | None:
    before = _inputs(tmp) if not (tmp / "in").exists() else snapshot(tmp / "in")
    argv = (["--qrels", "in/q.txt", "--run", "in/r.txt"] if trec
            else ["--data", "in/d.txt", "--scores", "in/s.txt"])
    res = cli(tmp, "evaluate", *argv, "--per-query", str(out))
    return refused(res, "--per-query") or untouched(before, tmp / "in")


@pytest.mark.parametrize("target", ["r.txt", "q.txt"])
def test_per_query_that_is_a_hard_link_of_a_trec_input_is_refused(tmp_path: Path,
                                                                   target: str) -> None:
    _inputs(tmp_path)
    os.link(tmp_path / "in" / target, tmp_path / "pq.csv")
    assert _per_query(tmp_path, "pq.csv") is None


@pytest.mark.parametrize("target", ["d.txt", "s.txt"])
def test_per_query_that_is_a_hard_link_of_the_data_or_scores_is_refused(tmp_path: Path,
                                                                        target: str) -> None:
    _inputs(tmp_path)
    os.link(tmp_path / "in" / target, tmp_path / "pq.csv")
    assert _per_query(tmp_path, "pq.csv", trec=False) is None


def test_per_query_at_the_end_of_a_link_chain_to_the_run_is_refused(tmp_path: Path) -> None:
    _inputs(tmp_path)
    (tmp_path / "c").symlink_to(tmp_path / "in" / "r.txt")
    (tmp_path / "b").symlink_to("c")
    (tmp_path / "a.csv").symlink_to(tmp_path / "b")
    assert _per_query(tmp_path, "a.csv") is None


def test_per_query_through_a_symlinked_grand_parent_onto_the_qrels_is_refused(
        tmp_path: Path) -> None:
    _inputs(tmp_path)
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / "in").symlink_to(tmp_path / "in")
    (tmp_path / "alias").symlink_to(tmp_path / "top")
    assert _per_query(tmp_path, "alias/in/q.txt") is None


def test_per_query_through_dot_dot_onto_the_scores_is_refused(tmp_path: Path) -> None:
    _inputs(tmp_path)
    (tmp_path / "x").mkdir()
    assert _per_query(tmp_path, "x/../in/./s.txt", trec=False) is None


def test_per_query_with_a_trailing_slash_is_a_clear_error(tmp_path: Path) -> None:
    _inputs(tmp_path)
    before = snapshot(tmp_path / "in")
    res = cli(tmp_path, "evaluate", "--qrels", "in/q.txt", "--run", "in/r.txt", "--per-query",
              "in/r.txt/")
    assert (refused(res, "--per-query") or untouched(before, tmp_path / "in")) is None


def test_convert_output_at_the_end_of_a_link_chain_to_the_ratings_is_refused(
        tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    ratings.write_bytes(RATINGS)
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "hop").symlink_to(ratings)
    (out / "test.txt").symlink_to(tmp_path / "hop")
    res = cli(tmp_path, "convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(out))
    assert refused(res, "--out", "--ratings") is None
    assert ratings.read_bytes() == RATINGS


def test_convert_out_through_a_symlinked_grand_parent_into_the_ratings_folder_is_refused(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    ratings = data / "train.txt"
    ratings.write_bytes(RATINGS)
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "p").symlink_to(data)
    (tmp_path / "alias").symlink_to(tmp_path / "g")
    res = cli(tmp_path, "convert", "--ratings", str(ratings), *CSV_ARGS, "--out", "alias/p")
    assert refused(res, "--out", "--ratings") is None
    assert ratings.read_bytes() == RATINGS


def test_convert_out_that_is_a_hard_linked_copy_of_the_ratings_in_its_folder_is_refused(
        tmp_path: Path) -> None:
    """The ratings file sits elsewhere; the output folder holds a hard link of it named
    ``vali.txt``, which the conversion would replace (the ratings stay, the link goes: still an
    input replaced in the user's eyes)."""
    ratings = tmp_path / "ratings.csv"
    ratings.write_bytes(RATINGS)
    out = tmp_path / "out"
    out.mkdir()
    os.link(ratings, out / "vali.txt")
    res = cli(tmp_path, "convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(out))
    assert refused(res, "--out", "--ratings") is None
    assert ratings.read_bytes() == RATINGS
    assert (out / "vali.txt").read_bytes() == RATINGS


def _run_over(tmp: Path, out: str, *extra: str) -> tuple[str | None, dict[str, bytes]]:
    letor_folder(tmp / "letor")
    before = snapshot(tmp / "letor")
    res = cli(tmp, "run", "--dataset", "./letor", "--models", "random", "--seeds", "0",
              "--quick", "--no-crosscheck", "--no-progress", "--out", out, *extra)
    problem = None if res.status in (0, 2) and not res.traceback else \
        f"exit {res.status}: {res.err[-300:]}"
    return problem or untouched(before, tmp / "letor"), before


def test_run_out_that_is_the_dataset_folder_leaves_every_split_intact(tmp_path: Path) -> None:
    problem, _ = _run_over(tmp_path, "letor")
    assert problem is None


def test_run_out_through_a_link_to_the_dataset_folder_leaves_every_split_intact(
        tmp_path: Path) -> None:
    (tmp_path / "alias").symlink_to(tmp_path / "letor", target_is_directory=True)
    problem, _ = _run_over(tmp_path, "alias")
    assert problem is None


def test_run_out_whose_runs_folder_is_a_link_to_the_dataset_leaves_it_intact(
        tmp_path: Path) -> None:
    (tmp_path / "res").mkdir()
    (tmp_path / "res" / "runs").symlink_to(tmp_path / "letor", target_is_directory=True)
    problem, _ = _run_over(tmp_path, "res")
    assert problem is None


def test_tune_out_that_is_the_dataset_folder_leaves_every_split_intact(tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    before = snapshot(tmp_path / "letor")
    res = cli(tmp_path, "tune", "--dataset", "./letor", "--model", "lightgbm", "--grid",
              "num_leaves=3,5", "--quick", "--no-progress", "--cv", "2", "--out", "letor")
    assert res.status in (0, 2), res.err[-400:]
    assert not res.traceback, res.err[-400:]
    assert untouched(before, tmp_path / "letor") is None


def test_report_writing_over_a_hard_link_of_a_runs_metrics_leaves_the_run_intact(
        tmp_path: Path) -> None:
    letor_folder(tmp_path / "letor")
    res = cli(tmp_path, "run", "--dataset", "./letor", "--models", "random", "--seeds", "0",
              "--quick", "--no-crosscheck", "--no-progress", "--out", "res")
    assert res.status == 0, res.err[-400:]
    metrics = next((tmp_path / "res" / "runs").glob("*/metrics.csv"))
    before = snapshot(tmp_path / "res" / "runs")
    (tmp_path / "rep").mkdir()
    os.link(metrics, tmp_path / "rep" / "leaderboard.md")
    res = cli(tmp_path, "report", "--runs", "res/runs", "--out", "rep", "--no-plots",
              "--no-progress")
    assert res.status in (0, 2), res.err[-400:]
    assert not res.traceback, res.err[-400:]
    assert untouched(before, tmp_path / "res" / "runs") is None
