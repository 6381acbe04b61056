"""Evaluation profiles: every convention that makes two libraries print different numbers, as data.

A :class:`Profile` is a frozen dataclass; the named ones in :data:`PROFILES` reproduce, to 1e-9,
what each tool prints (sources: ``../shared/notes/metric-conventions.md``, which cites file and
line of each library). Change one convention at a time with :func:`dataclasses.replace`, e.g.
``replace(get_profile("lightgbm"), ties="average")`` to see what the tie rule alone costs.

Definitions used by every profile (``i`` = 0-based position, ``rank = i + 1``, ``n`` = list length,
``R`` = relevant documents of the query, ``g(l)`` = gain of label ``l``, ``D(i)`` = discount)::

    DCG@k   = sum_{i < min(k, n)} g(l_i) * D(i)              D(i) = 1 / log2(i + 2)   ("log2")
    NDCG@k  = DCG@k / IDCG@k         IDCG@k: the same sum over the labels sorted by gain
    AP@k    = sum_{i < min(k, n), rel_i} (hits_i / (i + 1)) / den      hits_i = rel. in ranks <= i+1
    P@k     = hits@k / k  (or / min(k, n))        recall@k = hits@k / R
    RR@k    = 1 / rank of the first relevant document within the top k (0 if none)
    ERR@k   = sum_{i < min(k, n)} R_i / (i + 1) * prod_{j < i} (1 - R_j),  R_i = (2^g_i - 1) / 2^g_max
    hits@k  = 1 if a relevant document is in the top k, else 0

ERR follows Chapelle, Metzler, Zhang & Grinspan, "Expected reciprocal rank for graded relevance"
(CIKM 2009) with grades normalised as ``gdeval.pl`` does (``R = (2^g - 1) / 2^g_max``, g_max = 4
by default, labels above it are an error), whatever the profile's gain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from bench.errors import ConfigError

_GAINS = ("exp2", "linear")
_DISCOUNTS = ("log2", "letor4")
_TIES = ("stable", "average", "pessimistic", "optimistic", "random", "docno_desc", "row_desc")
_BASES = ("list", "qrels")
_K_BEYOND = ("clip", "zero")
_MAP_DEN = ("min_r_k", "r", "hits_k")
_P_DEN = ("k", "min_k_n")
_DTYPES = ("float64", "float32")
_BEYOND_TABLE = ("error", "zero")
_BLANK_WEIGHT = ("query", "one")
_EMPTY_FAMILIES = ("ndcg", "map", "recall")
_MISSING = ("drop", "zero")
_UNJUDGED = ("label0", "zero")


@dataclass(frozen=True)
class Profile:
    """The conventions behind one tool's ranking metrics.

    Attributes:
        name: profile name.
        gain: ``"exp2"`` (``2^l - 1``), ``"linear"`` (``l``) or a tuple ``(g(0), g(1), ...)``.
        discount: ``"log2"`` (``1/log2(rank + 1)``) or ``"letor4"`` (ranks 1 and 2 undiscounted,
            then ``1/log2(rank)``: ``Eval-Score-4.0.pl`` sub ``DCG``).
        ties: order among equal scores. ``"stable"`` input (row) order; ``"average"`` the expected
            value over every order of each tied group (McSherry & Najork, ECIR 2008), exact for
            every metric; ``"pessimistic"`` / ``"optimistic"`` lower / higher gain first;
            ``"random"`` a seeded random order (``tie_seed``); ``"docno_desc"`` document id
            descending, byte-wise, as trec_eval (``form_res_rels.c:111-113``; without document
            ids the row number stands in, higher first); ``"row_desc"`` the higher row number
            first (scikit-learn ``ignore_ties=True``: ``np.argsort(y_score)[:, ::-1]``,
            ``_ranking.py:1702``).
        empty: value of NDCG, AP and recall on a query without relevant documents (0/0):
            ``1.0``, ``0.0``, or ``None`` = left out of the mean (NaN per query). Metrics with a
            natural value there (DCG, P, RR, ERR, hits: 0) keep it, except under ``None``, which
            leaves blank queries out of every ranking metric (one query set per evaluation).
        empty_by_family: per-family exceptions to ``empty``, ``(("map", 0.0),)``: CatBoost
            scores a blank query 1 in NDCG but 0 in MAP. Families: ndcg, map, recall.
        idcg_basis: ``"list"`` (the scored documents) or ``"qrels"`` (every judged document,
            also those not retrieved: trec_eval, ranx). Also decides ``R`` for AP and recall.
        k_beyond_n: ``"clip"`` (k > n is n) or ``"zero"`` (LETOR 4.0: NDCG@k = 0 when n < k).
        map_denominator: ``"min_r_k"`` (``min(R, k)``, LightGBM/XGBoost), ``"r"`` (``R``) or
            ``"hits_k"`` (the relevant documents in the top k: torchmetrics
            ``retrieval_average_precision``, ``average_precision.py:55-62``, a mean over the hits;
            under ``ties="average"`` the ratio of the expected sums, exact without ties).
        precision_denominator: ``"k"`` or ``"min_k_n"`` (XGBoost ``pre@k``).
        relevance_threshold: a document is relevant when ``label >= relevance_threshold``.
        max_relevant_label: and, when set, ``label <= max_relevant_label`` (LETOR 4.0: 2).
        score_dtype: ``"float64"``, or ``"float32"``: scores are rounded to float32 first, so
            scores equal in float32 tie (XGBoost predictions, trec_eval <= 9.0.8 ``float sim``).
        default_k: cutoff of a metric named without ``@k`` (XGBoost: 32); ``None`` = whole list.
        max_label: largest label accepted (exp2: 31, LightGBM's 31-entry table: 30).
        integer_labels: labels must be whole numbers.
        labels_beyond_gain_table: for tuple gains, ``"error"`` or ``"zero"`` (gain 0, not
            relevant: LETOR 4.0's hash lookup).
        binary_labels_for_binary_metrics: AP and P@k accept only labels 0/1 (XGBoost's
            ``CheckPreLabels``).
        blank_ndcg_weight: in a weighted mean, a query without relevant documents adds its NDCG
            times its weight (``"query"``) or an unweighted ``empty`` (``"one"``: LightGBM
            ``rank_metric.hpp:119-122``, XGBoost ``rank_metric.cc:377-399``).
        clamp_ndcg_mean: the mean NDCG is clamped to 1 (XGBoost ``rank_metric.cc:271-285``; a mean
            above ``1 + 1e-6`` is an error there, and here).
        err_max_grade: g_max of ERR.
        tie_seed: seed of the ``"random"`` tie order.
        missing: a query with judgments (qrels lines with relevance >= 0) but no scored document
            (TREC input only): ``"drop"`` (left out: trec_eval without ``-c``) or ``"zero"``
            (every metric 0, blank-query rules as for any query, counted in the mean:
            trec_eval ``-c``, ir_measures ``providers/base.py:18-27``, ranx).
        unjudged_gain: gain of a scored document without a judgment or with a negative one
            (TREC input only): ``"label0"`` (the gain of label 0) or ``"zero"`` (gain 0 whatever
            the table, not relevant: trec_eval ``m_ndcg.c`` ``get_gain`` returns 0 for
            ``RELVALUE_NONPOOL`` / ``RELVALUE_UNJUDGED``). Matters only when ``g(0) != 0``.
        arithmetic_dtype: ``"float64"``, or ``"float32"``: per-query values divided and the mean
            accumulated in float32 (torchmetrics: ``ndcg.py:35-42``, ``average_precision.py:61-62``);
            agreement with such a tool is then to float32 precision, not bit for bit.
        discount_base: ``b`` of the discount ``1 / log_b(i + 2)`` (``letor4``: ``1 / log_b(rank)``);
            NDCG does not depend on it, DCG does (scikit-learn ``dcg_score(log_base=)``,
            gdeval and MS Recommenders use ``e``).
        description: what the profile reproduces, with sources.
    """

    name: str
    gain: str | tuple[float, ...] = "exp2"
    discount: str = "log2"
    ties: str = "average"
    empty: float | None = None
    empty_by_family: tuple[tuple[str, float], ...] = ()
    idcg_basis: str = "list"
    k_beyond_n: str = "clip"
    map_denominator: str = "min_r_k"
    precision_denominator: str = "k"
    relevance_threshold: float = 1.0
    score_dtype: str = "float64"
    default_k: int | None = None
    max_label: int | None = 31
    integer_labels: bool = True
    labels_beyond_gain_table: str = "error"
    max_relevant_label: float | None = None
    binary_labels_for_binary_metrics: bool = False
    blank_ndcg_weight: str = "query"
    clamp_ndcg_mean: bool = False
    err_max_grade: int = 4
    tie_seed: int = 0
    missing: str = "drop"
    unjudged_gain: str = "label0"
    arithmetic_dtype: str = "float64"
    discount_base: float = 2.0
    description: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.gain, (tuple, list)):
            gains = tuple(float(g) for g in self.gain)
            if not gains or any(not (g >= 0) for g in gains):
                raise ConfigError(f"profile {self.name!r}: a gain table needs gains >= 0")
            object.__setattr__(self, "gain", gains)
        else:
            _check(self.name, "gain", self.gain, _GAINS, "or a tuple of per-label gains")
        _check(self.name, "discount", self.discount, _DISCOUNTS)
        _check(self.name, "ties", self.ties, _TIES)
        _check(self.name, "idcg_basis", self.idcg_basis, _BASES)
        _check(self.name, "k_beyond_n", self.k_beyond_n, _K_BEYOND)
        _check(self.name, "map_denominator", self.map_denominator, _MAP_DEN)
        _check(self.name, "precision_denominator", self.precision_denominator, _P_DEN)
        _check(self.name, "score_dtype", self.score_dtype, _DTYPES)
        _check(self.name, "labels_beyond_gain_table", self.labels_beyond_gain_table, _BEYOND_TABLE)
        _check(self.name, "blank_ndcg_weight", self.blank_ndcg_weight, _BLANK_WEIGHT)
        _check(self.name, "missing", self.missing, _MISSING)
        _check(self.name, "unjudged_gain", self.unjudged_gain, _UNJUDGED)
        _check(self.name, "arithmetic_dtype", self.arithmetic_dtype, _DTYPES)
        base = self.discount_base
        if isinstance(base, bool) or not isinstance(base, (int, float)) or not (1.0 < base < math.inf):
            raise ConfigError(
                f"profile {self.name!r}: discount_base must be a finite number above 1, got {base!r}"
            )
        object.__setattr__(self, "discount_base", float(base))
        if self.empty is not None and self.empty not in (0.0, 1.0):
            raise ConfigError(f"profile {self.name!r}: empty must be 0.0, 1.0 or None")
        by_family = tuple((str(f), float(v)) for f, v in self.empty_by_family)
        if self.empty_by_family and (self.empty is None or any(
                f not in _EMPTY_FAMILIES or v not in (0.0, 1.0) for f, v in by_family)):
            raise ConfigError(
                f"profile {self.name!r}: empty_by_family maps {', '.join(_EMPTY_FAMILIES)} to "
                "0.0 or 1.0, and needs empty set (not None)"
            )
        object.__setattr__(self, "empty_by_family", by_family)
        if self.default_k is not None and self.default_k < 1:
            raise ConfigError(f"profile {self.name!r}: default_k must be a positive integer")
        if self.gain == "exp2" and (self.max_label is None or self.max_label > 31):
            raise ConfigError(
                f"profile {self.name!r}: exp2 gain needs max_label <= 31 (2^l - 1 must be exact)"
            )
        if not 0 <= self.err_max_grade <= 31:
            raise ConfigError(f"profile {self.name!r}: err_max_grade must be in 0..31")

    def empty_for(self, family: str) -> float | None:
        """What a blank query scores in ``family``: its ``empty_by_family`` entry, else ``empty``."""
        return dict(self.empty_by_family).get(family, self.empty)

    def describe(self) -> dict[str, object]:
        """The profile as a plain dict (for JSON output and manifests)."""
        out: dict[str, object] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


def _check(profile: str, field: str, value: object, valid: tuple[str, ...], extra: str = "") -> None:
    if value not in valid:
        raise ConfigError(
            f"profile {profile!r}: unknown {field} {value!r}; valid: {', '.join(valid)} {extra}".rstrip()
        )


LTRBENCH = Profile(
    name="ltrbench",
    description=(
        "ltrbench's own convention: gain 2^l-1, discount 1/log2(rank+1), ties averaged "
        "(order-independent: McSherry & Najork 2008), queries without relevant documents left out "
        "of the mean (diagnostics give the mean with them scored 0 and 1), ideal DCG over the "
        "scored list, AP denominator min(R, k), P@k denominator k, relevant = label >= 1, float64."
    ),
)

_XGBOOST = Profile(
    name="xgboost",
    ties="stable",
    empty=1.0,
    precision_denominator="min_k_n",
    score_dtype="float32",
    default_k=32,
    binary_labels_for_binary_metrics=True,
    blank_ndcg_weight="one",
    clamp_ndcg_mean=True,
    description=(
        "XGBoost >= 2.0 CPU metrics 'ndcg', 'map', 'pre' (src/metric/rank_metric.cc, "
        "src/common/ranking_utils.{h,cc}): float32 predictions, stable sort (row order on "
        "ties), exp2 gain (l <= 31), k = 32 when no @k, IDCG truncated at k, an all-zero group "
        "scores 1 (unweighted in NDCG, weighted in MAP), group weights, NDCG mean clamped to 1, "
        "map/pre need binary labels, AP denominator min(R, k), pre@k divides by min(k, n)."
    ),
)


#: The profile of every number ltrbench prints unless told otherwise.
DEFAULT_PROFILE = LTRBENCH.name

PROFILES: dict[str, Profile] = {
    "ltrbench": LTRBENCH,
    "lightgbm": Profile(
        name="lightgbm",
        ties="stable",
        empty=1.0,
        max_label=30,
        blank_ndcg_weight="one",
        description=(
            "LightGBM 4.x metric 'ndcg'/'map' (src/metric/dcg_calculator.cpp, rank_metric.hpp, "
            "map_metric.hpp): default label_gain 2^l-1 for l = 0..30, std::stable_sort by score "
            "(ties keep row order), k clipped to n, a query without relevant documents scores 1 "
            "(added unweighted to NDCG's weighted sum, weighted in MAP), query weight = mean row "
            "weight, AP denominator min(R, min(k, n)), relevant = label > 0.5."
        ),
    ),
    "xgboost": _XGBOOST,
    # The '-' metrics differ from XGBoost's plain ones only in what a blank group scores.
    "xgboost-": replace(
        _XGBOOST,
        name="xgboost-",
        empty=0.0,
        description=(
            "XGBoost's minus variants 'ndcg-', 'ndcg@k-', 'map-', 'map@k-': as 'xgboost' but a "
            "group without relevant documents scores 0."
        ),
    ),
    "sklearn": Profile(
        name="sklearn",
        gain="linear",
        ties="average",
        empty=0.0,
        integer_labels=False,
        max_label=None,
        description=(
            "scikit-learn ndcg_score / dcg_score (sklearn/metrics/_ranking.py): linear gain "
            "(the y_true value, non-integer allowed), 1/log2(i+2), ties averaged (ignore_ties="
            "False), all-irrelevant rows score 0 and count in the mean, k > n is the full list, "
            "np.average with sample_weight (one weight per query)."
        ),
    ),
    "trec_eval": Profile(
        name="trec_eval",
        gain="linear",
        ties="docno_desc",
        empty=0.0,
        idcg_basis="qrels",
        map_denominator="r",
        score_dtype="float32",
        max_label=None,
        unjudged_gain="zero",
        description=(
            "trec_eval 9.0.8 as bundled by pytrec_eval (m_ndcg.c, m_ndcg_cut.c, m_map.c, "
            "m_map_cut.c, m_P.c, m_recall.c, m_recip_rank.c, form_res_rels.c): float32 scores, "
            "ties by docno descending, linear gain = qrels level, ideal DCG over all judged "
            "documents (ndcg_cut: truncated at k), AP and recall divide by R from the qrels, P@k "
            "by k, queries without relevant documents score 0 and count in the mean, unjudged "
            "documents gain 0 (m_ndcg.c get_gain), qrels queries without a run line are left "
            "out (no -c: see 'trec_eval-c'); bpref as m_bpref.c (judged non-relevant = judged "
            "with rel below the threshold), Rprec, set_P, set_recall, set_F (beta 1)."
        ),
    ),
    "ranx": Profile(
        name="ranx",
        gain="linear",
        ties="stable",
        empty=0.0,
        idcg_basis="qrels",
        map_denominator="r",
        max_label=None,
        description=(
            "ranx 0.3 (ranx/metrics/*.py): ndcg is Jarvelin's linear gain with 1/log2(rank+1) "
            "and ideal DCG from the qrels, map@k divides by R, precision@k by k, "
            "hit_rate@k = hits@k, empty queries score 0. ranx's own order among tied scores is a "
            "numba quicksort (not defined for lists longer than ~15); this profile uses row order."
        ),
    ),
    "catboost": Profile(
        name="catboost",
        ties="pessimistic",
        empty=1.0,
        empty_by_family=(("map", 0.0),),
        description=(
            "CatBoost 1.2 metrics 'NDCG:top=k;type=Exp' (ltrbench's ndcg@k; CatBoost's default "
            "type=Base is gain l: replace(gain='linear')) and 'MAP:top=k' "
            "(catboost/libs/metrics/dcg.cpp, precision_recall_at_k.cpp, doc_comparator.h): "
            "gain 2^l-1 (CalcDcgSorted: pow(2, target) - 1), denominator=LogPosition = "
            "1/log2(rank+1) (FillDcgDecay; denominator=Position, 1/rank, is not modelled), IDCG "
            "over the labels sorted descending and cut at top (CalcIDcg), k clipped to n; equal "
            "scores put the lower label first (CompareDocs: approx desc, then target asc, "
            "doc_comparator.h:3-5), scores as double; NDCG of a query without a positive label "
            "is 1 (CalcNdcg: 'idcg > 0 ? dcg / idcg : 1') and is weighted like any query; AP is "
            "0 there (CalcAveragePrecisionK: 'hits > 0 ? ... : 0'), relevant = target > 0.5, "
            "AP denominator min(R, min(k, n)); MAP ignores weights."
        ),
    ),
    "letor4": Profile(
        name="letor4",
        gain=(0.0, 1.0, 3.0),
        discount="letor4",
        ties="stable",
        empty=0.0,
        k_beyond_n="zero",
        map_denominator="r",
        max_label=None,
        labels_beyond_gain_table="zero",
        max_relevant_label=2.0,
        description=(
            "LETOR 4.0 Eval-Score-4.0.pl: gain table {0:0, 1:1, 2:3} (labels >= 3 gain 0 and are "
            "not relevant), ranks 1 and 2 undiscounted then 1/log2(rank), ties in file order, "
            "NDCG@k = 0 when the query has fewer than k documents or no relevant one, MAP over "
            "the whole list divided by R, P@k divided by k, unweighted mean over all queries."
        ),
    ),
}

_TREC_EVAL = PROFILES["trec_eval"]
_RANX = PROFILES["ranx"]
_SKLEARN = PROFILES["sklearn"]

PROFILES.update({
    "trec_eval-c": replace(
        _TREC_EVAL,
        name="trec_eval-c",
        missing="zero",
        description=(
            "trec_eval 9.0.8 with -c (trec_eval.c: average over every query of the qrels): as "
            "'trec_eval', and a qrels query without a run line scores 0 in every measure and "
            "counts in the mean (ir_measures does the same: providers/base.py:18-27)."
        ),
    ),
    "gdeval": Profile(
        name="gdeval",
        ties="docno_desc",
        empty=None,
        idcg_basis="qrels",
        max_label=4,
        unjudged_gain="zero",
        discount_base=math.e,
        description=(
            "gdeval.pl 1.2a as shipped in ir_measures bin/gdeval.pl (nDCG(dcg='exp-log2')@k, "
            "ERR@k): run sorted by score desc then docno desc (runOrder, :128-147), scores as "
            "Perl doubles (float64), gain 2^j-1 and discount 1/ln(i+2) (sub dcg, :150-158; DCG "
            "is in natural-log units, NDCG unaffected), ideal DCG over the judgments > 0 of the "
            "topic cut at k (:68-84), judgments above 4 refused (:47-50), unjudged documents "
            "gain 0 (:99-101), ERR with g_max 4 (:161-172); only topics with a judgment > 0 are "
            "scored (%seen, :51-53, topicDone :175-186), so blank topics are left out; topics "
            "without a run line are skipped (missing='drop'; ir_measures then fills 0)."
        ),
    ),
    "ranx-burges": replace(
        _RANX,
        name="ranx-burges",
        gain="exp2",
        max_label=31,
        description=(
            "ranx 0.3 ndcg_burges@k (ranx/metrics/ndcg.py: Burges et al. 2005, gain 2^rel - 1, "
            "rel below rel_lvl dropped = gain 0), otherwise as 'ranx': 1/log2(rank+1), ideal "
            "DCG from the qrels, empty queries 0, ties in row order."
        ),
    ),
    "sklearn-ignore-ties": replace(
        _SKLEARN,
        name="sklearn-ignore-ties",
        ties="row_desc",
        description=(
            "scikit-learn ndcg_score / dcg_score with ignore_ties=True (sklearn/metrics/"
            "_ranking.py:1698-1712): ranking = np.argsort(y_score)[:, ::-1]; this profile puts "
            "the higher column index first among equal scores, which is what sklearn does when "
            "a row's scores are all equal (observed, numpy 2.4); with mixed ties numpy's "
            "default argsort is not stable (e.g. [2,1,1,0,0,0,0,0,0] ranks index 1 before 2), "
            "so sklearn's order there is arbitrary and only tie-free rows agree; otherwise as "
            "'sklearn'."
        ),
    ),
    "torchmetrics": Profile(
        name="torchmetrics",
        gain="linear",
        ties="average",
        empty=0.0,
        map_denominator="hits_k",
        max_label=None,
        integer_labels=False,
        binary_labels_for_binary_metrics=True,
        arithmetic_dtype="float32",
        description=(
            "torchmetrics 1.9 functional retrieval metrics (src/torchmetrics/functional/"
            "retrieval/): retrieval_normalized_dcg (ndcg.py:21-113) linear gain, 1/log2(i+2), "
            "ties averaged (a port of sklearn's _tie_averaged_dcg) in float32, ideal DCG from "
            "the sorted targets cut at top_k, all-irrelevant -> 0; retrieval_average_precision "
            "(average_precision.py:51-62): mean over the hits in the top k of hits_i/pos_i "
            "(denominator = hits in the top k) in float32; retrieval_precision divides by top_k "
            "(precision.py:59-71); recall by the sum of targets; binary targets for those; a "
            "query without a positive target scores 0 (functional) and counts in the mean "
            "(module: empty_target_action='neg', retrieval/base.py:148-183). Not modelled: since "
            "v1.7.4/1.8.0 (#3160) P, AP, RR and recall treat documents scored <= 0 as non-relevant "
            "(torch.where(preds > 0, target, 0), average_precision.py:55) -- this profile agrees "
            "only for positive scores -- and torch.topk's order among tied scores in P/AP/RR."
        ),
    ),
    "recbole": Profile(
        name="recbole",
        ties="stable",
        empty=None,
        gain=(0.0, 1.0),  # binary: a ground-truth item gains 1; labels above 1 are refused
        max_label=1,
        description=(
            "RecBole 1.x recbole/evaluator/metrics.py (TopkMetric): binary relevance (pos_index), "
            "NDCG@K = sum_{hits} 1/log2(rank+1) over sum_{i<=min(|R|,K)} 1/log2(i+1) (NDCG."
            "metric_info :186-201), MAP@K divided by min(|R|, K) (MAP.metric_info :126-136), "
            "Recall@K = hits/|R| (:159-160), Precision@K = hits/K (:226-227), MRR@K = 1/rank of "
            "the first hit (:88-96); means over the evaluated users, who all have ground truth "
            "(blank queries left out). Order among tied scores is torch.topk's (unspecified); "
            "this profile uses row order."
        ),
    ),
    "recommenders": Profile(
        name="recommenders",
        ties="stable",
        empty=None,
        discount_base=math.e,
        gain=(0.0, 1.0),  # binary: a ground-truth item gains 1; labels above 1 are refused
        max_label=1,
        description=(
            "MS Recommenders recommenders/evaluation/python_evaluation.py (2025-09, b02c95e2): "
            "top k by sort_values([user, prediction]) (stable: ties keep row order, :862-870), "
            "ndcg_at_k with score_type='binary' and discfun_type='loge' (1/ln(1+rank); NDCG is "
            "base-free) and ideal DCG over all of the user's true items cut at k (:656-696), "
            "map_at_k = sum(hits_i/rank_i)/min(#true, k) (:818-834), precision_at_k = hits/k "
            "(:496), recall_at_k = hits/#true (:541), each averaged over the users that have "
            "true items (common users, :409-412; blank queries left out)."
        ),
    ),
})


def get_profile(name: str | Profile) -> Profile:
    """The named profile (a :class:`Profile` is returned as is).

    Raises :class:`ConfigError` listing the valid names.
    """
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[str(name).strip().lower()]
    except KeyError:
        raise ConfigError(
            f"unknown profile {name!r}; valid profiles: {', '.join(PROFILES)}"
        ) from None
