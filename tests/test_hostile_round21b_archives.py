"""Round 21b: an attacker (and a clumsy mirror operator) serving archives to ``datasets fetch``.

Every archive is built here with :mod:`zipfile` / :mod:`tarfile` and given as a ``file://``
URL (no network). Earlier rounds (8b, 9, 18, 19) covered zip slip, links, devices, one-member
bombs, encrypted / unknown-method members, truncated tar.gz, long and line-end names; these are
the cases they did not try. Each test's name starts with its class of issue 19 (traceback,
silent accept, silently wrong, unclear error, input destroyed) or says the behaviour it guards.
Oracles: :mod:`hashlib`, :mod:`zipfile` / :mod:`tarfile` and hand-counted sizes.

Before this round (29 of these 58 failed): two members of one name, or of names differing only in
letter case, Unicode form, ``./`` or ``//``, were unpacked with the last one winning (a card
without file digests installed the attacker's copy, even over a good one with ``--force``); a zip
of many members under 1 MiB each, of members declaring more packed bytes than the archive holds,
or of entries overlapping one deflate stream passed the 200:1 rule; a folder named like the fetch
record was a traceback; a bad CRC was "not a zip archive"; a name of 260 UTF-8 bytes was "130
characters (a file system takes 255)"; a card digest in capitals was "the download is corrupt";
a mirror in another format was logged as "the card has no sha256" and recorded under the card's
archive name (and its download was bound by nothing, not even the free space); a zip with ``\\``
in its names, or packed a folder too high, said only "missing".
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import stat
import struct
import tarfile
import unicodedata
import zipfile
import zlib
from pathlib import Path

import pytest
from hostile_kit import toy_ratings_card

from bench.cli import main
from bench.datasets.catalogue import Card
from bench.datasets.fetch import FETCH_RECORD, fetch, find_dataset, verify
from bench.errors import DataError

RATINGS = b"userId,movieId,rating,timestamp\n1,1,4.0,10\n"
EVIL = b"userId,movieId,rating,timestamp\n1,1,0.5,10\n"
Members = list[tuple[str, bytes]]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _card(**kw: object) -> Card:
    card: Card = toy_ratings_card({"ratings.csv": RATINGS}, **kw)
    return card


UNVOUCHED = {"ratings.csv": "unknown"}  # a card that knows no file digest (LETOR 4.0's cards)


def _zip(tmp: Path, members: Members, name: str = "toy.zip",
         how: int = zipfile.ZIP_DEFLATED) -> Path:
    path = tmp / name
    with zipfile.ZipFile(path, "w", compression=how) as zf:
        for member, data in members:
            twin = member.split("\0")[0] in zf.NameToInfo
            with pytest.warns(UserWarning, match="Duplicate name") if twin else _nothing():
                zf.writestr(member, data)
    return path


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: object) -> None:
        return None


def _info(name: str, data: bytes = b"", **kw: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for k, v in kw.items():
        setattr(info, k, v)
    return info


def _tar(tmp: Path, members: list[tuple[str | tarfile.TarInfo, bytes]],
         name: str = "toy.tar.gz", mode: str = "w:gz", **kw: object) -> Path:
    path = tmp / name
    with tarfile.open(path, mode, **kw) as tf:  # type: ignore[call-overload]
        for member, data in members:
            info = member if isinstance(member, tarfile.TarInfo) else _info(member, data)
            tf.addfile(info, io.BytesIO(data))
    return path


def _fetch(tmp: Path, source: Path, **kw: object) -> Path:
    fmt = "tar.gz" if source.name.endswith(".tar.gz") else "zip"
    kw = {"archive": source.name, "archive_format": fmt, **kw}
    card = _card(url=source.as_uri(), **kw)
    return fetch(card, data_dir=tmp / "data", progress=False, log=lambda _m: None)


def _nothing_left(tmp: Path) -> bool:
    """No dataset folder and no staging folder: nothing a later command would read."""
    data = tmp / "data"
    return not data.exists() or not list(data.iterdir())


def _refused(tmp: Path, source: Path, pattern: str, **kw: object) -> str:
    with pytest.raises(DataError, match=pattern) as caught:
        _fetch(tmp, source, **kw)
    assert "\n" not in str(caught.value)
    assert _nothing_left(tmp)
    assert find_dataset(_card(), data_dir=tmp / "data") is None
    return str(caught.value)


# --------------------------------------------------------------------------- names that collide


@pytest.mark.parametrize("fmt", ["zip", "tar.gz"])
@pytest.mark.parametrize("order", ["good-then-evil", "evil-then-good"])
def test_silent_accept_a_member_named_twice_is_refused_naming_it(tmp_path: Path, fmt: str,
                                                                  order: str) -> None:
    pair = [RATINGS, EVIL] if order == "good-then-evil" else [EVIL, RATINGS]
    members = [("toy/ratings.csv", d) for d in pair]
    source = _zip(tmp_path, members) if fmt == "zip" else _tar(tmp_path, members)  # type: ignore[arg-type]
    # unzip keeps the first, extractall the last: which one is the dataset is undecided
    _refused(tmp_path, source, r"'toy/ratings.csv' is in the archive twice", files=UNVOUCHED)


@pytest.mark.parametrize("fmt", ["zip", "tar.gz"])
def test_silent_accept_names_differing_only_in_letter_case_are_refused(tmp_path: Path,
                                                                       fmt: str) -> None:
    members = [("toy/ratings.csv", RATINGS), ("toy/Ratings.csv", EVIL)]
    source = _zip(tmp_path, members) if fmt == "zip" else _tar(tmp_path, members)  # type: ignore[arg-type]
    # on a case-blind disk (macOS, Windows) the second overwrites the first
    _refused(tmp_path, source, r"'toy/Ratings.csv' and 'toy/ratings.csv' differ only in "
                               r"letter case")


@pytest.mark.parametrize("fmt", ["zip", "tar.gz"])
def test_silent_accept_names_differing_only_in_unicode_form_are_refused(tmp_path: Path,
                                                                        fmt: str) -> None:
    nfc, nfd = "toy/caf\u00e9.csv", "toy/cafe\u0301.csv"
    assert unicodedata.normalize("NFC", nfd) == nfc
    assert nfc != nfd
    members = [("toy/ratings.csv", RATINGS), (nfc, b"a"), (nfd, b"b")]
    source = _zip(tmp_path, members) if fmt == "zip" else _tar(tmp_path, members)  # type: ignore[arg-type]
    _refused(tmp_path, source, r"differ only in .*Unicode")


def test_silent_accept_a_name_cut_at_a_nul_into_a_card_file_is_a_twin(tmp_path: Path) -> None:
    # zipfile cuts a name at NUL: 'toy/ratings.csv\0.txt' is read as 'toy/ratings.csv'
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/ratings.csv\0.txt", EVIL)])
    assert [i.filename for i in zipfile.ZipFile(source).infolist()] == ["toy/ratings.csv"] * 2
    _refused(tmp_path, source, r"'toy/ratings.csv' is in the archive twice", files=UNVOUCHED)


def test_a_member_named_twice_in_other_folders_is_no_twin(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/old/ratings.csv", EVIL)])
    folder = _fetch(tmp_path, source)
    assert (folder / "ratings.csv").read_bytes() == RATINGS
    assert (folder / "old" / "ratings.csv").read_bytes() == EVIL


def test_a_folder_entry_and_its_files_are_no_twins(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/", b""), ("toy/ratings.csv", RATINGS)])
    assert (_fetch(tmp_path, source) / "ratings.csv").read_bytes() == RATINGS


# --------------------------------------------------------------------------- the fetch record


def test_traceback_a_folder_named_like_the_fetch_record_is_refused(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), (f"toy/{FETCH_RECORD}/x", b"x")])
    _refused(tmp_path, source, rf"{FETCH_RECORD}.*is not a file")


def _command_error(tmp: Path, source: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> str:
    """``ltrbench datasets fetch toy --url SOURCE`` (the toy card): exit 2, its one error line."""
    monkeypatch.setattr("bench.datasets.fetch.get_card", lambda _name: _card(files=UNVOUCHED))
    code = main(["datasets", "fetch", "toy", "--url", str(source), "--data-dir",
                 str(tmp / "data"), "--no-progress"])
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 2, err
    assert len(errors) == 1, err
    assert "Traceback" not in err
    assert _nothing_left(tmp)
    assert source.exists()
    return errors[0]


def test_traceback_the_command_refuses_a_folder_named_like_the_record_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS), (f"toy/{FETCH_RECORD}/x", b"x")],
                  name="mirror.tar.gz")
    said = _command_error(tmp_path, source, monkeypatch, capsys)
    assert "mirror.tar.gz" in said
    assert FETCH_RECORD in said


def test_a_record_file_packed_by_a_mirror_is_replaced_by_the_fetchs_own(tmp_path: Path) -> None:
    forged = json.dumps({"name": "toy", "files": {"ratings.csv": _sha(EVIL)}}).encode()
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), (f"toy/{FETCH_RECORD}", forged)])
    folder = _fetch(tmp_path, source)
    record = json.loads((folder / FETCH_RECORD).read_text(encoding="utf-8"))
    assert record["files"] == {"ratings.csv": _sha(RATINGS)}
    assert record["archive_sha256"] == _sha(source.read_bytes())


# --------------------------------------------------------------------------- resource abuse


def test_silent_accept_a_bomb_of_many_small_members_is_refused_before_unpacking(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 16 members of 1 MiB of zeros (each under the 1 MiB ratio floor) pack to ~16 KiB: 1000:1
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS),
                             *((f"toy/z{i}", bytes(1 << 20)) for i in range(16))])
    total = sum(i.file_size for i in zipfile.ZipFile(source).infolist())
    packed = source.stat().st_size
    assert total > 200 * packed  # the documented limit, by hand
    monkeypatch.setattr(zipfile.ZipFile, "extractall",
                        lambda *a, **k: pytest.fail("unpacked a 1000:1 archive"))
    said = _refused(tmp_path, source, r"more than 200:1")
    assert f"{total:,}" in said
    assert f"{packed:,}" in said


def test_a_text_archive_of_many_small_members_is_still_fetched(tmp_path: Path) -> None:
    text = b"".join(f"{i},{i % 7},{i % 5}.0,{1000 + i}\n".encode() for i in range(3000))
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS),
                             *((f"toy/part{i}.csv", text) for i in range(8))])
    assert len(list(_fetch(tmp_path, source).glob("part*.csv"))) == 8


def _lie_packed_size(source: Path, member: str, size: int) -> Path:
    """Set ``member``'s compressed size in its local header and its central directory entry."""
    info = zipfile.ZipFile(source).getinfo(member)
    raw = bytearray(source.read_bytes())
    struct.pack_into("<I", raw, info.header_offset + 18, size)
    central = raw.find(b"PK\x01\x02" + raw[info.header_offset + 4:info.header_offset + 6])
    while raw[central + 46:central + 46 + len(member)] != member.encode():
        central = raw.find(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", raw, central + 20, size)
    source.write_bytes(bytes(raw))
    return source


def test_unclear_a_member_declaring_more_packed_bytes_than_the_archive_holds_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 8 MiB of zeros packed to ~8 KiB, declared as packed to 8 MiB: the 200:1 check saw 1:1
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/zeros", bytes(8 << 20))])
    _lie_packed_size(source, "toy/zeros", 8 << 20)
    monkeypatch.setattr(zipfile.ZipFile, "extractall",
                        lambda *a, **k: pytest.fail("unpacked an archive whose headers lie"))
    said = _refused(tmp_path, source, r"'toy/zeros' declares 8,388,608 packed bytes")
    assert f"{source.stat().st_size:,}" in said


def test_unclear_a_zip_member_with_a_wrong_crc_is_called_damaged_not_no_zip(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS)], how=zipfile.ZIP_STORED)
    raw = source.read_bytes()
    source.write_bytes(raw.replace(b"4.0,10", b"5.0,10"))  # stored bytes edited, CRC kept
    said = _refused(tmp_path, source, r"damaged.*'toy/ratings.csv'.*download it again")
    assert "not a zip archive" not in said


