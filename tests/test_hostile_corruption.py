"""Random byte-level corruption of a valid TREC qrels/run pair never gives a silently wrong number.

A strict reference parser kept here (the TREC grammar written out: UTF-8 with an optional
byte-order mark, fields split on ASCII white space, lines whose first field starts with ``#``
skipped as comments (trec_eval 10.0), ``qid iter docno rel`` with an int64 ``rel``,
``qid Q0 docno rank score tag`` with an int64 ``rank`` and a finite plain decimal ``score`` (more
run fields ignored, as trec_eval does), no document twice per query, at least one line, and no
stray character anywhere in the file -- a NUL byte, a byte-order mark past the start, a line end
Python knows and trec_eval does not: VT, FF, FS/GS/RS, NEL, U+2028/9 -- (the input discipline,
bench.data.inputs: refused in a comment or an ignored field too)) reads
the corrupted bytes. Where it refuses them,
``ltrbench evaluate`` must not exit 0. Where it accepts them, it writes what it read back as clean
canonical files, and ``ltrbench evaluate`` must print the same numbers for the corrupted files as
for the canonical ones (and never a traceback).
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bench import cli

QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n"
RUN = b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"
_INT = re.compile(rb"[+-]?[0-9]+")
_FLOAT = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: The stray characters of the input discipline, written out here (not imported from the code
#: under test): NUL, VT, FF, FS, GS, RS, NEL, LINE/PARAGRAPH SEPARATOR, a byte-order mark.
_STRAY = re.compile(rb"[\x00\x0b\x0c\x1c-\x1e]|\xc2\x85|\xe2\x80[\xa8\xa9]|\xef\xbb\xbf")
BYTES = b"0123456789.-+_eExXnaifQ \t\r\n#\x00\xef\xbb\xbf\xff\xfe"


def _fields(data: bytes, n: int, *, extra: bool = False) -> list[list[bytes]] | None:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return None
    if _STRAY.search(data):
        return None
    rows = []
    # LF, CRLF and a lone CR each end a line (bench.data.inputs; as pytrec_eval/ir_measures)
    for line in data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return None
        parts = line.split()  # bytes.split(): ASCII white space only
        if not parts or parts[0].startswith(b"#"):
            continue
        if len(parts) != n and not (extra and len(parts) > n):
            return None
        rows.append(parts[:n])
    return rows or None


def _int64(token: bytes) -> int | None:
    if _INT.fullmatch(token) is None or not -(2**63) <= int(token) < 2**63:
        return None
    return int(token)


def reference_qrels(data: bytes) -> list[tuple[bytes, bytes, int]] | None:
    """The judgments the strict grammar reads, or ``None`` where it refuses the bytes."""
    rows = _fields(data, 4)
    if rows is None:
        return None
    out, seen = [], set()
    for q, _, d, r in rows:
        rel = _int64(r)
        if rel is None or (q, d) in seen:
            return None
        seen.add((q, d))
        out.append((q, d, rel))
    return out


def reference_run(data: bytes) -> list[tuple[bytes, bytes, int, float, bytes]] | None:
    """The retrieved documents the strict grammar reads, or ``None`` where it refuses them."""
    rows = _fields(data, 6, extra=True)
    if rows is None:
        return None
    out, seen = [], set()
    for q, _, d, rk, sc, tag in rows:
        rank = _int64(rk)
        if rank is None or _FLOAT.fullmatch(sc) is None or not math.isfinite(float(sc)):
            return None
        if (q, d) in seen:
            return None
        seen.add((q, d))
        out.append((q, d, rank, float(sc), tag))
    return out


def _evaluate(folder: Path, qrels: bytes, run: bytes) -> tuple[int, str, str]:
    (folder / "q.txt").write_bytes(qrels)
    (folder / "r.txt").write_bytes(run)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["evaluate", "--qrels", str(folder / "q.txt"), "--run",
                           str(folder / "r.txt"), "--metrics", "ndcg@10", "map", "--format", "csv"])
    return status, out.getvalue(), err.getvalue()


mutation = st.one_of(
    st.tuples(st.just("set"), st.integers(0, 10_000), st.sampled_from(list(BYTES))),
    st.tuples(st.just("insert"), st.integers(0, 10_000), st.sampled_from(list(BYTES))),
    st.tuples(st.just("delete"), st.integers(0, 10_000), st.just(0)),
)


def _corrupt(data: bytes, edits: list[tuple[str, int, int]]) -> bytes:
    b = bytearray(data)
    for kind, pos, byte in edits:
        i = pos % (len(b) + 1)
        if kind == "insert":
            b.insert(i, byte)
        elif b and kind == "set":
            b[i % len(b)] = byte
        elif b:
            del b[i % len(b)]
    return bytes(b)


def test_the_reference_parser_reads_the_clean_pair() -> None:
    assert reference_qrels(QRELS) == [(b"1", b"a", 1), (b"1", b"b", 0), (b"1", b"c", 2),
                                      (b"2", b"d", 1), (b"2", b"e", 0)]
    run = reference_run(RUN)
    assert run is not None
    assert [r[3] for r in run] == [0.4, 0.9, 0.1, 0.2, 0.8]
    assert reference_run(RUN.replace(b"0.4", b"0_4")) is None
    assert reference_qrels(b"\xef\xbb\xbf" + QRELS) == reference_qrels(QRELS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from(["qrels", "run", "both"]),
       edits=st.lists(mutation, min_size=1, max_size=3))
@example(which="run", edits=[("set", 32, 0)])  # a NUL in run line 3's ignored Q0 field (CI find)
def test_corrupted_trec_files_never_give_a_number_the_strict_parser_would_not(
        which: str, edits: list[tuple[str, int, int]]) -> None:
    qrels = _corrupt(QRELS, edits) if which in ("qrels", "both") else QRELS
    run = _corrupt(RUN, edits) if which in ("run", "both") else RUN
    with tempfile.TemporaryDirectory() as tmp:
        status, out, err = _evaluate(Path(tmp), qrels, run)
        assert "Traceback" not in err
        assert status in (0, 2), err
        ref_q, ref_r = reference_qrels(qrels), reference_run(run)
        if ref_q is None or ref_r is None:
            assert status == 2, f"accepted bytes the strict grammar refuses: {out}"
            return
        canonical_q = b"".join(b"%s 0 %s %d\n" % (q, d, r) for q, d, r in ref_q)
        canonical_r = b"".join(b"%s Q0 %s %d %s %s\n" % (q, d, rk, repr(s).encode(), t)
                               for q, d, rk, s, t in ref_r)
        clean = Path(tmp) / "clean"
        clean.mkdir()
        status_c, out_c, err_c = _evaluate(clean, canonical_q, canonical_r)
        assert (status, out) == (status_c, out_c), (err, err_c)
