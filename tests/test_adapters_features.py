"""Every feature against a slow, obviously-correct per-row implementation on small data.

The references below loop over rows and read the history from a pandas frame built by their
own temporal-split rule; similarities use dense NumPy columns (``np.corrcoef`` for Pearson)
and the SVD references use ``numpy.linalg.svd`` of the dense history matrix.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from bench.adapters import AdapterConfig, ratings_to_letor
from bench.adapters.als import als_half_step, fit_als
from bench.adapters.config import FEATURE_GROUPS
from bench.adapters.svd import truncated_svd
from bench.data.ratings import Ratings

N_USERS, N_ITEMS = 12, 40
GENRE_NAMES = ("Action", "Comedy", "Drama", "Horror")


def _ratings(seed: int = 0) -> Ratings:
    rng = np.random.default_rng(seed)
    parts = []
    for u in range(N_USERS):
        k = int(rng.integers(12, 36))
        parts.append(pd.DataFrame({
            "user": 5 + 2 * u,
            "item": 300 + rng.choice(N_ITEMS, k, replace=False),
            "rating": rng.integers(1, 11, k) / 2.0,
            "timestamp": 1_500_000_000 + rng.integers(0, 400, k) * 86_400,
        }))
    frame = pd.concat(parts, ignore_index=True).sample(frac=1.0, random_state=seed)
    items = pd.DataFrame({
        "item": 300 + np.arange(N_ITEMS + 3),  # three items nobody rated
        "title": [f"t{i}" for i in range(N_ITEMS + 3)],
        "year": pd.array([None if i % 7 == 0 else 1950 + i for i in range(N_ITEMS + 3)],
                         dtype="Int64"),
        "genres": [() if i % 9 == 0 else ("(no genres listed)",) if i % 11 == 0 else
                   tuple(sorted({GENRE_NAMES[i % 4], GENRE_NAMES[(i * 7) % 4]}))
                   for i in range(N_ITEMS + 3)],
    })
    tags = pd.DataFrame({
        "user": rng.choice(np.r_[5 + 2 * np.arange(N_USERS), 999], 80),
        "item": 300 + rng.integers(0, N_ITEMS + 5, 80),  # some tags on unknown items
        "tag": rng.choice(["funny", "dark", "long"], 80),
        "timestamp": 1_500_000_000 + rng.integers(0, 400, 80) * 86_400,
    })
    return Ratings(frame=frame.reset_index(drop=True), items=items, tags=tags, source="small")


def _history(frame: pd.DataFrame, s: int, min_history: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(history, targets) by the temporal rule: last 3s ratings of eligible users are targets."""
    hist, tgt = [], []
    for _, g in frame.groupby("user"):
        g = g.sort_values(["timestamp", "item"])
        if len(g) - 3 * s >= min_history:
            hist.append(g.iloc[: len(g) - 3 * s])
            tgt.append(g.iloc[len(g) - 3 * s:])
        else:
            hist.append(g)
    return pd.concat(hist), pd.concat(tgt)


@pytest.fixture(scope="module")
def data():
    r = _ratings()
    cfg = AdapterConfig(target_size=2, min_history=3, negatives=8, svd_factors=N_USERS,
                        similarity_history=4, feature_groups=FEATURE_GROUPS, als_factors=4,
                        als_iterations=3)
    splits = ratings_to_letor(r, cfg)
    hist, tgt = _history(r.frame, 2, 3)
    return r, cfg, splits, hist, tgt


def _rows(splits):
    for name, d in splits.splits().items():
        for k in range(d.n_rows):
            yield name, d, k, int(d.user[k]), int(d.item[k])


def _col(d, name: str) -> np.ndarray:
    return d.X[:, d.feature_names.index(name)].astype(np.float64)