def test_a_member_declaring_fewer_bytes_than_it_holds_writes_no_more_than_declared(
        tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/big", bytes(range(256)) * 64)])
    info = zipfile.ZipFile(source).getinfo("toy/big")
    raw = bytearray(source.read_bytes())
    struct.pack_into("<I", raw, info.header_offset + 22, 10)  # local uncompressed size
    central = raw.rfind(b"PK\x01\x02")
    struct.pack_into("<I", raw, central + 24, 10)
    source.write_bytes(bytes(raw))
    _refused(tmp_path, source, r"damaged.*'toy/big'")


def test_unclear_a_zip_cut_in_half_says_the_archive_is_incomplete(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/b", bytes(range(256)) * 40)])
    source.write_bytes(source.read_bytes()[: source.stat().st_size // 2])
    _refused(tmp_path, source, r"not a zip archive")


def test_a_partial_download_given_as_a_part_file_is_read_in_the_cards_format(
        tmp_path: Path) -> None:
    whole = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/b", bytes(range(256)) * 40)])
    part = tmp_path / "toy.zip.part"
    part.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    card = _card(url=part.as_uri())
    with pytest.raises(DataError, match=r"toy.zip.part|toy.zip"):
        fetch(card, data_dir=tmp_path / "data", progress=False, log=lambda _m: None)
    assert _nothing_left(tmp_path)


def test_a_partial_download_is_refused_by_the_cards_archive_digest(tmp_path: Path) -> None:
    whole = _zip(tmp_path, [("toy/ratings.csv", RATINGS)])
    digest = _sha(whole.read_bytes())
    whole.write_bytes(whole.read_bytes()[:-30])
    _refused(tmp_path, whole, rf"the card says {digest}: .*nothing was installed",
             archive_sha256=digest)


def test_a_zip_whose_local_name_differs_from_its_directory_is_refused(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS)])
    raw = bytearray(source.read_bytes())
    local = raw.find(b"toy/ratings.csv")  # the local header's copy comes first
    raw[local:local + 15] = b"../ratings.csv\0"[:15]
    source.write_bytes(bytes(raw))
    _refused(tmp_path, source, r"toy.zip: .*zip")
    assert not (tmp_path / "ratings.csv").exists()


def test_a_zip_given_as_a_tar_gz_is_refused_naming_the_format(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS)], name="toy.zip.tmp")
    source = source.rename(tmp_path / "toy.tar.gz")
    _refused(tmp_path, source, r"not a tar.gz archive")


