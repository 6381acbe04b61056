"""Checks of a dataset's splits before any training: the problems that give a benchmark a
number without meaning, found in one vectorised pass each.

- ``leak_rows``: rows with the same features *and* label in train and in test (or validation):
  a model that memorises them scores on test what it saw in training. Rows are compared by a
  64-bit hash of their feature values and label (:func:`row_hashes`); two different rows share
  a hash with probability about ``n^2 / 2^64``.
- ``leak_documents``: (query, document) pairs present in train and in test or validation, where
  the data name their documents (``item`` ids, as converted ratings do).
- ``leak_queries``: query ids of LETOR text files (no document ids) in train and in test or
  validation: LETOR folds partition the queries, so the same query is on both sides.
- ``no_relevant``: a split in which no row has a label above 0 (nothing to learn from, or every
  query blank).
- ``label_shift``: the label distributions of train and test differ by a total variation
  distance above 0.5 (half the probability mass moved): the splits do not come from one source.
- ``constant_features``: features with one value over all training rows, or missing (NaN) in
  every one (no split can use them); a warning when every feature is (no model can learn).
- ``one_document_queries``: a split in which every query has one document (training: no pair
  to learn from; validation: nothing for early stopping to tell apart; test: every model ranks
  alike, NDCG 1 on each relevant query).
- ``unseen_features``: features zero (absent) in every training row that have values in
  validation or test: those files come from another feature extraction, and no model can use
  what it never saw (a training feature absent from test is sparse data, not this).

Each finding is data (:class:`SplitFinding`) with a level: warnings (relevant rows shared, no
relevant label, a label shift) are printed by a run and refused by ``--strict``; notes (label-0
rows shared, which leak no relevance, and constant features) are recorded in the manifest only. Both are in the manifest.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numba
import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.data.letor import LetorData, LetorSplits

#: Total variation distance between train and test label distributions beyond which the
#: splits are reported as drawn from different sources.
LABEL_SHIFT_TV = 0.5


@dataclass(frozen=True)
class SplitFinding:
    """One problem: its code (module docstring), the splits it concerns, a count and a message.

    ``level``: ``"warning"`` (printed by a run; ``--strict`` refuses to train) or ``"note"``
    (recorded in the manifest only: a fact worth knowing that does not bias the metric)."""

    code: str
    splits: tuple[str, ...]
    count: int
    message: str
    level: str = "warning"

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def check_same_features(splits: LetorSplits) -> None:
    """Every split has the training split's number of feature columns: a model trained on ``d``
    columns scores rows of ``d`` columns (LightGBM stops with a ``LightGBMError``; a ranker that
    slices columns would score other features without a word). A :class:`DataError` naming each
    split, its source and its width. (SVMlight folders are read to one width, the widest file's.)
    Splits without any feature column (SVMlight and Parquet alike read as width 0) are a
    :class:`DataError` too, before any model starts."""
    widths = {name: d.n_features for name, d in splits.splits().items()}
    if set(widths.values()) == {0}:  # LightGBM and XGBoost refuse it, deep in their own code
        from bench.errors import DataError

        raise DataError(f"dataset {splits.name!r}: no feature columns (training split "
                        f"{splits.train.source or 'arrays'}: an SVMlight file without any "
                        "'index:value', or a Parquet file without a numeric feature column): "
                        "expected at least one feature to train on (LightGBM and XGBoost need one)")
    if len(set(widths.values())) > 1:
        from bench.errors import DataError

        parts = ", ".join(f"{name} {w} ({getattr(splits, name).source or 'arrays'})"
                          for name, w in widths.items())
        raise DataError(f"dataset {splits.name!r}: the splits have different numbers of feature "
                        f"columns: {parts}; every split needs the same columns")


def check_given_features(splits: LetorSplits) -> None:
    """Splits made in Python (``run(splits=...)``, a ``loader``) meet the feature rule of the
    file readers and of a loaded dataset (:func:`bench.data.checks.check_features`, as
    :mod:`bench.datasets.resolve` applies it): no infinity, NaN a missing value. An infinity
    from arrays reached XGBoost, which ended the run in an ``XGBoostError`` traceback after
    LightGBM had trained on it without a word. A :class:`DataError` naming the split, the row
    and the column."""
    from bench.data.checks import check_features

    for name, d in splits.splits().items():
        where = f"{d.source} ({name} split)" if d.source else f"{splits.name} ({name} split)"
        check_features(d.X, d.feature_names, allow_nan=True, path=where)


def check_splits(splits: LetorSplits) -> list[SplitFinding]:
    """Every finding of the module docstring for ``splits`` (empty when none)."""
    found: list[SplitFinding] = []
    parts = splits.splits()
    train = parts["train"]
    train_rows = row_hashes(train)
    for name in ("vali", "test"):
        other = parts[name]
        if train.n_features == other.n_features and other.n_rows and train.n_rows:
            _leaks(found, "leak_rows", name, np.isin(row_hashes(other), train_rows), other.y,
                   "row(s) repeat a training row exactly (same features and label)")
        shared = _shared_documents(train, other)
        if shared is not None:
            _leaks(found, "leak_documents", name, shared, other.y,
                   "(query, document) pair(s) are also in train")
        else:
            _shared_queries(found, ("train", name), train, other)
    if parts["vali"].item is None:
        _shared_queries(found, ("vali", "test"), parts["vali"], parts["test"])
    for name, d in parts.items():
        if d.n_rows and not (d.y > 0).any():
            found.append(SplitFinding(
                "no_relevant", (name,), d.n_rows,
                f"no {name} row has a label above 0"
                + (": there is nothing to learn" if name == "train" else
                   ": every query is blank, the metric is undefined or constant"
                   + (", so early stopping and model selection, which read only this split, "
                      "pick an iteration by no merit" if name == "vali" else ""))))
    found += _one_document_splits(parts) + _unseen_features(parts)
    tv = _label_distance(train.y, parts["test"].y)
    if tv > LABEL_SHIFT_TV:
        found.append(SplitFinding(
            "label_shift", ("train", "test"), 0,
            f"the label distributions of train and test differ by a total variation distance of "
            f"{tv:.2f} (> {LABEL_SHIFT_TV}): are they from the same source?"))
    const = _constant_columns(train)
    if const.size:
        every = const.size == train.n_features
        found.append(SplitFinding(
            "constant_features", ("train",), int(const.size),
            (f"every feature ({const.size}) has one value over all training rows (or none, "
             "NaN in every row): no model can learn, every score of a tree model ties"
             if every else f"{const.size} feature(s) have one value over all training rows (or "
             "are NaN in every row) (" + _first(train, const) + "): no tree can use them"),
            level="warning" if every else "note"))
    return found


def _first(d: LetorData, columns: NDArray[np.int64]) -> str:
    """The names of the first five ``columns`` of ``d`` (", ..." after them when more)."""
    return ", ".join(d.feature_names[j] for j in columns[:5]) + (", ..." if columns.size > 5 else "")


def _one_document_splits(parts: dict[str, LetorData]) -> list[SplitFinding]:
    """``one_document_queries``: a split whose every query has a single document."""
    why = {"train": "a ranking objective has no pair of documents to learn from",
           "vali": "early stopping and selection see one value at every iteration",
           "test": "every model ranks them alike (NDCG 1 on each relevant query): the "
                   "leaderboard cannot tell the models apart"}
    return [SplitFinding("one_document_queries", (name,), d.n_queries,
                         f"every {name} query ({d.n_queries}) has one document only: {why[name]}")
            for name, d in parts.items()
            if d.n_queries and int(d.group_sizes.max()) == 1]


def _unseen_features(parts: dict[str, LetorData]) -> list[SplitFinding]:
    """``unseen_features``: columns zero in every training row with a value in vali or test."""
    train = parts["train"]
    if not train.n_rows or not train.n_features:
        return []
    absent = ~_any_nonzero(train.X)
    found = []
    for name in ("vali", "test"):
        other = parts[name]
        if other.n_features != train.n_features or not other.n_rows:
            continue
        unseen = np.flatnonzero(absent & _any_nonzero(other.X))
        if unseen.size:
            found.append(SplitFinding(
                "unseen_features", ("train", name), int(unseen.size),
                f"{unseen.size} feature(s) are absent (zero) in every training row but have "
                f"values in {name} ({_first(other, unseen)}; {other.source or name}): is the "
                f"{name} file from another feature extraction? No model can use a feature it "
                "never saw"))
    return found


def _any_nonzero(X: NDArray[np.floating]) -> NDArray[np.bool_]:
    """Per column: some value is neither 0 nor NaN (NaN is a missing value, not a value)."""
    out = np.zeros(X.shape[1], dtype=bool)
    for start in range(0, X.shape[0], 65536):  # row blocks: no rows x features temporary
        block = X[start:start + 65536]
        out |= ((block != 0) & ~np.isnan(block)).any(axis=0)
    return out


def _leaks(found: list[SplitFinding], code: str, name: str, shared: NDArray[np.bool_],
           y: NDArray[np.floating], what: str) -> None:
    """A warning for shared rows with a relevant label; a note for label-0 ones (no relevance
    leaked; LETOR files repeat such rows, OHSUMED's Fold1 242 in validation; a ratings
    conversion deals each user's negatives from one pool, so it draws none twice)."""
    relevant = int((shared & (y > 0)).sum())
    rest = int(shared.sum()) - relevant
    if relevant:
        found.append(SplitFinding(code, ("train", name), relevant,
                                  f"{relevant} relevant {name} {what}: a model can score on "
                                  "them by memory"))
    if rest:
        found.append(SplitFinding(code, ("train", name), rest,
                                  f"{rest} {name} {what}, all with label 0 (no relevant "
                                  "row shared)",
                                  level="note"))


def row_hashes(d: LetorData) -> NDArray[np.int64]:
    """A 64-bit hash of each row's feature values and label (equal values, equal hashes;
    ``-0.0`` hashes as ``0.0``): one compiled pass over the rows. Measured against
    :func:`pandas.util.hash_pandas_object` on 1.66M rows x 136 features: 7.4 s there; the
    tests keep pandas as the oracle of which rows are shared."""
    out = np.empty(d.n_rows, dtype=np.int64)
    _hash_rows(np.ascontiguousarray(d.X), np.asarray(d.y, dtype=np.float64), out)
    return out


@numba.njit(parallel=True, cache=True)
def _hash_rows(X: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    for r in numba.prange(X.shape[0]):
        h = hash(y[r])  # Python's float hash: deterministic, hash(-0.0) == hash(0.0)
        for j in range(X.shape[1]):
            h = (h * 1000003) ^ hash(X[r, j])  # int64 arithmetic wraps
        out[r] = h


def _shared_documents(a: LetorData, b: LetorData) -> NDArray[np.bool_] | None:
    """Per row of ``b``: its (query, document) pair is in ``a`` (``None`` without ids)."""
    if a.item is None or b.item is None or not a.n_rows or not b.n_rows:
        return None
    ka = pd.MultiIndex.from_arrays([a.qid, a.item])
    kb = pd.MultiIndex.from_arrays([b.qid, b.item])
    out: NDArray[np.bool_] = np.asarray(kb.isin(ka), dtype=bool)
    return out


def _shared_queries(found: list[SplitFinding], names: tuple[str, str], train: LetorData,
                    other: LetorData) -> None:
    """``leak_queries``: query ids of LETOR text files (``qid:`` fields, no document ids) found in
    both splits ``names`` (train and validation or test, validation and test). LETOR's folds partition the queries (MSLR-WEB, MQ2007/8, OHSUMED:
    each query in one part S1..S5), so a shared id is the same query on both sides: a file of
    another fold, or a copy of the training file, in the split's place."""
    if train.meta.get("qids") != "file" or other.meta.get("qids") != "file":
        return
    both = np.intersect1d(train.query_ids, other.query_ids)
    name, first = names[1], names[0]
    if both.size:
        shown = ", ".join(str(int(q)) for q in both[:5]) + (", ..." if both.size > 5 else "")
        found.append(SplitFinding(
            "leak_queries", names, int(both.size),
            f"{both.size} {name} query id(s) are also {first} queries ({shown}; "
            f"{other.source or name} and {train.source or first}): LETOR folds hold each "
            "query in one split; is a file of another fold in its place?"))


def _label_distance(a: NDArray[np.floating], b: NDArray[np.floating]) -> float:
    if not a.size or not b.size:
        return 0.0
    pa = pd.Series(a).value_counts(normalize=True)
    pb = pd.Series(b).value_counts(normalize=True)
    both = pa.index.union(pb.index)
    return float(0.5 * np.abs(pa.reindex(both, fill_value=0.0)
                              - pb.reindex(both, fill_value=0.0)).sum())


def _constant_columns(d: LetorData) -> NDArray[np.int64]:
    if d.n_rows == 0 or d.n_features == 0:
        return np.zeros(0, dtype=np.int64)
    X = d.X  # min and max per column: no n x features temporary
    low = X.min(axis=0)
    const = low == X.max(axis=0)  # a NaN anywhere makes both NaN: not one value ...
    for j in np.flatnonzero(np.isnan(low)):  # ... unless every row is NaN (never a value)
        const[j] = bool(np.isnan(X[:, j]).all())
    return np.flatnonzero(const).astype(np.int64)
