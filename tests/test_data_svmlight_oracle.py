"""The compiled SVMlight parser against sklearn's ``load_svmlight_file`` (the oracle).

X (float32 bits), y (float64 bits) and qid must be identical on every real LETOR file of
``../shared/data`` and on generated files covering the format's quirks; a slow pure-Python
reader written here is a second oracle. sklearn's dense matrix is ``csr.toarray()``, which
turns a stored ``-0`` into ``+0``; the parser does the same.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_svmlight_file, load_svmlight_files

from bench.data import svmlight_parse
from bench.data.svmlight import query_sidecar, read_svmlight, read_svmlight_files
from bench.data.svmlight_parse import parse_svmlight, parse_svmlight_files

_PLAIN = re.compile(rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _sklearn(path: Path, n_features: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X, y, q = load_svmlight_file(str(path), n_features=n_features, query_id=True,
                                 dtype=np.float32, zero_based=False)
    dense = np.asarray(X.toarray(), dtype=np.float32)
    if n_features is None and X.nnz == 0 and not _has_index(path):
        # a file without any index:value: scikit-learn makes one column of zeros (its width is
        # the largest index + 1 before zero_based shifts it), XGBoost's own reader none
        # (DMatrix(...).num_col() == 0, as a Parquet file without feature columns): ltrbench
        # reads none, and training refuses the file by name (LightGBM's reader refuses it too)
        dense = dense[:, :0]
    return dense, y, q


def _has_index(path: Path) -> bool:
    """Whether a data line of ``path`` holds an ``index:value`` token (a zero value too)."""
    for raw in path.read_bytes().removeprefix(b"\xef\xbb\xbf").splitlines():
        tokens = raw.split(b"#", 1)[0].split()
        if any(b":" in t and not t.startswith(b"qid:") for t in tokens[1:]):
            return True
    return False


def _slow_read(data: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Obviously-correct reader: split lines and tokens, Python float(), np.float32()."""
    rows: list[dict[int, np.float32]] = []
    y: list[float] = []
    q: list[int] = []
    for raw in data.removeprefix(b"\xef\xbb\xbf").split(b"\n"):
        tokens = raw.split(b"#", 1)[0].split()
        if not tokens:
            continue
        assert _PLAIN.fullmatch(tokens[0])
        y.append(float(tokens[0]))
        if len(tokens) > 1 and tokens[1].startswith(b"qid:"):
            q.append(int(tokens[1][4:]))
            tokens = tokens[1:]
        row = {}
        for tok in tokens[1:]:
            idx, value = tok.split(b":")
            assert idx.isdigit()
            assert _PLAIN.fullmatch(value)
            row[int(idx)] = np.float32(float(value))
        rows.append(row)
    width = max([0, *(max(r) for r in rows if r)])  # no index:value anywhere: no column
    X = np.zeros((len(rows), width), dtype=np.float32)
    for i, r in enumerate(rows):
        for j, v in r.items():
            X[i, j - 1] = v if v != 0 else np.float32(0.0)
    return X, np.asarray(y, dtype=np.float64), np.asarray(q, dtype=np.int64)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _assert_matches_oracles(path: Path) -> None:
    parsed = parse_svmlight(path)
    X, y, q = _sklearn(path)
    assert _same_bits(parsed.X, X)
    assert _same_bits(parsed.y, y)
    if q.shape[0]:
        assert parsed.qid is not None
        assert _same_bits(parsed.qid, q.astype(np.int64))
    else:
        assert parsed.qid is None
    sX, sy, sq = _slow_read(path.read_bytes())
    assert _same_bits(parsed.X, sX)
    assert _same_bits(parsed.y, sy)
    assert (parsed.qid if parsed.qid is not None else np.zeros(0, np.int64)).tolist() == sq.tolist()


# ---------------------------------------------------------------------------- real files


def _real_files(shared: Path) -> list[Path]:
    ohsumed = shared / "letor3-OHSUMED-QueryLevelNorm"
    files = [ohsumed / f"S{i}.txt" for i in range(1, 6)]
    files += [ohsumed / "Fold1" / f"{s}.txt" for s in ("train", "vali", "test")]
    lgb = shared / "lightgbm-lambdarank"
    files += [lgb / "rank.train", lgb / "rank.test"]
    present = [f for f in files if f.is_file()]
    if not present:
        pytest.skip(f"no LETOR files under {shared}")
    return present


def test_every_real_letor_file_parses_to_sklearns_arrays_bit_for_bit(shared_data: Path) -> None:
    for f in _real_files(shared_data):
        _assert_matches_oracles(f)


