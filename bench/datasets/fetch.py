"""The data directory, downloads and integrity verification.

Where datasets live (:func:`data_dirs`): the data directory, given by ``--data-dir`` (the
``data_dir`` argument), else the environment variable ``LTRBENCH_DATA_DIR``, else
``platformdirs.user_cache_dir("ltrbench")``. Either may list several folders separated by
:data:`os.pathsep` (``:`` on POSIX, as ``PATH`` does): the first is where :func:`fetch`, the parse
cache and generated datasets write; the others are searched after it, read only (a read-only copy
of the data shared between users, for example ``LTRBENCH_DATA_DIR=~/ltr:/mnt/ltr-data``). An
explicit ``--data-dir`` replaces ``$LTRBENCH_DATA_DIR`` as a whole.

A dataset is present when a folder named by its card (``dir`` or one of its ``aliases``) is in
one of these folders; a folder copied there by hand is found and verified, never downloaded
again. :func:`fetch` downloads into a temporary folder inside the data directory (never one
inside a dataset's own folder), checks the sha256 of the archive (or of each file) against the
card, unpacks zip / tar archives (refusing members that would land outside the folder), checks
the unpacked files' digests, then renames the folder into place (an atomic ``os.rename`` on one
file system); a failure removes the temporary folder. :func:`verify` recomputes the digests."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from bench.data.dataset_marks import refuse_dataset_data_dir
from bench.data.folder_names import refuse_windows_dirs
from bench.datasets.archives import extract, misplaced_files, nested_archives, windows_names
from bench.datasets.card_checks import fold_files
from bench.datasets.catalogue import UNKNOWN, Card, get_card
from bench.datasets.verify import (
    FETCH_RECORD,
    VerifyReport,
    card_mismatches,
    same_digest,
    verify_folder,
)
from bench.datasets.writable import writing_into
from bench.errors import ConfigError, DataError, home_expanded

ENV_VAR = "LTRBENCH_DATA_DIR"
_CHUNK = 1 << 20


# --------------------------------------------------------------------------- data directories


def repo_root() -> Path:
    """The folder holding the ``bench`` package (the repository root in a source checkout)."""
    return Path(__file__).resolve().parents[2]


def default_data_dir() -> Path:
    """``platformdirs.user_cache_dir("ltrbench")``: ``$XDG_CACHE_HOME/ltrbench`` (an absolute
    one), else ``~/.cache/ltrbench``. A batch job with no ``HOME``, no passwd entry for its
    user id and no data directory named got platformdirs' RuntimeError as a traceback."""
    import platformdirs

    try:
        return Path(platformdirs.user_cache_dir("ltrbench"))
    except RuntimeError:  # '~' cannot be expanded
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        said = f"XDG_CACHE_HOME {xdg!r} is not an absolute path (so it is ignored), " if xdg \
            else "XDG_CACHE_HOME is not set, "
        raise ConfigError(f"no data directory: {said}and the home folder is unknown (HOME is "
                          "not set and this user id has no passwd entry); name a writable "
                          f"folder with --data-dir or {ENV_VAR}, or set HOME") from None


def _listed(data_dir: str | os.PathLike[str] | None) -> tuple[list[Path], str]:
    """The folders of ``data_dir`` (else ``$LTRBENCH_DATA_DIR``; :data:`os.pathsep`-separated,
    empty entries skipped) and where they came from; ``[]`` when neither names one."""
    if data_dir is not None and str(data_dir).strip() != "":
        raw, where = os.fspath(data_dir), "--data-dir"
    else:
        raw, where = os.environ.get(ENV_VAR, ""), f"${ENV_VAR}"
    refuse_windows_dirs(raw, where)  # 'D:\\datasets' is no folder 'D' and '\\datasets'
    listed = [Path(home_expanded(x, where))  # '~nosuchuser/x', or no HOME: named
              for x in (p.strip() for p in raw.split(os.pathsep)) if x]
    if raw.strip() and not listed:
        raise ConfigError(f"{where} {raw!r} names no folder: expected the data directory, or "
                          f"folders separated by {os.pathsep!r} (the first one writable)")
    return listed, where


