"""Per-label lookup tables and the discount table that a :class:`Profile` implies.

Labels are small non-negative integers in every profile but ``sklearn`` (which also accepts real
labels), so gains, relevance and ERR probabilities are looked up by label. The ideal DCG is then
computed by counting labels per query (no sort), and the evaluator never computes ``2**l``
per document.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bench.metrics.profiles import Profile


@dataclass(frozen=True)
class LabelTables:
    """Lookup tables indexed by integer label ``0 .. size - 1``.

    Attributes:
        gain: gain of each label.
        rel: 1.0 where the label is relevant (binary metrics), else 0.0.
        err: ERR stopping probability ``(2^l - 1) / 2^g_max`` (NaN above g_max).
        order: labels sorted by gain, highest first (ties: higher label first); the ideal
            ranking fills positions in this order.
    """

    gain: NDArray[np.float64]
    rel: NDArray[np.float64]
    err: NDArray[np.float64]
    order: NDArray[np.int64]

    @property
    def size(self) -> int:
        return int(self.gain.shape[0])


def label_tables(profile: Profile, max_label: int) -> LabelTables:
    """Tables covering labels ``0 .. max_label`` under ``profile``."""
    size = int(max_label) + 1
    labels = np.arange(size, dtype=np.float64)
    if profile.gain == "exp2":
        gain = np.exp2(labels) - 1.0
    elif profile.gain == "linear":
        gain = labels.copy()
    else:
        table = np.asarray(profile.gain, dtype=np.float64)
        gain = np.zeros(size, dtype=np.float64)
        m = min(size, table.shape[0])
        gain[:m] = table[:m]
    gain = _level_gain(profile, labels, gain)
    rel = relevant(profile, labels).astype(np.float64)
    if profile.labels_beyond_gain_table == "zero" and isinstance(profile.gain, tuple):
        rel[len(profile.gain):] = 0.0
    err = err_probability(profile, labels)
    order = np.lexsort((-labels, -gain)).astype(np.int64)
    return LabelTables(gain=gain, rel=rel, err=err, order=order)


def relevant(profile: Profile, labels: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Binary relevance: ``label >= relevance_threshold`` (and ``<= max_relevant_label``)."""
    out = labels >= profile.relevance_threshold
    if profile.max_relevant_label is not None:
        out &= labels <= profile.max_relevant_label
    return out


def gains(profile: Profile, labels: NDArray[np.float64]) -> NDArray[np.float64]:
    """Gain of each label (any real label for ``linear``; integer labels otherwise); 0 below
    the relevance level under ``rel_level="zero"``."""
    if profile.gain == "linear":
        return _level_gain(profile, labels, np.asarray(labels, dtype=np.float64))
    if profile.gain == "exp2":
        return _level_gain(profile, labels, np.exp2(labels) - 1.0)
    table = np.asarray(profile.gain, dtype=np.float64)
    out = np.zeros(labels.shape[0], dtype=np.float64)
    # compared as floats first: a label of 1e308 cast to int64 is -2^63, an index from the end
    inside = (labels >= 0) & (labels < table.shape[0])
    out[inside] = table[labels[inside].astype(np.int64)]
    return _level_gain(profile, labels, out)


def _level_gain(profile: Profile, labels: NDArray[np.float64],
                gain: NDArray[np.float64]) -> NDArray[np.float64]:
    """``gain`` with labels below ``relevance_threshold`` set to 0 under ``rel_level="zero"``
    (ranx: ``clean_qrels`` drops the judgments below ``rel_lvl``, ``ranx/metrics/common.py``, so
    ``_dcg`` finds no gain for them, ``ranx/metrics/ndcg.py``); unchanged under ``"keep"``
    (trec_eval ``-l``: the level decides binary relevance only)."""
    if profile.rel_level != "zero":
        return gain
    return np.where(labels < profile.relevance_threshold, 0.0, gain)


def relevant_rows(profile: Profile, labels: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Per-row relevance including the 'beyond the gain table is not relevant' rule."""
    out = relevant(profile, labels)
    if profile.labels_beyond_gain_table == "zero" and isinstance(profile.gain, tuple):
        out &= labels < len(profile.gain)
    return out


def err_probability(profile: Profile, labels: NDArray[np.float64]) -> NDArray[np.float64]:
    """ERR's ``R(g) = (2^g - 1) / 2^g_max`` (Chapelle et al. 2009 with gdeval's g_max); NaN above."""
    gmax = profile.err_max_grade
    out = (np.exp2(labels) - 1.0) / float(2**gmax)
    return np.where(labels <= gmax, out, np.nan)


def discount_table(profile: Profile, size: int) -> NDArray[np.float64]:
    """``D(i)`` for 0-based positions ``i < size``.

    ``log2``: ``1 / log2(i + 2)`` (LightGBM ``dcg_calculator.cpp:50-53``, XGBoost
    ``ranking_utils.h:46-48``). ``letor4``: ``1, 1, 1/log2(3), 1/log2(4), ...`` (ranks 1 and 2
    undiscounted, then ``1/log2(rank)``; ``Eval-Score-4.0.pl`` sub ``DCG``). A
    ``discount_base`` b other than 2 replaces log2 by log_b (scikit-learn ``dcg_score(log_base=)``,
    ``_ranking.py:1752-1759``).
    """
    size = max(int(size), 1)
    i = np.arange(size, dtype=np.float64)
    if profile.discount == "log2":
        out = 1.0 / np.log2(i + 2.0)
    else:
        out = np.ones(size, dtype=np.float64)
        if size > 2:
            out[2:] = 1.0 / np.log2(i[2:] + 1.0)
    if profile.discount_base != 2.0:
        # 1 / log_b(x) = log2(b) / log2(x); letor4's undiscounted ranks 1 and 2 stay 1
        scale = np.full(size, np.log2(profile.discount_base))
        if profile.discount == "letor4":
            scale[:2] = 1.0
        out = out * scale
    return out


def with_zero_label(tables: LabelTables) -> LabelTables:
    """The tables with one more label, ``tables.size``, of gain 0, not relevant, ERR probability
    0: the stand-in label of unjudged documents under ``unjudged_gain="zero"``."""
    gain = np.append(tables.gain, 0.0)
    rel = np.append(tables.rel, 0.0)
    err = np.append(tables.err, 0.0)
    labels = np.arange(gain.shape[0], dtype=np.float64)
    order = np.lexsort((-labels, -gain)).astype(np.int64)
    return LabelTables(gain=gain, rel=rel, err=err, order=order)
