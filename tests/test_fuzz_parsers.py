"""Property tests: every file reader and the ``evaluate`` command on random and mutated bytes.

Issue 19 item 9. For each reader the property is the same: on any bytes it either returns a
value or raises ltrbench's own error (:class:`bench.errors.LtrbenchError`, which ``bench.cli``
prints as one line with exit status 2) naming the file; never another exception. Where a value
comes back, it is compared with an oracle that does not share code with the reader:

* TREC qrels + run: a strict reader written here from the documented grammar
  (``tests/fuzz_helpers.py``) and ``pytrec_eval`` (trec_eval's C code) for ndcg_cut_10, map,
  P_5 and recip_rank under ltrbench's ``trec_eval`` profile;
* SVMlight: a slow reader here (``label qid:Q index:value ...``, 1-based indices);
* ratings tables: pandas' own CSV reader on clean files;
* the ``evaluate`` command: ``bench.cli.main`` in-process must return 0 or 2 and print no
  ``Traceback``.

Hypothesis runs 40-80 examples per test (``deadline=None``: the first call compiles kernels).
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import numpy as np
import pytest
from fuzz_helpers import (
    TREC_METRICS,
    Refused,
    clear_error,
    fuzz_settings,
    mutated,
    oracle_qrels,
    oracle_run,
    outcome,
    pytrec_means,
    qrels_dicts,
    run_dicts,
    split_lines,
    strict_float,
    strict_int,
    trec_text,
)
from hypothesis import assume, given
from hypothesis import strategies as st

from bench import cli
from bench.data.svmlight import read_svmlight
from bench.data.tabular import load_ratings_table
from bench.data.trec import read_qrels, read_run
from bench.metrics import evaluate_trec

FAST = fuzz_settings(60)
FEW = fuzz_settings(30)

QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 0\n3 0 f 1\n"
RUN = (b"1 Q0 a 1 0.4 t\n1 Q0 b 2 0.9 t\n1 Q0 c 3 0.1 t\n2 Q0 d 1 0.2 t\n2 Q0 e 2 0.8 t\n"
       b"2 Q0 x 3 0.8 t\n")
DATA = b"2 qid:1 1:0.5 2:1\n0 qid:1 1:0.1\n1 qid:1 2:0.3\n1 qid:2 1:0.2\n0 qid:2 1:0.9\n"


def _write(tmp: Path, name: str, data: bytes) -> Path:
    p = tmp / name
    p.write_bytes(data)
    return p


def _ltr_means(qrels: Path, run: Path) -> dict[str, float] | None:
    r = outcome(lambda: evaluate_trec(qrels, run, metrics=" ".join(TREC_METRICS),
                                      profile="trec_eval"))
    if not r.ok:
        clear_error(r.error, qrels.name, run.name)  # type: ignore[arg-type]
        return None
    return dict(zip(TREC_METRICS, r.value.metrics.values(), strict=True))


def _check_against_pytrec(qrels_b: bytes, run_b: bytes, got: dict[str, float]) -> None:
    try:
        q, r = oracle_qrels(qrels_b), oracle_run(run_b)
    except Refused as exc:
        raise AssertionError(f"ltrbench accepted input the strict reader refuses: {exc}") from None
    assume(not any("\x00" in k or any("\x00" in d for d in v) for k, v in {**q, **r}.items()))
    want = pytrec_means(q, r)
    if want is None:  # no run query has qrels: trec_eval prints nothing
        assert all(math.isnan(v) for v in got.values()), got
        return
    for m in TREC_METRICS:
        assert got[m] == pytest.approx(want[m], abs=1e-9), (m, got, want)


# ------------------------------------------------------------------------------------ TREC
@FAST
@given(qrels=qrels_dicts, run=run_dicts, sep=st.sampled_from([b" ", b"\t", b"  ", b" \t"]),
       end=st.sampled_from([b"\n", b"\r\n"]), bom=st.booleans())
def test_clean_trec_files_equal_pytrec_eval(tmp_path: Path, qrels: dict[str, dict[str, int]],
                                            run: dict[str, dict[str, float]], sep: bytes,
                                            end: bytes, bom: bool) -> None:
    assume(set(qrels) & set(run))
    qb = (b"\xef\xbb\xbf" if bom else b"") + trec_text(qrels, "qrels", sep=sep, end=end)
    rb = trec_text(run, "run", sep=sep, end=end)
    got = _ltr_means(_write(tmp_path, "q.txt", qb), _write(tmp_path, "r.txt", rb))
    assert got is not None, "a clean pair of files was refused"
    _check_against_pytrec(qb, rb, got)


@FAST
@given(data=st.data())
def test_mutated_trec_files_error_or_pytrec_eval(tmp_path: Path, data: st.DataObject) -> None:
    which = data.draw(st.sampled_from(["qrels", "run", "both"]))
    qb = data.draw(mutated(QRELS)) if which in ("qrels", "both") else QRELS
    rb = data.draw(mutated(RUN)) if which in ("run", "both") else RUN
    got = _ltr_means(_write(tmp_path, "q.txt", qb), _write(tmp_path, "r.txt", rb))
    if got is not None:
        _check_against_pytrec(qb, rb, got)


@FAST
@given(blob=st.binary(max_size=300), role=st.sampled_from(["qrels", "run"]))
def test_random_bytes_as_trec_file(tmp_path: Path, blob: bytes, role: str) -> None:
    p = _write(tmp_path, "f.txt", blob)
    r = outcome(lambda: read_qrels(p) if role == "qrels" else read_run(p))
    if not r.ok:
        clear_error(r.error, "f.txt")  # type: ignore[arg-type]


@FEW
@given(run=run_dicts, qrels=qrels_dicts, role=st.sampled_from(["qrels", "run"]))
def test_cr_only_line_ends_read_as_lf_or_refused(tmp_path: Path, run: dict[str, dict[str, float]],
                                                 qrels: dict[str, dict[str, int]],
                                                 role: str) -> None:
    """One rule for every text reader: a CR-only file gives the LF file's numbers, or an error."""
    assume(set(qrels) & set(run))
    qb, rb = trec_text(qrels, "qrels"), trec_text(run, "run")
    lf = _ltr_means(_write(tmp_path, "q.txt", qb), _write(tmp_path, "r.txt", rb))
    if role == "qrels":
        qb = qb.replace(b"\n", b"\r")
    else:
        rb = rb.replace(b"\n", b"\r")
    cr = _ltr_means(_write(tmp_path, "q.txt", qb), _write(tmp_path, "r.txt", rb))
    assert cr is None or cr == lf, (lf, cr)


