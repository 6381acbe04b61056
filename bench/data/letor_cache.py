"""Content-addressed cache of parsed SVMlight/LETOR files (``.npy`` arrays keyed by sha256).

An entry is the folder ``<cache_dir>/svmlight/p<PARSER_VERSION>.f<FORMAT>/<sha256 of the
source file>/`` holding ``X.npy`` (float32, rows x max(largest index, 1)), ``y.npy``
(float64), ``qid.npy`` (int64; absent for files without ``qid:``) and ``manifest.json``, which
records the source's sha256 and size, the parser version, each array's dtype, shape, file
size and one CRC-32 per 64 MiB block of the ``.npy`` file.

**Keys.** Every load hashes the source files (sha256, one file per thread; ``hashlib``
releases the GIL). No ``(size, mtime)`` shortcut is taken: a file rewritten with the same
size within the clock's resolution, or copied with its mtime kept, would otherwise be served
stale; at MSLR-WEB30K size hashing costs about a second or two (``ltrbench perf loader``), and
the digests are the ones the run manifests record anyway. A changed file has a new key, so
its old entry is simply no longer used (entries are never evicted; delete the folder freely).

**Validation.** Before an entry is used, the manifest must parse and match the key and the
source size, every file must have its recorded size and ``.npy`` header, and every block its
CRC-32 (about 3 GB/s per core, on all threads). A corrupt, truncated or incomplete entry is
reported with a :class:`CacheWarning` naming it, removed, and rebuilt from the source; it is
never used.

**Writes** that fail (full or read-only disk) are reported with a :class:`CacheWarning` and
the data is returned all the same. Writes are atomic: an entry is written into a temporary folder beside it (files fsynced)
and renamed into place in one step, so an interrupted write leaves only a ``.tmp-*`` folder
that no reader looks at (removed by later writes once a day old). When two processes build the
same entry, the second rename fails and that writer drops its copy; both copies are identical.

**Loads** map the arrays copy-on-write (``mmap``): the result is writable, shares the page
cache, and costs no copy. Entries are never modified in place (only replaced by rename), so a
mapping always sees the bytes that were checked.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import mmap
import os
import shutil
import uuid
import warnings
import zlib
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from bench.data.hashing import sha256_file
from bench.data.jsonio import loads_strict
from bench.data.svmlight_parse import (
    MAX_FEATURE_INDEX,
    PARSER_VERSION,
    ParsedSvmlight,
    Progress,
    parse_svmlight_files,
)
from bench.errors import DataError
from bench.machine import usable_cpus

PathLike = str | os.PathLike[str]
FORMAT = 1
BLOCK_BYTES = 64 << 20
_STALE_TMP_S = 24 * 3600


class CacheWarning(UserWarning):
    """A cache entry that could not be used (corrupt, truncated, unreadable); it is rebuilt."""


def cache_root(cache_dir: PathLike) -> Path:
    """The folder of this parser version's entries inside ``cache_dir``."""
    return Path(cache_dir) / "svmlight" / f"p{PARSER_VERSION}.f{FORMAT}"


def entry_path(cache_dir: PathLike, sha256: str) -> Path:
    """The entry folder of a source file with this sha256."""
    return cache_root(cache_dir) / sha256


def sha256_files(paths: Sequence[PathLike], *, threads: int | None = None) -> list[str]:
    """Hex sha256 of each file, the files hashed in parallel (one per thread)."""
    n = max(1, min(usable_cpus(threads), len(paths)))
    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(sha256_file, [Path(p) for p in paths]))