def _check(splits, name: str, expected: dict[tuple[str, int], float], *, atol: float) -> None:
    for part, d in splits.splits().items():
        got = _col(d, name)
        want = np.array([expected[(part, k)] for k in range(d.n_rows)])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=atol, err_msg=f"{name} [{part}]")


def test_feature_names_and_matrix_are_float32_and_finite(data) -> None:
    _, _, splits, _, _ = data
    assert splits.train.feature_names == (
        "user_count", "user_mean", "user_std", "user_recency_days",
        "item_count", "item_log_count", "item_mean", "item_bayes_mean", "item_age_days",
        "item_release_age_years", "genre_share", "genre_mean_rating", "svd_score",
        "sim_cosine_max", "sim_cosine_mean", "sim_euclidean_max", "sim_euclidean_mean",
        "sim_jaccard_max", "sim_jaccard_mean", "sim_pearson_max", "sim_pearson_mean",
        "als_score", "tag_item_count", "tag_user_count")
    for d in splits.splits().values():
        assert d.X.dtype == np.float32
        assert d.X.flags.c_contiguous
        assert np.isfinite(d.X).all()


def test_user_features_equal_the_slow_per_user_computation(data) -> None:
    _, _, splits, hist, _ = data
    T = hist["timestamp"].max()
    exp: dict[str, dict] = {n: {} for n in ("user_count", "user_mean", "user_std",
                                              "user_recency_days")}
    for part, _, k, u, _ in _rows(splits):
        h = hist[hist["user"] == u]
        exp["user_count"][(part, k)] = len(h)
        exp["user_mean"][(part, k)] = h["rating"].mean()
        exp["user_std"][(part, k)] = np.std(h["rating"].to_numpy())
        exp["user_recency_days"][(part, k)] = (T - h["timestamp"].max()) / 86400
    for name, e in exp.items():
        _check(splits, name, e, atol=1e-5)


def test_item_features_equal_the_slow_per_item_computation(data) -> None:
    r, cfg, splits, hist, _ = data
    T = hist["timestamp"].max()
    C = hist["rating"].mean()
    m = cfg.bayes_prior
    years = dict(zip(r.items["item"], r.items["year"], strict=True))
    ref_year = pd.Timestamp(T, unit="s").year
    names = ("item_count", "item_log_count", "item_mean", "item_bayes_mean", "item_age_days",
             "item_release_age_years")
    exp: dict[str, dict] = {n: {} for n in names}
    for part, _, k, _, i in _rows(splits):
        h = hist[hist["item"] == i]
        n = len(h)
        exp["item_count"][(part, k)] = n
        exp["item_log_count"][(part, k)] = math.log(1 + n)
        exp["item_mean"][(part, k)] = h["rating"].mean() if n else C
        exp["item_bayes_mean"][(part, k)] = (h["rating"].sum() + m * C) / (n + m)
        exp["item_age_days"][(part, k)] = (T - h["timestamp"].min()) / 86400 if n else 0.0
        y = years.get(i)
        exp["item_release_age_years"][(part, k)] = -1.0 if pd.isna(y) else ref_year - y
    for name, e in exp.items():
        _check(splits, name, e, atol=1e-4)


def test_genre_affinity_equals_the_slow_definition(data) -> None:
    r, _, splits, hist, _ = data
    genres = {i: {g for g in gs if g != "(no genres listed)"}
              for i, gs in zip(r.items["item"], r.items["genres"], strict=True)}
    share, mean = {}, {}
    for part, _, k, u, i in _rows(splits):
        h = hist[hist["user"] == u]
        gi = genres[i]
        c = {g: sum(g in genres[j] for j in h["item"]) for g in gi}
        s = {g: sum(rt for j, rt in zip(h["item"], h["rating"], strict=True) if g in genres[j])
             for g in gi}
        share[(part, k)] = np.mean([c[g] / len(h) for g in gi]) if gi else 0.0
        total = sum(c.values())
        mean[(part, k)] = sum(s.values()) / total if total else h["rating"].mean()
    _check(splits, "genre_share", share, atol=1e-6)
    _check(splits, "genre_mean_rating", mean, atol=1e-5)


