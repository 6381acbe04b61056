"""Data directory, fetch (local HTTP server and file:// URLs), verify, and the datasets command."""

from __future__ import annotations

import argparse
import functools
import hashlib
import http.server
import io
import json
import os
import shutil
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import bench.datasets.fetch as fetch_mod
from bench.commands import datasets as datasets_cmd
from bench.data.hashing import sha256_file
from bench.datasets.catalogue import Card, get_card
from bench.datasets.fetch import (
    ENV_VAR,
    FETCH_RECORD,
    data_dirs,
    fetch,
    find_dataset,
    primary_data_dir,
    verify,
)
from bench.errors import ConfigError, DataError

FILES = {"ratings.csv": b"userId,movieId,rating,timestamp\n1,2,3.5,100\n",
         "movies.csv": b"movieId,title,genres\n2,Heat (1995),Action\n"}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _zip(files: dict[str, bytes], root: str = "toy") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(f"{root}/{name}" if root else name, data)
    return buf.getvalue()


def _tar_gz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _card(**kw: object) -> Card:
    base = Card(name="toy", title="Toy", kind="ratings", loader="movielens", homepage="http://x",
                size="2 files", licence="test data", citation="none", dir="toy",
                archive_format="zip", archive="toy.zip", archive_root="toy",
                files={k: _sha(v) for k, v in FILES.items()})
    return replace(base, **kw)  # type: ignore[arg-type]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A local HTTP server on 127.0.0.1 serving ``root`` from a thread (stopped after the test)."""
    root = tmp_path / "served"
    root.mkdir()
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh data directory; no other folder is searched."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    d = tmp_path / "data"
    return d


# --------------------------------------------------------------------------- data directories


def test_data_dir_argument_beats_environment_beats_user_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("platformdirs.user_cache_dir", lambda app: str(tmp_path / "cache" / app))
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert primary_data_dir() == tmp_path / "cache" / "ltrbench"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env"))
    assert primary_data_dir() == tmp_path / "env"
    assert primary_data_dir(tmp_path / "arg") == tmp_path / "arg"


def test_folders_after_the_first_are_searched_read_only_after_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``a:b``: ``a`` is where data are written, ``b`` is searched after it (``os.pathsep``)."""
    mirror = tmp_path / "mirror"
    (mirror / "ml-latest-small").mkdir(parents=True)
    listed = os.pathsep.join([str(tmp_path / "mine"), "", str(mirror)])
    for how in ("env", "arg"):
        if how == "env":
            monkeypatch.setenv(ENV_VAR, listed)
            arg = None
        else:
            monkeypatch.setenv(ENV_VAR, str(tmp_path / "ignored"))
            arg = listed
        assert data_dirs(arg) == [tmp_path / "mine", mirror]
        assert primary_data_dir(arg) == tmp_path / "mine"
        assert find_dataset("ml-latest-small", data_dir=arg) == mirror / "ml-latest-small"


def test_data_dir_argument_replaces_the_whole_environment_list(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ENV_VAR, os.pathsep.join([str(tmp_path / "a"), str(tmp_path / "b")]))
    assert data_dirs(tmp_path / "arg") == [tmp_path / "arg"]


def test_no_folder_outside_the_data_directory_is_searched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The package names no workspace folder (``../shared/data`` was searched before): only the
    data directory, here the user cache, from the repository root and from its parent."""
    monkeypatch.setattr("platformdirs.user_cache_dir", lambda app: str(tmp_path / "cache" / app))
    monkeypatch.delenv(ENV_VAR, raising=False)
    for cwd in (fetch_mod.repo_root(), fetch_mod.repo_root().parent / "shared"):
        if cwd.is_dir():
            monkeypatch.chdir(cwd)
            assert data_dirs() == [tmp_path / "cache" / "ltrbench"]
            assert find_dataset("ml-latest-small") is None


def test_a_data_dir_of_separators_only_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=r"--data-dir '.' names no folder"):
        data_dirs(os.pathsep)
    monkeypatch.setenv(ENV_VAR, f" {os.pathsep} ")
    with pytest.raises(ConfigError, match=r"\$LTRBENCH_DATA_DIR .* names no folder"):
        primary_data_dir()


def test_a_later_folder_that_is_a_file_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    f = tmp_path / "not-a-folder"
    f.write_text("x")
    monkeypatch.setenv(ENV_VAR, os.pathsep.join([str(tmp_path / "mine"), str(f)]))
    with pytest.raises(ConfigError, match=r"\$LTRBENCH_DATA_DIR '.*not-a-folder' is not a folder"):
        data_dirs()


def test_sha256_file_matches_hashlib(tmp_path: Path) -> None:
    f = tmp_path / "blob"
    data = bytes(range(256)) * 9000  # more than one 1 MiB block
    f.write_bytes(data)
    assert sha256_file(f) == _sha(data)


