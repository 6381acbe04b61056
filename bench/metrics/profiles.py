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

from dataclasses import dataclass, fields, replace

from bench.errors import ConfigError

_GAINS = ("exp2", "linear")
_DISCOUNTS = ("log2", "letor4")
_TIES = ("stable", "average", "pessimistic", "optimistic", "random", "docno_desc")
_BASES = ("list", "qrels")
_K_BEYOND = ("clip", "zero")
_MAP_DEN = ("min_r_k", "r")
_P_DEN = ("k", "min_k_n")
_DTYPES = ("float64", "float32")
_BEYOND_TABLE = ("error", "zero")
_BLANK_WEIGHT = ("query", "one")
_EMPTY_FAMILIES = ("ndcg", "map", "recall")


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
            ids the row number stands in, higher first).
        empty: value of NDCG, AP and recall on a query without relevant documents (0/0):
            ``1.0``, ``0.0``, or ``None`` = left out of the mean (NaN per query). Metrics with a
            natural value there (DCG, P, RR, ERR, hits: 0) keep it, except under ``None``, which
            leaves blank queries out of every ranking metric (one query set per evaluation).
        empty_by_family: per-family exceptions to ``empty``, ``(("map", 0.0),)``: CatBoost
            scores a blank query 1 in NDCG but 0 in MAP. Families: ndcg, map, recall.
        idcg_basis: ``"list"`` (the scored documents) or ``"qrels"`` (every judged document,
            also those not retrieved: trec_eval, ranx). Also decides ``R`` for AP and recall.
        k_beyond_n: ``"clip"`` (k > n is n) or ``"zero"`` (LETOR 4.0: NDCG@k = 0 when n < k).
        map_denominator: ``"min_r_k"`` (``min(R, k)``, LightGBM/XGBoost) or ``"r"`` (``R``).
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
        description=(
            "trec_eval 9.0.8 as bundled by pytrec_eval (m_ndcg.c, m_ndcg_cut.c, m_map.c, "
            "m_map_cut.c, m_P.c, m_recall.c, m_recip_rank.c, form_res_rels.c): float32 scores, "
            "ties by docno descending, linear gain = qrels level, ideal DCG over all judged "
            "documents (ndcg_cut: truncated at k), AP and recall divide by R from the qrels, P@k "
            "by k, queries without relevant documents score 0 and count in the mean."
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

# Version-qualified profiles: a release whose definition differs from the unqualified profile
# (measured by `ltrbench crosscheck --versions`, results/definitions/versions.md).
_XGBOOST_17 = Profile(
    name="xgboost@1.7",
    ties="stable",
    empty=1.0,
    map_denominator="r",
    score_dtype="float32",
    max_label=30,
    description=(
        "XGBoost 1.x CPU metrics 'ndcg', 'ndcg@k', 'map', 'map@k' (read at v1.7.6, "
        "src/metric/rank_metric.cc): predictions as float32 (bst_float), std::stable_sort by "
        "prediction descending (CmpFirst, src/common/math.h:133-136; ties keep row order, "
        ":293,315), labels cast to int (:208), gain (1 << l) - 1 and 1/log2(i+2) (:277-286), IDCG "
        "over the labels sorted descending and cut at k (:295-296), no '@k' = the whole list "
        "(topn = UINT_MAX, metric_common.h:60), a group without relevant documents scores 1 "
        "(0 with '-', :297-303, :326-335), AP sums hits/(i+1) over the top k but divides by all "
        "relevant documents R (:316-328; relevant = label != 0), graded labels accepted by "
        "map; the mean is over groups WITHOUT weights (sum / ngroups, :225): evaluate without "
        "weights to reproduce a weighted DMatrix."
    ),
)

PROFILES.update({
    "xgboost@1.7": _XGBOOST_17,
    "xgboost@1.7-": replace(
        _XGBOOST_17,
        name="xgboost@1.7-",
        empty=0.0,
        description="XGBoost 1.x minus variants 'ndcg-', 'ndcg@k-', 'map-', 'map@k-' (v1.7.6 "
        "src/metric/rank_metric.cc:246-248,297-303,329-331): as 'xgboost@1.7' but a group "
        "without relevant documents scores 0.",
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
