"""Input checks of the evaluator: bad input is a :class:`DataError` naming the row, never a number.

Rows are numbered from 1 in these messages, as everywhere in :class:`DataError`: row ``r`` is
element ``r - 1`` of the arrays that were passed, in the order they were passed (also with
``sort_by_qid=True``, which reorders rows only after this numbering is fixed). Checks that
depend on the profile (integer labels, the largest label, binary labels) are in
:func:`check_labels`; the rest in :func:`prepare`.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bench.data.groups import (
    group_ids,
    offsets_from_qid,
    offsets_from_sizes,
    stable_order_by_qid,
)
from bench.data.input_ids import fractional_float_id, id_array, inexact_float_id
from bench.data.inputs import text_ids
from bench.data.python_args import refuse_non_arrays
from bench.errors import ConfigError, DataError
from bench.metrics.kernels.small import run_offsets, scan_inputs
from bench.metrics.names import MetricSpec
from bench.metrics.number_checks import ROWS as _ROWS
from bench.metrics.number_checks import no_mask, vector
from bench.metrics.profiles import Profile


@dataclass
class Prepared:
    """Validated, query-contiguous inputs."""

    labels: NDArray[np.float64]
    scores: NDArray[np.float64]
    offsets: NDArray[np.int64]
    query_ids: np.ndarray
    query_weights: NDArray[np.float64] | None
    row_weights: NDArray[np.float64] | None
    docno: np.ndarray | None
    max_label: float
    integer_labels: bool
    order: NDArray[np.int64] | None = None
    """The permutation ``sort_by_qid`` applied (row ``i`` here is input row ``order[i]``)."""

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)


def prepare(
    labels: ArrayLike,
    scores: ArrayLike,
    *,
    qid: ArrayLike | None,
    group: ArrayLike | None,
    weights: ArrayLike | None,
    docno: ArrayLike | None = None,
    sort_by_qid: bool = False,
    threads: int | None = None,
    docno_checked: bool = False,
) -> Prepared:
    """Check lengths, finiteness, signs and query groups; return float64 arrays and offsets.

    ``docno`` (document ids, for the ``docno_*`` tie rules) is checked as a TREC run's are: no
    missing or bool id, each document once per query; ``docno_checked`` skips that for ids a
    TREC reader (:mod:`bench.data.trec`, :mod:`bench.data.trec_objects`) has checked already.
    """
    refuse_non_arrays(labels=labels, scores=scores, qid=qid, group=group, weights=weights,
                      docno=docno)  # a set, generator, sparse matrix: named, not reshaped
    y = vector(labels, "labels")
    s = vector(scores, "scores")
    if y.shape[0] != s.shape[0]:
        raise DataError(
            f"labels has {y.shape[0]} rows but scores has {s.shape[0]}: give one score per labelled row"
        )
    n = y.shape[0]
    nonint, top = _check_rows(y, s, threads)
    dn = None if docno is None else np.asarray(docno) if docno_checked else _doc_ids(docno, n)
    order, offsets, query_ids = _query_offsets(qid, group, n, sort_by_qid)
    w_rows, w_query = _query_weights(weights, n, offsets, order)
    if order is not None:
        y = y[order]
        s = s[order]
        if dn is not None:
            dn = dn[order]
    if dn is not None and not docno_checked:
        _unique_per_query(dn, offsets, order)
    return Prepared(
        labels=y,
        scores=s,
        offsets=offsets,
        query_ids=query_ids,
        query_weights=w_query,
        row_weights=w_rows,
        docno=dn,
        max_label=top,
        integer_labels=nonint < 0,
        order=order,
    )


def _check_rows(y: np.ndarray, s: np.ndarray, threads: int | None) -> tuple[int, float]:
    """Refuse an empty input, a score that is not finite, a label that is not finite or is
    negative (the first such row named). Returns ``(first non-integer label's row or -1,
    the largest label)`` from :func:`scan_inputs`."""
    n = y.shape[0]
    if n == 0:
        raise DataError("empty input: no documents to evaluate")
    bad, nonfinite, negative, nonint, top = scan_inputs(y, s, threads)
    if bad >= 0:
        raise DataError(
            f"score {_num(s[bad])} is not a finite number (NaN and infinity cannot be ranked; {_ROWS})",
            row=bad + 1,
        )
    if nonfinite >= 0:
        raise DataError(f"label {_num(y[nonfinite])} is not a finite number ({_ROWS})",
                        row=nonfinite + 1)
    if negative >= 0:
        raise DataError(
            f"label {_num(y[negative])} is negative: relevance labels must be >= 0 ({_ROWS})",
            row=negative + 1,
        )
    return nonint, top


def _query_offsets(qid: ArrayLike | None, group: ArrayLike | None, n: int,
                   sort_by_qid: bool) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Exactly one of ``qid`` / ``group`` turned into ``(row order or None, query offsets,
    query ids)``; ``sort_by_qid`` groups the rows of a query stably."""
    if (qid is None) == (group is None):
        raise ConfigError(
            "give exactly one of qid= (one query id per row) or group= (group sizes); "
            "for a single query pass group=[len(labels)]"
        )
    order = None
    if qid is not None:
        q = _query_ids(qid, n)
        if sort_by_qid:
            order = stable_order_by_qid(q)
            if np.array_equal(order, np.arange(n)):
                order = None
            else:
                q = q[order]
        offsets, query_ids = _offsets(q)
    else:
        offsets = offsets_from_sizes(cast("ArrayLike", group), n)  # bools refused there
        query_ids = np.arange(offsets.shape[0] - 1, dtype=np.int64)
    return order, offsets, query_ids