# --------------------------------------------------------------------------- fetch


def test_fetch_over_http_verifies_unpacks_and_renames_into_place(
    server: tuple[str, Path], isolated: Path
) -> None:
    base, root = server
    archive = _zip(FILES)
    (root / "toy.zip").write_bytes(archive)
    card = _card(url=f"{base}/toy.zip", archive_sha256=_sha(archive), archive_size=len(archive))
    dest = fetch(card, data_dir=isolated, progress=False, log=lambda m: None)
    assert dest == isolated / "toy"
    assert {p.name for p in dest.iterdir()} == {*FILES, FETCH_RECORD}
    record = json.loads((dest / FETCH_RECORD).read_text())
    assert record["archive_sha256"] == _sha(archive)
    assert record["archive_verified"] is True
    assert [p.name for p in isolated.iterdir()] == ["toy"]  # no temporary folder left
    assert verify(card, data_dir=isolated).ok


def test_fetch_from_a_file_url_of_a_tar_gz(tmp_path: Path, isolated: Path) -> None:
    archive = _tar_gz({f"toy/{k}": v for k, v in FILES.items()})
    src = tmp_path / "toy.tar.gz"
    src.write_bytes(archive)
    card = _card(url=src.as_uri(), archive="toy.tar.gz", archive_format="tar.gz",
                 archive_sha256=_sha(archive))
    dest = fetch(card, data_dir=isolated, progress=False, log=lambda m: None)
    assert (dest / "ratings.csv").read_bytes() == FILES["ratings.csv"]


def test_sha256_mismatch_installs_nothing(server: tuple[str, Path], isolated: Path) -> None:
    base, root = server
    (root / "toy.zip").write_bytes(_zip(FILES))
    card = _card(url=f"{base}/toy.zip", archive_sha256="0" * 64)
    with pytest.raises(DataError, match=r"sha256 of toy\.zip is .* the card says 0000"):
        fetch(card, data_dir=isolated, progress=False, log=lambda m: None)
    assert list(isolated.iterdir()) == []


def test_unpacked_file_that_differs_from_the_card_installs_nothing(
    tmp_path: Path, isolated: Path
) -> None:
    archive = _zip({**FILES, "movies.csv": b"changed\n"})
    src = tmp_path / "toy.zip"
    src.write_bytes(archive)
    card = _card(url=src.as_uri(), archive_sha256="unknown")
    with pytest.raises(DataError, match=r"movies\.csv \(mismatch"):
        fetch(card, data_dir=isolated, progress=False, log=lambda m: None)
    assert list(isolated.iterdir()) == []


def test_archive_member_escaping_the_folder_is_refused(tmp_path: Path, isolated: Path) -> None:
    archive = _zip({"../evil.txt": b"x", **FILES}, root="")
    src = tmp_path / "toy.zip"
    src.write_bytes(archive)
    card = _card(url=src.as_uri(), archive_sha256=_sha(archive), archive_root="")
    with pytest.raises(DataError, match="outside the folder"):
        fetch(card, data_dir=isolated, progress=False, log=lambda m: None)
    assert not (tmp_path / "evil.txt").exists()
    assert list(isolated.iterdir()) == []


def test_missing_url_is_a_download_error(server: tuple[str, Path], isolated: Path) -> None:
    base, _ = server
    card = _card(url=f"{base}/nothing.zip", archive_sha256="unknown")
    with pytest.raises(DataError, match="could not download"):
        fetch(card, data_dir=isolated, progress=False, log=lambda m: None)
    assert list(isolated.iterdir()) == []


def test_per_file_downloads(server: tuple[str, Path], isolated: Path) -> None:
    base, root = server
    for name, data in FILES.items():
        (root / name).write_bytes(data)
    card = _card(archive_format="files", archive="",
                 file_urls={name: f"{base}/{name}" for name in FILES})
    dest = fetch(card, data_dir=isolated, progress=False, log=lambda m: None)
    assert (dest / "movies.csv").read_bytes() == FILES["movies.csv"]


def test_a_dataset_copied_by_hand_is_verified_not_downloaded(isolated: Path) -> None:
    folder = isolated / "toy"
    folder.mkdir(parents=True)
    for name, data in FILES.items():
        (folder / name).write_bytes(data)
    card = _card(url="http://127.0.0.1:9/unreachable.zip")  # would fail if it were used
    messages: list[str] = []
    assert fetch(card, data_dir=isolated, progress=False, log=messages.append) == folder
    assert "already present" in messages[0]
    (folder / "movies.csv").write_bytes(b"edited\n")
    with pytest.raises(DataError, match=r"does not match its card: movies\.csv \(mismatch\)"):
        fetch(card, data_dir=isolated, progress=False, log=messages.append)


