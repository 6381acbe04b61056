"""Small inputs are evaluated without numba, with the compiled kernel's numbers bit for bit.

Below :data:`bench.metrics.kernels.small.SMALL_INPUT_ROWS` rows, while numba is not loaded,
``evaluate`` (``backend="auto"``) takes the interpreted twin of the compiled kernel
(:mod:`bench.metrics.kernels.python_kernel`) and the NumPy input scans
(:mod:`bench.metrics.kernels.small`). The golden values here are the compiled kernel's own
(``backend="numba"``), compared with ``==`` (not a tolerance): the vectorised NumPy kernel
differs from it in the last bits (sums in another order), the interpreted twin must not.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bench.metrics.kernels.numba_kernel as kn
from bench.data.svmlight import read_svmlight
from bench.metrics import evaluate, evaluate_trec, get_profile
from bench.metrics.kernels import small

REPO = Path(__file__).resolve().parents[1]
METRICS = ("ndcg@1,3,5,10,20 ndcg dcg@3 map@2,5,10 map mrr mrr@3 p@3,20 p recall@3 err@5 err "
           "hits@1,3 hits rprec bpref")
TIES = ("stable", "average", "pessimistic", "optimistic", "random", "docno_desc")
GRADED = ("ltrbench", "trec_eval", "lightgbm", "sklearn", "letor4", "ranx", "catboost")
BINARY = ("xgboost", "torchmetrics", "recbole")


def _same(a, b) -> None:  # type: ignore[no-untyped-def]
    """Equal means, per-query values (NaN = NaN) and diagnostics but the backend's name."""
    assert a.per_query is not None
    assert b.per_query is not None
    for col in a.per_query.columns:
        x, y = a.per_query[col].to_numpy(), b.per_query[col].to_numpy()
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), col
    assert list(a.metrics) == list(b.metrics)
    for name, value in a.metrics.items():
        assert value == b.metrics[name] or (np.isnan(value) and np.isnan(b.metrics[name])), name
    da, db = dataclasses.asdict(a.diagnostics), dataclasses.asdict(b.diagnostics)
    assert (da.pop("backend"), db.pop("backend")) == ("numba", "python")
    assert str(da) == str(db)


def _both(y, s, q, profile, metrics=METRICS):  # type: ignore[no-untyped-def]
    # the two label-table kernels share AP's tie rule; scikit-learn's thresholds (the sklearn
    # profiles' ap_ties) are the NumPy kernel's own, against sklearn in
    # tests/test_metrics_sklearn_average_precision.py
    prof = dataclasses.replace(get_profile(profile), ap_ties="ties")
    return [evaluate(y, s, qid=q, metrics=metrics, profile=prof, backend=b, per_query=True)
            for b in ("numba", "python")]


def _score_sets(data) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    """Scores with natural ties (a feature column), heavy ties (rounded) and none."""
    rng = np.random.default_rng(11)
    x = data.X
    col = np.asarray(x[:, 5].todense()).ravel() if hasattr(x, "todense") else np.asarray(x)[:, 5]
    n = data.y.shape[0]
    return {"feature": col.astype(np.float64), "rounded": np.round(rng.normal(size=n), 1),
            "distinct": rng.normal(size=n)}


@pytest.mark.parametrize("ties", TIES)
def test_the_interpreted_kernel_gives_the_compiled_numbers_on_ohsumed(shared_data: Path,
                                                                      ties: str) -> None:
    data = read_svmlight(shared_data / "letor3-OHSUMED-QueryLevelNorm" / "Fold1" / "test.txt")
    y, q = np.asarray(data.y, np.float64), np.asarray(data.qid)
    for name, s in _score_sets(data).items():
        for profile in GRADED:
            prof = dataclasses.replace(get_profile(profile), ties=ties)
            # CatBoost's ERR is another metric: err refused under its profile (round 22)
            _same(*_both(y, s, q, prof, *([METRICS.replace("err@5 err ", "")]
                                          if profile == "catboost" else [])))
        yb = (y > 0).astype(np.float64)  # the binary-label profiles
        for profile in BINARY:
            prof = dataclasses.replace(get_profile(profile), ties=ties)
            names = METRICS.replace("err@5 err ", "")
            if prof.nonpositive_scores == "not_relevant":  # torchmetrics: hits@k is refused
                names = " ".join(m for m in names.split() if not m.startswith("hits"))
            _same(*_both(yb, s, q, prof, names))
        assert name


def test_the_interpreted_kernel_gives_the_compiled_numbers_on_lightgbm_rank_test(
        shared_data: Path) -> None:
    folder = shared_data / "lightgbm-lambdarank"
    data = read_svmlight(folder / "rank.test", query_path=folder / "rank.test.query")
    y, q = np.asarray(data.y, np.float64), np.asarray(data.qid)
    for s in _score_sets(data).values():
        for profile in ("ltrbench", "lightgbm", "trec_eval", "sklearn"):
            _same(*_both(y, s, q, profile))
        f32 = dataclasses.replace(get_profile("lightgbm"), score_dtype="float32")
        _same(*_both(y, s * (1 + 1e-9), q, f32))  # float32 rounding makes new ties