def test_a_tar_gz_given_as_a_zip_is_refused_naming_the_format(tmp_path: Path) -> None:
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS)]).rename(tmp_path / "toy.zip")
    _refused(tmp_path, source, r"not a zip archive")


def test_a_plain_tar_named_tar_gz_is_read_as_the_tar_it_is(tmp_path: Path) -> None:
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS)], mode="w")
    assert source.read_bytes()[:2] != b"\x1f\x8b"
    assert (_fetch(tmp_path, source) / "ratings.csv").read_bytes() == RATINGS


def test_a_tar_gz_compressed_twice_is_refused_in_one_line(tmp_path: Path) -> None:
    inner = _tar(tmp_path, [("toy/ratings.csv", RATINGS)])
    twice = tmp_path / "twice.tar.gz"
    twice.write_bytes(gzip.compress(inner.read_bytes()))
    _refused(tmp_path, twice, r"twice.tar.gz: not a tar.gz archive")


def test_a_gzip_header_naming_a_file_outside_writes_nothing_there(tmp_path: Path) -> None:
    body = _tar(tmp_path, [("toy/ratings.csv", RATINGS)], mode="w").read_bytes()
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    source = tmp_path / "named.tar.gz"  # FLG.FNAME set: the header names '../../evil.csv'
    source.write_bytes(b"\x1f\x8b\x08\x08\0\0\0\0\0\xff../../evil.csv\0"
                       + packer.compress(body) + packer.flush()
                       + struct.pack("<II", zlib.crc32(body), len(body)))
    assert gzip.decompress(source.read_bytes()) == body
    folder = _fetch(tmp_path, source)
    assert (folder / "ratings.csv").read_bytes() == RATINGS
    assert not list(tmp_path.rglob("evil.csv"))