def cached_parse(
    paths: Sequence[PathLike],
    *,
    cache_dir: PathLike | None,
    n_features: int | None = None,
    max_index: int = MAX_FEATURE_INDEX,
    threads: int | None = None,
    progress: Progress | None = None,
    digests: bool = False,
) -> tuple[list[ParsedSvmlight], list[str] | None]:
    """Parse files to arrays of one shared width, through the cache when ``cache_dir`` is set.

    Returns the parsed files and the sha256 of each (hashed in parallel; ``None`` when there
    is no cache and ``digests`` is false). ``cache_dir=None`` reads no entry and writes none.
    """
    ps = [Path(p) for p in paths]
    stats = [p.stat() for p in ps]
    sums: list[str] | None = None
    found: list[ParsedSvmlight | None] = [None] * len(ps)
    if cache_dir is not None:
        sums, found = hash_and_load(cache_dir, ps, threads=threads)
    elif digests:
        sums = sha256_files(ps, threads=threads)
    missing = [i for i, f in enumerate(found) if f is None]
    width = max([n_features or 0, *(f.max_index for f in found if f is not None)])
    for i, f in enumerate(found):
        if f is not None:
            _check_cached_width(ps[i], f, n_features, max_index)
    done = [0, 0]
    for i, f in enumerate(found):  # hits count as done at once
        if f is not None:
            done[0] += stats[i].st_size
            done[1] += f.X.shape[0]
    if progress is not None and missing and (done[0] or done[1]):
        progress(done[0], done[1])

    def shifted(b: int, r: int) -> None:
        if progress is not None:
            progress(done[0] + b, done[1] + r)

    if missing:
        fresh = parse_svmlight_files([ps[i] for i in missing], n_features=n_features,
                                     max_index=max_index, threads=threads, progress=shifted,
                                     min_width=width)
        for i, parsed in zip(missing, fresh, strict=True):
            _check_unchanged(ps[i], stats[i])
            found[i] = parsed
            width = max(width, parsed.X.shape[1])
            if cache_dir is not None and sums is not None and parsed.y.shape[0] > 0:
                try:
                    store_entry(cache_dir, sums[i], parsed, ps[i])
                except OSError as exc:  # a full or read-only disk costs the cache, not the run
                    warnings.warn(f"could not write the cache entry of {ps[i]} under "
                                  f"{cache_root(cache_dir)} ({exc}); continuing without it",
                                  CacheWarning, stacklevel=3)
    elif progress is not None:
        progress(done[0], done[1])
    out = [_widen(f, width) for f in found if f is not None]
    return out, sums


def load_entry(cache_dir: PathLike, sha256: str, source: PathLike, *,
               threads: int | None = None) -> ParsedSvmlight | None:
    """The cached arrays of ``source`` (whose sha256 is given), or ``None`` on a miss.

    An entry that fails any check is reported (:class:`CacheWarning`), removed and treated as
    a miss.
    """
    entry = entry_path(cache_dir, sha256)
    if not entry.is_dir():
        return None
    try:
        opened = _Opened(entry, sha256, Path(source))
        n = max(1, min(usable_cpus(threads), len(opened.jobs)))
        with ThreadPoolExecutor(max_workers=n) as pool:
            bad = [job for job, ok in zip(opened.jobs, pool.map(opened.check, opened.jobs),
                                          strict=True) if not ok]
        return opened.finish(bad)
    except _Corrupt as exc:
        _report(entry, exc, source)
        return None