def test_ohsumed_fold_shares_sklearns_feature_count(shared_data: Path) -> None:
    fold = shared_data / "letor3-OHSUMED-QueryLevelNorm" / "Fold1"
    files = [fold / f"{s}.txt" for s in ("train", "vali", "test")]
    if not all(f.is_file() for f in files):
        pytest.skip("OHSUMED Fold1 is absent")
    ours = parse_svmlight_files(files)
    theirs = load_svmlight_files([str(f) for f in files], query_id=True, dtype=np.float32,
                                 zero_based=False)
    for k, p in enumerate(ours):
        assert _same_bits(p.X, theirs[3 * k].toarray().astype(np.float32))
        assert _same_bits(p.y, theirs[3 * k + 1])
        assert p.qid is not None
        assert _same_bits(p.qid, theirs[3 * k + 2].astype(np.int64))


def test_lightgbm_example_groups_come_from_the_query_sidecar(shared_data: Path) -> None:
    d = shared_data / "lightgbm-lambdarank"
    if not (d / "rank.train").is_file():
        pytest.skip("lightgbm-lambdarank is absent")
    train, test = read_svmlight_files([d / "rank.train", d / "rank.test"])
    for data, f in ((train, d / "rank.train"), (test, d / "rank.test")):
        X, y, _ = _sklearn(f, n_features=train.n_features)
        sizes = [int(s) for s in query_sidecar(f).read_text().split()]
        assert _same_bits(data.X, X)
        assert _same_bits(data.y, y)
        assert data.group_sizes.tolist() == sizes
        assert data.qid.tolist() == np.repeat(np.arange(len(sizes)), sizes).tolist()


# ------------------------------------------------------------------------ generated files


def _mq2008_like(rng: np.random.Generator, n_queries: int = 6) -> str:
    lines = []
    qid = 10002
    for _ in range(n_queries):
        qid += int(rng.integers(1, 50))
        for d in range(int(rng.integers(1, 9))):
            feats = " ".join(f"{j}:{v:.6f}" for j, v in enumerate(rng.random(46), start=1))
            lines.append(f"{int(rng.integers(0, 3))} qid:{qid} {feats} "
                         f"#docid = GX{int(rng.integers(0, 999)):03d}-{d:02d}-{qid} "
                         f"inc = 1 prob = {rng.random():.6f}")
    return "\n".join(lines) + "\n"


GENERATED = {
    "mq2008": None,  # filled by _mq2008_like
    "crlf": "2 qid:1 1:0.5 2:1\r\n0 qid:1 1:1.5 2:-2\r\n\r\n1 qid:2 2:3 #c\r\n",
    "missing_trailing": "1 qid:1 1:1 2:2 3:3\n0 qid:1 1:4\n2 qid:2 2:5\n",
    "sparse_gaps": "1 qid:1 3:1 17:2\n0 qid:1 5:4 9:1e-3\n",
    "blank_and_comment_lines": "# header\n\n   \n1 qid:1 1:1\n# middle\n\t\n0 qid:1 2:2\n#end",
    "scientific": "1e0 qid:1 1:1e-5 2:-2.5E+3 3:1.0e10 4:.5 5:5. 6:+7 7:1E-45 8:3.4e38\n",
    "negative": "-1 qid:-3 1:-0.5 2:-0 3:-1e-50 4:-123456.789\n-2.5 qid:-3 1:-7\n",
    "qid_gaps": "1 qid:5 1:1\n0 qid:5 1:2\n2 qid:900 1:3\n1 qid:123456789012 1:4\n",
    "long_digits": ("1 qid:1 1:0.12345678901234567890123 2:9007199254740993 "
                   "3:0.1000000014901161 4:16777217 5:1.00000005960464477539\n"),
    "tiny_and_huge": "1 qid:1 1:1e-320 2:4.9e-324 3:1e-400 4:3.4028235e38 5:1.4e-45\n",
    "leading_zeros": "0001 qid:007 0002:00.50 010:0e5\n",
    "tabs_and_spaces": "1\tqid:1\t1:1  \t 2:2 \t3:3\t\n",  # VT and FF are refused (inputs.py)
    "no_trailing_newline": "1 qid:1 1:1\n0 qid:1 2:2",
    "label_only": "1 qid:1\n0 qid:1 2:2\n",
    "comment_glued": "1 qid:1 1:0.5#c 2:9\n0 qid:1 2:2 #x:1\n",
    "no_qid": "1 1:1 2:2\n0 3:1\n",
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_file_matches_sklearn_and_the_slow_reader(tmp_path: Path, name: str) -> None:
    text = GENERATED[name] or _mq2008_like(np.random.default_rng(7))
    f = tmp_path / f"{name}.txt"
    f.write_bytes(text.encode())
    _assert_matches_oracles(f)


def test_utf8_bom_is_skipped_not_read_into_the_label(tmp_path: Path) -> None:
    plain, bom = tmp_path / "plain.txt", tmp_path / "bom.txt"
    plain.write_bytes(b"3 qid:1 1:0.5\n1 qid:1 2:1\n")
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    a, b = parse_svmlight(plain), parse_svmlight(bom)
    assert b.y.tolist() == [3.0, 1.0]
    assert _same_bits(a.X, b.X)
    assert _same_bits(a.y, b.y)


def test_many_small_chunks_on_two_threads_give_the_same_arrays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "mq.txt"
    f.write_text(_mq2008_like(np.random.default_rng(3), n_queries=40) + "\n# tail\n")
    whole = parse_svmlight(f, threads=1)
    monkeypatch.setattr(svmlight_parse, "CHUNK_BYTES", 300)  # lines are ~450 bytes
    for threads in (1, 2, 3):
        parts = parse_svmlight(f, threads=threads)
        assert _same_bits(parts.X, whole.X)
        assert _same_bits(parts.y, whole.y)
        assert parts.qid is not None
        assert whole.qid is not None
        assert _same_bits(parts.qid, whole.qid)
    _assert_matches_oracles(f)


def test_progress_reports_bytes_and_rows_up_to_the_totals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "mq.txt"
    f.write_text(_mq2008_like(np.random.default_rng(4), n_queries=20))
    monkeypatch.setattr(svmlight_parse, "CHUNK_BYTES", 2000)
    calls: list[tuple[int, int]] = []
    data = read_svmlight(f, progress=lambda b, r: calls.append((b, r)))
    assert len(calls) > 3
    assert calls == sorted(calls)
    assert calls[-1] == (f.stat().st_size, data.n_rows)


# ------------------------------------------------------------------- property: random text

_ws = st.sampled_from([" ", "  ", "\t", " \t "])


@st.composite
def _number(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["int", "float", "repr", "sci", "f32", "long"]))
    if kind == "int":
        return str(draw(st.integers(-10**6, 10**6)))
    if kind == "float":
        return f"{draw(st.floats(-1e4, 1e4)):.{draw(st.integers(0, 8))}f}"
    if kind == "repr":
        return repr(draw(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e30,
                                   max_value=1e30)))
    if kind == "sci":
        mant = draw(st.integers(-10**9, 10**9))
        return f"{mant}{draw(st.sampled_from(['e', 'E']))}{draw(st.integers(-60, 40))}"
    if kind == "f32":
        return f"{draw(st.floats(width=32, allow_nan=False, allow_infinity=False)):.9g}"
    digits = draw(st.text("0123456789", min_size=1, max_size=25))
    frac = draw(st.text("0123456789", max_size=25))
    return f"{digits}.{frac}" if frac else digits