def _dense(r: Ratings, hist: pd.DataFrame) -> tuple[np.ndarray, list[int], list[int]]:
    users = sorted(r.frame["user"].unique())
    items = sorted(r.frame["item"].unique())
    R = np.zeros((len(users), len(items)))
    for u, i, v in zip(hist["user"], hist["item"], hist["rating"], strict=True):
        R[users.index(u), items.index(i)] = v
    return R, users, items


def _recent(hist: pd.DataFrame, u: int, m: int) -> list[int]:
    h = hist[hist["user"] == u].sort_values(["timestamp", "item"])
    return h["item"].tolist()[-m:] if m else h["item"].tolist()


def test_similarities_at_full_rank_equal_the_classic_measures_on_raw_columns(data) -> None:
    r, cfg, splits, hist, _ = data
    R, _, items = _dense(r, hist)
    B = (R != 0).astype(float)
    col = {i: R[:, items.index(i)] for i in items}
    pat = {i: B[:, items.index(i)] for i in items}

    def measures(i: int, j: int) -> tuple[float, float, float, float]:
        a, b = col[i], col[j]
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        cos = a @ b / (na * nb) if na and nb else 0.0
        euc = 1 / (1 + np.linalg.norm(a - b))
        inter = pat[i] @ pat[j]
        union = ((pat[i] + pat[j]) > 0).sum()
        jac = inter / union if union else 0.0
        pr = np.corrcoef(a, b)[0, 1] if a.std() and b.std() else 0.0
        return cos, euc, jac, pr

    exp: dict[str, dict] = {f"sim_{m}_{a}": {} for m in ("cosine", "euclidean", "jaccard",
                                                        "pearson") for a in ("max", "mean")}
    for part, _, k, u, i in _rows(splits):
        vals = np.array([measures(i, j) for j in _recent(hist, u, cfg.similarity_history)])
        for c, m in enumerate(("cosine", "euclidean", "jaccard", "pearson")):
            exp[f"sim_{m}_max"][(part, k)] = vals[:, c].max()
            exp[f"sim_{m}_mean"][(part, k)] = vals[:, c].mean()
    for name, e in exp.items():
        _check(splits, name, e, atol=2e-6)


def test_rank_k_svd_score_and_similarities_equal_numpy_best_rank_k(data) -> None:
    r, _, _, hist, _ = data
    k = 8  # k + 10 >= 12 users: the randomized range finder captures the whole row space
    cfg = AdapterConfig(target_size=2, min_history=3, negatives=8, svd_factors=k,
                        similarity_history=0, feature_groups=("svd", "similarity"))
    splits = ratings_to_letor(r, cfg)
    R, users, items = _dense(r, hist)
    B = (R != 0).astype(float)
    U, s, Vt = np.linalg.svd(R, full_matrices=False)
    recon = U[:, :k] * s[:k] @ Vt[:k]
    GR = Vt[:k].T * s[:k] ** 2 @ Vt[:k]  # best rank-k approximation of R^T R
    _, sb, Vbt = np.linalg.svd(B, full_matrices=False)
    GB = Vbt[:k].T * sb[:k] ** 2 @ Vbt[:k]
    Q, S, cnt, n = (R**2).sum(0), R.sum(0), B.sum(0), R.shape[0]
    score, cos_mean, euc_max, jac_mean, pr_max = {}, {}, {}, {}, {}
    for part, _, row, u, i in _rows(splits):
        a = items.index(i)
        score[(part, row)] = recon[users.index(u), a]
        cs, es, js, ps = [], [], [], []
        for j in _recent(hist, u, 0):
            b = items.index(j)
            g = GR[a, b]
            cs.append(np.clip(g / math.sqrt(Q[a] * Q[b]), -1, 1) if Q[a] * Q[b] else 0.0)
            es.append(1 / (1 + math.sqrt(max(Q[a] + Q[b] - 2 * g, 0))))
            inter = min(max(GB[a, b], 0), cnt[a], cnt[b])
            js.append(inter / max(cnt[a] + cnt[b] - inter, 1))
            va, vb = n * Q[a] - S[a] ** 2, n * Q[b] - S[b] ** 2
            ps.append(np.clip((n * g - S[a] * S[b]) / math.sqrt(va * vb), -1, 1)
                      if va > 0 and vb > 0 else 0.0)
        cos_mean[(part, row)] = np.mean(cs)
        euc_max[(part, row)] = max(es)
        jac_mean[(part, row)] = np.mean(js)
        pr_max[(part, row)] = max(ps)
    # the randomized SVD works in float32: agreement to float32 precision of |R| ~ 10
    _check(splits, "svd_score", score, atol=2e-4)
    _check(splits, "sim_cosine_mean", cos_mean, atol=1e-4)
    _check(splits, "sim_euclidean_max", euc_max, atol=1e-4)
    _check(splits, "sim_jaccard_mean", jac_mean, atol=1e-4)
    _check(splits, "sim_pearson_max", pr_max, atol=1e-4)