def hash_and_load(cache_dir: PathLike, sources: Sequence[PathLike], *,
                  threads: int | None = None) -> tuple[list[str], list[ParsedSvmlight | None]]:
    """sha256 of each source and its cached arrays (``None``: a miss), in one thread pool.

    The largest files are hashed first, and an entry's blocks are checked as soon as its source
    is hashed, while other sources are still being hashed, so all threads stay busy. Damaged
    entries are reported, removed and returned as misses (as :func:`load_entry`).
    """
    ps = [Path(p) for p in sources]
    sums = [""] * len(ps)
    opened: dict[int, _Opened] = {}
    checks: list[tuple[int, tuple[str, int], Future[bool]]] = []
    order = sorted(range(len(ps)), key=lambda i: -ps[i].stat().st_size)
    with ThreadPoolExecutor(max_workers=usable_cpus(threads)) as pool:
        hashing = {pool.submit(sha256_file, ps[i]): i for i in order}
        for fut in as_completed(hashing):
            i = hashing[fut]
            sums[i] = fut.result()
            entry = entry_path(cache_dir, sums[i])
            if not entry.is_dir():
                continue
            try:
                opened[i] = _Opened(entry, sums[i], ps[i])
            except _Corrupt as exc:
                _report(entry, exc, ps[i])
                continue
            checks += [(i, job, pool.submit(opened[i].check, job)) for job in opened[i].jobs]
        failed: dict[int, list[tuple[str, int]]] = {}
        for i, job, check in checks:
            if not check.result():
                failed.setdefault(i, []).append(job)
    found: list[ParsedSvmlight | None] = [None] * len(ps)
    for i, op in opened.items():
        try:
            found[i] = op.finish(failed.get(i, []))
        except _Corrupt as exc:
            _report(op.entry, exc, ps[i])
    return sums, found


def store_entry(cache_dir: PathLike, sha256: str, parsed: ParsedSvmlight, source: PathLike) -> Path:
    """Write the entry of ``source`` atomically (see the module doc); returns its folder."""
    root = cache_root(cache_dir)
    root.mkdir(parents=True, exist_ok=True)
    entry = root / sha256
    tmp = root / f".tmp-{sha256[:16]}-{uuid.uuid4().hex}"
    tmp.mkdir()
    _remove_stale_tmp(root, tmp)
    try:
        width = max(parsed.max_index, 1)  # a file without features: one column of zeros,
        X = (parsed.X[:, :width] if parsed.X.shape[1] >= width  # left out again on load
             else np.zeros((parsed.X.shape[0], width), dtype=np.float32))
        arrays: dict[str, object] = {"X": _write_npy(tmp / "X.npy", X),
                                     "y": _write_npy(tmp / "y.npy", parsed.y)}
        if parsed.qid is not None:
            arrays["qid"] = _write_npy(tmp / "qid.npy", parsed.qid)
        manifest = {
            "format": FORMAT,
            "parser_version": PARSER_VERSION,
            "source_sha256": sha256,
            "source_size": Path(source).stat().st_size,
            "source_name": Path(source).name,
            "rows": int(parsed.y.shape[0]),
            "max_index": int(parsed.max_index),
            "max_index_line": int(parsed.max_index_line),
            "arrays": arrays,
        }
        with open(tmp / "manifest.json", "w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        _fsync_dir(tmp)
        try:
            os.rename(tmp, entry)
        except OSError:
            if not entry.is_dir():
                raise
            shutil.rmtree(tmp, ignore_errors=True)  # another writer won; same bytes
        else:
            _fsync_dir(root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return entry


# ------------------------------------------------------------------------------ internals


class _Corrupt(Exception):
    pass


class _Unreadable(_Corrupt):
    """An entry this process cannot read now (too many open files, no memory to map it, no
    permission): nothing says it is damaged, so it is kept and the source is read instead. An
    fd limit (``ulimit -n``) removed valid entries of a shared cache as "unusable"."""


#: The OS errors that say an entry itself is damaged (a file of it missing or of another kind).
_DAMAGE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ELOOP, errno.EINVAL})