def test_a_tar_gz_bomb_of_many_small_members_is_refused_before_unpacking(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS),
                             *((f"toy/z{i}", bytes(256 << 10)) for i in range(16))])
    monkeypatch.setattr(tarfile.TarFile, "extractall",
                        lambda *a, **k: pytest.fail("unpacked a 1000:1 archive"))
    _refused(tmp_path, source, r"more than 200:1")


# --------------------------------------------------------------------------- members' kinds


def test_a_tar_member_with_a_pax_path_outside_is_refused(tmp_path: Path) -> None:
    info = _info("toy/fine.csv", b"x", pax_headers={"path": "../../evil.csv"})
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS), (info, b"x")],
                  format=tarfile.PAX_FORMAT)
    _refused(tmp_path, source, r"'../../evil.csv' would be written outside the folder")
    assert not list(tmp_path.rglob("evil.csv"))


def test_a_tar_member_of_an_unknown_type_is_refused_by_name(tmp_path: Path) -> None:
    info = _info("toy/odd", b"", type=b"Z")
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS), (info, b"")])
    _refused(tmp_path, source, r"'toy/odd' is a device, FIFO or other special file")


@pytest.mark.parametrize("mode", [0o000, 0o4777, 0o2755])
def test_a_tar_file_member_mode_gives_an_owner_readable_plain_file(tmp_path: Path,
                                                                   mode: int) -> None:
    source = _tar(tmp_path, [(_info("toy/ratings.csv", RATINGS, mode=mode), RATINGS)])
    got = (_fetch(tmp_path, source) / "ratings.csv").stat().st_mode
    assert got & stat.S_IRUSR
    assert not got & (stat.S_ISUID | stat.S_ISGID | stat.S_IWOTH)


