"""Round 16, a messy shared file system: paths reached by several spellings (a quoted ``~`` in
``NAME=FILE``, a home folder that is a symbolic link, ``./a/../a``, ``//``, trailing slashes),
names in Unicode NFC on one side and NFD on the other (a macOS copy), names differing only in
case (one file on a case-insensitive disk: macOS, Windows, a CIFS share), names with spaces,
line ends or a leading dash, read-only folders, hard and symbolic links between the data and
the output folder, FIFOs. The oracle of every case: the input's bytes and inode are unchanged,
and the command either refuses with exit 2 and one line naming the output and the input (as
typed, or both spellings), or succeeds with the right output; a missing input's message names
the file that is there under another case or Unicode form. Everything is refused before any
work, in-process (no training, no conversion)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import unicodedata
from pathlib import Path

import pytest

from bench.data.outputs import check_output_dir, check_output_file
from bench.errors import ConfigError
from tests.hostile_kit import QRELS, ROOT, RUN, Res, cli, letor_folder

RATINGS = b"u,i,r,t\n" + b"".join(f"{u},{(u * 7 + k * 3) % 60},{1 + (u + k) % 5},{u * 100 + k}\n"
                                  .encode() for u in range(25) for k in range(15))
CSV = ["--layout", "csv", "--user", "u", "--item", "i", "--rating", "r", "--timestamp", "t",
       "--split", "random", "--target-size", "1", "--min-history", "2", "--negatives", "3"]
NFC = "caf\u00e9.txt"
NFD = unicodedata.normalize("NFD", NFC)


def _ident(path: Path) -> tuple[bytes, int, int]:
    st = os.lstat(path)
    return path.read_bytes(), st.st_ino, st.st_dev


def _trec(folder: Path, run: str = "r.txt") -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    q, r = folder / "q.txt", folder / run
    q.write_bytes(QRELS)
    r.write_bytes(RUN)
    return q, r


def _refused(res: Res, *names: str) -> str:
    """The one error line of an exit-2 refusal that names every one of ``names``."""
    assert not res.traceback, res.err
    assert res.status == 2, (res.status, res.out, res.err)
    line = next((x for x in res.err.splitlines() if "error:" in x), "")
    for name in names:
        assert name in line, (name, res.err)
    return line


# ------------------------------------------------ evaluate --per-query: a quoted ~ in NAME=FILE

@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$HOME`` a link (``tmp/home``) to the real folder it returns (``tmp/export/alice``)."""
    real = tmp_path / "export" / "alice"
    real.mkdir(parents=True)
    (tmp_path / "home").symlink_to(real)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return real