def _query_weights(weights: ArrayLike | None, n: int, offsets: np.ndarray,
                   order: np.ndarray | None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(row weights, query weights)``: one weight per row (a query's is its rows' mean, as
    LightGBM's ``Metadata::CalculateQueryWeights``) or per query; ``(None, None)`` without."""
    n_q = offsets.shape[0] - 1
    w_rows = w_query = None
    if weights is not None:
        # text, bools, complex numbers, dates and durations refused (a (2, 3) table too: it
        # was read row by row as 6 row weights), as for labels and scores
        w = vector(weights, "weights")
        if w.shape[0] not in (n, n_q):
            raise DataError(
                f"weights has {w.shape[0]} values: expected one per row ({n}) or one per query ({n_q})"
            )
        badw = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if badw.shape[0]:
            raise DataError(f"weight {_num(w[badw[0]])} is not a finite number >= 0 ({_ROWS})",
                            row=int(badw[0]) + 1)
        if w.shape[0] == n and n != n_q:
            w_rows = w if order is None else w[order]
            w_query = _row_means(w_rows, offsets)
        else:
            w_query = w
            w_rows = np.repeat(w, np.diff(offsets))
        if not (w_query.shape[0] and np.max(w_query) > 0):  # (a sum of 1e308s overflows)
            raise DataError("the query weights add up to 0")
    return w_rows, w_query


def float32_query_weights(prep: Prepared, *, mean: bool = True) -> Prepared:
    """``prep`` with LightGBM's query weights (``Profile.query_weights="float32_mean"``): the
    row weights as float32 (``label_t``), summed in row order in float32 and divided by the
    row count in float32 (``Metadata::CalculateQueryWeights``); 1000 rows of 0.1 weigh
    0.09999905, not 0.1. ``mean=False``: the query weights rounded to float32 (XGBoost's and
    CatBoost's group weights, ``query_weights="float32"``)."""
    if prep.row_weights is None or prep.query_weights is None:
        return prep
    w32 = prep.row_weights.astype(np.float32)
    if not mean:  # query_weights="float32": the query weights themselves held as float32
        return dataclasses.replace(prep, row_weights=w32.astype(np.float64),
                                   query_weights=prep.query_weights.astype(np.float32)
                                   .astype(np.float64))
    lengths, starts = np.diff(prep.offsets), prep.offsets[:-1]
    sums = np.zeros(lengths.shape[0], dtype=np.float32)
    for j in range(int(lengths.max(initial=0))):  # row j of every query at once, in row order
        on = np.flatnonzero(lengths > j)
        sums[on] += w32[starts[on] + j]
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(lengths > 0, sums / lengths.astype(np.float32), np.float32(0.0))
    return dataclasses.replace(prep, query_weights=means.astype(np.float64),
                               row_weights=w32.astype(np.float64))


def _row_means(w_rows: NDArray[np.float64], offsets: np.ndarray) -> NDArray[np.float64]:
    """Each query's mean row weight, summed after a division by the power of two at or above
    the largest weight and multiplied back: exact (the same bits for ordinary weights), but
    rows of 1e308 no longer sum to inf (the means printed NaN)."""
    top = float(np.max(w_rows)) if w_rows.shape[0] else 0.0
    e = int(np.frexp(top)[1]) if top > 0 else 0
    return np.ldexp(np.add.reduceat(np.ldexp(w_rows, -e), offsets[:-1]) / np.diff(offsets), e)


def _query_ids(qid: ArrayLike, n: int) -> np.ndarray:
    """``qid`` as a 1-d array of ``n`` ids; a missing id (None, NaN, NaT) is an error naming its row.

    Any hashable ids are accepted (integers, strings, floats, Python ints beyond int64, a mix
    of types in an object array); a missing one would otherwise silently join or split a query (NaN differs from itself).
    """
    no_mask(qid, "qid")
    q = id_array(qid)  # a trailing NUL kept, to be refused
    if q.ndim != 1 or q.shape[0] != n:
        raise DataError(f"qid has shape {q.shape}, expected ({n},) like labels")
    inexact_float_id(q)  # 2^53 + 1 as a float64 is 2^53: two queries may already be one
    fractional_float_id(q)  # 1.5, inf: no id (1.0 is id 1), as on every path
    if q.dtype.kind == "f" and q.dtype.itemsize < 4:  # float16: exact in float32, and pandas
        q = q.astype(np.float32)  # has no float16 index (the per-query table is keyed by qid)
    if q.dtype.kind in "fcmMO":
        import pandas as pd

        missing = pd.isna(q) if q.dtype.kind != "O" else np.fromiter(
            (_is_missing(v) for v in q), dtype=bool, count=n)
        if missing.any():
            row = int(np.flatnonzero(missing)[0])
            raise DataError(
                f"query id {_shown(q[row])} is missing: every row needs a query id (a NaN or "
                f"None id would silently join or split a query; {_ROWS})",
                row=row + 1,
            )
    if q.dtype.kind in "ObUMmcSV":  # text: a stray character or white space; dates, bytes
        q = text_ids(q)  # 1 and "1" are one query; a bool or a date is no id (bench.data.inputs)
    if q.dtype.kind == "O":
        import pandas as pd

        try:
            pd.factorize(q)
        except TypeError as exc:
            raise DataError(f"query ids must be hashable values (numbers, strings): {exc}") from None
    return q


def _doc_ids(docno: ArrayLike, n: int) -> np.ndarray:
    """Document ids (they break score ties under the ``docno_*`` rules) under the id rule of
    :mod:`bench.data.inputs`, as in a TREC run: a missing id (None, NaN), a bool, or a float
    among text is an error naming its row; ``1`` and ``"1"`` are one id."""
    dn = id_array(docno)
    if dn.ndim != 1 or dn.shape[0] != n:
        raise DataError(f"docno has shape {dn.shape}, expected ({n},)")
    if dn.dtype.kind in "fcmMO":
        kind = dn.dtype.kind
        missing = (np.isnan(dn) if kind in "fc" else np.isnat(dn) if kind in "mM" else
                   np.fromiter((_is_missing(v) for v in dn), dtype=bool, count=n))
        if missing.any():
            row = int(np.flatnonzero(missing)[0])
            raise DataError(f"document id {_shown(dn[row])} is missing: every row needs one "
                            f"(it breaks score ties; {_ROWS})", row=row + 1)
    return text_ids(dn, what="document id", column="docno")


def _unique_per_query(dn: np.ndarray, offsets: np.ndarray, order: np.ndarray | None) -> None:
    """A document listed twice in one query is an error naming both rows, as in a TREC run
    (:func:`bench.data.trec.read_run`): its tie order, and its gain, would be counted twice."""
    if dn.shape[0] < 2:
        return
    qi = np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), np.diff(offsets))
    codes = np.unique(dn.astype(str) if dn.dtype.kind != "U" else dn,
                      return_inverse=True)[1].astype(np.int64).ravel()
    key = qi * (int(codes.max()) + 1) + codes
    twice = np.ones(key.shape[0], dtype=bool)
    twice[np.unique(key, return_index=True)[1]] = False  # each pair's first row is not a repeat
    if twice.any():
        texts = dn.astype(str)
        k = int(np.flatnonzero(twice)[0])
        first = int(np.flatnonzero((qi == qi[k]) & (codes == codes[k]))[0])
        rows = (first, k) if order is None else (int(order[first]), int(order[k]))
        raise DataError(f"document id {str(texts[k])!r} appears twice in one query (rows "
                        f"{min(rows) + 1} and {max(rows) + 1}): each document at most once per "
                        f"query ({_ROWS})", row=max(rows) + 1)


