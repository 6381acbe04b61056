"""Evaluation profiles: every convention that makes two libraries print different numbers, as data.

A :class:`Profile` is a frozen dataclass; the named ones in :data:`PROFILES` reproduce, to 1e-9,
what each tool prints (each profile's ``description`` names the tool's source files it follows;
the tests compare every profile with the tool itself). Change one convention at a time with :func:`dataclasses.replace`, e.g.
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
import re
from dataclasses import replace

from bench.errors import ConfigError, did_you_mean, refuse_foreign_space, spelled_choice
from bench.metrics.library_profiles import LIBRARY_PROFILES
from bench.metrics.name_tokens import non_ascii
from bench.metrics.profile import Profile
from bench.metrics.releases import release_hint

__all__ = ["DEFAULT_PROFILE", "LTRBENCH", "PROFILES", "Profile", "get_profile", "given_profile"]


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
    query_weights="float32",
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
        query_weights="float32_mean",
        description=(
            "LightGBM 4.x metric 'ndcg'/'map' (src/metric/dcg_calculator.cpp, rank_metric.hpp, "
            "map_metric.hpp): default label_gain 2^l-1 for l = 0..30, std::stable_sort by score "
            "(ties keep row order), k clipped to n, a query without relevant documents scores 1 "
            "(added unweighted to NDCG's weighted sum, weighted in MAP), query weight = mean row "
            "weight in float32 (query_weights='float32_mean'), AP denominator min(R, min(k, n)), relevant = label > 0.5."
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
        empty_by_family=(("auc", None),),
        integer_labels=False,
        max_label=None,
        ap_ties="threshold",
        single_document_by_family=(("ndcg", "warn"), ("dcg", "warn")),
        auc_labels="two_classes",
        description=(
            "scikit-learn ndcg_score / dcg_score (sklearn/metrics/_ranking.py): linear gain "
            "(the y_true value, non-integer allowed), 1/log2(i+2), ties averaged (ignore_ties="
            "False), all-irrelevant rows score 0 and count in the mean, k > n is the full list, "
            "np.average with sample_weight (one weight per query); roc_auc_score refuses a "
            "query of one class (ValueError in _binary_roc_auc_score), so its AUC is left out; "
            "map is average_precision_score of each query (relevant: label >= 1), which reads "
            "precision at each distinct score, so a tied group is one step (ap_ties="
            "'threshold'), and a query without a relevant document scores 0 (sklearn warns). "
            "ndcg_score and dcg_score refuse a query of one document alone ('Computing NDCG is "
            "only meaningful when there is more than 1 document') and score it in a batch of "
            "queries padded to one width (its label; NDCG 1 or 0): scored so here, and warned "
            "(single_document_by_family)."
        ),
    ),
    "trec_eval": Profile(
        name="trec_eval",
        query_weights="not_in_tool",  # the tool takes no weights
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
        query_weights="not_in_tool",  # the tool takes no weights
        gain="linear",
        ties="stable",
        empty=0.0,
        idcg_basis="qrels",
        map_denominator="r",
        max_label=None,
        missing="zero",
        rel_level="zero",
        tool_tie_order="not_reproduced",
        description=(
            "ranx 0.3 (ranx/metrics/*.py): ndcg is Jarvelin's linear gain with 1/log2(rank+1) "
            "and ideal DCG from the qrels, map@k divides by R, precision@k by k, "
            "ranx's hit_rate@k is ltrbench's hits@k (ranx's own hits@k, a count of relevant "
            "documents, is refused on qrels and runs), empty queries score 0, a judgment below the "
            "relevance level (relevance_threshold, ranx's rel_lvl) is dropped, so it gains 0 "
            "too (rel_level='zero': metrics/common.py clean_qrels). A qrels query "
            "without a run line scores 0 and counts in the mean: ranx.evaluate refuses runs "
            "whose query ids differ from the qrels' unless make_comparable=True (meta/evaluate.py check_keys), which adds an "
            "empty result for every qrels query missing from the run and removes run queries "
            "without qrels (data_structures/run.py Run.make_comparable). ranx's own order among "
            "tied scores is a numba quicksort (not defined for lists longer than ~15); this "
            "profile uses row order. bpref is trec_eval's: ranx 0.3.21's bpref "
            "(metrics/bpref.py) scores every query 0 when one judged query has no relevant "
            "document, which this profile does not reproduce."
        ),
    ),
    "catboost": Profile(
        name="catboost",
        ties="pessimistic",
        empty=1.0,
        empty_by_family=(("map", 0.0), ("auc", 0.0)),
        query_weights="float32",
        unweighted_families=("map", "p", "recall", "auc"),
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
            "AP denominator min(R, min(k, n)); MAP, PrecisionAt, RecallAt and QueryAUC ignore "
            "group weights (unweighted_families), NDCG and MRR use them, as float32. "
            "'QueryAUC' (ltrbench's auc) scores a group of one class 0 and counts it."
        ),
    ),
    "letor4": Profile(
        name="letor4",
        query_weights="not_in_tool",  # the tool takes no weights
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
        query_weights="not_in_tool",  # the tool takes no weights
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
            "DCG from the qrels, empty queries 0, qrels queries without a run line 0 "
            "(make_comparable=True), ties in row order."
        ),
    ),
    "sklearn-ignore-ties": replace(
        _SKLEARN,
        name="sklearn-ignore-ties",
        ties="row_desc",
        tool_tie_order="not_reproduced",
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
    "torchmetrics": LIBRARY_PROFILES["torchmetrics"],
    "recbole": Profile(
        name="recbole",
        query_weights="not_in_tool",  # the tool takes no weights
        ties="stable",
        empty=None,
        gain=(0.0, 1.0),  # binary: a ground-truth item gains 1; labels above 1 are refused
        max_label=1,
        idcg_basis="qrels",
        missing="zero",
        gauc_weight="relevant",
        description=(
            "RecBole 1.x recbole/evaluator/metrics.py (TopkMetric, read at 7b02be5e): binary "
            "relevance (pos_index: is the item in the user's ground truth) and pos_len = |R(u)|, "
            "the user's ground-truth items counted from the ground truth, not from the ranked "
            "list (evaluator/collector.py:164-168: pos_matrix[positive_u, positive_i] = 1; "
            "pos_len_list = pos_matrix.sum(dim=1)); with qrels, R(u) = the judgments >= 1 of "
            "the user, retrieved or not. NDCG@K = sum_{hits} 1/log2(rank+1) over "
            "sum_{i<=min(|R|,K)} 1/log2(i+1) (NDCG.metric_info :186-202, the ideal from |R| "
            "cut at K, not at the list), MAP@K = sum_{hits j<=K} hits_j/j over min(|R|, K) "
            "(MAP.metric_info :126-136), Recall@K = hits/|R| (:159-160), Precision@K = hits/K "
            "(:226-227), MRR@K = 1/rank of the first hit (:88-96), Hit@K (:62-64: ltrbench "
            "hits@k); a user in the ground truth without a hit scores 0. Means over the "
            "evaluated users (TopkMetric.topk_result: value.mean(axis=0)): every user with "
            "ground truth (data/dataloader/general_dataloader.py:203-224 FullSortEvalDataLoader "
            "uid_list), each ranked over all items, so a qrels user without a run line (no item "
            "ranked) scores 0 in every metric and counts (missing='zero'); a user without a "
            "judgment >= 1 has no ground truth and is left out (empty=None). Array input (the "
            "labels of the list only): |R| from the list. Order among tied scores is "
            "torch.topk's (unspecified); this profile uses row order. GAUC weighs each user's "
            "AUC by its positive items (GAUC.metric_info :272-317: (user_auc * pos_len_list)"
            ".sum() / pos_len_list.sum(), users of one class left out): gauc_weight='relevant'."
        ),
    ),
    "recommenders": Profile(
        name="recommenders",
        query_weights="not_in_tool",  # the tool takes no weights
        ties="stable",
        empty=None,
        discount_base=math.e,
        gain=(0.0, 1.0),  # binary: a ground-truth item gains 1; labels above 1 are refused
        max_label=1,
        idcg_basis="qrels",
        missing_by_family=(("ndcg", "zero"),),
        description=(
            "MS Recommenders recommenders/evaluation/python_evaluation.py (2025-09, b02c95e2; "
            "the same file as release 1.2.1), with rating_true = the qrels lines with relevance "
            ">= 1 and rating_pred = the run: top k by sort_values([user, prediction]) (stable: "
            "ties keep row order, :862-870); the hits are the top-k items found in rating_true "
            "and 'actual' = the user's rows of rating_true, retrieved or not "
            "(merge_ranking_true_pred :436-443). precision_at_k = hits/k (:496), recall_at_k = "
            "hits/actual (:541), map_at_k = sum_{hits} (i-th hit)/rank over min(actual, k) "
            "(:818-834; bare map: 'map' :785, over actual), each summed over the users with a "
            "hit and divided by n_users, the users common to rating_true and rating_pred "
            "(:409-412): a user without a hit scores 0, a qrels user without a run line is "
            "left out (missing='drop'). ndcg_at_k with score_type='binary' and discfun_type="
            "'loge' (1/ln(1+rank); NDCG is base-free): DCG over the hits, ideal DCG over all of "
            "the user's true items cut at k (:652-692), averaged over every user of rating_true "
            "(an outer merge with the whole rating_true, :652-654), so a qrels user without a "
            "run line scores 0 in ndcg and counts (missing_by_family ndcg 'zero'). A user "
            "without a judgment >= 1 is not in rating_true: left out (empty=None). Array "
            "input: 'actual' from the list. r_precision_at_k is not ltrbench's rprec (it "
            "averages over the users with a hit only, :595-598)."
        ),
    ),
})

PROFILES.update(LIBRARY_PROFILES)  # msmarco, tf-ranking, allrank, torchmetrics

# Version-qualified profiles: a release whose definition differs from the unqualified profile
# (measured by `ltrbench crosscheck --versions`, results/definitions/versions.md).
_XGBOOST_17 = Profile(
    name="xgboost@1.7",
    query_weights="ignore",
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
        "map; the mean is over groups without weights (sum / ngroups, :225: "
        "query_weights='ignore')."
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


def list_weight_of(name: str) -> str:
    """The ``list_weight`` of the named profile (how ARP and OPA weigh a query); ``"query"``,
    the default, for a name no profile has. For :func:`bench.metrics.families.averaging`.

    >>> list_weight_of("ltrbench"), list_weight_of("tf-ranking")
    ('query', 'denominator')
    """
    try:
        return get_profile(name).list_weight
    except ConfigError:
        return "query"


def get_profile(name: str | Profile) -> Profile:
    """The named profile (a :class:`Profile` is returned as is).

    Raises :class:`ConfigError` listing the valid names.

    >>> p = get_profile(" LightGBM ")
    >>> p.name, p.gain, p.ties
    ('lightgbm', 'exp2', 'stable')
    >>> get_profile("lightgbn")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bench.errors.ConfigError: unknown profile 'lightgbn'; did you mean 'lightgbm'? valid profiles: ...
    """
    if isinstance(name, Profile):
        return name
    if isinstance(name, str):  # a StrEnum member, numpy.str_: the text it holds, not 'E.A'
        name = str.__str__(name)
    if not isinstance(name, str):  # did_you_mean below needs text; 5 is no profile name
        raise ConfigError(f"a profile is a name (one of: {', '.join(PROFILES)}) or a Profile, "
                          f"got {type(name).__name__} {name!r}")
    refuse_foreign_space(name, "profile", "a profile name")  # 'lightgbm\u00a0': not stripped
    key = str(name).strip().lower()
    try:
        prof = _registered(key, PROFILES[key])
        if name != key:  # 'LightGBM ' is lightgbm, said once: the one rule of a choice
            spelled_choice(name, [key], "profile")
        return prof
    except KeyError:
        stored = [k for k in PROFILES if k != key and k.strip().lower() == key]
        if stored:  # PROFILES["MyTool"]: never found by a lower-case look-up, nor by PROFILE:NAME
            raise ConfigError(f"profile {stored[0]!r} is registered under a key that is not lower "
                              f"case; profile names are looked up in lower case: register it as "
                              f"PROFILES[{key!r}] with name={key!r}") from None
        head, plus, changes = str(name).strip().partition("+")
        if plus and head.lower() in PROFILES:  # a result's label: trec_eval-c+relevance_...
            raise ConfigError(
                f"{name!r} is the label of a metric computed under profile {head.lower()!r} "
                f"with overrides ({changes}), not a profile: give the profile {head.lower()!r} "
                "(--profile, profile=) and "
                "a metric name that carries the override (P(rel=2)@5 for "
                "relevance_threshold=2.0, nDCG(gains={...})@10 for a gain table, "
                f"{head.lower()}:P(rel=2)@5 beside other profiles)") from None
        base, _, tag = str(name).strip().lower().rpartition("-")
        if base in PROFILES and tag in ("blank0", "blank1"):  # a run's metrics.csv label
            raise ConfigError(
                f"{name!r} is a column of a run's metrics table (profile {base!r} with queries "
                f"without a relevant document scored {tag[-1]}), not a profile: evaluate under "
                f"--profile {base} (profile={base!r}), which prints that mean beside each "
                f"metric ('blank = {tag[-1]}'; JSON: diagnostics.mean_blank_as_{tag[-1]})"
            ) from None
        held = non_ascii(str(name).strip())  # trec_eval\u2010c, Cyrillic 'е', fullwidth 'ｔ'
        look = f"{held}, a look-alike (profile names are ASCII); " if held else ""
        if re.sub(r"[\s_-]", "", str(name).lower()) == "irmeasures":  # a tool, not a profile
            look += ("ir_measures' own convention is profile 'trec_eval-c' (it scores a qrels "
                     "query without a run line 0); ")
        release = release_hint(str(name))  # xgboost@2.1.4: README's profile, not edit distance
        raise ConfigError(
            f"unknown profile {name!r}; {look}"
            f"{release + '; ' if release else did_you_mean(name, PROFILES)}"
            f"valid profiles: {', '.join(PROFILES)}"
        ) from None


def _registered(key: str, prof: Profile) -> Profile:
    """``PROFILES[key]``, which must be a :class:`Profile` of that name (its results are labelled
    with the name, and the label must read back as the profile that computed them)."""
    if not isinstance(prof, Profile) or prof.name != key:
        raise ConfigError(f"PROFILES[{key!r}] holds {getattr(prof, 'name', prof)!r}: a profile "
                          "is registered under its own name, in lower case")
    if not re.fullmatch(r"[a-z][a-z0-9_.@-]*", key):  # the profile part of PROFILE:NAME
        raise ConfigError(f"profile {key!r}: a registered profile's name is lower-case ASCII "
                          "letters, digits, '_', '.', '@' and '-', so that PROFILE:NAME can name it")
    return prof


def given_profile(profile: str | Profile) -> Profile:
    """A caller's profile as :func:`get_profile` reads it, named for what it computes.

    A :class:`Profile` object that keeps a registered profile's name but changes its fields
    (``dataclasses.replace(get_profile("trec_eval"), missing="zero")``) would print that name
    beside numbers the named profile does not give (``map`` 0.125 labelled ``trec_eval``, which
    gives 0.25), and a result's label must parse back to the profile that computed it. Such an
    object is the registered profile it equals field for field (name and description aside:
    ``trec_eval`` with ``missing="zero"`` is ``trec_eval-c``), else it is renamed
    ``NAME+field=value,...`` as the command line names ``--relevance-level 2``
    (``trec_eval+relevance_threshold=2.0``). Names and other objects are returned as
    :func:`get_profile` returns them.

    >>> given_profile(replace(get_profile("trec_eval"), missing="zero")).name
    'trec_eval-c'
    >>> given_profile(replace(get_profile("trec_eval"), judged_only=True)).name
    'trec_eval+judged_only=True'
    """
    prof = get_profile(profile)
    known = PROFILES.get(prof.name.strip().lower())  # 'LightGBM' would read back as lightgbm
    if not isinstance(profile, Profile) or known is None or known == prof:
        return prof
    skip = ("name", "description")
    changes = {f: getattr(prof, f) for f in prof.__dataclass_fields__
               if f not in skip and getattr(prof, f) != getattr(known, f)}
    if not changes:
        return known
    for other in PROFILES.values():
        if all(getattr(other, f) == getattr(prof, f) for f in prof.__dataclass_fields__
               if f not in skip):
            return other
    label = ",".join(f"{k}={v!r}" for k, v in changes.items())
    return replace(prof, name=f"{known.name}+{label}")
