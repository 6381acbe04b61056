"""Rows a profile drops before anything is ranked: padding, trec_eval ``-M`` and ``-J``.

* :func:`padding_mask` / :func:`unpad`: the padding rows of a dense batch (``Profile.padding``:
  allRank's ``-1``, TF-Ranking's negative labels) are found before the input checks, so their
  labels pass the sign check and their scores are not read, then removed from the prepared rows
  (:func:`drop_rows`); every other row keeps its input row number in error messages.
* :func:`cut_run`: ``Profile.run_depth`` (trec_eval ``-M N``: the top ``N`` of each query's
  ranking, ``form_res_rels.c`` cuts ``num_results`` after sorting by score and document id) and
  then ``Profile.judged_only`` (trec_eval ``-J``: unjudged documents leave the ranking, which
  closes up). A judged document cut by ``-M`` stays judged (``rel_levels`` counts every
  judgment of the topic): under ``idcg_basis="qrels"`` it joins the judged documents that were
  not retrieved.

A query left without documents is evaluated as a query the run does not rank
(:func:`bench.metrics.missing.missing_parts`): 0 in every metric, or the profile's blank value.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bench.errors import ConfigError, DataError
from bench.metrics.profiles import Profile
from bench.metrics.tables import gains
from bench.metrics.validate import Prepared

#: :class:`bench.metrics.evaluate.Judged` (not imported: evaluate imports this module).
Judged = Any


def padding_mask(labels: Any, scores: Any, profile: Profile) -> tuple[Any, Any, NDArray[np.bool_] | None]:
    """``(labels, scores, mask)``: under a profile with ``padding``, the padding rows' labels
    set to 0 and their scores to 0 (so the input checks pass them and name only real rows) and
    the mask of padding rows in input order; ``mask`` is ``None`` when there is none (inputs
    returned as given: text, bools and other bad values are then refused by the usual checks)."""
    if profile.padding == "none":
        return labels, scores, None
    y = np.asarray(labels)
    if y.ndim != 1 or y.dtype.kind not in "iuf" or (
            isinstance(labels, list | tuple) and any(isinstance(v, bool | np.bool_) for v in labels)):
        return labels, scores, None
    with np.errstate(invalid="ignore"):
        mask = (y == -1) if profile.padding == "minus_one" else (y < 0)
    if not mask.any():
        return labels, scores, None
    s = np.asarray(scores)
    if s.ndim != 1 or s.shape[0] != y.shape[0] or s.dtype.kind not in "iuf":
        return labels, scores, None  # the usual checks name the problem
    y = np.where(mask, 0, y)
    s = np.where(mask, np.zeros(1, dtype=s.dtype), s)
    return y, s, mask


def unpad(prep: Prepared, mask: NDArray[np.bool_] | None, weights: Any) -> Prepared:
    """``prep`` without the padding rows ``mask`` (input order). Raises :class:`ConfigError`
    for per-row weights beside padding rows (a query's weight would be the mean over rows that
    are not documents)."""
    if mask is None:
        return prep
    if weights is not None and np.asarray(weights).shape[0] == mask.shape[0] != prep.n_queries:
        raise ConfigError("per-row weights with padding rows: give one weight per query "
                          "(a padded list's weight is not the mean over its padding rows)")
    pad = mask if prep.order is None else mask[prep.order]
    return drop_rows(prep, pad)


def padding_judgments(rel: NDArray[np.float64], profile: Profile) -> NDArray[np.bool_] | None:
    """The retrieved documents of a TREC run whose qrels judgment the profile reads as padding
    (``Profile.padding``: allRank's ``-1``, TF-Ranking's negative labels), ``None`` if none.
    One reading for every input: a -1 label in arrays, a DataFrame or a qrels file is padding
    under these profiles (the peer masks the row before sorting: it takes no rank), where
    trec_eval's reading (an unjudged document that keeps its rank) would move every rank below
    it. ``rel``: each run row's judgment (NaN: no judgment, never padding)."""
    if profile.padding == "none":
        return None
    with np.errstate(invalid="ignore"):
        mask = (rel == -1) if profile.padding == "minus_one" else (rel < 0)
    return mask if mask.any() else None