def primary_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where fetched datasets, the parse cache and generated datasets go: the first folder of
    ``data_dir``, else of ``$LTRBENCH_DATA_DIR``, else the user cache (created when missing)."""
    listed, where = _listed(data_dir)
    if listed:
        return _a_folder(listed[0], where)
    return _a_folder(default_data_dir(), "the default data directory ($XDG_CACHE_HOME/ltrbench, "
                     "else ~/.cache/ltrbench; set --data-dir or LTRBENCH_DATA_DIR)")


def _a_folder(path: Path, where: str) -> Path:
    """``path`` unless it exists and is not a folder: a data directory that is a file would
    find no dataset, silently."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{where} {os.fspath(path)!r} is not a folder: expected the data "
                          "directory (created when missing)")
    for link in (path, *path.parents):  # a link to a folder not mounted, or a link loop
        if os.path.islink(link) and not link.exists():
            raise ConfigError(f"{where} {os.fspath(path)!r}: {os.fspath(link)!r} is a symbolic "
                              f"link to nothing ({os.readlink(link)!r}, missing or a loop of "
                              "links): mount or create its target, or name another folder")
    above = next((p for p in path.parents if os.path.lexists(p)), None)
    if not path.exists() and above is not None and not above.is_dir():  # 'notes.txt/data'
        raise ConfigError(f"{where} {os.fspath(path)!r}: {os.fspath(above)!r} is a file, not a "
                          "folder, so the data directory cannot be created under it; expected "
                          "a folder (created when missing)")
    if where == f"${ENV_VAR}" and not path.is_absolute():  # as '.' in $PATH (README, Data)
        raise ConfigError(f"{where}: the entry {os.fspath(path)!r} is a relative path, read "
                          "from whatever folder a command runs in (a dataset placed there by "
                          "anyone would be read as yours, and --resume elsewhere finds another); "
                          f"expected absolute folders: write {os.fspath(Path.cwd() / path)!r}")
    return path