def _is_missing(v: object) -> bool:
    if v is None:
        return True
    try:
        return bool(v != v)  # NaN, NaT, pd.NA-like values differ from themselves
    except (TypeError, ValueError):
        import pandas as pd

        return pd.isna(v) is True


def _shown(v: object) -> str:
    if isinstance(v, np.generic):
        plain = v.item()
        return str(v) if plain is None else repr(plain)  # NaT's item() is None
    return repr(v)


def _offsets(q: np.ndarray) -> tuple[NDArray[np.int64], np.ndarray]:
    """Group offsets and the id of each group; a query split into two runs names its row."""
    fast = run_offsets(q.astype(np.int64, copy=False)) if q.dtype.kind in "iu" else None
    if fast is not None:
        return fast, group_ids(q[fast[:-1]])  # a uint64 id beyond int64 not wrapped
    return offsets_from_qid(q, row_base=1)


@dataclass(frozen=True)
class Where:
    """Where an input row came from, for an error message: the :class:`DataError` location
    (``path`` / ``line`` / ``row`` / ``column``) and the word for the value (``"relevance"`` for
    a qrels judgment). :func:`check_labels` asks a locator for it when the prepared rows are not
    the user's own rows (a run joined with its qrels: the label came from a qrels line)."""

    path: str | None = None
    line: int | None = None
    row: int | None = None
    column: str | None = None
    what: str = "label"


