"""Hostile outputs: an output that is, or lies over, an input, or is a link, a device node, a
FIFO or a socket, is refused before any work with exit 2 and one line naming the option, the
output, the input and what to do -- and the input (or the device) is left exactly as it was.

Device nodes are only ever *named* here (``/dev/null``, ``/dev/full``): the checks refuse them
from ``lstat`` before anything opens them; FIFOs and sockets are made in ``tmp_path``.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pandas as pd
import pytest

from bench import cli
from bench.data.outputs import check_output_dir, check_output_file
from bench.errors import ConfigError

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.4 x\n2 Q0 c 1 0.9 x\n"
CSV_ARGS = ["--layout", "csv", "--user", "u", "--item", "i", "--rating", "r",
            "--timestamp", "t", "--split", "random"]


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def _ratings_frame() -> pd.DataFrame:
    rows = [(u, (u * 7 + k * 3) % 60, 1 + (u + k) % 5, u * 100 + k)
            for u in range(25) for k in range(15)]
    return pd.DataFrame(rows, columns=["u", "i", "r", "t"])


def _trec(tmp_path: Path) -> tuple[Path, Path]:
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def _evaluate(tmp_path: Path, out: str | Path) -> list[str]:
    q, r = _trec(tmp_path)
    return ["evaluate", "--qrels", str(q), "--run", str(r), "--per-query", str(out)]


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _socket(path: Path) -> tuple[Path, socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    return path, sock


def _is_fifo(path: Path) -> bool:
    return stat.S_ISFIFO(os.lstat(path).st_mode)


# ------------------------------------------------------------------------------------------
# convert: the output folder holds the ratings file under a name the conversion writes
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["train.parquet", "train.txt", "test.parquet", "vali.txt.query",
                                  "summary.json"])
def test_convert_into_the_folder_of_its_ratings_named_like_an_output_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    ratings = data / name
    if name.endswith(".parquet"):
        _ratings_frame().to_parquet(ratings)
    else:
        _ratings_frame().to_csv(ratings, index=False)
    before = ratings.read_bytes()
    status, err = _cli(["convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(data)],
                       capsys)
    assert status == 2
    assert f"error: --out {str(data)!r}: the command writes {name!r} there" in err
    assert f"is the input --ratings {str(ratings)!r}" in err
    assert "choose another output folder" in err
    assert ratings.read_bytes() == before
    assert sorted(p.name for p in data.iterdir()) == [name]  # nothing written


def test_convert_through_a_symlinked_output_folder_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    ratings = data / "train.txt"
    _ratings_frame().to_csv(ratings, index=False)
    before = ratings.read_bytes()
    link = tmp_path / "out"
    link.symlink_to(data)
    status, err = _cli(["convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(link)],
                       capsys)
    assert status == 2
    assert "--out" in err
    assert "--ratings" in err
    assert "train.txt" in err
    assert ratings.read_bytes() == before


def test_convert_when_an_output_name_is_a_hard_link_of_the_ratings_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ratings = tmp_path / "ratings.csv"
    _ratings_frame().to_csv(ratings, index=False)
    out = tmp_path / "out"
    out.mkdir()
    os.link(ratings, out / "test.txt")
    before = ratings.read_bytes()
    status, err = _cli(["convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(out)],
                       capsys)
    assert status == 2
    assert "'test.txt'" in err
    assert "is the same file as the input --ratings" in err
    assert ratings.read_bytes() == before
    assert (out / "test.txt").read_bytes() == before


def test_convert_when_an_output_name_is_a_symlink_to_the_ratings_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ratings = tmp_path / "ratings.csv"
    _ratings_frame().to_csv(ratings, index=False)
    out = tmp_path / "out"
    out.mkdir()
    (out / "train.txt").symlink_to(ratings)
    status, err = _cli(["convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(out)],
                       capsys)
    assert status == 2
    assert "is the same file as the input --ratings" in err
    assert (out / "train.txt").is_symlink()


def test_convert_when_an_output_name_is_a_symlink_to_another_file_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ratings = tmp_path / "ratings.csv"
    _ratings_frame().to_csv(ratings, index=False)
    victim = tmp_path / "notes.txt"
    victim.write_text("mine\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "train.txt").symlink_to(victim)
    status, err = _cli(["convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(out)],
                       capsys)
    assert status == 2
    assert "is a symbolic link" in err
    assert "train.txt" in err
    assert victim.read_text() == "mine\n"
    assert (out / "train.txt").is_symlink()


def test_convert_when_a_shard_folder_it_replaces_holds_the_ratings_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--engine dask`` renames its finished shard folders onto OUT/train, OUT/vali, OUT/test."""
    out = tmp_path / "out"
    (out / "train").mkdir(parents=True)
    shard = out / "train" / "ratings-0.parquet"
    _ratings_frame().to_parquet(shard)
    before = shard.read_bytes()
    status, err = _cli(["convert", "--ratings", str(out / "train"), "--engine", "dask",
                        "--user", "u", "--item", "i", "--rating", "r", "--timestamp", "t",
                        "--split", "random", "--out", str(out)], capsys)
    assert status == 2
    assert "'train'" in err
    assert "is the input --ratings" in err
    assert shard.read_bytes() == before