def test_verify_reports_ok_mismatch_missing_and_absent(isolated: Path) -> None:
    card = _card(files={**_card().files, "tags.csv": "unknown", "links.csv": "f" * 64})
    assert verify(card, data_dir=isolated).folder is None
    folder = isolated / "toy"
    folder.mkdir(parents=True)
    (folder / "ratings.csv").write_bytes(FILES["ratings.csv"])
    (folder / "movies.csv").write_bytes(b"edited\n")
    (folder / "tags.csv").write_bytes(b"t\n")
    report = verify(card, data_dir=isolated)
    status = {f.path: f.status for f in report.files}
    assert status == {"ratings.csv": "ok", "movies.csv": "mismatch", "tags.csv": "unverified",
                      "links.csv": "missing"}
    assert not report.ok
    assert report.counts == {"ok": 1, "mismatch": 1, "missing": 1, "unverified": 1,
                             "foreign": 0}


def test_fetch_without_public_url_explains_the_manual_steps(isolated: Path) -> None:
    with pytest.raises(DataError, match="Webscope"):
        fetch("yahoo-ltr", data_dir=isolated, progress=False, log=lambda m: None)
    with pytest.raises(ConfigError, match="nothing to fetch"):
        fetch("synthetic", data_dir=isolated)


def test_real_lightgbm_card_fetched_from_a_local_mirror_archive(
    shared_data: Path, tmp_path: Path, isolated: Path
) -> None:
    src_dir = shared_data / "lightgbm-lambdarank"
    if not src_dir.is_dir():
        pytest.skip(f"{src_dir} is absent")
    card = get_card("lightgbm-lambdarank")
    mirror = tmp_path / "lightgbm-lambdarank.zip"
    mirror.write_bytes(_zip({n: (src_dir / n).read_bytes() for n in card.files},
                            root="lightgbm-lambdarank"))
    dest = fetch("lightgbm-lambdarank", url=str(mirror), data_dir=isolated, progress=False,
                 log=lambda m: None)
    report = verify("lightgbm-lambdarank", data_dir=isolated)
    assert report.folder == str(dest)
    assert report.ok
    assert report.counts["ok"] == 4


# --------------------------------------------------------------------------- the command


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ltrbench")
    datasets_cmd.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_command_verify_and_list_find_a_hand_copied_dataset(
    isolated: Path, capsys: pytest.CaptureFixture[str], shared_data: Path,
) -> None:
    src_dir = shared_data / "ml-latest-small"
    if not src_dir.is_dir():
        pytest.skip(f"{src_dir} is absent")
    shutil.copytree(src_dir, isolated / "ml-latest-small")
    assert _run(["datasets", "verify", "ml-latest-small", "--data-dir", str(isolated)]) == 0
    assert "OK: 5 ok, 0 mismatch, 0 missing" in capsys.readouterr().out
    assert _run(["datasets", "list", "--format", "json", "--data-dir", str(isolated)]) == 0
    listed = {r["name"]: r for r in json.loads(capsys.readouterr().out)["datasets"]}
    assert listed["ml-latest-small"]["present"] == str(isolated / "ml-latest-small")
    assert listed["ml-25m"]["present"] == "absent"
    assert listed["istella:s"]["kind"] == "letor"
    assert _run(["datasets", "verify", "ml-25m", "--data-dir", str(isolated)]) == 1
    assert "absent" in capsys.readouterr().out
    (isolated / "ml-latest-small" / "tags.csv").write_text("edited\n")
    assert _run(["datasets", "verify", "ml-latest-small", "--data-dir", str(isolated)]) == 1
    assert "mismatch   tags.csv" in capsys.readouterr().out


def test_command_fetch_refuses_an_archive_that_is_not_the_published_one(
    tmp_path: Path, isolated: Path
) -> None:
    archive = tmp_path / "ml-latest-small.zip"
    archive.write_bytes(_zip(FILES, root="ml-latest-small"))
    with pytest.raises(DataError, match="the card says 696d65a3"):
        _run(["datasets", "fetch", "ml-latest-small", "--url", str(archive),
              "--data-dir", str(isolated), "--no-progress"])
    assert list(isolated.iterdir()) == []


def test_command_list_table_and_info(capsys: pytest.CaptureFixture[str], isolated: Path) -> None:
    assert _run(["datasets", "list", "--data-dir", str(isolated)]) == 0
    out = capsys.readouterr().out
    for name in ("ml-latest-small", "mslr-web30k", "synthetic", "yahoo-ltr:set2"):
        assert name in out
    assert _run(["datasets", "info", "mslr-web10k"]) == 0
    out = capsys.readouterr().out
    assert "2902142ea33f18c59414f654212de5063033b707d5c3939556124b1120d3a0ba" in out
    assert _run(["datasets", "list", "--format", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("# Dataset catalogue")