Locate = Callable[[int], Where]
"""0-based input row -> its :class:`Where`."""


def check_threshold(profile: Profile) -> None:
    """The profile's relevance level (``relevance_threshold``, trec_eval ``-l``, ranx
    ``rel_lvl``) is a finite real number above 0: ``label >= nan`` is false for every label and
    ``label >= inf`` too, so NaN or an infinite level would make every query silently
    irrelevant (and text or ``None`` fail inside NumPy's comparison). ``True`` is refused as
    a number that is not one. A level <= 0 makes every judged document relevant, a label 0
    too: pytrec_eval refuses it ("Argument relevance_level should be positive.") and so does
    ir_measures (``AP(rel=0)``); so does ltrbench (trec_eval's ``-l`` takes any ``atol``).
    A level between 0 and 1 is the level 1 on whole labels."""
    level = profile.relevance_threshold
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or \
            not math.isfinite(float(level)):
        raise ConfigError(f"profile {profile.name!r}: relevance_threshold (the relevance "
                          f"level, trec_eval -l) must be a finite number; got {level!r}")
    if level <= 0:
        raise ConfigError(f"profile {profile.name!r}: relevance_threshold (the relevance "
                          f"level, trec_eval -l) must be a finite number above 0 (relevant: "
                          f"label >= level; pytrec_eval and ir_measures refuse a level <= 0, "
                          f"which makes every judged document relevant); got {level!r}")


