"""Simple baselines: popularity, random, and implicit-feedback ALS.

Every baseline learns from the training split only and scores the validation and test rows.

* ``popularity`` (recommender data: rows carry item ids, ``LetorData.item``): the score of a row
  is the number of *relevant* training rows (label >= 1) of its item, over all users. Without
  item ids, a feature column named ``item_popularity`` (or ``popularity``) is used as the score
  if the data has one; otherwise the baseline is not applicable.
* ``random``: scores drawn uniformly from [0, 1) with ``numpy.random.default_rng(seed)``, one
  independent stream per split, so every seed is a different and reproducible random ranker.
* ``als``: implicit-feedback matrix factorisation, Hu, Koren & Volinsky, "Collaborative Filtering
  for Implicit Feedback Datasets", ICDM 2008. The preference matrix has p_ui = 1 for every
  training row with label >= 1 and confidence c_ui = 1 + alpha * label (the paper's linear
  confidence, with the graded label as the observation strength r_ui); every other (user, item)
  pair has p = 0, c = 1. Fitted with ltrbench's own ALS (:func:`bench.adapters.als.fit_als`:
  conjugate-gradient steps, Takács, Pilászy & Tikk 2011), which minimises
  Σ c_ui (p_ui − x_u·y_i)² + λ(Σ‖x_u‖² + Σ‖y_i‖²). The score
  of a row is x_u·y_i; a user or item that has no training row scores 0 (no information).
  Needs user and item ids. If the data instead has a feature named ``als`` or ``als_score``
  (computed by the ratings adapter from each user's history), that feature is the score and
  nothing is fitted here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.data.letor import LetorData, LetorSplits
from bench.data.python_args import plain_scalar
from bench.data.toml import Spec
from bench.runners.resources import Measurement, measure
from bench.runners.result import EVAL_SPLITS, FitResult, NotApplicable

#: Labels at or above this count as an interaction (the ``ltrbench`` profile's relevance threshold).
RELEVANT = 1.0
POPULARITY_FEATURES = ("item_popularity", "popularity")
ALS_FEATURES = ("als", "als_score")


#: The ALS baseline's ``[als]`` table (:class:`ALSParams`): factors and sweeps are counts, the
#: regularisation and the confidence weight non-negative numbers.
ALS_SPECS: dict[str, Spec] = {s.name: s for s in (
    Spec("factors", int, 1, 4096),
    Spec("regularization", float, 0, 1e300),
    Spec("alpha", float, 0, 1e300),
    Spec("iterations", int, 1, 100_000),
    Spec("cg_steps", int, 1, 1000),
)}


@dataclass(frozen=True)
class ALSParams:
    """Hyper-parameters of the ALS baseline.

    Defaults: 16 factors, λ = 0.1, α = 10, 15 sweeps. Chosen on the validation split of the
    synthetic dataset among factors {8, 16, 32, 64} × λ {0.01, 0.1, 1} × α {1, 10, 40} (16 is the
    middle of the good range there; 8 was best by 0.02 NDCG@10); not tuned per dataset.
    """

    factors: int = 16
    regularization: float = 0.1
    alpha: float = 10.0
    iterations: int = 15
    cg_steps: int = 3

    def __post_init__(self) -> None:
        """Each field typed and in range (:data:`ALS_SPECS`), a NumPy scalar or an Enum member
        as its plain value: ``ALSParams(factors=1.5)`` is refused when made, as ``[als]`` is."""
        for name, spec in ALS_SPECS.items():
            object.__setattr__(self, name, spec.check(plain_scalar(getattr(self, name)),
                                                      f"[als] {name}"))


DEFAULT_ALS = ALSParams()


def _feature(data: LetorData, names: tuple[str, ...]) -> int | None:
    for name in names:
        if name in data.feature_names:
            return data.feature_names.index(name)
    return None


def _feature_scores(splits: LetorSplits, split: str, col: int, model: str) -> NDArray[np.float64]:
    """Feature ``col`` of ``split`` as the baseline's scores; a NaN or infinite value (a missing
    feature in a Parquet or NumPy dataset) is a :class:`~bench.errors.DataError` naming the
    baseline, the split, the feature and the row (the evaluator's own message named none of
    them: ``row 1: score nan is not a finite number``)."""
    data = getattr(splits, split)
    values = np.asarray(data.X[:, col], dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.shape[0]:
        from bench.errors import DataError

        i = int(bad[0])
        raise DataError(f"the {model} baseline scores rows by feature "
                        f"{data.feature_names[col]!r}, which is {values[i]} in row {i + 1} of the "
                        f"{split} split (query {str(data.qid[i])!r}; rows so: {bad.shape[0]}): "
                        "expected finite values (NaN and infinity cannot be ranked)",
                        column=data.feature_names[col])
    return values


def run_popularity(splits: LetorSplits, seed: int = 0) -> FitResult:
    """Item popularity among relevant training rows (see the module docstring)."""
    train = splits.train
    has_items = all(getattr(splits, s).item is not None for s in ("train", *EVAL_SPLITS))
    col = None if has_items else _feature(train, POPULARITY_FEATURES)
    if not has_items and col is None:
        raise NotApplicable(
            "popularity needs item ids (recommender data) or a feature named "
            f"{' or '.join(POPULARITY_FEATURES)}; this dataset has neither"
        )
    scores: dict[str, NDArray[np.float64]] = {}
    if col is not None:
        with measure() as fit:
            pass
        with measure() as pred:
            for split in EVAL_SPLITS:
                scores[split] = _feature_scores(splits, split, col, "popularity")
        source = f"feature {train.feature_names[col]!r}"
    else:
        assert train.item is not None  # has_items
        with measure() as fit:
            items, counts = np.unique(train.item[train.y >= RELEVANT], return_counts=True)
        with measure() as pred:
            for split in EVAL_SPLITS:
                data = getattr(splits, split)
                pos, known = _lookup(items, data.item)
                s = np.zeros(data.n_rows, dtype=np.float64)
                s[known] = counts[pos[known]]
                scores[split] = s
        source = "count of relevant (label >= 1) train rows per item"
    return _baseline_result("popularity", seed, scores, pred, fit, notes={"source": source})


def run_random(splits: LetorSplits, seed: int = 0) -> FitResult:
    """Uniform random scores; split ``i`` of (vali, test) uses ``default_rng([seed, i])``."""
    with measure() as pred:
        scores = {
            split: np.random.default_rng([seed, i]).random(getattr(splits, split).n_rows)
            for i, split in enumerate(EVAL_SPLITS)
        }
    return _baseline_result(
        "random", seed, scores, pred,
        notes={"source": "numpy.random.default_rng([seed, split index]).random"},
    )


@functools.cache
def _warm_kernels() -> None:
    """Load (or compile) the ALS kernels once per process before any fit's clock starts: a
    fresh checkout's first ALS fit was charged numba's compilation (synthetic, seed 0: 2.58 s
    against 0.05 s for seeds 1 and 2)."""
    import scipy.sparse as sp

    from bench.adapters.als import fit_als

    one = sp.csr_matrix(np.ones((1, 1), dtype=np.float32))
    fit_als(one, factors=1, iterations=1, regularization=0.1, alpha=1.0, cg_steps=1, seed=0)


def run_als(
    splits: LetorSplits, seed: int = 0, *, params: ALSParams = DEFAULT_ALS, n_threads: int = 1
) -> FitResult:
    """Implicit-feedback ALS (Hu, Koren & Volinsky 2008); see the module docstring."""
    train = splits.train
    col = _feature(train, ALS_FEATURES)
    if col is not None:
        with measure() as pred:
            scores = {s: _feature_scores(splits, s, col, "als") for s in EVAL_SPLITS}
        return _baseline_result(
            "als", seed, scores, pred, notes={"source": f"adapter feature {train.feature_names[col]!r}"}
        )
    if any(getattr(splits, s).user is None or getattr(splits, s).item is None for s in ("train", *EVAL_SPLITS)):
        raise NotApplicable(
            "als needs user and item ids (recommender data) or a feature named "
            f"{' or '.join(ALS_FEATURES)}; this dataset has neither"
        )
    assert train.user is not None  # checked just above
    assert train.item is not None
    import numba
    import scipy.sparse as sp

    from bench.adapters.als import fit_als

    _warm_kernels()
    previous_threads = numba.get_num_threads()
    # numba.config sets NUMBA_NUM_THREADS through globals(), so its inline types lack it.
    numba.set_num_threads(max(1, min(n_threads, numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    try:
        with measure() as fit:
            users, u_index = np.unique(train.user, return_inverse=True)
            items, i_index = np.unique(train.item, return_inverse=True)
            rel = train.y >= RELEVANT
            matrix = sp.csr_matrix(
                (train.y[rel].astype(np.float32), (u_index[rel], i_index[rel])),
                shape=(users.shape[0], items.shape[0]),
            )
            matrix.sum_duplicates()
            user_factors, item_factors = fit_als(
                matrix,
                factors=params.factors,
                iterations=params.iterations,
                regularization=params.regularization,
                alpha=params.alpha,
                cg_steps=params.cg_steps,
                seed=seed,
            )
            uf = np.asarray(user_factors, dtype=np.float64)
            itf = np.asarray(item_factors, dtype=np.float64)
    finally:
        numba.set_num_threads(previous_threads)
    unseen = {}
    with measure() as pred:
        scores = {}
        for split in EVAL_SPLITS:
            data = getattr(splits, split)
            upos, uknown = _lookup(users, data.user)
            ipos, iknown = _lookup(items, data.item)
            known = uknown & iknown
            s = np.zeros(data.n_rows, dtype=np.float64)
            s[known] = np.einsum("ij,ij->i", uf[upos[known]], itf[ipos[known]])
            scores[split] = s
            unseen[split] = int((~known).sum())
    return _baseline_result(
        "als", seed, scores, pred, fit,
        library_params={
            "factors": params.factors,
            "regularization": params.regularization,
            "alpha": params.alpha,
            "iterations": params.iterations,
            "cg_steps": params.cg_steps,
            "seed": seed,
            "threads": n_threads,
        },
        notes={
            "source": "bench.adapters.als.fit_als on relevant train rows",
            "rows_scored_0_unseen_user_or_item": unseen,
        },
    )


def _baseline_result(
    model: str,
    seed: int,
    scores: dict[str, NDArray[np.float64]],
    pred: Measurement,
    fit: Measurement | None = None,
    *,
    notes: dict[str, Any],
    library_params: dict[str, Any] | None = None,
) -> FitResult:
    """A baseline's :class:`FitResult`: its scores, predict (and fit) time and memory."""
    return FitResult(
        model=model,
        library="baseline",
        seed=seed,
        scores=scores,
        fit_s=fit.seconds if fit is not None else 0.0,
        predict_s=pred.seconds,
        peak_rss_mb=max(fit.peak_rss_mb, pred.peak_rss_mb) if fit is not None else pred.peak_rss_mb,
        fit=fit,
        library_params=dict(library_params or {}),
        notes=notes,
    )


def _lookup(keys: NDArray[np.int64], values: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Positions of ``values`` in the sorted ``keys`` and whether each is present."""
    if keys.shape[0] == 0:
        return np.zeros(values.shape[0], dtype=np.int64), np.zeros(values.shape[0], dtype=bool)
    pos = np.clip(np.searchsorted(keys, values), 0, keys.shape[0] - 1)
    return pos, keys[pos] == values