def data_dirs(data_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Every folder searched for datasets, the writable one first (see the module docstring).

    >>> import os
    >>> [str(p) for p in data_dirs(os.pathsep.join(["/tmp/mine", "", "/srv/ltr", "/tmp/mine"]))]
    ['/tmp/mine', '/srv/ltr']
    """
    listed, where = _listed(data_dir)
    out = [primary_data_dir(data_dir)]
    for d in listed[1:]:
        d = _a_folder(d, where)
        if not any(d == o or _same(d, o) for o in out):
            out.append(d)
    return out


def find_dataset(
    spec: str | Card, *, data_dir: str | os.PathLike[str] | None = None
) -> Path | None:
    """The folder of a dataset in the data directories, or ``None`` when it is absent."""
    card = spec if isinstance(spec, Card) else get_card(spec)
    if card.kind == "synthetic":
        return None
    for d in data_dirs(data_dir):
        for name in card.folder_names:
            cand = d / name
            if cand.is_dir():
                return cand
    return None


# --------------------------------------------------------------------------- verification


def verify(spec: str | Card, *, data_dir: str | os.PathLike[str] | None = None) -> VerifyReport:
    """Find a dataset and check its files' sha256 against the card, else against the fetch
    record's (:func:`bench.datasets.verify.verify_folder`; folder ``None`` if absent)."""
    card = spec if isinstance(spec, Card) else get_card(spec)
    if card.kind == "synthetic":
        return VerifyReport(name=card.spec, folder="(generated)", files=[])
    folder = find_dataset(card, data_dir=data_dir)
    if folder is None:
        return VerifyReport(name=card.spec, folder=None, files=[])
    more = fold_files(card, spec) if isinstance(spec, str) else {}
    return verify_folder(card, folder, more=more, recorded=True)


# --------------------------------------------------------------------------- fetch


def fetch(
    spec: str | Card,
    *,
    url: str | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    force: bool = False,
    progress: bool = True,
    timeout: float = 60.0,
    log: Callable[[str], None] | None = None,
) -> Path:
    """Make a dataset present in the data directory and return its folder.

    A dataset already present in any data directory is verified and returned without a
    download (unless ``force``). ``url`` overrides the card's URL (a mirror, a local path or a
    ``file://`` URL of the same archive); the card's digests are still checked. Datasets without
    a public URL (Yahoo, LETOR 4.0, OHSUMED) raise :class:`DataError` with the manual steps.
    """
    say = log or (lambda msg: print(msg, file=sys.stderr))
    card = spec if isinstance(spec, Card) else get_card(spec)
    if card.kind == "synthetic":
        raise ConfigError(f"{card.name!r} is generated by ltrbench: there is nothing to fetch")
    if not force and (existing := _present(card, data_dir, say)) is not None:
        return existing
    parent = primary_data_dir(data_dir)
    refuse_dataset_data_dir(parent)  # never among another dataset's files
    url, fmt = _source(card, url, data_dir)
    dest = parent / (card.dir or card.name)
    _check_source_apart(url, dest)
    with writing_into(parent, card.name):
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.fetch-", dir=parent))
    try:
        record: dict[str, object] = {
            "name": card.name,
            "variant": card.variant or None,
            "fetched_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        }
        root = _download_into(card, url, fmt, staging, record, progress=progress,
                              timeout=timeout, say=say)
        report = _verify_download(card, root, url)
        record["files"] = {f.path: f.actual for f in report.files}
        _clear_record(root, url)
        (root / FETCH_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        previous = staging / "previous"  # the copy --force replaces, put back on a failure
        try:
            if dest.exists():
                if not force:
                    return _fetched_meanwhile(card, dest, say)
                os.rename(dest, previous)
            os.rename(root, dest)
        except BaseException as exc:  # EIO, Ctrl-C: the earlier copy is never lost
            if os.path.lexists(previous) and not os.path.lexists(dest):
                os.rename(previous, dest)
            if force or not isinstance(exc, OSError) or not dest.is_dir():
                raise
            return _fetched_meanwhile(card, dest, say)  # another fetch renamed its copy in
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    say(f"{card.spec}: fetched into {dest}")
    return dest


def _fetched_meanwhile(card: Card, dest: Path, say: Callable[[str], None]) -> Path:
    """``dest``, which appeared while this fetch downloaded (another fetch renamed its copy in
    first), when it matches the card by the rule a present copy is held to (``card_mismatches``):
    this copy is dropped and that said; else a :class:`DataError` naming it (``--force``)."""
    _, bad = card_mismatches(card, dest)
    if not bad:
        say(f"{card.spec}: fetched meanwhile into {dest} by another process (it matches the "
            "card); this download is dropped")
        return dest
    raise DataError(f"folder already exists and does not match the card of {card.spec!r} "
                    f"({', '.join(bad[:5])}); fetch with --force to replace it", path=dest)


def _present(card: Card, data_dir: str | os.PathLike[str] | None,
             say: Callable[[str], None]) -> Path | None:
    """The dataset's folder when present in a data directory and matching its card (said), by
    :func:`bench.datasets.verify.card_mismatches`; ``None`` when absent; a mismatch raises."""
    existing = find_dataset(card, data_dir=data_dir)
    if existing is None:
        return None
    report, bad = card_mismatches(card, existing)
    if bad:
        raise DataError(f"dataset {card.spec!r} is present but does not match its card: "
                        f"{', '.join(bad[:5])}; remove it or fetch again with --force",
                        path=existing)
    say(f"{card.spec}: already present in {existing} ({report.counts['ok']} files verified, "
        f"{report.counts['unverified']} without a known digest)")
    return existing


def _source(card: Card, url: str | None,
            data_dir: str | os.PathLike[str] | None) -> tuple[str | None, str]:
    """Where to download from and the archive format: ``url`` (its format from its name, else
    the card's), else the card's URL (``None`` for a card of single files, each with its URL).
    A card without a download and no ``url`` raises with the manual steps."""
    fmt = card.archive_format
    if url is not None:
        url = _as_url(url)
        try:
            fmt = _format_from_name(url)
        except DataError:
            if fmt not in ("zip", "tar.gz", "tar.bz2"):
                raise
    elif not card.downloadable:
        raise DataError(
            f"dataset {card.spec!r} has no automatic download. {card.notes} "
            f"Homepage: {card.homepage or '(none)'}. Put the folder in "
            f"{primary_data_dir(data_dir)}/{card.dir or card.name}, or pass --url with a copy "
            "of the archive."
        )
    elif fmt != "files":
        url = card.url
    return url, fmt


def _download_into(card: Card, url: str | None, fmt: str, staging: Path,
                   record: dict[str, object], *, progress: bool, timeout: float,
                   say: Callable[[str], None]) -> Path:
    """Download (and extract) the dataset into ``staging``, checking digests the card knows and
    adding the source to ``record``; returns the folder holding the dataset's files."""
    if fmt == "files" and url is None:
        root = staging / "files"
        for rel, file_url in card.file_urls.items():
            target = root / rel
            digest = _download(file_url, target, progress=progress, timeout=timeout,
                               label=rel)
            _check_digest(card.files.get(rel, UNKNOWN), digest, what=rel, url=file_url)
        record["urls"] = dict(card.file_urls)
    else:
        assert url is not None
        same = fmt == card.archive_format  # the card's archive: its size bounds the download
        archive_name = (card.archive if same else "") or _name_from_url(url)
        archive = staging / archive_name
        digest = _download(url, archive, progress=progress, timeout=timeout,
                           label=archive_name, size_hint=card.archive_size,
                           limit=card.archive_size if same else 0, room=not same)
        # an overriding URL may be a different archive format than the card's
        expected = card.archive_sha256 if fmt == card.archive_format else UNKNOWN
        _check_digest(expected, digest, what=archive_name, url=url)
        if expected == UNKNOWN and not same and card.archive_sha256 != UNKNOWN:
            say(f"{card.spec}: the card's sha256 is of its {card.archive_format} archive "
                f"{card.archive}, not of this {fmt} {archive_name}; downloaded sha256 = {digest} "
                "(the files are checked where known)")
        elif expected == UNKNOWN:
            say(f"{card.spec}: the card has no sha256 for {archive_name}; downloaded "
                f"sha256 = {digest} (record it; the files are checked where known)")
        record.update(url=url, archive=archive_name, archive_sha256=digest,
                      archive_verified=expected != UNKNOWN)
        extracted = staging / "extracted"
        extract(archive, extracted, fmt)
        archive.unlink()
        root = _archive_root(extracted, card)
    return root


def _verify_download(card: Card, root: Path, url: str | None) -> VerifyReport:
    """The downloaded folder checked against the card; a mismatched or missing file raises."""
    report = verify_folder(card, root)
    bad = [f for f in report.files if f.status in ("mismatch", "missing")]
    if bad:
        listed = ", ".join(
            f"{f.path} ({f.status}{'' if f.actual is None else ': ' + f.actual})"
            for f in bad[:5]
        )
        missing = [f.path for f in bad if f.status == "missing"]
        inside = (windows_names(root) or misplaced_files(root, missing)
                  or nested_archives(root)) if missing else ""
        raise DataError(f"downloaded dataset {card.spec!r} does not match its card: "
                        f"{listed}{inside}", path=url)
    return report


# --------------------------------------------------------------------------- internals


def _download(
    url: str,
    target: Path,
    *,
    progress: bool,
    timeout: float,
    label: str,
    size_hint: int = 0,
    limit: int = 0,
    room: bool = False,
) -> str:
    """Stream ``url`` into ``target`` (hashing on the way); returns the sha256. A download
    beyond ``limit`` bytes (the card's ``archive_size``; 0: none) stops: it is not the
    published archive (an endless ``file:///dev/zero`` would fill the disk). With ``room`` (a
    mirror in another format, which the card's size does not bind), one beyond the free space
    of the target's folder stops before the disk is full."""
    target.parent.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(target.parent).free
    h = hashlib.sha256()
    try:
        response = urllib.request.urlopen(url, timeout=timeout)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        todo = "check the path given with --url" if url.startswith("file:") else (
            "check this machine's network access (or its proxy: HTTPS_PROXY); where there is "
            "none, download the file on another machine and pass the copy with --url PATH "
            "(url= in Python)")
        raise DataError(f"could not download ({getattr(exc, 'reason', None) or exc}): {todo}",
                        path=url) from exc
    with response:
        total = int(response.headers.get("Content-Length") or 0) or size_hint or None
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            transient=True,
            disable=not progress,
        ) as bar, open(target, "wb") as out:
            task = bar.add_task(label, total=total)
            done = 0
            while True:
                try:
                    block = response.read(_CHUNK)
                except (OSError, urllib.error.URLError) as exc:
                    raise DataError(f"download interrupted: {exc}", path=url) from exc
                if not block:
                    break
                done += len(block)
                if room and done > free:
                    raise DataError(f"the download passed the {free:,} bytes free in "
                                    f"{os.fspath(target.parent)!r}: stopped before the disk is "
                                    "full (free space, or --data-dir elsewhere)", path=url)
                if limit and done > limit:
                    raise DataError(f"the download passed the card's archive size, {limit:,} "
                                    "bytes: not the published archive; stopped", path=url)
                out.write(block)
                h.update(block)
                bar.advance(task, len(block))
            out.flush()
            os.fsync(out.fileno())
    return h.hexdigest()


def _clear_record(root: Path, url: str | None) -> None:
    """Make way for the fetch record: a file of its name packed in the archive (a mirror that
    zipped a fetched folder) is replaced; anything else there (a folder, a link) is refused."""
    packed = root / FETCH_RECORD
    if packed.is_symlink() or (packed.exists() and not packed.is_file()):
        raise DataError(f"the archive holds {FETCH_RECORD!r}, which is not a file: that is the "
                        "name of the record ltrbench writes in the dataset folder; refused",
                        path=url)


def _check_digest(expected: str, actual: str, *, what: str, url: str) -> None:
    if expected != UNKNOWN and not same_digest(expected, actual):
        raise DataError(
            f"sha256 of {what} is {actual}, the card says {expected}: the download is corrupt "
            "or not the published file; nothing was installed",
            path=url,
        )


def _archive_root(extracted: Path, card: Card) -> Path:
    """The folder inside the unpacked archive that becomes the dataset folder.

    The card's ``archive_root`` when the archive has it; else the unpacked folder itself when the
    card's files are at its top; else its single top-level folder (an archive packed with one).
    """
    if card.archive_root and (extracted / card.archive_root).is_dir():
        return extracted / card.archive_root
    if card.files and any((extracted / rel).exists() for rel in card.files):
        return extracted
    entries = [e for e in extracted.iterdir() if not e.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and (card.archive_root or card.files):
        return entries[0]
    return extracted


def _as_url(url: str) -> str:
    """``url`` as a URL (a local path made a ``file://`` one); a local source that exists but
    is not a regular file (a device such as ``/dev/zero``, a FIFO, a folder) is refused."""
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https", "file", "ftp"):
        url = Path(url).expanduser().resolve().as_uri()
        parsed = urllib.parse.urlparse(url)
    if parsed.scheme == "file":
        local = Path(urllib.request.url2pathname(parsed.path))
        if local.exists() and not local.is_file():
            raise ConfigError(f"--url {os.fspath(local)!r} is not a regular file (a folder, "
                              "device or FIFO): expected the dataset's archive")
    return url


def _check_source_apart(url: str | None, dest: Path) -> None:
    """Refuse, before any work, a ``--url`` archive on this machine that lies in the dataset's
    folder (``fetch --force`` replaces that folder, and would delete the archive read), and a
    dataset folder that is a file (not a folder the fetch may replace)."""
    if dest.exists() and not dest.is_dir():
        raise ConfigError(f"{os.fspath(dest)!r} is a file where the dataset's folder goes: move "
                          "it away (fetch writes a folder there)")
    if dest.is_symlink() and not dest.exists():
        raise ConfigError(f"{os.fspath(dest)!r} is a broken symbolic link (to "
                          f"{os.readlink(dest)!r}) where the dataset's folder goes: remove it, or "
                          "make its target a folder")
    if url is None or urllib.parse.urlparse(url).scheme != "file":
        return
    source = Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path))
    real, folder = Path(os.path.realpath(source)), Path(os.path.realpath(dest))
    if real == folder or folder in real.parents:
        raise ConfigError(f"--url {os.fspath(source)!r} lies inside the dataset folder "
                          f"{os.fspath(dest)!r}, which the fetch replaces (the archive would be "
                          "deleted): move the archive out of it first")


def _format_from_name(url: str) -> str:
    name = _name_from_url(url).lower()
    if name.endswith(".zip"):
        return "zip"
    if name.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    if name.endswith((".tar.bz2", ".tbz2")):
        return "tar.bz2"
    raise DataError("cannot tell the archive format from the name (expected .zip, .tar.gz, "
                    ".tgz or .tar.bz2)", path=url)


def _name_from_url(url: str) -> str:
    name = PurePosixPath(urllib.parse.urlparse(url).path).name
    return urllib.parse.unquote(name) or "download"


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