def test_per_query_tilde_over_a_named_run_given_with_a_quoted_tilde_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--run base=~/r.txt`` (a quoted ``~``: a Makefile, a CI step) is read from the home
    folder; the output check took it for a missing file and ``--per-query ~/r.txt`` replaced
    the run with the per-query CSV, exit 0."""
    home = tmp_path / "home"
    q, r = _trec(home)
    monkeypatch.setenv("HOME", str(home))
    before = _ident(r)
    res = cli(tmp_path, "evaluate", "--qrels", str(q), "--run", "base=~/r.txt",
              "--per-query", "~/r.txt")
    _refused(res, "--per-query", f"{str(home / 'r.txt')!r}", "--run")
    assert _ident(r) == before


def test_per_query_by_its_real_path_over_a_run_given_as_name_tilde_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    q, r = _trec(home)
    monkeypatch.setenv("HOME", str(home))
    (home / "r2.txt").write_bytes(RUN)
    before = _ident(r)
    res = cli(tmp_path, "evaluate", "--qrels", str(q), "--run", "a=~/r.txt",
              "--run", f"b={home / 'r2.txt'}", "--per-query", str(r))
    _refused(res, str(r), "--run")
    assert _ident(r) == before


def test_per_query_through_a_linked_home_onto_a_run_given_by_its_real_path_is_refused(
        tmp_path: Path, home: Path) -> None:
    real = home  # ~ is a link to it: /home -> /export/alice
    q, r = _trec(real)
    before = _ident(r)
    res = cli(tmp_path, "evaluate", "--qrels", str(q), "--run", str(r), "--per-query", "~/r.txt")
    _refused(res, "--per-query", str(tmp_path / "home" / "r.txt"), str(r))  # ~ read as the shell
    assert _ident(r) == before


def test_per_query_by_real_path_onto_a_qrels_given_through_the_linked_home_is_refused(
        tmp_path: Path, home: Path) -> None:
    real = home  # ~ is a link to it: /home -> /export/alice
    q, r = _trec(real)
    before = _ident(q)
    res = cli(tmp_path, "evaluate", "--qrels", "~/q.txt", "--run", str(r),
              "--per-query", str(q))
    _refused(res, "--per-query", str(q), "--qrels")
    assert _ident(q) == before


def test_per_query_tilde_that_is_a_fifo_in_the_home_is_refused_without_blocking(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    q, r = _trec(tmp_path / "data")
    home = tmp_path / "home"
    home.mkdir()
    os.mkfifo(home / "pq.csv")
    monkeypatch.setenv("HOME", str(home))
    res = cli(tmp_path, "evaluate", "--qrels", str(q), "--run", str(r), "--per-query", "~/pq.csv")
    _refused(res, "--per-query", "FIFO")
    assert stat.S_ISFIFO(os.lstat(home / "pq.csv").st_mode)


def test_a_tilde_inside_a_name_is_no_home_and_the_file_is_written_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    q, r = _trec(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt",
              "--per-query", "a~b.csv")
    assert res.status == 0, res.err
    assert (tmp_path / "a~b.csv").read_text().startswith("qid")
    assert r.read_bytes() == RUN
    assert q.read_bytes() == QRELS


def test_per_query_tilde_alone_is_the_home_folder_and_refused_as_a_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _trec(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt", "--per-query", "~")
    _refused(res, "--per-query")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt", "r.txt"]


# ------------------------------------------------------ evaluate --per-query: other spellings

def test_per_query_with_doubled_slashes_and_dot_segments_onto_the_second_run_is_refused(
        tmp_path: Path) -> None:
    _q, _r = _trec(tmp_path / "data")
    r2 = tmp_path / "data" / "r2.txt"
    r2.write_bytes(RUN)
    (tmp_path / "data" / "sub").mkdir()
    before = _ident(r2)
    res = cli(tmp_path, "evaluate", "--qrels", "data/q.txt", "--run", "a=data/r.txt",
              "--run", "b=./data/r2.txt", "--per-query", ".//data/./sub/..//r2.txt")
    _refused(res, "--per-query", ".//data/./sub/..//r2.txt", "data/r2.txt")
    assert _ident(r2) == before


def test_per_query_over_a_hard_link_of_the_second_run_kept_in_the_output_folder_is_refused(
        tmp_path: Path) -> None:
    q, r = _trec(tmp_path / "data")
    r2 = tmp_path / "data" / "r2.txt"
    r2.write_bytes(RUN)
    (tmp_path / "out").mkdir()
    os.link(r2, tmp_path / "out" / "pq.csv")  # a hard link between data and output folders
    before = _ident(r2)
    res = cli(tmp_path, "evaluate", "--qrels", str(q), "--run", str(r), "--run", str(r2),
              "--per-query", "out/pq.csv")
    _refused(res, "--per-query", "out/pq.csv", str(r2))
    assert _ident(r2) == before


def test_per_query_a_symlink_in_the_output_folder_to_the_qrels_is_refused(tmp_path: Path) -> None:
    q, _r = _trec(tmp_path / "data")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "pq.csv").symlink_to("../data/q.txt")
    before = _ident(q)
    res = cli(tmp_path, "evaluate", "--qrels", "data/q.txt", "--run", "data/r.txt",
              "--per-query", "out/pq.csv")
    _refused(res, "--per-query", "out/pq.csv")
    assert _ident(q) == before
    assert (tmp_path / "out" / "pq.csv").is_symlink()


def test_per_query_spelled_with_spaces_over_a_run_with_spaces_is_refused(tmp_path: Path) -> None:
    _q, r = _trec(tmp_path / "my data", run="my run.txt")
    before = _ident(r)
    res = cli(tmp_path, "evaluate", "--qrels", "my data/q.txt", "--run", "my data/my run.txt",
              "--per-query", "./my data/../my data/my run.txt")
    _refused(res, "--per-query", "my run.txt")
    assert _ident(r) == before


def test_per_query_over_a_run_whose_name_holds_a_line_end_is_one_refusal_line(
        tmp_path: Path) -> None:
    _q, r = _trec(tmp_path, run="r\nun.txt")
    before = _ident(r)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r\nun.txt",
              "--per-query", "r\nun.txt")
    line = _refused(res, "--per-query", "'r\\nun.txt'")
    assert res.err.strip() == line.strip()  # one line: the line end shown as \n
    assert _ident(r) == before


def test_a_malformed_run_whose_name_holds_a_line_end_is_named_on_one_line(tmp_path: Path) -> None:
    _q, _ = _trec(tmp_path)
    (tmp_path / "a\nb.txt").write_bytes(b"1 Q0 a\n")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "a\nb.txt")
    line = _refused(res, "a\\nb.txt:1")
    assert res.err.strip() == line.strip()


def test_per_query_equals_spelling_over_a_dash_named_run_is_refused(tmp_path: Path) -> None:
    _q, _ = _trec(tmp_path)
    (tmp_path / "-r.txt").write_bytes(RUN)
    before = _ident(tmp_path / "-r.txt")
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run=-r.txt", "--per-query=./-r.txt")
    _refused(res, "--per-query", "-r.txt")
    assert _ident(tmp_path / "-r.txt") == before


def test_a_dash_named_run_after_its_option_says_how_to_pass_it(tmp_path: Path) -> None:
    """``--run -r.txt``: argparse said only "expected one argument"."""
    _q, _ = _trec(tmp_path)
    (tmp_path / "-r.txt").write_bytes(RUN)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "-r.txt")
    assert res.status == 2
    assert not res.traceback
    assert "--run=-" in res.err, res.err
    assert "--run ./-" in res.err, res.err


def test_a_dash_named_per_query_after_its_option_says_how_to_pass_it(tmp_path: Path) -> None:
    _trec(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", "r.txt",
              "--per-query", "-pq.csv")
    assert res.status == 2
    assert not res.traceback
    assert "--per-query=-" in res.err, res.err
    assert not (tmp_path / "-pq.csv").exists()


def test_per_query_in_nfc_beside_a_run_in_nfd_keeps_the_run_and_writes_its_own_file(
        tmp_path: Path) -> None:
    """Linux keeps the two spellings apart (two files); on a macOS disk they are one file and
    the inode check refuses. Either way the run is never replaced."""
    _q, r = _trec(tmp_path, run=NFD)
    before = _ident(r)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", NFD, "--per-query", NFC)
    assert not res.traceback, res.err
    assert _ident(r) == before
    if res.status == 0:
        assert (tmp_path / NFC).read_text().splitlines()[0].startswith("qid")
    else:
        _refused(res, "--per-query")


def test_per_query_from_a_read_only_data_folder_into_another_folder_is_written(
        tmp_path: Path) -> None:
    data = tmp_path / "ro"
    _q, _r = _trec(data)
    os.chmod(data, 0o555)
    try:
        res = cli(tmp_path, "evaluate", "--qrels", "ro/q.txt", "--run", "ro/r.txt",
                  "--per-query", "pq.csv")
        assert res.status == 0, res.err
        rows = (tmp_path / "pq.csv").read_text().splitlines()
        assert rows[0].startswith("qid")
        assert {x.split(",")[0] for x in rows[1:]} == {"1", "2"}
        assert sorted(p.name for p in data.iterdir()) == ["q.txt", "r.txt"]
    finally:
        os.chmod(data, 0o755)


def test_per_query_a_new_file_in_the_read_only_data_folder_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "ro"
    _trec(data)
    os.chmod(data, 0o555)
    try:
        res = cli(tmp_path, "evaluate", "--qrels", "ro/q.txt", "--run", "ro/r.txt",
                  "--per-query", "./ro//pq.csv")
        _refused(res, "--per-query", "ro//pq.csv")
        assert sorted(p.name for p in data.iterdir()) == ["q.txt", "r.txt"]
    finally:
        os.chmod(data, 0o755)


# ------------------------------------------ a missing input whose twin is there (case, NFC/NFD)

def test_a_run_typed_in_nfc_whose_file_is_in_nfd_names_the_nfd_file(tmp_path: Path) -> None:
    """A macOS copy writes names decomposed; the shell passes what the user typed (composed):
    "no such file" named a file that `ls` shows."""
    _trec(tmp_path, run=NFD)
    res = cli(tmp_path, "evaluate", "--qrels", "q.txt", "--run", NFC)
    line = _refused(res, "no such file", ascii(NFD), "NFD")
    assert line.count("\n") == 0


def test_a_qrels_typed_in_another_case_names_the_file_that_is_there(tmp_path: Path) -> None:
    _trec(tmp_path)
    res = cli(tmp_path, "evaluate", "--qrels", "Q.txt", "--run", "r.txt")
    _refused(res, "Q.txt", "no such file", "'q.txt'", "case")


def test_a_dataset_folder_typed_in_another_case_names_the_folder_that_is_there(
        tmp_path: Path) -> None:
    (tmp_path / "Letor").mkdir()
    res = cli(tmp_path, "run", "--dataset", "./letor", "--models", "random", "--quick",
              "--out", "out")
    _refused(res, "./letor", "'Letor'")
    assert not (tmp_path / "out").exists()


def test_a_ratings_file_typed_in_nfc_whose_file_is_nfd_names_it(tmp_path: Path) -> None:
    name = unicodedata.normalize("NFD", "notes-\u00e9t\u00e9.csv")
    (tmp_path / name).write_bytes(RATINGS)
    res = cli(tmp_path, "convert", "--ratings", unicodedata.normalize("NFC", name), *CSV,
              "--out", "out")
    _refused(res, ascii(name))
    assert not (tmp_path / "out").exists()


# --------------------------------------------------- convert: a written name's case twin

@pytest.mark.parametrize("twin", ["Train.txt", "VALI.TXT", "Test.txt.Query", "Summary.json"])
def test_convert_into_the_ratings_folder_whose_ratings_is_a_case_twin_of_an_output_is_refused(
        tmp_path: Path, twin: str) -> None:
    """On a case-insensitive disk ``train.txt`` IS ``Train.txt``: the conversion replaced the
    ratings it read (the exact-name check saw no input there)."""
    out = tmp_path / "out"
    out.mkdir()
    ratings = out / twin
    ratings.write_bytes(RATINGS)
    before = _ident(ratings)
    res = cli(tmp_path, "convert", "--ratings", f"out/{twin}", *CSV, "--out", "out")
    line = _refused(res, "--out", twin, "--ratings", "case-insensitive")
    assert f"'{twin.lower()}'" in line  # the name the command writes
    assert _ident(ratings) == before
    assert [p.name for p in out.iterdir()] == [twin]


def test_convert_out_through_a_linked_home_and_trailing_slashes_onto_a_train_txt_ratings(
        tmp_path: Path, home: Path) -> None:
    real = home  # ~ is a link to it: /home -> /export/alice
    (real / "train.txt").write_bytes(RATINGS)
    before = _ident(real / "train.txt")
    res = cli(tmp_path, "convert", "--ratings", str(real / "train.txt"), *CSV,
              "--out", "~//./")
    _refused(res, "--out", "train.txt")
    assert _ident(real / "train.txt") == before
    assert len(list(real.iterdir())) == 1


def test_convert_out_spelled_with_dotdot_onto_a_ratings_named_vali_txt_is_refused(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "vali.txt").write_bytes(RATINGS)
    before = _ident(data / "vali.txt")
    res = cli(tmp_path, "convert", "--ratings", "data/vali.txt", *CSV,
              "--out", "./data/sub/..//")
    _refused(res, "--out", "vali.txt")
    assert _ident(data / "vali.txt") == before


def test_check_output_dir_refuses_a_case_twin_of_a_written_name_that_is_an_input(
        tmp_path: Path) -> None:
    (tmp_path / "Leaderboard.md").write_text("mine\n")
    with pytest.raises(ConfigError) as info:
        check_output_dir(tmp_path, option="--out", writes=("leaderboard.md",),
                         inputs=[("--runs", tmp_path / "Leaderboard.md")])
    assert "'leaderboard.md'" in str(info.value)
    assert "Leaderboard.md" in str(info.value)
    assert (tmp_path / "Leaderboard.md").read_text() == "mine\n"


def test_check_output_dir_keeps_an_exact_name_that_is_no_input(tmp_path: Path) -> None:
    (tmp_path / "Train.txt").write_text("old\n")
    assert check_output_dir(tmp_path, option="--out", writes=("train.txt",),
                            inputs=[("--ratings", tmp_path / "elsewhere.csv")]) == tmp_path


def test_check_output_file_sees_an_input_given_with_a_tilde(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, r = _trec(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(ConfigError) as info:
        check_output_file(r, option="per_query", inputs=[("run", "~/r.txt")])
    assert "run" in str(info.value)
    assert str(r) in str(info.value)


# ------------------------------------------------ run / tune: the sub-folder under another case

def test_run_out_whose_runs_folder_is_the_dataset_under_another_case_is_refused(
        tmp_path: Path) -> None:
    """``--out out --dataset out/Runs``: on a case-insensitive disk the run folders are
    created inside the dataset folder (``out/runs/<id>`` is ``out/Runs/<id>``)."""
    data = letor_folder(tmp_path / "out" / "Runs")
    before = sorted(p.name for p in data.iterdir())
    res = cli(tmp_path, "run", "--dataset", "out/Runs", "--models", "random", "--quick",
              "--seeds", "0", "--no-crosscheck", "--out", "out")  # no '*/crosscheck.md' written
    _refused(res, "--out", "out/Runs", "'out/runs'")
    assert sorted(p.name for p in data.iterdir()) == before
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["Runs"]


def test_tune_out_whose_tune_folder_is_the_dataset_under_another_case_is_refused(
        tmp_path: Path) -> None:
    data = letor_folder(tmp_path / "out" / "TUNE")
    before = sorted(p.name for p in data.iterdir())
    res = cli(tmp_path, "tune", "--dataset", "out/TUNE", "--models", "lightgbm",
              "--budget-trials", "1", "--quick", "--out", "out")
    _refused(res, "--out", "out/TUNE")
    assert sorted(p.name for p in data.iterdir()) == before


def test_run_out_spelled_with_dotdot_and_slashes_onto_the_dataset_is_refused(
        tmp_path: Path) -> None:
    data = letor_folder(tmp_path / "data")
    (data / "x").mkdir()
    before = sorted(p.name for p in data.iterdir())
    res = cli(tmp_path, "run", "--dataset", "./data/../data/", "--models", "random", "--quick",
              "--out", "data//x/..//")
    _refused(res, "--out", "data//x/..//")
    assert sorted(p.name for p in data.iterdir()) == before


def test_run_out_through_a_linked_home_onto_the_dataset_is_refused(
        tmp_path: Path, home: Path) -> None:
    real = home  # ~ is a link to it: /home -> /export/alice
    data = letor_folder(real / "data")
    before = sorted(p.name for p in data.iterdir())
    res = cli(tmp_path, "run", "--dataset", str(data), "--models", "random", "--quick",
              "--out", "~/data/")
    _refused(res, "--out")
    assert sorted(p.name for p in data.iterdir()) == before


# ----------------------------------------------------------- Python API: RunResult.save

@pytest.fixture
def finished(tmp_path: Path) -> tuple[object, Path]:
    """A finished run's folder (the manifest of a committed run) whose dataset is a folder."""
    from bench.benchmark.api import RunResult

    src = next((ROOT / "results" / "runs").glob("synthetic-*"))
    data = letor_folder(tmp_path / "data")
    run = tmp_path / "res" / "runs" / src.name
    run.mkdir(parents=True)
    manifest = json.loads((src / "manifest.json").read_text())
    manifest["dataset"]["path"] = str(data)
    (run / "manifest.json").write_text(json.dumps(manifest))
    (run / "metrics.csv").write_bytes((src / "metrics.csv").read_bytes())
    return RunResult(run), data


