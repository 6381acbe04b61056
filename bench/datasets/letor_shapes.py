"""LETOR-shaped synthetic datasets: ``synthetic-mslr30k``, ``synthetic-yahoo``, ``synthetic-istella``.

They stand in for MSLR-WEB30K (Fold1), Yahoo! LTR set 1 and Istella LETOR (full) where the real
files cannot be fetched. The *shape* is published: queries and rows per split, feature count,
label histogram, documents per query. Each card's ``[shape]`` table holds those numbers and
``[shape.sources]`` says where each comes from (or that it is an assumption); the values are
synthetic. ``SCALE`` (``synthetic-mslr30k:0.01``) multiplies the query and row counts.

The generator, per split, all draws from ``numpy.random`` streams keyed by (seed, shape, split,
block of rows), so the result depends on the seed only, never on memory or timing:

1. **Queries and documents.** ``n_q = max(1, round(Q * scale))`` queries and
   ``n = max(n_q, round(R * scale))`` rows (``Q``, ``R``: the split's published counts). Weights
   ``LogNormal(0, sigma)`` apportion (largest remainder) the rows beyond one per query: exactly
   ``n`` rows (the published mean ``R / Q``), 1 to ``docs_max`` per query. ``sigma`` makes the
   expected largest of the dataset's ``N`` queries ``docs_max`` (``mean * exp(-sigma^2/2 +
   z_N sigma)``, ``z_N`` the normal quantile at ``1 - 1/(N+1)``) unless the card assumes a
   ``docs_sigma``: a lognormal as result lists are right-skewed and it is fitted by the mean and
   the maximum alone, the two numbers the datasets publish.
2. **Relevance.** Each row has ``K = 8`` standard normal latent factors ``u``. Its relevance is
   ``z = sqrt(0.3) a_q + sqrt(0.7) (sqrt(0.5) t + sqrt(0.5) e)`` with ``a_q`` a per-query
   normal (easy and hard queries), ``e`` noise, and ``t`` the standardised
   ``u1 + 0.6 u2 + 0.5 u1 u3`` (three latent relevance directions, one interaction). Labels cut
   ``z`` at its empirical quantiles, so the label proportions of every split are the card's.
3. **Features** (float32). Column ``j`` sees ``s = alpha_j <b_j, u> + sqrt(1 - alpha_j^2) eps +
   h_qj`` (a fixed loading ``b_j``, strength ``alpha_j``, 10% pure-noise columns, a per-query
   offset ``h``) through a transform of its kind: ``count`` (integers ``floor(exp(.)) - 1``, as
   MSLR's term counts), ``ratio`` (a logistic in [0, 1], 6 decimals), ``real`` (positive, 4
   decimals), ``negative`` (LMIR-like, 4 decimals), ``binary`` (0/1), ``query`` (one value per
   query, as MSLR's IDF). Sparse shapes (Yahoo) leave a column absent from a row with a
   per-column probability whose mean gives the published non-zero features per row; undefined
   columns are always 0. Which columns are defined, their loadings and transforms are fixed per
   shape (not per seed). Every value lies on a decimal grid with at most 7 significant digits,
   so its text form reads back as exactly the same float32.

:func:`ensure_letor_shape` writes a shape once into the data directory as a LETOR text folder in
the real dataset's layout, which :func:`bench.datasets.resolve.load_dataset` reads with the
LETOR folder reader, the same code that reads the real files; :func:`ensure_shape_parts` adds
the five parts ``S1..S5`` its folds (``synthetic-mslr30k:0.01:Fold3``) are built from.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.data.folders import DEFAULT_SEED, DEFAULT_VALI_FRACTION, SPLITS, carve_validation
from bench.data.letor import LetorData, LetorSplits
from bench.datasets.catalogue import SHAPES_LOADER, Card
from bench.datasets.letor_text import write_letor_text
from bench.datasets.locations import data_dirs, primary_data_dir
from bench.datasets.writable import writing_into
from bench.errors import ConfigError

#: Bumped whenever the generated values change; part of the folder name, so no stale copy is read.
GENERATOR_VERSION = 1
KINDS = ("count", "ratio", "real", "negative", "binary", "query")
RECORD = ".ltrbench-generated.json"
_DECIMALS = {"count": 0, "ratio": 6, "real": 4, "negative": 4, "binary": 0, "query": 4}
_REQUIRED_SOURCES = ("queries", "rows", "features", "labels", "docs")
_FACTORS = 8
_QUERY_SHARE = 0.3  # share of relevance variance between queries
_FEATURE_SHARE = 0.5  # share of within-query relevance the latent factors explain
_BLOCK_CELLS = 1 << 22  # feature cells generated at a time (bounded temporary memory)
_MAX_REAL = 799.9999  # |k| = |value| * 10^4 stays below 2^23: exact in float32


@dataclass(frozen=True, eq=False)
class LetorShape:
    """The published shape of a LETOR dataset, read from a card's ``[shape]`` table.

    ``queries`` / ``rows``: per split at scale 1 (no ``vali`` when the real dataset has no
    validation file); ``labels``: proportions of labels 0..4; ``files``: split -> path inside the
    dataset folder (the real dataset's layout); ``columns``: the kind of each feature.
    """

    name: str
    stands_in_for: str
    features: int
    queries: dict[str, int]
    rows: dict[str, int]
    labels: tuple[float, ...]
    docs_sigma: float
    docs_max: int | None
    write_zeros: bool
    defined_features: int
    nonzero_per_row: float | None
    columns: tuple[str, ...]
    files: dict[str, str]
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def splits(self) -> tuple[str, ...]:
        """The splits with published counts, in pipeline order."""
        return tuple(s for s in SPLITS if s in self.queries)

    def size(self, split: str, scale: float = 1.0) -> tuple[int, int]:
        """``(queries, rows)`` of ``split`` at ``scale``: at least 1 query (2 in a training split
        a validation set is carved from) and at least one row per query."""
        low = 2 if split == "train" and "vali" not in self.queries else 1
        n_q = max(low, round(self.queries[split] * scale))
        return n_q, max(n_q, round(self.rows[split] * scale))

    @functools.cached_property
    def decimals(self) -> NDArray[np.int64]:
        """Decimal places of each feature's values (0 for counts and 0/1)."""
        return np.array([_DECIMALS.get(k, 0) for k in self.columns], dtype=np.int64)

    @functools.cached_property
    def layout(self) -> _Layout:
        return _layout(self)


def shape_of(card: Card) -> LetorShape:
    """The :class:`LetorShape` of a ``letor-shapes`` card; a bad table is a :class:`ConfigError`."""
    where = f"{card.path or card.name} [shape]"
    if card.loader != SHAPES_LOADER:
        raise ConfigError(f"dataset {card.name!r} is not a generated LETOR shape")
    raw = dict(card.shape)

    def get(key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in raw:
            if default is ...:
                raise ConfigError(f"{where}: missing {key!r}")
            return default
        value = raw[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise ConfigError(f"{where}: {key} has the wrong type ({value!r})")
        return value

    features = get("features", int)
    queries, rows = get("queries", dict), get("rows", dict)
    files = {s: p for s, p in card.splits.items() if s in queries}
    if not ({"train", "test"} <= set(queries) == set(rows) == set(files) <= set(SPLITS)) or not all(
        type(queries[s]) is int and type(rows[s]) is int and 0 < queries[s] <= rows[s]
        for s in queries
    ):
        raise ConfigError(f"{where}: queries and rows need integers 0 < queries <= rows for "
                          "train, test and maybe vali, and [splits] a file for each")
    labels = [float(x) for x in get("labels", list)]
    if len(labels) != 5 or min(labels) < 0 or sum(labels) <= 0:
        raise ConfigError(f"{where}: labels must be 5 non-negative weights (labels 0..4)")
    columns: list[str] = []
    for item in get("columns", list):
        if (not isinstance(item, list) or len(item) != 2 or item[0] not in KINDS
                or not isinstance(item[1], int) or item[1] < 1):
            raise ConfigError(f"{where}: columns holds [kind, count] pairs, kinds "
                              f"{', '.join(KINDS)}; got {item!r}")
        columns += [item[0]] * item[1]
    if len(columns) != features:
        raise ConfigError(f"{where}: columns describe {len(columns)} features, not {features}")
    defined = get("defined_features", int, features)
    nonzero = get("nonzero_per_row", float, None)
    if not 1 <= defined <= features or (nonzero is not None and not 0 < nonzero <= defined):
        raise ConfigError(f"{where}: need 1 <= defined_features <= features and "
                          "0 < nonzero_per_row <= defined_features")
    write_zeros = get("write_zeros", bool, True)
    if not write_zeros and columns[-1] != "ratio":
        raise ConfigError(f"{where}: a shape written without zeros needs a last column of kind "
                          "'ratio' (never 0), so that every file reads as the full width")
    docs_max = get("docs_max", int, None)
    sigma = get("docs_sigma", float, None)
    if (docs_max is None) == (sigma is None):
        raise ConfigError(f"{where}: give exactly one of docs_max (fitted) or docs_sigma")
    sources = get("sources", dict, {})
    missing = [k for k in _REQUIRED_SOURCES if not isinstance(sources.get(k), str)]
    if missing:
        raise ConfigError(f"{where}.sources: say where {', '.join(missing)} come from")
    if docs_max is not None:
        q_all = sum(queries.values())
        sigma = _fit_sigma(sum(rows.values()) / q_all, docs_max, q_all)
    return LetorShape(
        name=card.name, stands_in_for=get("stands_in_for", str), features=features,
        queries=dict(queries), rows=dict(rows), labels=tuple(x / sum(labels) for x in labels),
        docs_sigma=float(sigma), docs_max=docs_max, write_zeros=write_zeros,
        defined_features=defined, nonzero_per_row=nonzero, columns=tuple(columns), files=files,
        sources=dict(sources),
    )


def generate_split(shape: LetorShape, split: str, *, scale: float = 1.0, seed: int = 0) -> LetorData:
    """One split of ``shape`` at ``scale`` (see the module docstring for the model).

    Rows: the published rows of the split times ``scale`` (exactly, rounded); queries likewise;
    features: the published count, float32; labels 0..4 in the published proportions; every
    number's source is in the card's ``[shape.sources]``. Deterministic for ``(shape, split,
    scale, seed)``; query ids are unique across the splits.
    """
    if split not in shape.queries:
        raise ConfigError(f"{shape.name} has no {split!r} split; it has {', '.join(shape.splits)}")
    lay = shape.layout
    n_q, n = shape.size(split, scale)
    first_qid = 1 + sum(shape.size(s, scale)[0] for s in shape.splits[: shape.splits.index(split)])
    key = (zlib.crc32(shape.name.encode()), SPLITS.index(split))
    rng = _rng(seed, *key, 0)
    sizes = _apportion(rng.lognormal(0.0, shape.docs_sigma, n_q), n, shape.docs_max)
    a_q = rng.standard_normal(n_q, dtype=np.float32)
    offsets_q = rng.standard_normal((n_q, lay.active.size), dtype=np.float32) * np.float32(0.5)
    per_query = rng.standard_normal((n_q, lay.query_cols.size), dtype=np.float32)
    offsets = np.zeros(n_q + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    q_of_row = np.repeat(np.arange(n_q, dtype=np.int64), sizes)
    X = np.zeros((n, shape.features), dtype=np.float32)
    z = np.empty(n, dtype=np.float32)
    step = max(1024, _BLOCK_CELLS // shape.features)  # fixed per shape: the draws do not move
    for b, r0 in enumerate(range(0, n, step)):
        r1 = min(n, r0 + step)
        q = q_of_row[r0:r1]
        z[r0:r1], block = _block(lay, _rng(seed, *key, 1, b), a_q[q], offsets_q[q],
                                 per_query[q])
        if lay.active.size == shape.features:
            X[r0:r1] = block
        else:
            X[r0:r1, lay.active] = block
    thresholds = np.quantile(z, np.cumsum(shape.labels)[:-1])
    y = np.searchsorted(thresholds, z, side="right").astype(np.float64)
    return LetorData(
        X=X, y=y, qid=q_of_row + first_qid, offsets=offsets,
        feature_names=tuple(f"f{j + 1}" for j in range(shape.features)),
        source=f"{shape.name} {split} (generated: scale {scale:g}, seed {seed})",
    )


def generate_letor_shape(shape: LetorShape, *, scale: float = 1.0, seed: int = 0) -> LetorSplits:
    """All splits of ``shape`` in memory (small scales; :func:`write_letor_shape` for large ones).

    A shape without a validation split gets one carved from its training queries by
    :func:`bench.data.folders.carve_validation` (fraction 0.2, seed 0), as the LETOR reader does
    for the real files, so this equals what reading the written folder gives.
    """
    check_scale(shape, scale, spec_name(shape.name, scale, seed))
    parts = {s: generate_split(shape, s, scale=scale, seed=seed) for s in shape.splits}
    meta: dict[str, object] = {"generated": generation_record(shape, scale, seed)}
    if "vali" not in parts:
        parts["train"], parts["vali"], meta["validation"] = carve_validation(
            parts["train"], fraction=DEFAULT_VALI_FRACTION, seed=DEFAULT_SEED)
    return LetorSplits(name=spec_name(shape.name, scale, seed), train=parts["train"],
                       vali=parts["vali"], test=parts["test"], meta=meta)


def check_scale(shape: LetorShape, scale: float, spec: str) -> None:
    """Refuse a scale so small that a split's queries hold one document on average (fewer rows
    than twice its queries, :meth:`LetorShape.size`): one document per query ranks nothing, and
    every metric of such a split is a constant. The error names the smallest scale that works."""
    def short(s: float) -> list[str]:
        return [split for split in shape.splits
                if (size := shape.size(split, s))[1] < 2 * size[0]]

    bad = short(scale)
    if not bad:
        return
    enough = scale
    while short(enough) and enough < 10.0:
        enough *= 2.0
    n_q, n = shape.size(bad[0], scale)
    raise ConfigError(f"dataset {spec!r}: scale {scale:g} leaves the {bad[0]} split {n} row(s) "
                      f"for {n_q} quer{'y' if n_q == 1 else 'ies'}, about one document per "
                      f"query: nothing to rank; use a scale of at least {enough:.2g}")


def write_letor_shape(
    shape: LetorShape, folder: str | os.PathLike[str], *, scale: float = 1.0, seed: int = 0
) -> dict[str, Path]:
    """Write ``shape`` as a LETOR text folder (the card's ``[splits]`` layout), split by split.

    Only one split is in memory at a time. Returns split -> file written.
    """
    out = {}
    for split in shape.splits:
        data = generate_split(shape, split, scale=scale, seed=seed)
        out[split] = write_letor_text(data, Path(folder) / shape.files[split],
                                      decimals=shape.decimals, write_zeros=shape.write_zeros)
        del data
    return out


def ensure_letor_shape(card: Card, *, scale: float = 1.0, seed: int = 0,
                       data_dir: str | os.PathLike[str] | None = None,
                       log: Callable[[str], None] | None = None) -> Path:
    """The folder holding ``card``'s shape at ``scale``/``seed``, generated on first use.

    Any data directory that already holds the folder (named by :func:`shape_folder`) is used as
    it is; otherwise the folder is written into a temporary folder of the first (writable) data
    directory and renamed into place, so a failed or concurrent run never leaves a partial one.
    """
    shape = shape_of(card)
    check_scale(shape, scale, spec_name(card.name, scale, seed))
    name = shape_folder(card, scale, seed)
    for d in data_dirs(data_dir):
        if (d / name).is_dir():
            return d / name
    parent = primary_data_dir(data_dir)
    dest = parent / name
    say = log or (lambda msg: print(msg, file=sys.stderr))
    say(f"{spec_name(card.name, scale, seed)}: generating {name} in {parent} (once)")
    staging = parent / f".{name}.generate-{uuid.uuid4().hex[:12]}"
    with writing_into(parent, f"the stand-in {name}"):
        parent.mkdir(parents=True, exist_ok=True)
        staging.mkdir()
    try:
        with writing_into(parent, f"the stand-in {name}"):  # a full disk: the staging is gone
            write_letor_shape(shape, staging, scale=scale, seed=seed)
            record = generation_record(shape, scale, seed)
            (staging / RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        try:
            os.rename(staging, dest)
        except OSError:
            if not dest.is_dir():
                raise
            shutil.rmtree(staging, ignore_errors=True)  # another process finished first
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return dest


def ensure_shape_parts(card: Card, *, scale: float = 1.0, seed: int = 0,
                       data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder ``folds/`` (beside the shape's files) holding its five parts ``S1..S5.txt``,
    written on first use: the queries of its splits pooled (train, vali, test) and cut into five
    parts of equal size (:func:`bench.datasets.folds.write_parts`), lines copied. For the MSLR
    shape the cut falls on the split boundaries (train = S1..S3, vali = S4, test = S5), so its
    fold 1 is its single split. Staged and renamed into place, as :func:`ensure_letor_shape`."""
    from bench.datasets.folds import write_parts

    shape = shape_of(card)
    folder = ensure_letor_shape(card, scale=scale, seed=seed, data_dir=data_dir)
    dest = folder / "folds"
    if dest.is_dir():
        return dest
    staging = folder / f".folds.generate-{uuid.uuid4().hex[:12]}"
    with writing_into(folder.parent, f"the five parts of {folder.name}"):
        staging.mkdir()
    try:
        with writing_into(folder.parent, f"the five parts of {folder.name}"):
            write_parts([folder / shape.files[s] for s in shape.splits], staging,
                        sum(shape.size(s, scale)[0] for s in shape.splits))
        try:
            os.rename(staging, dest)
        except OSError:
            if not dest.is_dir():
                raise
            shutil.rmtree(staging, ignore_errors=True)  # another process finished first
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return dest


def shape_folder(card: Card, scale: float, seed: int) -> str:
    """``<dir>-v<GENERATOR_VERSION>-scale<scale>-seed<seed>``: sizes and seeds never collide."""
    return f"{card.dir or card.name}-v{GENERATOR_VERSION}-scale{scale:g}-seed{seed}"


def spec_name(name: str, scale: float, seed: int) -> str:
    """The canonical spec: ``NAME``, ``NAME:SCALE`` or ``NAME:SCALE,seed=N``."""
    if scale == 1.0 and seed == 0:
        return name
    return f"{name}:{scale:g}" + (f",seed={seed}" if seed else "")


def generation_record(shape: LetorShape, scale: float, seed: int) -> dict[str, object]:
    """What a generated dataset records about itself (manifests, the folder's record file)."""
    sizes = {s: shape.size(s, scale) for s in shape.splits}
    return {"generator": "bench.datasets.letor_shapes", "version": GENERATOR_VERSION,
            "shape": shape.name, "stands_in_for": shape.stands_in_for, "scale": scale,
            "seed": seed, "queries": {s: q for s, (q, _) in sizes.items()},
            "rows": {s: r for s, (_, r) in sizes.items()}, "features": shape.features,
            "docs_sigma": round(shape.docs_sigma, 6)}


# --------------------------------------------------------------------------- internals


@dataclass(frozen=True, eq=False)
class _Layout:
    """Per-shape constants of the feature model (fixed by the shape's name, not the seed)."""

    active: NDArray[np.int64]  # defined columns
    kinds: NDArray[np.str_]  # kind of each active column
    loadings: NDArray[np.float32]  # K x active: alpha_j * b_j
    noise: NDArray[np.float32]  # sqrt(1 - alpha_j^2)
    mu: NDArray[np.float32]
    sigma: NDArray[np.float32]
    presence: NDArray[np.float32] | None  # probability a value is present (sparse shapes)
    query_cols: NDArray[np.int64]  # positions (in active) of per-query columns
    decimals: NDArray[np.int64]


def _layout(shape: LetorShape) -> _Layout:
    rng = np.random.default_rng([zlib.crc32(shape.name.encode()), 7])
    d = shape.features
    active = np.arange(d, dtype=np.int64)
    if shape.defined_features < d:  # undefined columns are chosen among all but the last
        undefined = rng.choice(d - 1, size=d - shape.defined_features, replace=False)
        active = np.setdiff1d(active, undefined)
    m = active.size
    kinds = np.array(shape.columns, dtype=np.str_)[active]
    b = rng.standard_normal((_FACTORS, m))
    b /= np.linalg.norm(b, axis=0)
    alpha = np.where(rng.random(m) < 0.1, 0.0, rng.uniform(0.3, 0.95, m))
    presence = None
    if shape.nonzero_per_row is not None:
        p = rng.beta(0.8, 1.0, m)
        for _ in range(50):  # rescale to the published mean, the last column always present
            p[-1] = 1.0
            p = np.clip(p * (shape.nonzero_per_row / p.sum()), 0.02, 1.0)
        p[-1] = 1.0
        presence = p.astype(np.float32)
    return _Layout(
        active=active, kinds=kinds, loadings=(b * alpha).astype(np.float32),
        noise=np.sqrt(1.0 - alpha**2).astype(np.float32),
        mu=rng.uniform(-1.0, 3.0, m).astype(np.float32),
        sigma=rng.uniform(0.4, 1.1, m).astype(np.float32), presence=presence,
        query_cols=np.flatnonzero(kinds == "query"), decimals=shape.decimals[active],
    )


def _block(lay: _Layout, rng: np.random.Generator, a_q: NDArray[np.float32],
           offsets_q: NDArray[np.float32], per_query: NDArray[np.float32],
           ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Relevance ``z`` and the active feature values of one block of rows."""
    rows = a_q.shape[0]
    u = rng.standard_normal((rows, _FACTORS), dtype=np.float32)
    t = (u[:, 0] + 0.6 * u[:, 1] + 0.5 * u[:, 0] * u[:, 2]) / np.float32(np.sqrt(1.61))
    e = rng.standard_normal(rows, dtype=np.float32)
    within = np.sqrt(_FEATURE_SHARE) * t + np.sqrt(1 - _FEATURE_SHARE) * e
    z = (np.sqrt(_QUERY_SHARE) * a_q + np.sqrt(1 - _QUERY_SHARE) * within).astype(np.float32)
    s = rng.standard_normal((rows, lay.active.size), dtype=np.float32)
    s *= lay.noise
    s += u @ lay.loadings
    s += offsets_q
    s[:, lay.query_cols] = per_query
    v = np.empty_like(s)
    for kind in KINDS:
        cols = np.flatnonzero(lay.kinds == kind)
        if cols.size:
            v[:, cols] = _transform(kind, s[:, cols], lay.mu[cols], lay.sigma[cols])
    if lay.presence is not None:
        v *= rng.random(v.shape, dtype=np.float32) < lay.presence
    return z, _on_grid(v, lay.decimals)


def _transform(
    kind: str, s: NDArray[np.float32], mu: NDArray[np.float32], sigma: NDArray[np.float32]
) -> NDArray[np.float32]:
    if kind == "count":  # many zeros and small integers, a long tail (term counts, links)
        return np.clip(np.floor(np.exp(1.5 * mu + sigma * s)) - 1.0, 0.0, 8e6)
    if kind == "ratio":  # in [0, 1], never exactly 0 (so a present value stays present)
        return np.clip(1.0 / (1.0 + np.exp(-(1.5 * s + 0.5 * mu - 0.5))), 1e-6, 1.0)
    if kind == "real":
        return np.minimum(np.exp(mu + sigma * s), _MAX_REAL)
    if kind == "negative":
        return np.maximum(-np.exp(2.0 + 0.5 * mu - sigma * s), -_MAX_REAL)
    if kind == "binary":
        return (s > 0.5 * mu).astype(np.float32)
    return np.minimum(np.exp(0.5 * mu + 0.5 * sigma * s), _MAX_REAL)  # "query"


def _on_grid(v: NDArray[np.float32], decimals: NDArray[np.int64]) -> NDArray[np.float32]:
    """``float32(k / 10^p)`` with ``k = rint(v * 10^p)``: what a text reader gives for ``k/10^p``.

    ``float64(k) / 10^p`` is the double nearest the decimal (one correctly rounded division of
    exact numbers), which is what ``float()`` of the written text is; the reader then casts it to
    float32 exactly as here.
    """
    scale = 10.0 ** decimals.astype(np.float64)
    k = np.rint(v.astype(np.float64) * scale)
    return (k / scale).astype(np.float32)


def _fit_sigma(mean: float, largest: float, n: int) -> float:
    """Lognormal sigma whose expected largest of ``n`` draws (mean ``mean``) is ``largest``."""
    z = NormalDist().inv_cdf(1.0 - 1.0 / (n + 1))
    c = np.log(max(largest / mean, 1.0))
    disc = z * z - 2.0 * c
    return float(z - np.sqrt(disc)) if disc > 0 else float(z)


def _apportion(weights: NDArray[np.float64], total: int, cap: int | None) -> NDArray[np.int64]:
    """Sizes >= 1 (<= cap) adding up to ``total``, the rows beyond one each split by weight."""
    n = weights.shape[0]
    hi = float(cap) if cap is not None else np.inf
    if total < n or total > n * hi:
        raise ConfigError(f"cannot split {total} rows into {n} queries of 1..{cap} rows")
    target = np.ones(n)
    fixed = np.zeros(n, dtype=bool)
    for _ in range(64):  # water-filling: queries over the cap are fixed at it, the rest rescaled
        free = total - target[fixed].sum() - (~fixed).sum()
        w = np.where(fixed, 0.0, weights)
        target = np.where(fixed, hi, 1.0 + free * w / w.sum())
        over = ~fixed & (target > hi)
        if not over.any():
            break
        fixed |= over
    sizes = np.floor(target).astype(np.int64)
    short = total - int(sizes.sum())
    if short:
        order = np.argsort(-(target - sizes), kind="stable")
        sizes[order[:short]] += 1
    return sizes


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))