def check_labels(prep: Prepared, profile: Profile, specs: list[MetricSpec], *,
                 locate: Locate | None = None) -> None:
    """Profile-dependent label rules: integers, the largest label, ERR grades, binary labels.

    The error names the first offending row in input order: its 1-based row, or where
    ``locate`` says that row came from (e.g. ``q.txt:3`` for a qrels judgment).
    """
    check_threshold(profile)
    y = prep.labels

    def fail(i: int, text: str, note: str = "") -> DataError:
        return _label_error(prep, i, text, note, locate)

    gain = f"gain {_gain_text(profile)}"

    needs_int = profile.integer_labels or profile.gain != "linear"
    if needs_int and not prep.integer_labels:
        row = _first(prep, y != np.floor(y))
        raise fail(row, f"{{}} is not an integer: profile {profile.name!r} needs integer labels",
                   gain)
    if profile.max_label is not None and prep.max_label > profile.max_label:
        row = _first(prep, y > profile.max_label)
        binary = ("; its tool grades relevance 0/1 (in the user's ground truth or not): give "
                  "binary labels ('convert --labels binary' or 'rated')" if profile.max_label == 1 else "")
        raise fail(row, f"{{}} is above {profile.max_label}, the largest label profile "
                   f"{profile.name!r} accepts{binary}", gain)
    if (
        isinstance(profile.gain, tuple)
        and profile.labels_beyond_gain_table == "error"
        and prep.max_label >= len(profile.gain)
    ):
        row = _first(prep, y >= len(profile.gain))
        raise fail(row, f"{{}} has no gain in profile {profile.name!r}'s gain table "
                   f"{profile.gain}")
    families = {s.family for s in specs}
    if "err" in families:
        if not prep.integer_labels:
            row = _first(prep, y != np.floor(y))
            raise fail(row, "err needs integer grades; {} is not")
        if prep.max_label > profile.err_max_grade:
            row = _first(prep, y > profile.err_max_grade)
            raise fail(row, f"{{}} is above err's largest grade {profile.err_max_grade}",
                       f"R = (2^g - 1) / 2^{profile.err_max_grade}, a probability only "
                       f"for grades up to {profile.err_max_grade}; leave err out, or in "
                       "Python give a profile with a larger err_max_grade: "
                       "dataclasses.replace(get_profile(...), err_max_grade=N)")
    _check_binary(prep, profile, families, fail)


def _check_binary(prep: Prepared, profile: Profile, families: set[str],
                  fail: Callable[..., DataError]) -> None:
    """Labels other than 0 and 1 under a profile whose tool takes 0/1 relevance in the asked
    families (``binary_label_families``): XGBoost's map and pre and torchmetrics' retrieval
    functions but NDCG refuse a label above 1, and torchmetrics would count a fraction such as
    0.5 as relevant (AP, RR) or as half a hit (P, recall): one rule for ltrbench, refused."""
    names = list(profile.binary_label_families)
    if not profile.binary_labels_for_binary_metrics or not families & set(names):
        return
    y = prep.labels
    off = (y != 0) & (y != 1)
    if not off.any():
        return
    said = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    raise fail(_first(prep, off), f"{{}}: profile {profile.name!r} computes {said} only on "
               "binary labels 0/1, as its tool does", "the tool refuses a graded label in "
               "these metrics, and torchmetrics would count a fraction such as 0.5 as relevant "
               "or as half a hit; give 0/1 labels, or leave these metrics out")


def _label_error(prep: Prepared, i: int, text: str, note: str,
                 locate: Locate | None) -> DataError:
    """The error of row ``i`` (prepared order): ``text`` with its first ``{}`` replaced by the value and
    ``note`` in parentheses, located by ``locate`` or by the 1-based input row."""
    row0 = _input_row(prep, i) - 1
    if locate is None:
        extra = f"{note}; {_ROWS}" if note else _ROWS
        return DataError(f"{text.replace('{}', f'label {_num(prep.labels[i])}', 1)} ({extra})",
                         row=row0 + 1)
    where = locate(row0)
    v = float(prep.labels[i])
    value = f"{where.what} {int(v) if v.is_integer() else v!r}"
    return DataError(text.replace("{}", value, 1) + (f" ({note})" if note else ""), path=where.path,
                     line=where.line, row=where.row, column=where.column)


def _num(v: object) -> str:
    return repr(float(v))  # type: ignore[arg-type]


def _input_row(prep: Prepared, i: int) -> int:
    """The 1-based input row of row ``i`` of the (possibly sorted) prepared arrays."""
    return (i if prep.order is None else int(prep.order[i])) + 1


def _first(prep: Prepared, mask: NDArray[np.bool_]) -> int:
    """Index (in ``prep``'s order) of the offending row that comes first in the input."""
    idx = np.flatnonzero(mask)
    if prep.order is None:
        return int(idx[0])
    return int(idx[np.argmin(prep.order[idx])])


def _gain_text(profile: Profile) -> str:
    if profile.gain == "exp2":
        return "2^l - 1"
    if profile.gain == "linear":
        return "l"
    return str(profile.gain)
