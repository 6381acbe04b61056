"""Round 8b: the dataset catalogue against a hostile cache folder and hostile archives.

Before this round: a zip member that is a symbolic link (or a device) was written as a regular
file holding the link's target; a zip bomb was unpacked until the disk filled (no check of the
declared size); a tar member that is a device was refused as "not a tar.gz archive" (the
extraction filter's error, not naming what was wrong). Fetches run from ``file://`` archives
built in the test (no network); the other cases were already handled and are kept as a guard.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from hostile_kit import toy_ratings_card

from bench.datasets.catalogue import Card
from bench.datasets.fetch import data_dirs, fetch, verify
from bench.errors import ConfigError, DataError

FILES = {"ratings.csv": b"userId,movieId,rating,timestamp\n1,1,4.0,10\n"}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _card(**kw: object) -> Card:
    card: Card = toy_ratings_card(FILES, **kw)
    return card


def _zip(tmp: Path, extra: list[zipfile.ZipInfo | tuple[zipfile.ZipInfo, bytes]]) -> Path:
    path = tmp / "toy.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in FILES.items():
            zf.writestr(f"toy/{name}", data)
        for item in extra:
            info, data = item if isinstance(item, tuple) else (item, b"")
            zf.writestr(info, data)
    return path


def _fetch(tmp: Path, source: Path, **kw: object) -> Path:
    card = _card(url=source.as_uri(), archive_sha256="unknown", **kw)
    return fetch(card, data_dir=tmp / "data", progress=False, log=lambda _m: None)


def _mode_info(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    return info


def test_a_clean_archive_is_fetched(tmp_path: Path) -> None:
    folder = _fetch(tmp_path, _zip(tmp_path, []))
    assert (folder / "ratings.csv").read_bytes() == FILES["ratings.csv"]


def test_a_zip_member_that_is_a_symlink_is_refused_not_written_as_a_file(tmp_path: Path) -> None:
    link = (_mode_info("toy/movies.csv", stat.S_IFLNK | 0o777), b"/etc/passwd")
    with pytest.raises(DataError, match=r"'toy/movies.csv' is a symbolic link"):
        _fetch(tmp_path, _zip(tmp_path, [link]))
    assert not (tmp_path / "data" / "toy").exists()


def test_a_zip_member_that_is_a_device_is_refused(tmp_path: Path) -> None:
    dev = _mode_info("toy/null", stat.S_IFCHR | 0o666)
    with pytest.raises(DataError, match=r"'toy/null' is a device"):
        _fetch(tmp_path, _zip(tmp_path, [dev]))


def test_a_zip_bomb_is_refused_by_its_declared_size_before_unpacking(tmp_path: Path) -> None:
    bomb = (zipfile.ZipInfo("toy/zeros.txt"), b"\0" * (8 << 20))  # 8 MiB packs to ~8 KiB
    bomb[0].compress_type = zipfile.ZIP_DEFLATED
    with pytest.raises(DataError, match=r"'toy/zeros.txt' unpacks .* zip bomb"):
        _fetch(tmp_path, _zip(tmp_path, [bomb]))
    assert not any((tmp_path / "data").rglob("zeros.txt"))


def test_an_archive_larger_than_the_free_space_is_refused(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage",
                        lambda p: real(p)._replace(free=10))  # type: ignore[attr-defined]
    with pytest.raises(DataError, match=r"declares \d+ bytes unpacked.*10 bytes free"):
        _fetch(tmp_path, _zip(tmp_path, []))


@pytest.mark.parametrize("name", ["../evil.txt", "/abs/evil.txt", "toy/../../evil.txt",
                                  "C:/evil.txt", "toy\\..\\..\\evil.txt"])
def test_zip_slip_members_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(DataError, match=r"outside the folder"):
        _fetch(tmp_path, _zip(tmp_path, [(zipfile.ZipInfo(name), b"x")]))
    assert not (tmp_path / "evil.txt").exists()


def _tar(tmp: Path, member: tarfile.TarInfo) -> Path:
    path = tmp / "toy.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        for name, data in FILES.items():
            info = tarfile.TarInfo(f"toy/{name}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        tf.addfile(member)
    return path


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_a_tar_member_that_is_a_device_or_fifo_is_refused_by_name(tmp_path: Path,
                                                                 kind: bytes) -> None:
    info = tarfile.TarInfo("toy/dev")
    info.type = kind
    with pytest.raises(DataError, match=r"'toy/dev' is a device, FIFO"):
        _fetch(tmp_path, _tar(tmp_path, info), archive="toy.tar.gz", archive_format="tar.gz")


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_a_tar_member_that_is_a_link_is_refused(tmp_path: Path, kind: bytes) -> None:
    info = tarfile.TarInfo("toy/link")
    info.type, info.linkname = kind, "/etc/passwd"
    with pytest.raises(DataError, match=r"'toy/link' is a link"):
        _fetch(tmp_path, _tar(tmp_path, info), archive="toy.tar.gz", archive_format="tar.gz")


def _present(tmp: Path, data: bytes) -> Card:
    folder = tmp / "data" / "toy"
    folder.mkdir(parents=True)
    (folder / "ratings.csv").write_bytes(data)
    return _card()


def test_verify_names_a_tampered_file(tmp_path: Path) -> None:
    card = _present(tmp_path, FILES["ratings.csv"].replace(b"4.0", b"5.0"))
    report = verify(card, data_dir=tmp_path / "data")
    assert not report.ok
    assert report.files[0].status == "mismatch"


def test_verify_names_a_half_downloaded_file(tmp_path: Path) -> None:
    card = _present(tmp_path, FILES["ratings.csv"][:10])
    assert verify(card, data_dir=tmp_path / "data").files[0].status == "mismatch"


def test_a_fetch_over_a_tampered_copy_refuses_without_force(tmp_path: Path) -> None:
    card = _present(tmp_path, b"tampered")
    with pytest.raises(DataError, match=r"does not match its card: ratings.csv \(mismatch\)"):
        fetch(replace(card, url=_zip(tmp_path, []).as_uri()), data_dir=tmp_path / "data",
              progress=False, log=lambda _m: None)


def test_a_dangling_symlink_in_the_cache_is_missing_not_a_traceback(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "toy"
    folder.mkdir(parents=True)
    os.symlink(tmp_path / "nowhere.csv", folder / "ratings.csv")
    assert verify(_card(), data_dir=tmp_path / "data").files[0].status == "missing"


def test_a_symlink_to_a_good_file_elsewhere_verifies_by_content(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.csv"
    elsewhere.write_bytes(FILES["ratings.csv"])
    folder = tmp_path / "data" / "toy"
    folder.mkdir(parents=True)
    os.symlink(elsewhere, folder / "ratings.csv")
    assert verify(_card(), data_dir=tmp_path / "data").ok


def test_a_cache_dir_that_is_a_file_is_a_config_error(tmp_path: Path) -> None:
    f = tmp_path / "cache"
    f.write_text("x")
    with pytest.raises(ConfigError, match=r"is not a folder"):
        data_dirs(str(f))


def test_ltrbench_data_dir_with_empty_entries_and_duplicates(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    monkeypatch.setenv("LTRBENCH_DATA_DIR", os.pathsep.join(["", str(a), "", str(b), str(a)]))
    assert data_dirs() == [a, b]


def test_ltrbench_data_dir_of_separators_only_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTRBENCH_DATA_DIR", os.pathsep * 3)
    with pytest.raises(ConfigError, match=r"names no folder"):
        data_dirs()


def test_a_nonexistent_data_dir_searches_and_finds_nothing(tmp_path: Path) -> None:
    assert verify(_card(), data_dir=tmp_path / "missing").folder is None


def test_a_broken_symlink_where_the_dataset_folder_goes_is_refused_before_download(
        tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "toy").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ConfigError, match=r"broken symbolic link .*nowhere"):
        _fetch(tmp_path, _zip(tmp_path, []))
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["toy"]  # no staging left


def test_a_symlink_to_a_folder_elsewhere_is_a_present_dataset(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "ratings.csv").write_bytes(FILES["ratings.csv"])
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "toy").symlink_to(elsewhere)
    assert _fetch(tmp_path, _zip(tmp_path, [])) == tmp_path / "data" / "toy"


@pytest.mark.parametrize("kind", ["device", "fifo", "folder"])
def test_a_url_that_is_not_a_regular_file_is_refused_before_reading(tmp_path: Path,
                                                                    kind: str) -> None:
    source = {"device": Path("/dev/zero"), "fifo": tmp_path / "toy.zip",
              "folder": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(source)
    card = _card(url="http://127.0.0.1:9/toy.zip")  # never reached
    for url in (str(source), source.as_uri()):
        with pytest.raises(ConfigError, match=r"is not a regular file"):
            fetch(card, url=url, data_dir=tmp_path / "data", progress=False, log=lambda _m: None)


def test_a_download_beyond_the_cards_archive_size_stops(tmp_path: Path) -> None:
    good = _zip(tmp_path, [])
    size = good.stat().st_size
    longer = tmp_path / "longer.zip"
    longer.write_bytes(good.read_bytes() + b"\0" * 1000)
    with pytest.raises(DataError, match=rf"passed the card's archive size, {size:,} bytes"):
        _fetch(tmp_path, longer, archive_size=size)
    assert [p.name for p in (tmp_path / "data").iterdir()] == []  # the staging folder removed