# ------------------------------------------------------------------------------------ SVMlight
def _oracle_svmlight(data: bytes) -> tuple[list[float], list[int], dict[tuple[int, int], float]]:
    """labels, qids, {(row, 0-based column): value} of clean SVMlight text, or Refused."""
    labels: list[float] = []
    qids: list[int] = []
    cells: dict[tuple[int, int], float] = {}
    for line in split_lines(data):
        line = line.split(b"#", 1)[0]
        parts = line.split()
        if not parts:
            continue
        labels.append(strict_float(parts[0]))
        if len(parts) < 2 or not parts[1].startswith(b"qid:"):
            raise Refused("no qid")
        qids.append(strict_int(parts[1][4:]))
        for tok in parts[2:]:
            i, _, v = tok.partition(b":")
            idx = strict_int(i)
            if idx < 1:
                raise Refused(tok)
            cells[(len(labels) - 1, idx - 1)] = strict_float(v)
    return labels, qids, cells


@FAST
@given(data=st.data())
def test_mutated_svmlight_error_or_slow_reader(tmp_path: Path, data: st.DataObject) -> None:
    blob = data.draw(st.one_of(mutated(DATA), st.binary(max_size=200)))
    p = _write(tmp_path, "d.txt", blob)
    r = outcome(lambda: read_svmlight(p, sort_by_qid=False, threads=1))
    if not r.ok:
        clear_error(r.error, "d.txt")  # type: ignore[arg-type]
        return
    try:
        labels, qids, cells = _oracle_svmlight(blob)
    except (Refused, UnicodeDecodeError):
        return  # ltrbench accepts more than the strict reader (e.g. a qid-less sidecar): no oracle
    d = r.value
    assert list(d.y) == labels
    assert list(d.query_ids) == list(dict.fromkeys(qids))
    x = d.X.toarray() if hasattr(d.X, "toarray") else np.asarray(d.X)
    for (i, j), v in cells.items():
        assert x[i, j] == np.float32(v) or x[i, j] == v, (i, j, x[i, j], v)


