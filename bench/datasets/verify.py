"""Integrity of a dataset folder: every file its card lists (and the files of a fold asked
for) against the card's SHA-256 digests, found as the loaders find them (``s3.txt`` for
``S3.txt``), and the fold files the card does not list (``foreign``). Used by ``ltrbench datasets
verify`` (:func:`bench.datasets.fetch.verify`) and by :func:`bench.datasets.fetch.fetch` after a
download and before it calls a folder already present complete.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.data.folder_names import path_ignoring_case
from bench.data.hashing import sha256_file
from bench.datasets.card_checks import foreign_files
from bench.datasets.catalogue import UNKNOWN, Card

#: The record a fetch writes into the dataset's folder (card name, time, each file's sha256).
FETCH_RECORD = ".ltrbench-fetch.json"


@dataclass(frozen=True)
class FileCheck:
    """One file of a card: ``status`` is ok | mismatch | missing | unverified (no known digest) |
    foreign (a fold's file the card does not list, beside files it vouches for)."""

    path: str
    expected: str
    actual: str | None
    status: str
    found: str | None = None  # the name read, where it differs from the card's only in case
    #: what stands where a ``missing`` file should be (``a folder, not a file``, ``not a
    #: regular file: a FIFO (named pipe)``, ``a link to nothing``, a packed copy beside it), in
    #: the report and its JSON as on the command's line; else ``None``
    stands: str | None = None


@dataclass(frozen=True)
class VerifyReport:
    """The result of :func:`verify`."""

    name: str
    folder: str | None
    files: list[FileCheck] = field(default_factory=list)
    #: what the files hold against the card's ``n_queries`` / ``n_rows`` where they differ
    #: (:mod:`bench.datasets.verify_counts`; the load's ``CardCountWarning``), else ``None``
    card_counts: str | None = None

    @property
    def ok(self) -> bool:
        """Found, no file missing or different from its card digest, the card's counts held."""
        return self.folder is not None and self.card_counts is None and all(
            f.status in ("ok", "unverified") for f in self.files
        )

    @property
    def counts(self) -> dict[str, int]:
        # every status always (a JSON reader's counts["foreign"] failed on a clean folder)
        out = {"ok": 0, "mismatch": 0, "missing": 0, "unverified": 0, "foreign": 0}
        for f in self.files:
            out[f.status] = out.get(f.status, 0) + 1
        return out

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "ok": self.ok, "counts": self.counts}


def same_digest(expected: str, actual: str) -> bool:
    """A card's hex digest equals a computed one, in either letter case and without the spaces
    around it (a card built in Python with a digest pasted from ``sha256sum`` or a web page)."""
    return expected.strip().lower() == actual.lower()


def verify_folder(card: Card, folder: str | os.PathLike[str], *,
                  more: dict[str, str] | None = None, recorded: bool = False) -> VerifyReport:
    """Check every file the card lists in ``folder`` (and ``more``) against its digest; with
    ``recorded``, a file the card has no digest for against the one the folder's fetch record
    (:data:`FETCH_RECORD`) wrote when ltrbench fetched it: a file cut or edited since is a
    ``mismatch`` whose ``expected`` is that digest (one that still matches stays
    ``unverified``: the record vouches for the download, not for the data)."""
    root = Path(folder)
    fetched = _recorded_digests(root) if recorded else {}
    checks = []
    for rel, expected in {**card.files, **(more or {})}.items():
        f = root / rel if (root / rel).is_file() else path_ignoring_case(root, rel)
        if f is None:  # (the loaders find s3.txt for S3.txt: so does verify)
            checks.append(FileCheck(rel, expected, None, "missing",
                                    stands=what_stands(root / rel)))
            continue
        actual = sha256_file(f)
        if expected == UNKNOWN and rel in fetched and not same_digest(fetched[rel], actual):
            expected = fetched[rel]
        status = "unverified" if expected == UNKNOWN else \
            "ok" if same_digest(expected, actual) else "mismatch"
        found = f.relative_to(root).as_posix()
        checks.append(FileCheck(rel, expected, actual, status, None if found == rel else found))
    checks += [FileCheck(rel, UNKNOWN, sha256_file(root / rel), "foreign")
               for rel in foreign_files(card, root)]  # read under the name: refused there
    return VerifyReport(name=card.spec, folder=str(root), files=checks)


def what_stands(path: Path) -> str | None:
    """What is at a card's file that is not a regular file (:attr:`FileCheck.stands`)."""
    from bench.data.folder_names import packed_twin
    from bench.data.output_names import special_kind

    if path.is_symlink() and not path.exists():
        return "a link to nothing"
    if not path.exists():
        return packed_twin(path)
    if path.is_dir():
        return "a folder, not a file"
    return f"not a regular file: a {special_kind(path) or 'device or socket'}"


def _recorded_digests(folder: Path) -> dict[str, str]:
    """``file -> sha256`` of the fetch record in ``folder`` (none when there is no record).

    A record that is there but cannot be read as the one a fetch writes (cut, emptied,
    compressed, UTF-16, a key twice, ``files`` not an object of file -> hex digest) is a
    :class:`~bench.errors.DataError` naming it: taken for no record, it let a file edited
    since the fetch pass as "unverified" and verify say OK. A UTF-8 byte-order mark is
    skipped, as every JSON reader skips it (:func:`bench.data.jsonio.read_json_object`)."""
    from bench.data.jsonio import read_json_object
    from bench.errors import DataError

    path = folder / FETCH_RECORD
    if not path.exists() and not path.is_symlink():
        return {}
    todo = ("remove it to verify against the card's digests alone, or fetch again with "
            "--force")
    doc = read_json_object(path, "the record 'datasets fetch' wrote", todo)
    files = doc.get("files")
    field: str | None = "files"
    value: object = files
    if isinstance(files, dict):
        key = next((k for k, v in files.items() if v is not None and not _hex64(v)), None)
        field, value = (None, None) if key is None else (f"files[{key!r}]", files[key])
    if field is not None or not isinstance(files, dict):
        raise DataError(f"{field} holds {json.dumps(value)[:60]}: expected an object of file "
                        "-> SHA-256 (64 hex digits), as 'datasets fetch' writes it; "
                        f"{todo}", path=path)
    return {k: v for k, v in files.items() if isinstance(v, str)}


def _hex64(text: object) -> bool:
    return isinstance(text, str) and len(text) == 64 and all(c in "0123456789abcdefABCDEF"
                                                             for c in text)


def card_mismatches(card: Card, folder: str | os.PathLike[str]) -> tuple[VerifyReport, list[str]]:
    """``folder`` judged as a copy of ``card``'s dataset, by one rule for a copy found before a
    fetch and one another fetch renamed in meanwhile: every listed file present, none differing
    from its card digest or, where the card knows none, from the digest the fetch record wrote
    (:func:`verify_folder` with ``recorded``), no fold file the card does not list. Returns the
    report and the problems, ``"path (why)"``; a file with neither digest is unverified, said
    by the caller, not refused (a folder unpacked by hand, as the cards without a download
    ask)."""
    report = verify_folder(card, folder, recorded=True)
    changed = {f.path for f in report.files
               if f.status == "mismatch" and card.files.get(f.path) == UNKNOWN}
    bad = [f"{f.path} ({'changed since it was fetched' if f.path in changed else f.status})"
           for f in report.files if f.status in ("mismatch", "missing", "foreign")]
    return report, bad