def test_tag_counts_use_only_history_tags(data) -> None:
    r, _, splits, _, tgt = data
    cut = tgt.groupby("user")["timestamp"].min().to_dict()
    target_pairs = set(zip(tgt["user"], tgt["item"], strict=True))
    rated_items = set(r.frame["item"])
    tags = r.tags
    keep = [i in rated_items and t < cut.get(u, np.inf) and (u, i) not in target_pairs
            for u, i, t in zip(tags["user"], tags["item"], tags["timestamp"], strict=True)]
    h = tags[keep]
    assert 0 < len(h) < len(tags)
    per_item, per_user = h.groupby("item").size(), h.groupby("user").size()
    ti, tu = {}, {}
    for part, _, k, u, i in _rows(splits):
        ti[(part, k)] = per_item.get(i, 0)
        tu[(part, k)] = per_user.get(u, 0)
    _check(splits, "tag_item_count", ti, atol=0)
    _check(splits, "tag_user_count", tu, atol=0)


def test_als_score_is_the_dot_product_of_the_fitted_factors(data) -> None:
    r, cfg, splits, hist, _ = data
    R, users, items = _dense(r, hist)
    X, Y = fit_als(sp.csr_matrix(R.astype(np.float32)), factors=cfg.als_factors,
                   iterations=cfg.als_iterations, regularization=cfg.als_regularization,
                   alpha=cfg.als_alpha, cg_steps=cfg.als_cg_steps, seed=cfg.seed)
    exp = {(p, k): float(X[users.index(u)] @ Y[items.index(i)]) for p, _, k, u, i in _rows(splits)}
    # float32 factors; the pipeline's matrix lists each row's items in time order, so sums
    # run in another order: agreement to float32 precision
    _check(splits, "als_score", exp, atol=2e-4)


def _als_loss(R: np.ndarray, X: np.ndarray, Y: np.ndarray, alpha: float, lam: float) -> float:
    C, P = 1 + alpha * R, (R > 0).astype(float)
    return float((C * (P - X @ Y.T) ** 2).sum() + lam * ((X**2).sum() + (Y**2).sum()))


