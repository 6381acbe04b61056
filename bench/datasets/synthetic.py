"""A synthetic MovieLens-like ratings table, generated here and deterministic by seed.

The generator is the embedded default dataset of ltrbench: no download, no licence question,
and a size that makes the whole benchmark run in about a minute. It is also the input of the
adapter speed benchmark at ML-25M size (25M ratings, 162k users, 59k items), so every step is
vectorized over all users at once (NumPy, plus one compiled pass that drops repeated items).

The model, step by step (all draws from one ``numpy.random.default_rng(seed)``):

1. **Items.** Release year ``2019 - Gamma(2, 11.3)`` (median 1999, quartiles about 1988 and
   2007, as in ``ml-latest-small/movies.csv``); a primary genre and 0-4 more drawn from the
   MovieLens genre frequencies; a long-tailed popularity weight ``LogNormal(0, 1.6)``; a quality
   bias that grows with log popularity; a latent vector in ``R^8`` made of the genre vectors plus
   noise. An item can be rated only after it is released (the catalogue opens on
   1995-01-09, the first MovieLens rating).
2. **Users.** At least 20 ratings each (as in every MovieLens release) plus a long-tailed
   ``LogNormal(0, 1.45)`` share of the rest (median/mean about 0.43 as in ml-latest-small), capped
   at half the items released by the end of the user's activity window. A window of activity:
   60% of users rate in one sitting (an exponential with a two-hour mean), the others over
   ``LogNormal(log 100 days, 1.5)``. A genre preference ``Dirichlet(2 * genre frequencies)``, a
   latent vector (preference-weighted genre vectors plus noise) and a rating bias.
3. **Interactions.** For each rating slot a time uniform in the user's window; with probability
   one half an item of a genre drawn from the user's preference, else any item, in both cases with
   probability proportional to popularity among the items already released at that time.
   Repeated (user, item) pairs are dropped and redrawn until every user has exactly their count
   (late rounds draw uniformly among released items so that heavy users always finish).
4. **Ratings.** A score ``b_user + b_item + 0.9 * <w_user, v_item> + N(0, 0.6)`` is cut at the
   quantiles of the ml-latest-small rating distribution (0.5 to 5 stars in half stars, mode 4.0,
   mean 3.50), so the marginal distribution is MovieLens-like while users and items keep their
   biases and tastes.
5. **Tags.** 8% of users tag about a fifth of the items they rate (one or two tags each, a word of
   the item's primary genre or a generic one), a few minutes after rating.

The output has MovieLens conventions: ids from 1, timestamps in Unix seconds, rows sorted by
user then item, an ``items`` frame (``item``, ``title``, ``year``, ``genres`` tuple) and a
``tags`` frame (``user``, ``item``, ``tag``, ``timestamp``).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numba
import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.data.ratings import Ratings
from bench.errors import ConfigError

#: Genres and their share among (item, genre) pairs of ml-latest-small/movies.csv.
GENRES: tuple[tuple[str, float], ...] = (
    ("Drama", 0.197), ("Comedy", 0.170), ("Thriller", 0.086), ("Action", 0.083),
    ("Romance", 0.072), ("Adventure", 0.057), ("Crime", 0.054), ("Sci-Fi", 0.044),
    ("Horror", 0.044), ("Fantasy", 0.035), ("Children", 0.030), ("Animation", 0.028),
    ("Mystery", 0.026), ("Documentary", 0.020), ("War", 0.017), ("Musical", 0.015),
    ("Western", 0.008), ("IMAX", 0.007), ("Film-Noir", 0.004),
)

#: Half-star ratings and their shares in ml-latest-small/ratings.csv (mean 3.50, mode 4.0).
RATING_DISTRIBUTION: tuple[tuple[float, float], ...] = (
    (0.5, 0.0136), (1.0, 0.0279), (1.5, 0.0178), (2.0, 0.0749), (2.5, 0.0550),
    (3.0, 0.1988), (3.5, 0.1303), (4.0, 0.2660), (4.5, 0.0848), (5.0, 0.1310),
)

MIN_RATINGS_PER_USER = 20
FIRST_TIMESTAMP = 789_652_009  # 1995-01-09 11:46:49 UTC, the first rating in MovieLens 25M
LAST_TIMESTAMP = 1_574_327_703  # 2019-11-21 09:15:03 UTC, the last one
_LAST_YEAR = 2019
_FACTORS = 8
_GENRE_TAGS = {
    "Drama": ("moving", "powerful", "slow"), "Comedy": ("funny", "witty", "silly"),
    "Thriller": ("suspense", "twist ending", "tense"), "Action": ("explosions", "fast-paced",
                                                                   "fight scenes"),
    "Romance": ("romantic", "love story", "sweet"), "Adventure": ("epic", "journey", "quest"),
    "Crime": ("heist", "gangsters", "noir-ish"), "Sci-Fi": ("space", "dystopia", "aliens"),
    "Horror": ("scary", "gore", "creepy"), "Fantasy": ("magic", "dragons", "fairy tale"),
    "Children": ("family", "kids", "cute"), "Animation": ("pixar-like", "animated", "colorful"),
    "Mystery": ("whodunit", "puzzle", "detective"), "Documentary": ("informative", "true story",
                                                                    "history"),
    "War": ("wwii", "battle", "anti-war"), "Musical": ("songs", "dance", "broadway"),
    "Western": ("cowboys", "frontier", "gunfight"), "IMAX": ("spectacle", "3d", "big screen"),
    "Film-Noir": ("noir", "femme fatale", "black and white"),
}
_GENERIC_TAGS = ("classic", "overrated", "underrated", "atmospheric", "great soundtrack",
                 "visually appealing", "boring", "cult film", "must see", "based on a book")


def generate_ratings(
    *, n_users: int = 600, n_items: int = 9000, n_ratings: int = 100_000, seed: int = 0
) -> Ratings:
    """A MovieLens-like ratings table with ``n_ratings`` distinct (user, item) pairs.

    Every one of the ``n_users`` users has at least ``min(20, n_ratings // n_users)`` ratings;
    item popularity and user activity are long-tailed; ratings are half stars 0.5-5 with the
    ml-latest-small distribution. The same arguments give the same table (bit for bit) on every
    run. See the module docstring for the model.

    Raises :class:`ConfigError` when the sizes cannot be met (fewer ratings than users, or more
    than the users can rate with the items there are).
    """
    _check_sizes(n_users, n_items, n_ratings)
    rng = np.random.default_rng(seed)
    items = _make_items(rng, n_items)
    users = _make_users(rng, n_users, n_ratings, items)
    u, i, t = _draw_interactions(rng, users, items, n_items)
    rating = _ratings(rng, u, i, users, items)
    tags = _make_tags(rng, u, i, t, items)
    order = _order_by_user_item(u, i, n_items)
    frame = pd.DataFrame({
        "user": u[order].astype(np.int64) + 1,
        "item": i[order].astype(np.int64) + 1,
        "rating": rating[order],
        "timestamp": t[order],
    })
    items_frame = _items_frame(items, n_items)
    digest = _digest(frame)
    source = (f"synthetic(n_users={n_users}, n_items={n_items}, n_ratings={n_ratings}, "
              f"seed={seed})")
    return Ratings(frame=frame, items=items_frame, tags=tags, source=source,
                   sha256={source: digest})


# --------------------------------------------------------------------------- sizes


def _check_sizes(n_users: int, n_items: int, n_ratings: int) -> None:
    for name, value in (("n_users", n_users), ("n_items", n_items), ("n_ratings", n_ratings)):
        if int(value) != value or value < 1:
            raise ConfigError(f"{name} must be a positive integer, got {value!r}")
    if n_ratings < n_users:
        raise ConfigError(
            f"n_ratings={n_ratings} < n_users={n_users}: every user needs at least one rating"
        )
    if n_items < 2:
        raise ConfigError("n_items must be at least 2")
    # Each user may rate at most half the catalogue (see _make_users); leave a margin for users
    # whose window closes before every item is released.
    if n_ratings > n_users * (n_items // 4):
        raise ConfigError(
            f"n_ratings={n_ratings} is more than {n_users} users can rate among {n_items} items "
            f"(at most {n_users * (n_items // 4)}: a user rates at most a quarter of the items "
            "on average)"
        )


# --------------------------------------------------------------------------- items


class _Items:
    """Item attributes as arrays indexed by item code 0..n_items-1."""

    def __init__(self, **kw: NDArray[Any]) -> None:
        self.__dict__.update(kw)

    year: NDArray[np.int64]
    avail: NDArray[np.int64]
    primary: NDArray[np.int64]
    genre_indptr: NDArray[np.int64]
    genre_ids: NDArray[np.int64]
    weight: NDArray[np.float64]
    bias: NDArray[np.float64]
    factors: NDArray[np.float64]
    genre_vectors: NDArray[np.float64]


def _make_items(rng: np.random.Generator, n_items: int) -> _Items:
    n_genres = len(GENRES)
    freq = np.array([f for _, f in GENRES])
    freq = freq / freq.sum()
    age = rng.gamma(2.0, 11.3, n_items)
    year = np.clip(_LAST_YEAR - np.floor(age), 1902, _LAST_YEAR).astype(np.int64)
    jan1 = ((year - 1970) * 365.2425 * 86400).astype(np.int64)
    released = jan1 + (rng.random(n_items) * 365 * 86400).astype(np.int64)
    avail = np.clip(released, FIRST_TIMESTAMP, LAST_TIMESTAMP - 30 * 86400)
    first = int(np.argmin(avail))  # the catalogue is never empty: one item is there from the start
    avail[first] = FIRST_TIMESTAMP
    year[first] = min(int(year[first]), 1994)
    primary = rng.choice(n_genres, size=n_items, p=freq)
    n_extra = rng.choice(5, size=n_items, p=[0.29, 0.33, 0.24, 0.11, 0.03])
    extra = rng.choice(n_genres, size=int(n_extra.sum()), p=freq)
    owner = np.repeat(np.arange(n_items), n_extra)
    # Genre sets: the primary genre plus distinct extras (a repeated draw is simply dropped).
    pairs = np.unique(np.concatenate([np.arange(n_items) * n_genres + primary,
                                      owner * n_genres + extra]))
    genre_owner, genre_ids = np.divmod(pairs, n_genres)
    genre_indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(genre_owner, minlength=n_items), out=genre_indptr[1:])
    weight = rng.lognormal(0.0, 1.6, n_items)
    logw = np.log(weight)
    bias = 0.25 * (logw - logw.mean()) / logw.std() + rng.normal(0.0, 0.4, n_items)
    genre_vectors = rng.normal(0.0, 1.0, (n_genres, _FACTORS))
    gsum = np.zeros((n_items, _FACTORS))
    np.add.at(gsum, genre_owner, genre_vectors[genre_ids])
    n_g = np.diff(genre_indptr)[:, None]
    factors = (0.6 * genre_vectors[primary] + 0.4 * gsum / n_g
               + rng.normal(0.0, 0.5, (n_items, _FACTORS)))
    return _Items(year=year, avail=avail, primary=primary, genre_indptr=genre_indptr,
                  genre_ids=genre_ids, weight=weight, bias=bias, factors=factors,
                  genre_vectors=genre_vectors)


def _items_frame(items: _Items, n_items: int) -> pd.DataFrame:
    names = [g for g, _ in GENRES]
    ptr = items.genre_indptr.tolist()
    gid = items.genre_ids.tolist()
    # Genres listed alphabetically, as MovieLens does.
    genres = [tuple(sorted(names[g] for g in gid[ptr[k]:ptr[k + 1]])) for k in range(n_items)]
    years = items.year.tolist()
    titles = [f"Synthetic Film {k + 1} ({y})" for k, y in enumerate(years)]
    return pd.DataFrame({
        "item": np.arange(1, n_items + 1, dtype=np.int64),
        "title": pd.Series(titles, dtype=object),
        "year": pd.array(items.year, dtype="Int64"),
        "genres": pd.Series(genres, dtype=object),
    })


# --------------------------------------------------------------------------- users


class _Users:
    def __init__(self, **kw: NDArray[Any]) -> None:
        self.__dict__.update(kw)

    count: NDArray[np.int64]
    start: NDArray[np.int64]
    end: NDArray[np.int64]
    pref: NDArray[np.float64]  # (n_users, n_genres) genre preference, rows sum to 1
    bias: NDArray[np.float64]
    factors: NDArray[np.float64]


def _make_users(rng: np.random.Generator, n_users: int, n_ratings: int, items: _Items) -> _Users:
    span = LAST_TIMESTAMP - FIRST_TIMESTAMP
    start = FIRST_TIMESTAMP + (rng.random(n_users) * (span - 86400)).astype(np.int64)
    one_sitting = rng.random(n_users) < 0.6
    dur = np.where(one_sitting, rng.exponential(2 * 3600.0, n_users),
                   rng.lognormal(np.log(100 * 86400.0), 1.5, n_users))
    end = np.minimum(start + dur.astype(np.int64) + 60, LAST_TIMESTAMP)
    floor = min(MIN_RATINGS_PER_USER, n_ratings // n_users)
    avail = np.sort(items.avail)
    # A user may rate at most half the items released by the end of their window. A user whose
    # window closes too early for their minimum (or, when the total does not fit, every user)
    # stays active to the end of the period, when the whole catalogue is out.
    cap = np.searchsorted(avail, end, side="right") // 2
    end[cap < floor] = LAST_TIMESTAMP
    cap = np.searchsorted(avail, end, side="right") // 2
    if np.maximum(cap, floor).sum() < n_ratings:
        end[:] = LAST_TIMESTAMP
        cap = np.searchsorted(avail, end, side="right") // 2
    cap = np.maximum(cap, 1)
    count = _allocate(rng, n_users, n_ratings, floor, cap)
    n_genres = len(GENRES)
    freq = np.array([f for _, f in GENRES])
    pref = rng.dirichlet(2.0 * freq / freq.sum(), size=n_users)
    pref = np.maximum(pref, 1e-12)
    pref /= pref.sum(axis=1, keepdims=True)
    factors = pref @ items.genre_vectors * np.sqrt(n_genres / 4) + rng.normal(
        0.0, 0.5, (n_users, _FACTORS))
    bias = rng.normal(0.0, 0.45, n_users)
    return _Users(count=count, start=start, end=end, pref=pref, bias=bias, factors=factors)


def _allocate(
    rng: np.random.Generator, n_users: int, total: int, floor: int, cap: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Counts >= floor (and <= cap where possible) adding up to total, long-tailed."""
    room = np.maximum(cap, floor) - floor
    weight = rng.lognormal(0.0, 1.45, n_users)
    extra_total = total - floor * n_users
    if extra_total > int(room.sum()):
        raise ConfigError(f"could not place {extra_total - int(room.sum())} ratings within the "
                          "users' caps; ask for fewer ratings or more items")
    # Water filling: extra_u = min(room_u, lam * weight_u) with sum = extra_total (bisection).
    lo, hi = 0.0, 1.0
    while np.minimum(room, hi * weight).sum() < extra_total:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.minimum(room, mid * weight).sum() < extra_total:
            lo = mid
        else:
            hi = mid
    share = np.minimum(room, hi * weight)
    extra = np.minimum(np.floor(share).astype(np.int64), room)
    left = extra_total - int(extra.sum())
    while left > 0:  # the units lost to rounding go to the largest remainders with room
        frac = np.where(extra < room, share - extra, -1.0)
        order = np.argsort(-frac, kind="stable")[:left]
        order = order[extra[order] < room[order]]
        extra[order] += 1
        left -= order.shape[0]
    counts: NDArray[np.int64] = floor + extra
    return counts


# --------------------------------------------------------------------------- interactions


def _draw_interactions(
    rng: np.random.Generator, users: _Users, items: _Items, n_items: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    sampler = _ItemSampler(items, len(GENRES))
    n_users = users.count.shape[0]
    have_u = np.zeros(0, dtype=np.int64)
    have_i = np.zeros(0, dtype=np.int64)
    have_t = np.zeros(0, dtype=np.int64)
    have = np.zeros(n_users, dtype=np.int64)
    is_short = np.zeros(n_users, dtype=np.bool_)
    for round_ in range(200):
        need = users.count - have
        short = np.flatnonzero(need > 0)
        if short.size == 0:
            break
        # Round 0 draws exactly what is needed; later rounds top up with a margin.
        m = need[short] if round_ == 0 else np.ceil(need[short] * 1.15).astype(np.int64) + 4
        du = np.repeat(short, m)
        dt = users.start[du] + (rng.random(du.shape[0])
                                * (users.end[du] - users.start[du])).astype(np.int64)
        if round_ < 4:
            # Per user, the first x slots follow the user's genre taste (genre counts are
            # multinomial), the others overall popularity; times are i.i.d., so order is free.
            x = rng.binomial(m, 0.5)
            counts = rng.multinomial(x, users.pref[short])
            genre = np.repeat(np.tile(np.arange(len(GENRES)), short.shape[0]), counts.ravel())
            first = np.repeat(np.cumsum(m) - m, m)
            is_genre = (np.arange(du.shape[0]) - first) < np.repeat(x, m)
            di = sampler.draw(rng, dt, np.flatnonzero(is_genre), genre)
        else:
            di = sampler.uniform(rng, dt)
        if have_u.size:  # previous draws first, so that kept pairs stay kept
            is_short[:] = False
            is_short[short] = True
            mine = is_short[have_u]
            cu = np.concatenate([have_u[mine], du])
            order = np.argsort(cu, kind="stable")
            cu = cu[order]
            ci = np.concatenate([have_i[mine], di])[order]
            ct = np.concatenate([have_t[mine], dt])[order]
            keep = _first_distinct(cu, ci, users.count, n_items)
            done = ~mine
            have_u = np.concatenate([have_u[done], cu[keep]])
            have_i = np.concatenate([have_i[done], ci[keep]])
            have_t = np.concatenate([have_t[done], ct[keep]])
        else:
            keep = _first_distinct(du, di, users.count, n_items)
            have_u, have_i, have_t = du[keep], di[keep], dt[keep]
        have = np.bincount(have_u, minlength=n_users)
    else:  # pragma: no cover - the caps make this unreachable
        raise ConfigError("could not draw distinct items for every user")
    return have_u, have_i, have_t


class _ItemSampler:
    """Popularity-proportional draws among the items released by a given time."""

    def __init__(self, items: _Items, n_genres: int) -> None:
        by_time = np.argsort(items.avail, kind="stable")
        self.by_time = by_time
        self.avail_sorted = items.avail[by_time]
        self.cum = np.cumsum(items.weight[by_time])
        # The same per primary genre, concatenated: key = genre * 2^32 + (avail - first).
        rel = (items.avail - FIRST_TIMESTAMP).astype(np.int64)
        key = items.primary.astype(np.int64) << 32 | rel
        by_genre = np.argsort(key, kind="stable")
        self.g_items = by_genre
        self.g_key = key[by_genre]
        self.g_cum = np.cumsum(items.weight[by_genre])
        self.g_start = np.searchsorted(self.g_key, np.arange(n_genres, dtype=np.int64) << 32)
        self.n_genres = n_genres

    def draw(self, rng: np.random.Generator, dt: NDArray[np.int64], sel: NDArray[np.int64],
             g: NDArray[np.int64]) -> NDArray[np.int64]:
        """Items released by ``dt``; rows ``sel`` from genre ``g``, the others from all genres.

        A genre with nothing released yet at that time falls back to all genres.
        """
        out = np.full(dt.shape[0], -1, dtype=np.int64)
        key = g.astype(np.int64) << 32 | (dt[sel] - FIRST_TIMESTAMP)
        hi = np.searchsorted(self.g_key, key, side="right")
        lo = self.g_start[g]
        ok = hi > lo
        sel, lo, hi = sel[ok], lo[ok], hi[ok]
        below = np.where(lo > 0, self.g_cum[np.maximum(lo - 1, 0)], 0.0)
        target = below + rng.random(sel.shape[0]) * (self.g_cum[hi - 1] - below)
        gidx = np.clip(np.searchsorted(self.g_cum, target, side="right"), lo, hi - 1)
        out[sel] = self.g_items[gidx]
        rest = np.flatnonzero(out < 0)
        released = np.searchsorted(self.avail_sorted, dt[rest], side="right")
        base = rng.random(rest.shape[0]) * self.cum[released - 1]
        idx = np.minimum(np.searchsorted(self.cum, base, side="right"), released - 1)
        out[rest] = self.by_time[idx]
        return out

    def uniform(self, rng: np.random.Generator, dt: NDArray[np.int64]) -> NDArray[np.int64]:
        released = np.searchsorted(self.avail_sorted, dt, side="right")
        idx = (rng.random(dt.shape[0]) * released).astype(np.int64)
        return self.by_time[np.minimum(idx, released - 1)]


@numba.njit(cache=True)
def _first_distinct(users: np.ndarray, items: np.ndarray, quota: np.ndarray,
                    n_items: int) -> np.ndarray:  # pragma: no cover - compiled
    """Keep, per user (rows grouped by user), the first ``quota[user]`` distinct items."""
    keep = np.zeros(users.shape[0], dtype=np.bool_)
    stamp = np.full(n_items, -1, dtype=np.int64)
    current = -1
    taken = 0
    for k in range(users.shape[0]):
        u = users[k]
        if u != current:
            current = u
            taken = 0
        it = items[k]
        if stamp[it] != u and taken < quota[u]:
            stamp[it] = u
            keep[k] = True
            taken += 1
    return keep


# --------------------------------------------------------------------------- ratings, tags


def _ratings(rng: np.random.Generator, u: NDArray[np.int64], i: NDArray[np.int64],
             users: _Users, items: _Items) -> NDArray[np.float64]:
    score = users.bias[u] + items.bias[i] + rng.normal(0.0, 0.6, u.shape[0])
    dot = np.zeros(u.shape[0])
    uf = np.ascontiguousarray(users.factors.T)
    vf = np.ascontiguousarray(items.factors.T)
    for d in range(_FACTORS):
        dot += uf[d][u] * vf[d][i]
    score += 0.9 * dot / np.sqrt(_FACTORS)
    values = np.array([v for v, _ in RATING_DISTRIBUTION])
    shares = np.array([s for _, s in RATING_DISTRIBUTION])
    cum = np.cumsum(shares / shares.sum())[:-1]
    sample = score if score.shape[0] <= 1_000_000 else score[
        rng.choice(score.shape[0], 1_000_000, replace=False)]
    cuts = np.quantile(sample, cum)
    return values[np.searchsorted(cuts, score, side="right")]


def _make_tags(rng: np.random.Generator, u: NDArray[np.int64], i: NDArray[np.int64],
               t: NDArray[np.int64], items: _Items) -> pd.DataFrame:
    n_users = int(u.max()) + 1 if u.size else 0
    taggers = rng.random(n_users) < 0.08
    pick = np.flatnonzero(taggers[u] & (rng.random(u.shape[0]) < 0.2))
    reps = 1 + (rng.random(pick.shape[0]) < 0.35)
    rows = np.repeat(pick, reps)
    names = [g for g, _ in GENRES]
    vocab = [w for g in names for w in _GENRE_TAGS[g]] + list(_GENERIC_TAGS)
    generic0 = 3 * len(names)
    genre_word = items.primary[i[rows]] * 3 + rng.integers(0, 3, rows.shape[0])
    generic_word = generic0 + rng.integers(0, len(_GENERIC_TAGS), rows.shape[0])
    word = np.where(rng.random(rows.shape[0]) < 0.7, genre_word, generic_word)
    frame = pd.DataFrame({
        "user": u[rows].astype(np.int64) + 1,
        "item": i[rows].astype(np.int64) + 1,
        "tag": pd.Categorical.from_codes(word, categories=vocab),
        "timestamp": t[rows] + rng.integers(1, 600, rows.shape[0]),
    })
    frame = frame.drop_duplicates(["user", "item", "tag"]).sort_values(
        ["user", "item", "timestamp"], kind="stable")
    frame["tag"] = frame["tag"].astype(object)
    return frame.reset_index(drop=True)


def _order_by_user_item(u: NDArray[np.int64], i: NDArray[np.int64],
                        n_items: int) -> NDArray[np.int64]:
    """Row order by (user, item) with one integer sort of packed keys."""
    n = u.shape[0]
    bits = max(1, int(n - 1).bit_length())
    key = u.astype(np.int64) * n_items + i
    if int(key.max(initial=0)).bit_length() + bits <= 63:
        packed = np.sort(key << bits | np.arange(n, dtype=np.int64))
        return packed & ((1 << bits) - 1)
    return np.argsort(key, kind="stable")  # pragma: no cover - beyond 2^63 / n pairs


def _digest(frame: pd.DataFrame) -> str:
    h = hashlib.sha256()
    for col in ("user", "item", "rating", "timestamp"):
        h.update(np.ascontiguousarray(frame[col].to_numpy()).tobytes())
    return h.hexdigest()
