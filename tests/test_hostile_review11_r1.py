"""Review 11, r1 (bench/data, bench/adapters, bench/datasets): hostile cases of new surfaces.

* ``convert``'s id maps ``users.csv`` / ``items.csv``: a later conversion of the same folder
  whose ids need no map leaves no map of the earlier one (it would name other users); a ratings
  input named ``users.csv`` inside the output folder is refused, untouched;
* :func:`bench.data.python_args.user_path`: a path over ``PATH_MAX`` is named by its start,
  never echoed whole (a 100,000-character path made a 100,000-character error line);
* :func:`bench.data.folders.read_parquet_folder`: a split rewritten in place (same inode, other
  bytes) while it is read is refused or recorded with the digest of the bytes read;
* :func:`bench.data.atomic.remove_orphans_in`: with ``stem`` only that destination's orphans go;
  a live writer's temporary and a symbolic link named like a temporary stay.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from hostile_kit import api_refused, call, cli, letor_folder, own_error, refused

C = ["--user", "user", "--item", "item", "--rating", "rating", "--timestamp", "timestamp"]
SMALL = ["--target-size", "1", "--min-history", "2", "--negatives", "3", "--features",
         "user,item"]


def _ratings(path: Path, user: str = "u{}", item: str = "i{}") -> Path:
    lines = ["user,item,rating,timestamp"]
    for u in range(12):
        for j in range(14):
            lines.append(f"{user.format(u)},{item.format((u * 7 + j * 3) % 40)},"
                         f"{(u + j) % 5 + 1},{1_000_000_000 + u * 50 + j}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -------------------------------------------------------------------- convert's id maps

def test_a_reconversion_without_text_ids_leaves_no_stale_id_map(tmp_path: Path) -> None:
    _ratings(tmp_path / "text.csv")
    _ratings(tmp_path / "numbers.csv", user="{}", item="{}")
    res = cli(tmp_path, "convert", "--ratings", "text.csv", *C, *SMALL, "--out", "out")
    assert res.status == 0, res.err[-600:]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert {"users.csv", "items.csv"} <= set(summary["files"]), summary["files"]
    assert (tmp_path / "out" / "users.csv").is_file()
    res = cli(tmp_path, "convert", "--ratings", "numbers.csv", *C, *SMALL, "--out", "out")
    assert res.status == 0, res.err[-600:]
    assert not (tmp_path / "out" / "users.csv").exists(), "a map of the earlier conversion"
    assert not (tmp_path / "out" / "items.csv").exists(), "a map of the earlier conversion"
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert not {"users.csv", "items.csv"} & set(summary["files"]), summary["files"]


@pytest.mark.parametrize("name", ["users.csv", "items.csv"])
def test_a_ratings_input_named_like_an_id_map_in_the_output_folder_is_refused(
        tmp_path: Path, name: str) -> None:
    src = _ratings(tmp_path / "out" / name)
    before = src.read_bytes()
    res = cli(tmp_path, "convert", "--ratings", f"out/{name}", *C, *SMALL, "--out", "out")
    assert refused(res, name) is None, res.err[-600:]
    assert src.read_bytes() == before


# ----------------------------------------------------------------------- user_path

@pytest.mark.parametrize("arg", ["qrels", "run"])
def test_a_path_over_path_max_is_named_by_its_start_not_echoed_whole(
        tmp_path: Path, arg: str) -> None:
    from bench.metrics import evaluate_trec

    (tmp_path / "q").write_text("1 0 d 1\n", encoding="utf-8")
    long = "x" * 100_000
    qrels, run = (long, {"1": {"d": 1.0}}) if arg == "qrels" else (tmp_path / "q", long)
    why = own_error(lambda: evaluate_trec(qrels, run, metrics=["map"]), arg, "100,000")
    assert why is None, why[:300]
    from bench.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        evaluate_trec(qrels, run, metrics=["map"])
    assert len(str(info.value)) < 400, len(str(info.value))


def test_a_long_path_within_path_max_is_still_a_path(tmp_path: Path) -> None:
    from bench.data.python_args import user_path

    deep = "/".join(["d" * 200] * 15)  # 3,014 characters: over NAME_MAX per name, not PATH_MAX
    assert user_path(deep, "qrels") == Path(deep)


# ------------------------------------------------- a Parquet split rewritten in place

def test_a_parquet_split_rewritten_in_place_while_read_is_never_recorded_as_another_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same inode, other bytes (``>`` in a shell, not a rename): the digest recorded is
    that of the bytes read, or the read is refused."""
    import bench.data.folders as folders
    from bench.data.parquet import write_parquet

    letor_folder(tmp_path / "letor")
    splits = folders.read_letor_folder(tmp_path / "letor")
    pq = tmp_path / "pq"
    pq.mkdir()
    for name in ("train", "vali", "test"):
        write_parquet(getattr(splits, name), pq / f"{name}.parquet")
    train = pq / "train.parquet"
    read_bytes = train.read_bytes()
    other = tmp_path / "other.parquet"
    write_parquet(splits.vali, other)
    inode = train.stat().st_ino
    real = folders.read_parquet

    def rewritten(path: Path) -> object:
        got = real(path)
        if Path(path).name == "train.parquet":
            with open(train, "r+b") as fh:  # in place: the inode stays
                fh.truncate(0)
                fh.write(other.read_bytes())
        return got

    monkeypatch.setattr(folders, "read_parquet", rewritten)
    got, exc = call(lambda: folders.read_parquet_folder(pq))
    if exc is not None:
        assert api_refused(exc, "changed", "train.parquet") is None, exc
    else:
        want = hashlib.sha256(read_bytes).hexdigest()
        assert got.inputs[str(train)] == want, "the digest of another file"
    assert train.stat().st_ino == inode


# ------------------------------------------------------------------ orphan temporaries

def test_orphans_of_one_destination_go_and_nothing_else(tmp_path: Path) -> None:
    from bench.data.atomic import remove_orphans_in

    dead = 2**22 + 12345  # above Linux's default pid_max (2^22): no live process has it
    mine = tmp_path / f".a.csv.{dead}-x1.tmp"
    other = tmp_path / f".b.csv.{dead}-x2.tmp"
    live = tmp_path / f".a.csv.{os.getpid()}-x3.tmp"
    target = tmp_path / "kept.txt"
    link = tmp_path / f".a.csv.{dead}-x4.tmp"
    for p in (mine, other, live, target):
        p.write_text("x", encoding="utf-8")
    link.symlink_to(target)
    assert remove_orphans_in(tmp_path, stem="a.csv") == [mine]
    assert [p.exists() for p in (other, live, target)] == [True] * 3
    assert link.is_symlink()
    assert remove_orphans_in(tmp_path) == [other]
    assert live.exists()
    assert link.is_symlink()