def test_save_into_a_read_only_folder_is_refused_also_for_root(
        tmp_path: Path, finished: tuple[object, Path]) -> None:
    result, _ = finished
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o555)
    try:
        with pytest.raises(ConfigError) as info:
            result.save(ro)  # type: ignore[attr-defined]
        assert "save" in str(info.value)
        assert "read-only" in str(info.value)
        assert list(ro.iterdir()) == []
    finally:
        os.chmod(ro, 0o755)


def test_save_into_a_fifo_names_the_fifo(tmp_path: Path, finished: tuple[object, Path]) -> None:
    result, _ = finished
    os.mkfifo(tmp_path / "ff")
    with pytest.raises(ConfigError) as info:
        result.save(tmp_path / "ff")  # type: ignore[attr-defined]
    assert "FIFO" in str(info.value)
    assert stat.S_ISFIFO(os.lstat(tmp_path / "ff").st_mode)


@pytest.mark.parametrize("where", [".", "sub", "./sub/../"])
def test_save_into_the_runs_dataset_folder_is_refused_and_the_folder_kept(
        tmp_path: Path, finished: tuple[object, Path], where: str) -> None:
    result, data = finished
    (data / "sub").mkdir()
    before = sorted(p.name for p in data.rglob("*"))
    with pytest.raises(ConfigError) as info:
        result.save(os.path.join(data, where))  # type: ignore[attr-defined]
    assert "dataset" in str(info.value)
    assert sorted(p.name for p in data.rglob("*")) == before