def test_a_tar_folder_member_of_mode_000_leaves_a_readable_folder_and_no_staging(
        tmp_path: Path) -> None:
    folder_member = _info("toy", type=tarfile.DIRTYPE, mode=0)
    source = _tar(tmp_path, [(folder_member, b""), ("toy/ratings.csv", RATINGS)])
    folder = _fetch(tmp_path, source)
    assert (folder / "ratings.csv").read_bytes() == RATINGS
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["toy"]


def test_a_zip_member_mode_000_gives_a_readable_file(tmp_path: Path) -> None:
    info = zipfile.ZipInfo("toy/ratings.csv")
    info.external_attr = (stat.S_IFREG | 0o000) << 16
    source = tmp_path / "toy.zip"
    with zipfile.ZipFile(source, "w") as zf:
        zf.writestr(info, RATINGS)
    assert (_fetch(tmp_path, source) / "ratings.csv").read_bytes() == RATINGS


def test_unclear_a_name_of_260_utf8_bytes_is_counted_in_bytes(tmp_path: Path) -> None:
    name = "\u00e9" * 130  # 130 characters, 260 bytes: over NAME_MAX though under 255 characters
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), (f"toy/{name}", b"x")])
    said = _refused(tmp_path, source, r"260 bytes")
    assert "130 characters (a file system takes 255" not in said


def test_a_name_of_fullwidth_dots_stays_inside_the_folder(tmp_path: Path) -> None:
    name = "toy/\uff0e\uff0e/evil.csv"  # not '..' to any file system
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), (name, b"x")])
    folder = _fetch(tmp_path, source)
    assert (folder / "\uff0e\uff0e" / "evil.csv").read_bytes() == b"x"
    assert not list(tmp_path.rglob("evil.csv"))[1:]


def test_unclear_a_windows_zip_with_backslash_names_says_so(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy\\ratings.csv", RATINGS)])
    said = _refused(tmp_path, source, r"ratings.csv \(missing\)")
    assert "'toy\\\\ratings.csv'" in said
    assert "'\\\\'" in said


def test_an_archive_of_no_member_installs_nothing(tmp_path: Path) -> None:
    _refused(tmp_path, _zip(tmp_path, []), r"ratings.csv \(missing\)")


# --------------------------------------------------------------------------- digests and formats


def test_silently_wrong_an_upper_case_card_archive_digest_is_the_same_digest(
        tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS)])
    digest = _sha(source.read_bytes()).upper()
    folder = _fetch(tmp_path, source, archive_sha256=digest)  # said "the download is corrupt"
    assert (folder / "ratings.csv").read_bytes() == RATINGS


def test_silently_wrong_a_card_file_digest_in_capitals_with_spaces_verifies(
        tmp_path: Path) -> None:
    files = {"ratings.csv": f" {_sha(RATINGS).upper()}\n"}
    folder = _fetch(tmp_path, _zip(tmp_path, [("toy/ratings.csv", RATINGS)]), files=files)
    report = verify(_card(files=files), data_dir=tmp_path / "data")
    assert report.ok
    assert report.files[0].status == "ok"
    assert folder.is_dir()