def test_als_step_with_enough_cg_steps_is_the_exact_least_squares_solve() -> None:
    rng = np.random.default_rng(3)
    R = sp.random(25, 18, 0.3, format="csr", random_state=4,
                  data_rvs=lambda n: rng.integers(1, 11, n) / 2.0)
    alpha, lam, f = 2.0, 0.1, 5
    X, Y = fit_als(R, factors=f, iterations=2, regularization=lam, alpha=alpha, cg_steps=3,
                   seed=0, dtype=np.float64)
    X2 = X.copy()
    als_half_step(R.indptr.astype(np.int64), R.indices.astype(np.int32), 1 + alpha * R.data,
                  X2, Y, Y.T @ Y, lam, 3 * f)
    C, P = 1 + alpha * R.toarray(), (R.toarray() > 0).astype(float)
    exact = np.stack([np.linalg.solve(Y.T @ (C[u][:, None] * Y) + lam * np.eye(f),
                                      Y.T @ (C[u] * P[u])) for u in range(R.shape[0])])
    np.testing.assert_allclose(X2, exact, atol=1e-10)


def test_als_iterations_decrease_the_hkv_objective() -> None:
    rng = np.random.default_rng(5)
    R = sp.random(40, 30, 0.2, format="csr", random_state=6,
                  data_rvs=lambda n: rng.integers(1, 11, n) / 2.0)
    losses = []
    for it in (1, 2, 4, 8):
        X, Y = fit_als(R, factors=4, iterations=it, regularization=0.1, alpha=1.0, cg_steps=8,
                       seed=0, dtype=np.float64)
        losses.append(_als_loss(R.toarray(), X, Y, 1.0, 0.1))
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(losses))


def test_truncated_svd_matches_numpy_on_a_matrix_with_a_spectral_gap() -> None:
    rng = np.random.default_rng(7)
    A = rng.standard_normal((300, 5)) @ rng.standard_normal((5, 200)) * 10
    A += 0.01 * rng.standard_normal(A.shape)
    f = truncated_svd(sp.csr_matrix(A), 5)
    s = np.linalg.svd(A, compute_uv=False)
    np.testing.assert_allclose(f.s, s[:5], rtol=1e-4)
    np.testing.assert_allclose(f.V.T @ f.V, np.eye(5), atol=1e-4)
    np.testing.assert_allclose(f.U.T @ f.U, np.eye(5), atol=1e-4)
    exact = truncated_svd(sp.csr_matrix(A[:20, :30]), 30)  # k >= min(shape): dense LAPACK
    np.testing.assert_allclose(exact.U * exact.s @ exact.V.T, A[:20, :30], atol=1e-9)


def test_als_user_step_equals_the_implicit_librarys_exact_solve() -> None:
    """Independent oracle: ``implicit``'s ALS (Cholesky solve, ``use_cg=False``) recalculates each
    user's factor for fixed item factors. implicit's confidence is ``alpha * value`` (its
    ``cpu/_als.pyx``), ltrbench's ``1 + alpha * r`` (Hu, Koren & Volinsky 2008), so implicit gets
    the values ``1 + alpha * r`` with ``alpha = 1``: the same least-squares problem."""
    pytest.importorskip("implicit")
    import warnings

    from implicit.cpu.als import AlternatingLeastSquares

    from bench.adapters.als import als_half_step

    rng = np.random.default_rng(0)
    n_users, n_items, k, alpha, reg = 30, 50, 6, 2.0, 0.1
    R = sp.random(n_users, n_items, density=0.2, random_state=1, format="csr", dtype=np.float64)
    R.data = np.ceil(R.data * 5)
    Y = rng.standard_normal((n_items, k))
    conf = sp.csr_matrix((1.0 + alpha * R.data, R.indices, R.indptr), shape=R.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = AlternatingLeastSquares(factors=k, regularization=reg, alpha=1.0, dtype=np.float64,
                                        use_cg=False, iterations=1, random_state=0)
        model.fit(conf, show_progress=False)
    model.item_factors = Y.copy()
    theirs = np.vstack([model.recalculate_user(u, conf[u]) for u in range(n_users)])
    X = np.zeros((n_users, k))
    als_half_step(R.indptr.astype(np.int64), R.indices.astype(np.int32), conf.data, X, Y, Y.T @ Y,
                  reg, 50)
    np.testing.assert_allclose(X, theirs, rtol=0, atol=1e-9)