def test_convert_with_a_glob_of_ratings_shards_that_match_an_output_name_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    _ratings_frame().to_parquet(data / "train.parquet")
    before = (data / "train.parquet").read_bytes()
    status, err = _cli(["convert", "--ratings", str(data / "*.parquet"), *CSV_ARGS,
                        "--out", str(data)], capsys)
    assert status == 2
    assert "train.parquet" in err
    assert "--ratings" in err
    assert (data / "train.parquet").read_bytes() == before


@pytest.mark.parametrize("kind", ["fifo", "socket", "devnull"])
def test_convert_out_that_is_a_special_file_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    ratings = tmp_path / "ratings.csv"
    _ratings_frame().to_csv(ratings, index=False)
    sock = None
    if kind == "fifo":
        out = _fifo(tmp_path / "pipe")
    elif kind == "socket":
        out, sock = _socket(tmp_path / "sock")
    else:
        out = Path("/dev/null")
    try:
        status, err = _cli(["convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(out)],
                           capsys)
    finally:
        if sock is not None:
            sock.close()
    assert status == 2
    word = {"fifo": "FIFO", "socket": "socket", "devnull": "device node"}[kind]
    assert f"error: --out {str(out)!r} is a " in err
    assert word in err


def test_convert_when_summary_json_in_the_output_is_a_fifo_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ratings = tmp_path / "ratings.csv"
    _ratings_frame().to_csv(ratings, index=False)
    out = tmp_path / "out"
    out.mkdir()
    _fifo(out / "summary.json")
    status, err = _cli(["convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(out)],
                       capsys)
    assert status == 2
    assert "summary.json" in err
    assert "FIFO" in err
    assert _is_fifo(out / "summary.json")


def test_convert_under_a_fifo_is_refused(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    ratings = tmp_path / "ratings.csv"
    _ratings_frame().to_csv(ratings, index=False)
    pipe = _fifo(tmp_path / "pipe")
    status, err = _cli(["convert", "--ratings", str(ratings), *CSV_ARGS,
                        "--out", str(pipe / "x")], capsys)
    assert status == 2
    assert f"{str(pipe)!r} is a FIFO" in err
    assert _is_fifo(pipe)


# ------------------------------------------------------------------------------------------
# evaluate --per-query
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["/dev/full", "/dev/null"])
def test_per_query_naming_a_device_node_is_refused_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    mode = os.lstat(device).st_mode
    status, err = _cli(_evaluate(tmp_path, device), capsys)
    assert status == 2
    assert f"error: --per-query {device!r} is a character device node" in err
    assert os.lstat(device).st_mode == mode  # still the device


def test_per_query_naming_a_fifo_is_refused_and_the_fifo_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pipe = _fifo(tmp_path / "pq.csv")
    status, err = _cli(_evaluate(tmp_path, pipe), capsys)
    assert status == 2
    assert f"--per-query {str(pipe)!r} is a FIFO" in err
    assert _is_fifo(pipe)


def test_per_query_naming_a_socket_is_refused(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path, sock = _socket(tmp_path / "pq.sock")
    try:
        status, err = _cli(_evaluate(tmp_path, path), capsys)
    finally:
        sock.close()
    assert status == 2
    assert "is a socket" in err


def test_per_query_that_is_a_symlink_to_a_device_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "pq.csv"
    link.symlink_to("/dev/null")
    status, err = _cli(_evaluate(tmp_path, link), capsys)
    assert status == 2
    assert "is a symbolic link" in err
    assert "/dev/null" in err
    assert link.is_symlink()


def test_per_query_that_is_a_dangling_symlink_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "pq.csv"
    link.symlink_to(tmp_path / "nowhere" / "x.csv")
    status, err = _cli(_evaluate(tmp_path, link), capsys)
    assert status == 2
    assert "is a symbolic link" in err
    assert link.is_symlink()


def test_per_query_reaching_an_input_through_a_symlinked_folder_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = _evaluate(tmp_path, "unused")
    (tmp_path / "alias").symlink_to(tmp_path)
    argv[-1] = str(tmp_path / "alias" / "r.txt")
    status, err = _cli(argv, capsys)
    assert status == 2
    assert "is the same file as the input --run" in err
    assert (tmp_path / "r.txt").read_text() == RUN


def test_per_query_under_a_fifo_is_refused(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    pipe = _fifo(tmp_path / "pipe")
    status, err = _cli(_evaluate(tmp_path, pipe / "pq.csv"), capsys)
    assert status == 2
    assert f"{str(pipe)!r} is a FIFO" in err


def test_per_query_over_a_file_of_an_input_folder_is_refused(tmp_path: Path) -> None:
    """``evaluate --engine dask --data SHARDS`` reads every shard of the folder."""
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "part-0.parquet").write_bytes(b"PAR1")
    with pytest.raises(ConfigError, match=r"lies inside the input folder --data"):
        check_output_file(shards / "part-0.parquet", option="--per-query",
                          inputs=[("--data", shards)])
    # a new file beside the shards overwrites nothing, but the next read of the folder finds
    # a stray data file there (round 10b): refused too, saying so
    with pytest.raises(ConfigError, match=r"inside the input folder --data.*changes what"):
        check_output_file(shards / "pq.csv", option="--per-query", inputs=[("--data", shards)])


# ------------------------------------------------------------------------------------------
# run / tune / crosscheck / reproduce / report --out
# ------------------------------------------------------------------------------------------


def _special(tmp_path: Path, kind: str) -> Path:
    if kind == "fifo":
        return _fifo(tmp_path / "pipe")
    return Path("/dev/null")


@pytest.mark.parametrize("kind", ["fifo", "devnull"])
@pytest.mark.parametrize("argv", [
    ["run", "--dataset", "synthetic", "--quick"],
    ["tune", "--grid", "learning_rate=0.1,0.2", "--dataset", "synthetic", "--quick"],
    ["crosscheck", "--run", "nowhere"],
    ["report"],
])
def test_out_folder_that_is_a_device_or_fifo_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, argv: list[str]) -> None:
    out = _special(tmp_path, kind)
    status, err = _cli([*argv, "--out", str(out)], capsys)
    assert status == 2
    assert f"--out {str(out)!r} is a " in err
    assert ("FIFO" if kind == "fifo" else "device node") in err


def test_reproduce_out_that_is_the_leaderboard_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "leaderboard.json"
    board.write_text('{"tables": []}\n')
    status, err = _cli(["reproduce", str(board), "--out", str(board)], capsys)
    assert status == 2
    assert "is the input leaderboard" in err
    assert board.read_text() == '{"tables": []}\n'


def test_run_out_whose_crosscheck_file_is_the_config_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    (out / "synthetic").mkdir(parents=True)
    config = out / "synthetic" / "crosscheck.md"
    config.write_text('dataset = "synthetic"\n')
    status, err = _cli(["run", "--config", str(config), "--out", str(out)], capsys)
    assert status == 2
    assert "'synthetic/crosscheck.md'" in err
    assert "is the input --config" in err
    assert config.read_text() == 'dataset = "synthetic"\n'


def test_output_dir_that_is_a_dangling_symlink_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(ConfigError, match="is a symbolic link to nothing"):
        check_output_dir(link, option="--out")


def test_output_dir_writes_patterns_stay_in_one_folder(tmp_path: Path) -> None:
    """``*/x.png`` names a file one folder down, not a run's file deeper in the tree."""
    deep = tmp_path / "runs" / "r1"
    deep.mkdir(parents=True)
    (deep / "x.png").write_text("input\n")
    assert check_output_dir(tmp_path, option="--out", inputs=[("--runs", deep / "x.png")],
                            writes=("*/x.png",)) == tmp_path
    with pytest.raises(ConfigError, match=r"'runs/r1/x\.png'"):
        check_output_dir(tmp_path, option="--out", inputs=[("--runs", deep / "x.png")],
                         writes=("*/*/x.png",))


def test_convert_when_a_shard_folder_it_replaces_holds_the_ratings_file_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    (out / "vali").mkdir(parents=True)
    ratings = out / "vali" / "ratings.csv"
    _ratings_frame().to_csv(ratings, index=False)
    before = ratings.read_bytes()
    status, err = _cli(["convert", "--ratings", str(ratings), *CSV_ARGS, "--out", str(out)],
                       capsys)
    assert status == 2
    assert "'vali'" in err
    assert "holds the input --ratings" in err
    assert ratings.read_bytes() == before


def test_per_query_through_a_symlinked_folder_onto_a_device_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "devlink").symlink_to("/dev")
    out = tmp_path / "devlink" / "null"
    status, err = _cli(_evaluate(tmp_path, out), capsys)
    assert status == 2
    assert "character device node" in err
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_per_query_to_dev_stdout_is_refused_not_replaced(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``/dev/stdout`` is a link: a rename over it (as root) would replace the link itself."""
    if not os.path.islink("/dev/stdout"):
        pytest.skip("/dev/stdout is not a link here")
    status, err = _cli(_evaluate(tmp_path, "/dev/stdout"), capsys)
    assert status == 2
    assert "'/dev/stdout' is a symbolic link" in err
    assert os.path.islink("/dev/stdout")


@pytest.mark.parametrize("argv", [["run", "--dataset", "synthetic", "--quick"], ["report"]])
def test_out_folder_that_is_a_dangling_symlink_or_a_socket_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "gone")
    status, err = _cli([*argv, "--out", str(link)], capsys)
    assert status == 2
    assert "symbolic link to nothing" in err
    path, sock = _socket(tmp_path / "sock")
    try:
        status, err = _cli([*argv, "--out", str(path)], capsys)
    finally:
        sock.close()
    assert status == 2
    assert "is a socket" in err
