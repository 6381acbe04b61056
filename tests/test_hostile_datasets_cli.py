"""Hostile ``ltrbench datasets fetch`` and ``crosscheck-versions`` cases (issue 19): an archive given with ``--url`` that
lies in the folder the fetch replaces, a file where the dataset's folder goes. The right
behaviour: refused before any download, nothing touched.

Before: ``fetch --force --url <data>/<dataset>/copy.zip`` read the archive, then replaced the
folder holding it (the user's archive deleted, exit 0); a file named like the dataset's folder
was found "already existing" only after the whole download (and replaced with ``--force``).
"""

from __future__ import annotations

import dataclasses
import io
import zipfile
from pathlib import Path

import pytest

from bench.datasets.catalogue import UNKNOWN, get_card
from bench.datasets.fetch import fetch
from bench.errors import ConfigError

CLASSES = {
    "test_an_archive_inside_the_dataset_folder_is_not_deleted_by_fetch_force": "input destroyed",
    "test_a_file_where_the_dataset_folder_goes_is_refused_before_the_download": "input destroyed",
    "test_crosscheck_versions_cache_dir_that_is_a_file_or_empty_is_refused": "unclear error",
    "test_crosscheck_versions_alias_refuses_options_it_would_ignore": "silent accept",
}


def _card_and_archive(folder: Path) -> tuple[object, Path]:
    """ml-latest-small's card with no known digests, and a zip of one CSV for it."""
    card = dataclasses.replace(get_card("ml-latest-small"), archive_sha256=UNKNOWN, files={},
                               archive_root="")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("ratings.csv", "userId,movieId,rating,timestamp\n1,1,4.0,1\n")
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / "copy.zip"
    archive.write_bytes(buf.getvalue())
    return card, archive


def test_an_archive_inside_the_dataset_folder_is_not_deleted_by_fetch_force(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    card, archive = _card_and_archive(data / get_card("ml-latest-small").dir)
    before = archive.read_bytes()
    with pytest.raises(ConfigError, match="lies inside the dataset folder"):
        fetch(card, url=str(archive), data_dir=data, force=True, progress=False,
              log=lambda _m: None)
    assert archive.read_bytes() == before


def test_a_file_where_the_dataset_folder_goes_is_refused_before_the_download(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    card, archive = _card_and_archive(tmp_path / "elsewhere")
    mine = data / get_card("ml-latest-small").dir
    data.mkdir()
    mine.write_text("my notes\n")
    with pytest.raises(ConfigError, match="is a file where the dataset's folder goes"):
        fetch(card, url=str(archive), data_dir=data, force=True, progress=False,
              log=lambda _m: None)
    assert mine.read_text() == "my notes\n"


@pytest.mark.parametrize("cache", ["file", ""])
def test_crosscheck_versions_cache_dir_that_is_a_file_or_empty_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], cache: str) -> None:
    """Before: ``error: <file>/py3.11: Not a directory`` (the option not named), and ``''``
    made the environments in the working directory."""
    from bench import cli

    path = tmp_path / "afile"
    path.write_text("x\n")
    try:
        status = cli.main(["crosscheck-versions", "lightgbm==3.3.5", "--cache-dir",
                           str(path) if cache else "", "--out", str(tmp_path / "out")])
    except SystemExit as exc:  # an empty value: argparse's usage error
        status = int(exc.code or 0)
    err = capsys.readouterr().err
    assert status == 2
    assert "--cache-dir" in err
    assert path.read_text() == "x\n"


@pytest.mark.parametrize(("extra", "named"), [
    (["--dataset", "synthetic"], "--dataset"),
    (["--run", "results/runs/x"], "--run"),
    (["--metric", "map@10"], "--metric"),
    (["--models", "lightgbm", "--quick"], "--models, --quick"),
])
def test_crosscheck_versions_alias_refuses_options_it_would_ignore(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], named: str) -> None:
    """``crosscheck --versions lightgbm==installed --dataset synthetic`` checked the releases and
    said nothing about the dataset it never used."""
    from bench import cli

    status = cli.main(["crosscheck", "--versions", "lightgbm==installed", *extra,
                       "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    assert named in err
    assert not (tmp_path / "out").exists()