def test_save_through_a_tilde_and_a_linked_home_into_the_dataset_is_refused(
        tmp_path: Path, finished: tuple[object, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    result, data = finished
    (tmp_path / "home").symlink_to(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    before = sorted(p.name for p in data.iterdir())
    with pytest.raises(ConfigError):
        result.save("~/data")  # type: ignore[attr-defined]
    assert sorted(p.name for p in data.iterdir()) == before


def test_save_into_a_new_folder_beside_the_dataset_copies_the_run(
        tmp_path: Path, finished: tuple[object, Path]) -> None:
    result, _ = finished
    dest = result.save(tmp_path / "saved")  # type: ignore[attr-defined]
    assert dest == (tmp_path / "saved" / result.run_dir.name).resolve()  # type: ignore[attr-defined]
    assert (dest / "manifest.json").is_file()
    shutil.rmtree(tmp_path / "saved")


def test_api_run_out_dir_by_real_path_onto_a_dataset_given_with_a_tilde_is_refused(
        tmp_path: Path, home: Path) -> None:
    from bench.benchmark import run

    real = home  # ~ is a link to it: /home -> /export/alice
    data = letor_folder(real / "data")
    before = sorted(p.name for p in data.iterdir())
    with pytest.raises(ConfigError) as info:
        run("~/data", models=["random"], seeds=[0], quick=True, out_dir=data)
    assert "dataset" in str(info.value)
    assert sorted(p.name for p in data.iterdir()) == before


def test_a_group_size_sidecar_in_another_case_is_named(tmp_path: Path) -> None:
    """``d.txt.QUERY`` (a Windows copy) beside ``d.txt``: not read (LightGBM reads the exact
    name), but named where the sidecar is said to be missing."""
    (tmp_path / "d.txt").write_bytes(b"2 1:0.5\n0 1:0.1\n1 2:0.3\n1 1:0.2\n0 1:0.9\n")
    (tmp_path / "d.txt.QUERY").write_bytes(b"3\n2\n")
    (tmp_path / "s.txt").write_bytes(b"0.9\n0.1\n0.5\n0.2\n0.8\n")
    res = cli(tmp_path, "evaluate", "--data", "d.txt", "--scores", "s.txt")
    _refused(res, "d.txt.query", "'d.txt.QUERY' is there", "case", "--query")


def test_crosscheck_evaluators_out_whose_table_is_the_run_under_another_case_is_refused(
        tmp_path: Path) -> None:
    """The run kept as ``out/Definitions/Evaluators.json`` (a Windows share): the command writes
    ``definitions/evaluators.json``, that very file on a case-insensitive disk."""
    _trec(tmp_path)
    run = tmp_path / "out" / "Definitions" / "Evaluators.json"
    run.parent.mkdir(parents=True)
    run.write_bytes(RUN)
    before = _ident(run)
    res = cli(tmp_path, "crosscheck", "--evaluators", "--qrels", "q.txt",
              "--trec-run", "out/Definitions/Evaluators.json", "--out", "out")
    _refused(res, "--out", "Definitions", "--trec-run")
    assert _ident(run) == before
    assert sorted(p.name for p in run.parent.iterdir()) == ["Evaluators.json"]


def test_run_out_by_real_path_onto_a_config_dataset_written_with_a_tilde_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``dataset = "~/data"`` in the config, ``--out`` the same folder spelled absolute: the
    run folders were made among the dataset's files (exit 0), the check saw no ``~/data``."""
    home = tmp_path / "home"
    data = letor_folder(home / "data")
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "c.toml").write_text('dataset = "~/data"\nmodels = ["random"]\nseeds = [0]\n'
                                     "quick = true\n")
    before = sorted(p.name for p in data.iterdir())
    res = cli(tmp_path, "run", "--config", "c.toml", "--no-crosscheck", "--out", str(data))
    _refused(res, "--out", str(data), "--config")
    assert sorted(p.name for p in data.iterdir()) == before


def test_tune_storage_with_a_tilde_is_opened_where_it_is_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--storage sqlite:///~/study.db``: the checks read ``~`` as the home folder, SQLAlchemy
    opened ``~/study.db`` from the working folder (a folder named ``~``): two files. One URL
    now, the home's file."""
    from bench.benchmark.study import sqlite_home

    monkeypatch.setenv("HOME", str(tmp_path))
    assert sqlite_home("sqlite:///~/study.db") == f"sqlite:///{tmp_path}/study.db"
    for url in ("sqlite:////abs/study.db", "sqlite:///rel/~study.db",
                "postgresql://u@h/~db", "sqlite:///:memory:"):
        assert sqlite_home(url) == url


def test_per_query_with_a_windows_separator_is_refused_and_nothing_written(tmp_path: Path) -> None:
    """``--per-query data\\pq.csv`` (typed on a Windows share): POSIX reads the backslash as
    part of one name, and a file ``data\\pq.csv`` appeared in the working folder, exit 0."""
    _trec(tmp_path / "data")
    res = cli(tmp_path, "evaluate", "--qrels", "data/q.txt", "--run", "data/r.txt",
              "--per-query", "data\\pq.csv")
    _refused(res, "--per-query", "backslash", "'/'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["q.txt", "r.txt"]


def test_run_out_with_a_windows_path_is_refused_before_any_work(tmp_path: Path) -> None:
    letor_folder(tmp_path / "data")
    res = cli(tmp_path, "run", "--dataset", "data", "--models", "random", "--quick",
              "--out", "C:\\results\\bench")
    _refused(res, "--out", "backslash")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_run_out_named_with_a_leading_dash_says_how_to_pass_it(tmp_path: Path) -> None:
    res = cli(tmp_path, "run", "--dataset", "synthetic", "--out", "-results")
    assert res.status == 2
    assert not res.traceback
    assert "--out=-" in res.err, res.err
    assert list(tmp_path.iterdir()) == []


def test_report_out_that_is_the_run_it_reads_is_named_as_typed(tmp_path: Path) -> None:
    src = next((ROOT / "results" / "runs").glob("synthetic-*"))
    run = tmp_path / "res" / "runs" / src.name
    shutil.copytree(src, run)
    before = {p.name: _ident(p) for p in run.iterdir() if p.is_file()}
    typed = f"./res/runs/../runs/{src.name}//"
    res = cli(tmp_path, "report", "--runs", f"res/runs/{src.name}", "--out", typed)
    _refused(res, f"--out {typed!r}", src.name)
    assert {p.name: _ident(p) for p in run.iterdir() if p.is_file()} == before
