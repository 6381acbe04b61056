"""Round 9: ``ltrbench datasets fetch / verify`` against archives round 8 did not try.

Before this round these ended in Python tracebacks (``fetch`` from a ``file://`` archive built
here, no network): a zip whose member is a file where another member needs a folder
(``NotADirectoryError``), a member flagged as encrypted (``RuntimeError``), a member packed by a
method Python cannot read (``NotImplementedError``), a truncated ``tar.gz`` (``EOFError``), a
member name longer than a file system takes (``OSError``); a ``tar.gz`` compression bomb was
unpacked (the 200:1 check covered zip members only); a ``tar.gz`` that is no archive printed
pyarrow-style multi-line reasons; ``datasets verify`` said "missing" of a file that is a folder or
a FIFO. Each is now one line naming the archive (or the file) and what was expected
(:mod:`bench.datasets.archives`).
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from bench.cli import main
from bench.datasets.catalogue import Card
from bench.datasets.fetch import fetch
from bench.errors import DataError

RATINGS = b"userId,movieId,rating,timestamp\n1,1,4.0,10\n"


def _card(**kw: object) -> Card:
    base = Card(name="toy", title="Toy", kind="ratings", loader="movielens", homepage="http://x",
                size="1 file", licence="test data", citation="none", dir="toy",
                archive_format="zip", archive="toy.zip", archive_root="toy",
                files={"ratings.csv": hashlib.sha256(RATINGS).hexdigest()})
    return replace(base, **kw)  # type: ignore[arg-type]


def _fetch(tmp: Path, source: Path, **kw: object) -> Path:
    card = _card(url=source.as_uri(), archive_sha256="unknown", **kw)
    return fetch(card, data_dir=tmp / "data", progress=False, log=lambda _m: None)


def _zip(tmp: Path, members: list[tuple[str, bytes]], *, stored: bool = False) -> Path:
    path = tmp / "toy.zip"
    how = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(path, "w", compression=how) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return path


def _tar(tmp: Path, members: list[tuple[str, bytes]]) -> Path:
    path = tmp / "toy.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def _no_staging_left(tmp: Path) -> bool:
    data = tmp / "data"
    return not data.exists() or not [p for p in data.iterdir() if p.name.startswith(".")]


def test_a_file_where_a_folder_goes_is_refused_naming_the_member(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"toy.zip: cannot unpack 'toy/ratings.csv': Not a "
                                        r"directory"):
        _fetch(tmp_path, _zip(tmp_path, [("toy", b"x"), ("toy/ratings.csv", RATINGS)]))
    assert _no_staging_left(tmp_path)


def _patched(path: Path, local: tuple[int, int], central: tuple[int, int]) -> Path:
    """Set a byte of the local header and of the central directory entry (offset, value|or)."""
    b = bytearray(path.read_bytes())
    i, j = b.find(b"PK\x03\x04"), b.find(b"PK\x01\x02")
    b[i + local[0]] = local[1] if local[0] == 8 else b[i + local[0]] | local[1]
    b[j + central[0]] = central[1] if central[0] == 10 else b[j + central[0]] | central[1]
    path.write_bytes(bytes(b))
    return path


def test_an_encrypted_member_is_refused_in_one_line(tmp_path: Path) -> None:
    source = _patched(_zip(tmp_path, [("toy/ratings.csv", RATINGS)]), (6, 1), (8, 1))
    with pytest.raises(DataError, match=r"toy.zip: cannot unpack a member: .*encrypted.*"
                                        r"expected a plain"):
        _fetch(tmp_path, source)


def test_a_member_packed_by_an_unknown_method_is_refused(tmp_path: Path) -> None:
    source = _patched(_zip(tmp_path, [("toy/ratings.csv", RATINGS)]), (8, 99), (10, 99))
    with pytest.raises(DataError, match=r"toy.zip: cannot unpack a member: That compression "
                                        r"method is not supported"):
        _fetch(tmp_path, source)


def test_a_truncated_tar_gz_is_refused_as_truncated(tmp_path: Path) -> None:
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/more.csv", bytes(range(256)) * 64)])
    source.write_bytes(source.read_bytes()[:source.stat().st_size // 2])
    with pytest.raises(DataError, match=r"toy.tar.gz: (the tar.gz archive is truncated|not a "
                                        r"tar.gz archive)"):
        _fetch(tmp_path, source, archive="toy.tar.gz", archive_format="tar.gz")


def test_a_tar_gz_that_is_a_zip_is_refused_on_one_line(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS)]).rename(tmp_path / "toy.tar.gz")
    with pytest.raises(DataError, match=r"not a tar.gz archive") as caught:
        _fetch(tmp_path, source, archive="toy.tar.gz", archive_format="tar.gz")
    assert "\n" not in str(caught.value)


def test_a_tar_gz_compression_bomb_is_refused_before_unpacking(tmp_path: Path) -> None:
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/zeros", bytes(8 << 20))])
    with pytest.raises(DataError, match=r"more than 200:1, a compression bomb; largest member "
                                        r"'toy/zeros'"):
        _fetch(tmp_path, source, archive="toy.tar.gz", archive_format="tar.gz")
    assert not list(tmp_path.rglob("zeros"))


def test_a_member_name_longer_than_a_file_system_takes_is_refused(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/" + "a" * 300, b"x")])
    with pytest.raises(DataError, match=r"a name part of 300 characters"):
        _fetch(tmp_path, source)


def test_a_member_name_with_a_line_end_is_refused(tmp_path: Path) -> None:
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/a\nb", b"x")])
    with pytest.raises(DataError, match=r"control character in its name"):
        _fetch(tmp_path, source, archive="toy.tar.gz", archive_format="tar.gz")


def test_a_clean_tar_gz_of_text_is_still_fetched(tmp_path: Path) -> None:
    text = b"".join(f"{i},{i % 7},{i % 5}.0,{1000 + i}\n".encode() for i in range(20000))
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/more.csv", text)])
    folder = _fetch(tmp_path, source, archive="toy.tar.gz", archive_format="tar.gz")
    assert (folder / "ratings.csv").read_bytes() == RATINGS


@pytest.mark.parametrize(("make", "said"), [
    (lambda f: f.mkdir(), "a folder, not a file"),
    (lambda f: os.mkfifo(f), "not a regular file"),
    (lambda f: f.symlink_to(f.parent / "gone"), "a link to nothing"),
], ids=["folder", "fifo", "dangling-link"])
def test_verify_says_what_stands_where_a_file_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        make: object, said: str) -> None:
    folder = tmp_path / "data" / "toy"
    folder.mkdir(parents=True)
    make(folder / "ratings.csv")  # type: ignore[operator]
    monkeypatch.setattr("bench.datasets.fetch.get_card", lambda _name: _card())
    assert main(["datasets", "verify", "toy", "--data-dir", str(tmp_path / "data")]) == 1
    out = capsys.readouterr().out
    assert f"missing    ratings.csv ({said}" in out


def test_the_command_checks_a_cards_archive_digest_before_unpacking_anything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _patched(_zip(tmp_path, [("ml-latest-small/ratings.csv", RATINGS)]), (6, 1), (8, 1))
    code = main(["datasets", "fetch", "ml-latest-small", "--url", str(source),
                 "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1
    assert "toy.zip" in err
    assert "nothing was installed" in err  # the card's digest: the members are never opened
    assert _no_staging_left(tmp_path)