def _write_npy(path: Path, arr: np.ndarray) -> dict[str, object]:
    """Write ``arr`` (any strides) as .npy, fsynced; returns its manifest record."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {
        "descr": np.lib.format.dtype_to_descr(arr.dtype), "fortran_order": False,
        "shape": arr.shape})
    crc = _BlockCrc()
    with open(path, "wb") as fh:
        crc.write(fh, memoryview(header.getvalue()))
        step = max(1, (16 << 20) // max(1, arr[:1].nbytes)) if arr.ndim else 1
        for a in range(0, arr.shape[0], step):
            block = np.ascontiguousarray(arr[a:a + step])
            crc.write(fh, block.data.cast("B"))
        fh.flush()
        os.fsync(fh.fileno())
    return {"file": path.name, "dtype": arr.dtype.str, "shape": list(arr.shape),
            "file_size": crc.total, "data_offset": len(header.getvalue()),
            "block_bytes": BLOCK_BYTES, "crc32": crc.blocks()}


class _BlockCrc:
    """CRC-32 of each BLOCK_BYTES block of what is written through it."""

    def __init__(self) -> None:
        self.total = 0
        self._crcs: list[int] = []
        self._current = 0

    def write(self, fh: io.BufferedWriter, data: memoryview) -> None:
        fh.write(data)
        while len(data):
            room = BLOCK_BYTES - self.total % BLOCK_BYTES
            part = data[:room]
            self._current = zlib.crc32(part, self._current)
            self.total += len(part)
            data = data[len(part):]
            if self.total % BLOCK_BYTES == 0:
                self._crcs.append(self._current)
                self._current = 0

    def blocks(self) -> list[int]:
        return self._crcs + ([self._current] if self.total % BLOCK_BYTES else [])


class _Opened:
    """An entry whose manifest, sizes and .npy headers check out; blocks still to check."""

    def __init__(self, entry: Path, sha256: str, source: Path) -> None:
        self.entry = entry
        try:
            with open(entry / "manifest.json", encoding="utf-8") as fh:
                man = loads_strict(fh.read())  # a key twice or a NaN: a damaged entry
            if (man["format"], man["parser_version"], man["source_sha256"]) != (
                    FORMAT, PARSER_VERSION, sha256):
                raise _Corrupt("its manifest names another source or version")
            if man["source_size"] != source.stat().st_size:
                raise _Corrupt("its manifest records another source size")
            self.names = ["X", "y"] + (["qid"] if "qid" in man["arrays"] else [])
            self.maps = {name: _map(entry, man["arrays"][name]) for name in self.names}
            self.jobs = [(name, k) for name in self.names
                         for k in range(len(man["arrays"][name]["crc32"]))]
        except _Corrupt:
            raise
        except OSError as exc:
            kind = _Corrupt if exc.errno in _DAMAGE else _Unreadable
            raise kind(f"{type(exc).__name__}: {exc}") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise _Corrupt(f"{type(exc).__name__}: {exc}") from None
        self.man = man

    def check(self, job: tuple[str, int]) -> bool:
        """Whether one block has its recorded CRC-32 (zlib releases the GIL)."""
        name, k = job
        block = memoryview(self.maps[name])[k * BLOCK_BYTES:(k + 1) * BLOCK_BYTES]
        expected: int = self.man["arrays"][name]["crc32"][k]
        return zlib.crc32(block) == expected

    def finish(self, failed: list[tuple[str, int]]) -> ParsedSvmlight:
        if failed:
            name, k = min(failed, key=lambda job: (self.names.index(job[0]), job[1]))
            raise _Corrupt(f"{self.man['arrays'][name]['file']} block {k} fails its CRC-32 check")
        man = self.man
        arrays = {name: _array(self.maps[name], man["arrays"][name]) for name in self.names}
        X = arrays["X"]
        if X.ndim != 2 or X.shape[0] != man["rows"] or arrays["y"].shape != (man["rows"],):
            raise _Corrupt("array shapes disagree with the manifest")
        return ParsedSvmlight(X, arrays["y"], arrays.get("qid"), int(man["max_index"]),
                              int(man["max_index_line"]))


def _report(entry: Path, exc: Exception, source: PathLike) -> None:
    if isinstance(exc, _Unreadable):
        warnings.warn(f"cache entry {entry} cannot be read now ({exc}); reading {source} "
                      "instead (the entry is kept)", CacheWarning, stacklevel=4)
        return
    warnings.warn(f"cache entry {entry} is unusable ({exc}); rebuilding it from {source}",
                  CacheWarning, stacklevel=4)
    _remove(entry)


def _map(entry: Path, rec: dict[str, object]) -> mmap.mmap:
    path = entry / str(rec["file"])
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size != rec["file_size"]:
            raise _Corrupt(f"{path.name} has {size} bytes, the manifest says {rec['file_size']}")
        if size == 0:
            raise _Corrupt(f"{path.name} is empty")
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
    offset = int(rec["data_offset"])  # type: ignore[call-overload]
    header = io.BytesIO(mm[:offset])
    try:
        version = np.lib.format.read_magic(header)
        read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                else np.lib.format.read_array_header_2_0)
        shape, fortran, dtype = read(header)
    except Exception as exc:
        raise _Corrupt(f"{path.name}: unreadable .npy header ({type(exc).__name__})") from None
    if list(shape) != rec["shape"] or fortran or dtype.str != rec["dtype"] or header.tell() != offset:
        raise _Corrupt(f"{path.name}: its .npy header disagrees with the manifest")
    return mm


def _array(mm: mmap.mmap, rec: dict[str, object]) -> np.ndarray:
    shape = tuple(int(s) for s in rec["shape"])  # type: ignore[attr-defined]
    count = int(np.prod(shape))
    arr = np.frombuffer(mm, dtype=np.dtype(str(rec["dtype"])), count=count,
                        offset=int(rec["data_offset"]))  # type: ignore[call-overload]
    return arr.reshape(shape)


def _widen(parsed: ParsedSvmlight, width: int) -> ParsedSvmlight:
    """``parsed`` with ``width`` columns: zeros added, or (an entry stores at least one column,
    all zeros beyond its largest index) the columns past ``width >= max_index`` left out."""
    if parsed.X.shape[1] == width:
        return parsed
    if parsed.X.shape[1] > width:
        return ParsedSvmlight(parsed.X[:, :width], parsed.y, parsed.qid, parsed.max_index,
                              parsed.max_index_line)
    X = np.zeros((parsed.X.shape[0], width), dtype=np.float32)
    X[:, : parsed.X.shape[1]] = parsed.X
    return ParsedSvmlight(X, parsed.y, parsed.qid, parsed.max_index, parsed.max_index_line)


def _check_cached_width(path: Path, parsed: ParsedSvmlight, n_features: int | None,
                        max_index: int) -> None:
    limit = min(max_index, n_features) if n_features is not None else max_index
    if parsed.max_index > limit:
        what = (f"n_features={n_features}" if n_features is not None and n_features < max_index
                else f"the limit of {max_index:,} features")
        raise DataError(f"feature index {parsed.max_index} is beyond {what}", path=path,
                        line=parsed.max_index_line)


def _check_unchanged(path: Path, before: os.stat_result) -> None:
    after = path.stat()
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        raise DataError("the file changed while it was read; read it again", path=path)


def _remove(entry: Path) -> None:
    trash = entry.with_name(f".tmp-trash-{uuid.uuid4().hex}")
    with contextlib.suppress(OSError):
        os.rename(entry, trash)
        shutil.rmtree(trash, ignore_errors=True)


def _remove_stale_tmp(root: Path, own: Path) -> None:
    """Remove the ``.tmp-*`` folders of ``root`` older than :data:`_STALE_TMP_S` by the clock
    of the file system that holds them: "now" is the time of ``own``, the folder this process
    has just made there. A shared data directory's file times come from its server's clock,
    and a machine whose own clock was two days ahead removed another machine's write of a
    minute ago as "stale"."""
    try:
        now = own.stat().st_mtime
    except OSError:
        return
    for p in root.glob(".tmp-*"):
        with contextlib.suppress(OSError):
            if p != own and now - p.stat().st_mtime > _STALE_TMP_S:
                shutil.rmtree(p, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