def test_an_upper_case_digest_of_other_bytes_is_still_a_mismatch(tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS)])
    _refused(tmp_path, source, r"the download is corrupt", archive_sha256=_sha(b"x").upper())


def _other_format(tmp: Path, log: list[str]) -> Path:
    mirror = _tar(tmp, [("toy/ratings.csv", RATINGS)], name="mirror.tar.gz")
    card = _card(url="http://127.0.0.1:9/toy.zip", archive_sha256=_sha(b"the published zip"))
    return fetch(card, url=str(mirror), data_dir=tmp / "data", progress=False, log=log.append)


def test_silently_wrong_a_mirror_in_another_format_is_not_said_to_lack_a_card_digest(
        tmp_path: Path) -> None:
    log: list[str] = []
    _other_format(tmp_path, log)
    said = " ".join(log)
    assert "the card has no sha256" not in said  # it has one: of its zip, not of this tar.gz
    assert "mirror.tar.gz" in said
    assert "toy.zip" in said


def test_silently_wrong_the_record_of_a_mirror_in_another_format_names_what_was_read(
        tmp_path: Path) -> None:
    folder = _other_format(tmp_path, [])
    record = json.loads((folder / FETCH_RECORD).read_text(encoding="utf-8"))
    assert record["archive"] == "mirror.tar.gz"  # was the card's "toy.zip"
    assert record["archive_verified"] is False
    assert record["archive_sha256"] == _sha((tmp_path / "mirror.tar.gz").read_bytes())


# --------------------------------------------------------------------------- what a refusal leaves


def test_input_destroyed_a_refused_force_fetch_keeps_the_previous_copy(tmp_path: Path) -> None:
    good = _zip(tmp_path, [("toy/ratings.csv", RATINGS)], name="good.zip")
    folder = _fetch(tmp_path, good)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    bad = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/ratings.csv", EVIL)],
               name="bad.zip")
    card = _card(url=bad.as_uri(), archive="bad.zip", files=UNVOUCHED)
    with pytest.raises(DataError, match=r"twice"):
        fetch(card, data_dir=tmp_path / "data", force=True, progress=False, log=lambda _m: None)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["toy"]


def test_an_interrupt_while_unpacking_leaves_no_staging_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(zipfile.ZipFile, "extractall", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _fetch(tmp_path, _zip(tmp_path, [("toy/ratings.csv", RATINGS)]))
    assert _nothing_left(tmp_path)


def test_a_staging_folder_left_by_a_killed_fetch_is_not_the_dataset(tmp_path: Path) -> None:
    stale = tmp_path / "data" / ".toy.fetch-abc123" / "extracted" / "toy"
    stale.mkdir(parents=True)
    (stale / "ratings.csv").write_bytes(RATINGS)
    assert find_dataset(_card(), data_dir=tmp_path / "data") is None
    assert verify(_card(), data_dir=tmp_path / "data").folder is None
    folder = _fetch(tmp_path, _zip(tmp_path, [("toy/ratings.csv", RATINGS)]))
    assert folder == tmp_path / "data" / "toy"


def test_verify_of_a_fetched_folder_with_one_byte_changed_names_the_file(tmp_path: Path) -> None:
    folder = _fetch(tmp_path, _zip(tmp_path, [("toy/ratings.csv", RATINGS)]))
    edited = bytearray(RATINGS)
    edited[-4] ^= 1
    (folder / "ratings.csv").write_bytes(bytes(edited))
    report = verify(_card(), data_dir=tmp_path / "data")
    assert [(f.path, f.status, f.actual) for f in report.files] == \
        [("ratings.csv", "mismatch", _sha(bytes(edited)))]


def test_the_command_refuses_a_twin_member_in_one_line_and_installs_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/ratings.csv", EVIL)],
                  name="mirror.tar.gz")
    said = _command_error(tmp_path, source, monkeypatch, capsys)
    assert "'toy/ratings.csv' is in the archive twice" in said
    assert "mirror.tar.gz" in said