@pytest.mark.parametrize("profile", ["trec_eval", "trec_eval-c", "ltrbench"])
def test_trec_pairs_with_unjudged_and_unscored_documents_give_the_compiled_numbers(
        tmp_path: Path, profile: str) -> None:
    """Judged documents the run misses (the ``qrels`` IDCG basis) and retrieved documents
    without a judgment (``unjudged_gain``), negative judgments, tied scores."""
    rng = np.random.default_rng(5)
    q_lines, r_lines = [], []
    for qid in range(12):
        docs = [f"D{qid}-{d}" for d in range(int(rng.integers(1, 25)))]
        for d in docs:
            if rng.random() < 0.7:
                q_lines.append(f"{qid} 0 {d} {int(rng.integers(-1, 4))}\n")
        for k, d in enumerate(docs):
            if rng.random() < 0.8:
                r_lines.append(f"{qid} Q0 {d} {k + 1} {float(rng.integers(0, 6)) / 2} t\n")
    (tmp_path / "q").write_text("".join(q_lines))
    (tmp_path / "r").write_text("".join(r_lines))
    a, b = (evaluate_trec(tmp_path / "q", tmp_path / "r", metrics=METRICS, profile=profile,
                          backend=be, per_query=True) for be in ("numba", "python"))
    _same(a, b)


HOSTILE_SCANS = {
    "clean": ([0, 1, 2, 3], [0.5, 0.25, 0.0, -1.0]),
    "nan score": ([0, 1, 2], [0.5, np.nan, np.inf]),
    "inf label": ([0, np.inf, 2], [0.0, 0.0, 0.0]),
    "nan label": ([np.nan, 1, -1], [1.0, 2.0, 3.0]),
    "negative label": ([1, -2, 0.5], [1.0, 2.0, 3.0]),
    "non-integer label": ([1, 2.5, 3], [1.0, 2.0, 3.0]),
    "beyond int64": ([1e300, 2, 1.5], [1.0, -np.inf, 0.0]),
    "negative zero": ([-0.0, -0.0], [-0.0, 0.0]),
    "only negative": ([-3.0, -1.0], [0.0, 0.0]),
    "one row": ([4.0], [1.0]),
}


@pytest.mark.parametrize("case", HOSTILE_SCANS)
def test_the_numpy_scan_answers_as_the_compiled_scan(case: str) -> None:
    labels, scores = (np.asarray(v, dtype=np.float64) for v in HOSTILE_SCANS[case])
    assert small.scan_inputs(labels, scores) == kn.scan_inputs(labels, scores)


@pytest.mark.parametrize("qid", [[1, 1, 2, 2, 3], [3, 3, 1, 2, 2], [1, 2, 1], [5], [2, 2, 2],
                                 [1, 2, 3, 2], [-1, -1, 0, 7, 7]])
def test_the_numpy_query_runs_answer_as_the_compiled_ones(qid: list[int]) -> None:
    q = np.asarray(qid, dtype=np.int64)
    got, want = small.run_offsets(q), kn.run_offsets(q)
    assert (got is None) == (want is None)
    if want is not None:
        assert got is not None
        assert got.tolist() == want.tolist()


def _fresh(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; the JSON it prints last."""
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


_SMALL_EVALUATION = (
    "import json, sys\n"
    "import bench.metrics.kernels.small as small\n"
    "LIMIT\n"
    "from bench.metrics import evaluate\n"
    "r = evaluate([2, 0, 1, 0, 1, 3], [0.9, 0.8, 0.1, 0.3, 0.5, 0.5], qid=[1, 1, 2, 2, 2, 2],\n"
    "             metrics='ndcg@1,3 map mrr err', profile='ltrbench')\n"
    "print(json.dumps({'backend': r.diagnostics.backend, 'metrics': r.metrics,\n"
    "                  'loaded': [m for m in ('numba', 'pandas', 'scipy', 'sklearn', 'pyarrow')\n"
    "                             if m in sys.modules]}))\n"
)


def test_a_small_evaluation_imports_neither_numba_nor_pandas() -> None:
    got = _fresh(_SMALL_EVALUATION.replace("LIMIT\n", ""))
    assert got["backend"] == "python"
    assert got["loaded"] == []
    want = evaluate([2, 0, 1, 0, 1, 3], [0.9, 0.8, 0.1, 0.3, 0.5, 0.5], qid=[1, 1, 2, 2, 2, 2],
                    metrics="ndcg@1,3 map mrr err", profile="ltrbench", backend="numba")
    assert got["metrics"] == want.metrics  # JSON keeps every bit of a float64


def test_an_input_above_the_limit_takes_the_compiled_kernel() -> None:
    got = _fresh(_SMALL_EVALUATION.replace("LIMIT\n", "small.SMALL_INPUT_ROWS = 5\n"))
    assert got["backend"] == "numba"
    assert "numba" in got["loaded"]  # type: ignore[operator]


def test_once_numba_is_loaded_the_compiled_kernel_is_used_whatever_the_size() -> None:
    got = _fresh(_SMALL_EVALUATION.replace("LIMIT\n", "import numba\n"))
    assert got["backend"] == "numba"


def test_the_python_backend_is_refused_on_labels_the_compiled_kernel_does_not_take() -> None:
    from bench.errors import ConfigError

    with pytest.raises(ConfigError, match="backend 'python' needs integer labels below 256"):
        evaluate([0.5, 1.0], [1.0, 2.0], group=[2], profile="sklearn", backend="python")