@st.composite
def _svmlight_text(draw: st.DrawFn) -> str:
    with_qid = draw(st.booleans())
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    qid = draw(st.integers(-5, 10**12))
    for _ in range(draw(st.integers(1, 12))):
        extra = draw(st.sampled_from(["", "", "", "blank", "comment"]))
        if extra == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
        elif extra == "comment":
            lines.append("# " + draw(st.text("abc =#:0123456789 ", max_size=20)))
        label = draw(_number())
        parts = [label]
        if with_qid:
            qid += draw(st.integers(0, 3))
            parts.append(f"qid:{qid}")
        idx = sorted(draw(st.sets(st.integers(1, 60), max_size=8)))
        parts += [f"{j}:{draw(_number())}" for j in idx]
        line = draw(_ws).join(parts)
        if draw(st.booleans()):
            line += draw(_ws) + "#docid = " + draw(st.text("GX-0123456789:. ", max_size=15))
        lines.append(line)
    return eol.join(lines) + (eol if draw(st.booleans()) else "")


_F32_OVERFLOW = 3.4028235677973366e38  # the smallest double that rounds to inf in float32


def _finite_in_float32(text: str) -> bool:
    """Values beyond float32 are errors for the parser (sklearn gives inf): not in this property."""
    return all(
        abs(float(t.split(":")[1])) < _F32_OVERFLOW
        for line in text.splitlines()
        for t in line.split("#")[0].split()[1:]
        if not t.startswith("qid:")
    )


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=_svmlight_text())
def test_random_valid_svmlight_text_parses_to_sklearns_arrays(tmp_path: Path, text: str) -> None:
    if not _finite_in_float32(text):
        return
    f = tmp_path / "random.txt"
    f.write_bytes(text.encode())
    _assert_matches_oracles(f)


def test_rich_progress_callback_drives_a_bar_to_the_end(tmp_path: Path) -> None:
    f = tmp_path / "mq.txt"
    f.write_text(_mq2008_like(np.random.default_rng(5)))
    bar = svmlight_parse.rich_progress(f.stat().st_size, "mq.txt")
    with bar as cb:
        data = read_svmlight(f, progress=cb)
    assert (bar.bytes_done, bar.rows_done) == (f.stat().st_size, data.n_rows)