def test_silent_accept_members_overlapping_one_deflate_stream_are_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # twelve directory entries, each named apart, all pointing at one member's packed bytes
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("toy/z", bytes(1 << 20))])
    raw = source.read_bytes()
    first, last, end = raw.find(b"PK\x01\x02"), raw.rfind(b"PK\x01\x02"), raw.rfind(b"PK\x05\x06")
    entries = b"".join(raw[last:end].replace(b"toy/z", f"toy/{c}".encode()) for c in "abcdefghijkl")
    tail = bytearray(raw[end:])
    struct.pack_into("<HHII", tail, 8, 13, 13, last - first + len(entries), first)
    source.write_bytes(raw[:last] + entries + bytes(tail))
    infos = zipfile.ZipFile(source).infolist()
    assert len({i.header_offset for i in infos}) == 2  # the oracle: 12 names, one stream
    monkeypatch.setattr(zipfile.ZipFile, "extractall",
                        lambda *a, **k: pytest.fail("unpacked overlapping members"))
    _refused(tmp_path, source, r"members overlap")


def test_silent_accept_a_case_twin_in_the_folder_part_of_the_name_is_refused(
        tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), ("TOY/ratings.csv", EVIL)])
    _refused(tmp_path, source, r"'TOY/ratings.csv' and 'toy/ratings.csv' differ only in letter")


def test_a_tar_gz_whose_gzip_checksum_is_wrong_is_called_damaged(tmp_path: Path) -> None:
    source = _tar(tmp_path, [("toy/ratings.csv", RATINGS)])
    raw = bytearray(source.read_bytes())
    raw[-6] ^= 0xFF  # a byte of the CRC-32 in the gzip trailer
    source.write_bytes(bytes(raw))
    _refused(tmp_path, source, r"the tar.gz archive is damaged .*download it again")


def test_input_destroyed_force_over_a_linked_dataset_folder_keeps_the_links_target(
        tmp_path: Path) -> None:
    shared = tmp_path / "shared-copy"
    shared.mkdir()
    (shared / "ratings.csv").write_bytes(RATINGS)
    (shared / "notes.txt").write_text("mine", encoding="utf-8")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "toy").symlink_to(shared)
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS)])
    card = _card(url=source.as_uri(), archive="toy.zip")
    folder = fetch(card, data_dir=tmp_path / "data", force=True, progress=False,
                   log=lambda _m: None)
    assert sorted(os.listdir(shared)) == ["notes.txt", "ratings.csv"]
    assert (shared / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert (folder / "ratings.csv").read_bytes() == RATINGS


@pytest.mark.parametrize("twin", ["toy/./ratings.csv", "toy//ratings.csv"])
def test_silent_accept_a_twin_spelled_with_a_dot_or_double_slash_is_refused(
        tmp_path: Path, twin: str) -> None:
    source = _zip(tmp_path, [("toy/ratings.csv", RATINGS), (twin, EVIL)])
    _refused(tmp_path, source, rf"'{twin}' is in the archive twice", files=UNVOUCHED)


def test_unclear_an_archive_packed_one_folder_too_high_says_where_the_files_are(
        tmp_path: Path) -> None:
    source = _zip(tmp_path, [("toy/toy/ratings.csv", RATINGS)])
    said = _refused(tmp_path, source, r"ratings.csv \(missing\)")
    assert "'toy/ratings.csv'" in said  # where it lies, below the card's archive_root 'toy'
    assert "a folder deeper" in said


def test_silent_accept_a_mirror_in_another_format_stops_at_the_free_space(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    # no archive size binds a tar.gz mirror of a zip card: an endless one filled the disk
    noise = hashlib.shake_256(b"seed").digest(4096)  # does not pack: the tar.gz is over 4 KB
    mirror = _tar(tmp_path, [("toy/ratings.csv", noise)], name="mirror.tar.gz")
    assert mirror.stat().st_size > 1000
    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage",
                        lambda p: real(p)._replace(free=1000))  # type: ignore[attr-defined]
    card = _card(url="http://127.0.0.1:9/toy.zip", archive_size=10**9)
    with pytest.raises(DataError, match=r"passed the 1,000 bytes free in .*stopped before the "
                                        r"disk is full"):
        fetch(card, url=str(mirror), data_dir=tmp_path / "data", progress=False,
              log=lambda _m: None)
    assert _nothing_left(tmp_path)