def drop_rows(prep: Prepared, drop: NDArray[np.bool_]) -> Prepared:
    """``prep`` without the rows ``drop`` (prepared order); queries keep their place (a query
    may be left empty), ``order`` still maps each row to its input row."""
    keep = ~drop
    kept = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
    order = np.arange(drop.shape[0], dtype=np.int64) if prep.order is None else prep.order
    labels = prep.labels[keep]
    return replace(
        prep, labels=labels, scores=prep.scores[keep], offsets=kept[prep.offsets],
        docno=None if prep.docno is None else prep.docno[keep],
        row_weights=None if prep.row_weights is None else prep.row_weights[keep],
        max_label=float(labels.max()) if labels.shape[0] else 0.0, order=order[keep])


def ranking_position(prep: Prepared, prof: Profile, tiekey: NDArray[np.int64] | None
                     ) -> NDArray[np.int64]:
    """0-based position of each row in its query's ranking under ``prof``: score descending
    (float32 first under ``score_dtype``), then the tie rule (``tiekey`` ascending, row order
    for ``stable``, the lower / higher gain first for ``pessimistic`` / ``optimistic``)."""
    n = prep.labels.shape[0]
    sizes = np.diff(prep.offsets)
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    s = prep.scores.astype(np.float32).astype(np.float64) if prof.score_dtype == "float32" \
        else prep.scores
    rows = np.arange(n)
    second: NDArray[Any] = rows if tiekey is None else tiekey
    if prof.ties in ("pessimistic", "optimistic"):  # the lower / higher gain first
        g = gains(prof, prep.labels)
        second = g if prof.ties == "pessimistic" else -g
    order = np.lexsort((rows, second, -s, query))
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n) - np.repeat(prep.offsets[:-1], sizes)
    return pos


def cut_run(prep: Prepared, prof: Profile, judged: Judged | None,
            tiekey: NDArray[np.int64] | None) -> tuple[Prepared, Judged | None]:
    """``prep`` and ``judged`` after ``run_depth`` and then ``judged_only`` (module docstring).

    Raises:
        DataError: ``ties="average"`` and a tied group straddles rank ``run_depth``.
    """
    if prof.run_depth is not None and int(np.max(np.diff(prep.offsets), initial=0)) > prof.run_depth:
        pos = ranking_position(prep, prof, tiekey)
        drop = pos >= prof.run_depth
        if prof.ties == "average":
            _no_straddle(prep, prof, pos)
        if judged is not None:
            judged = _cut_judged(prep, judged, drop, collect=prof.idcg_basis == "qrels")
        prep = drop_rows(prep, drop)
    if prof.judged_only and judged is not None and judged.unjudged is not None \
            and judged.unjudged.any():
        prep = drop_rows(prep, judged.unjudged)
        judged = replace(judged, unjudged=judged.unjudged[~judged.unjudged])
    return prep, judged


def _cut_judged(prep: Prepared, judged: Judged, drop: NDArray[np.bool_], *,
                collect: bool) -> Judged:
    """The judged documents cut by ``-M`` join the judged-not-retrieved ones when the IDCG
    basis collects them (``collect``: ``idcg_basis="qrels"``)."""
    unjudged = judged.unjudged
    moved = drop if unjudged is None else drop & ~unjudged
    query = np.repeat(np.arange(prep.n_queries), np.diff(prep.offsets))
    labels, q = judged.labels, judged.query
    if collect:
        labels = np.concatenate([labels, prep.labels[moved]])
        q = np.concatenate([q, query[moved]]).astype(np.int64)
    return replace(judged, labels=labels, query=q,
                   unjudged=None if unjudged is None else unjudged[~drop])


def _no_straddle(prep: Prepared, prof: Profile, pos: NDArray[np.int64]) -> None:
    """Under averaged ties the top ``N`` must be one set: no tied group may cross rank N."""
    depth = prof.run_depth
    assert depth is not None
    s = prep.scores.astype(np.float32).astype(np.float64) if prof.score_dtype == "float32" \
        else prep.scores
    sizes = np.diff(prep.offsets)
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    last_in, first_out = pos == depth - 1, pos == depth
    at_depth = np.full(sizes.shape[0], np.nan)
    at_depth[query[last_in]] = s[last_in]
    tied = np.flatnonzero(at_depth[query[first_out]] == s[first_out])
    if tied.shape[0]:
        q = int(query[first_out][tied[0]])
        value = float(at_depth[q])
        qid = prep.query_ids[q]
        raise DataError(
            f"query {qid.item() if isinstance(qid, np.generic) else qid!r}: documents tied at score {value!r} straddle "
            f"rank {depth} (run_depth, trec_eval -M): under ties='average' the top {depth} "
            "is not one set of documents; choose a tie rule that orders ties (stable, "
            "docno_desc, ...) for run_depth")