@FAST
@given(scores=st.one_of(mutated(b"0.9\n0.1\n0.5\n0.2\n0.8\n"), st.binary(max_size=60)))
def test_scores_file_error_or_value(tmp_path: Path, scores: bytes) -> None:
    """``evaluate --data --scores``: exit 0 with the value of the scores the strict reader
    reads, or exit 2 with one line naming the scores file."""
    _write(tmp_path, "d.txt", DATA)
    _write(tmp_path, "s.txt", scores)
    status, out, err = _cli(tmp_path, ["evaluate", "--data", "d.txt", "--scores", "s.txt",
                                       "--metrics", "ndcg@10", "--format", "csv"])
    if status == 2:
        assert "s.txt" in err or "d.txt" in err, err
        return
    assert status == 0, err
    try:
        lines = split_lines(scores)
        while lines and not lines[-1].strip():  # trailing blank lines end the file
            lines.pop()
        vals = [strict_float(t.strip()) for t in lines]
    except Refused:
        raise AssertionError(f"accepted scores the strict reader refuses: {scores!r}") from None
    assert len(vals) == 5
    from metrics_oracles import evaluate_oracle

    want, _ = evaluate_oracle([2, 0, 1, 1, 0], vals, [3, 2], "ndcg@10", "ltrbench")
    assert float(out.splitlines()[1].split(",")[1]) == pytest.approx(want["ndcg@10"], abs=1e-12)


# ------------------------------------------------------------------------------------ ratings
RATINGS = b"u,i,r,t\n1,10,4,100\n1,11,3,200\n2,10,5,300\n2,12,1,400\n3,11,2.5,500\n"


@FAST
@given(blob=st.one_of(mutated(RATINGS), st.binary(max_size=200)))
def test_ratings_table_error_or_pandas(tmp_path: Path, blob: bytes) -> None:
    p = _write(tmp_path, "ratings.csv", blob)
    r = outcome(lambda: load_ratings_table(p, user="u", item="i", rating="r", timestamp="t"))
    if not r.ok:
        clear_error(r.error, "ratings.csv")  # type: ignore[arg-type]
        return
    frame = r.value.frame
    assert np.isfinite(frame["rating"].to_numpy(dtype=float)).all(), frame
    assert not frame.duplicated(["user", "item"]).any()


@FAST
@given(blob=st.one_of(mutated(b"1\t10\t4\t100\n1\t11\t3\t200\n2\t10\t5\t300\n"),
                      st.binary(max_size=200)))
def test_movielens_udata_error_or_value(tmp_path: Path, blob: bytes) -> None:
    from bench.data.movielens import load_movielens

    (tmp_path / "ml").mkdir(exist_ok=True)
    _write(tmp_path / "ml", "u.data", blob)
    r = outcome(lambda: load_movielens(tmp_path / "ml", layout="ml-100k"))
    if not r.ok:
        clear_error(r.error, "u.data", "ml")  # type: ignore[arg-type]
        return
    assert np.isfinite(r.value.frame["rating"].to_numpy(dtype=float)).all()


# ------------------------------------------------------------------------------------ CLI
def _cli(cwd: Path, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    import os

    old = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main(argv)
            except SystemExit as exc:  # argparse: a usage error is exit 2 with a usage line
                status = int(exc.code or 0)
    finally:
        os.chdir(old)
    assert "Traceback" not in err.getvalue()
    return status, out.getvalue(), err.getvalue()


@FAST
@given(data=st.data())
def test_cli_evaluate_on_random_trec_files_exits_0_or_2(tmp_path: Path, data: st.DataObject) -> None:
    qb = data.draw(st.one_of(mutated(QRELS), st.binary(max_size=120)))
    rb = data.draw(st.one_of(mutated(RUN), st.binary(max_size=120)))
    extra = data.draw(st.sampled_from([[], ["--profile", "trec_eval-c"], ["--profile", "ranx"],
                                       ["--run", "b=r.txt"], ["--format", "json"]]))
    _write(tmp_path, "q.txt", qb)
    _write(tmp_path, "r.txt", rb)
    argv = ["evaluate", "--qrels", "q.txt", "--run", "r.txt", "--metrics", "ndcg@10", "map",
            *extra]
    if extra[:1] == ["--run"]:
        argv[4] = "a=r.txt"
    status, _, err = _cli(tmp_path, argv)
    assert status in (0, 2), err
    if status == 2:
        assert len(err.strip().splitlines()) == 1, err
        assert "q.txt" in err or "r.txt" in err or "--run" in err, err


@FEW
@given(data=st.one_of(mutated(DATA), st.binary(max_size=120)),
       metrics=st.sampled_from(["ndcg@10", "map", "ndcg_cut_10", "nDCG@3", "err@5", "mrr"]),
       profile=st.sampled_from(["ltrbench", "lightgbm", "xgboost", "sklearn", "trec_eval",
                                "recbole", "letor4", "catboost"]))
def test_cli_evaluate_svmlight_exits_0_or_2(tmp_path: Path, data: bytes, metrics: str,
                                            profile: str) -> None:
    _write(tmp_path, "d.txt", data)
    _write(tmp_path, "s.txt", b"".join(f"{0.1 * i}\n".encode() for i in range(data.count(b"\n") + 1)))
    status, _, err = _cli(tmp_path, ["evaluate", "--data", "d.txt", "--scores", "s.txt",
                                     "--metrics", metrics, "--profile", profile])
    assert status in (0, 2), err


# ------------------------------------------------------------------------------------ ids
ID_TOKENS = st.sampled_from(["1", "2", "3", "-5", "007", "1e20", "2e20", "3e20", "1.0",
                             "9223372036854775807", "1e300", "inf", "-inf", "2.0"])


def _exact(token: str) -> object:
    """The number a numeric id spells (exactly), or the token itself."""
    from fractions import Fraction

    try:
        return Fraction(token)
    except ValueError:
        return token


@FAST
@given(users=st.lists(ID_TOKENS, min_size=1, max_size=6))
def test_distinct_numeric_ids_stay_distinct(tmp_path: Path, users: list[str]) -> None:
    rows = "".join(f"{u},{10 + n},4,{100 + n}\n" for n, u in enumerate(users))
    p = _write(tmp_path, "ratings.csv", ("u,i,r,t\n" + rows).encode())
    r = outcome(lambda: load_ratings_table(p, user="u", item="i", rating="r", timestamp="t"))
    if not r.ok:
        clear_error(r.error, "ratings.csv")  # type: ignore[arg-type]
        return
    assert r.value.frame["user"].nunique() == len({_exact(u) for u in users}), r.value.frame


@FAST
@given(text=st.one_of(st.text(alphabet="0123456789-, _+e.", max_size=24),
                      st.lists(st.integers(-(2**70), 2**70), max_size=3)))
def test_seeds_parse_into_the_range_every_library_takes(text: object) -> None:
    from bench.benchmark.config import parse_seeds

    r = outcome(lambda: parse_seeds(text))
    if r.ok:
        assert all(type(s) is int and 0 <= s < 2**31 for s in r.value), r.value
    else:
        clear_error(r.error, "seeds")  # type: ignore[arg-type]


@FAST
@given(name=st.sampled_from(["num_leaves", "learning_rate", "n_trees", "min_data_in_leaf",
                             "subsample"]),
       values=st.lists(st.sampled_from(["7", "15", "0.1", "1_5", "nan", "inf", "abc", "-1", "0",
                                        "\u0663", "1e400", "true", " 3 "]), min_size=1,
                       max_size=3))
def test_tune_grid_values_are_typed_and_in_range(name: str, values: list[str]) -> None:
    from bench.benchmark.tune import parse_space

    r = outcome(lambda: parse_space(f"{name}={','.join(values)}"))
    if not r.ok:
        clear_error(r.error, name)  # type: ignore[arg-type]
        return
    for v in r.value[name]:
        assert not isinstance(v, bool | str), v
        assert math.isfinite(v), v
        assert v >= 0 if name == "min_data_in_leaf" else v > 0, v  # LightGBM: min_data >= 0
        if name in ("num_leaves", "n_trees", "min_data_in_leaf"):
            assert isinstance(v, int), v
    for tok in values:  # grid values are TOML values: '1_5' is TOML's 15; no non-ASCII digits
        assert tok.strip().isascii(), tok
        if "_" in tok:
            assert int(tok.strip().replace("_", "")) in r.value[name], tok


@FEW
@given(query=st.one_of(mutated(b"3\n2\n"), st.binary(max_size=40)))
def test_query_sidecar_error_or_its_groups(tmp_path: Path, query: bytes) -> None:
    """A ``.query`` file (group sizes) beside a qid-less SVMlight file: its sizes, or an error
    naming it."""
    data = b"2 1:0.5\n0 1:0.1\n1 2:0.3\n1 1:0.2\n0 1:0.9\n"
    d = _write(tmp_path, "d.txt", data)
    _write(tmp_path, "d.txt.query", query)
    r = outcome(lambda: read_svmlight(d, threads=1))
    if not r.ok:
        clear_error(r.error, "d.txt")  # type: ignore[arg-type]
        return
    try:
        lines = [t for t in split_lines(query) if t.strip()]  # blank lines are skipped anywhere
        sizes = [strict_int(t.strip()) for t in lines]
    except Refused:
        raise AssertionError(f"accepted a group file the strict reader refuses: {query!r}") from None
    assert list(np.diff(r.value.offsets)) == sizes
