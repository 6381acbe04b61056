"""Profiles of evaluation libraries that are not a GBDT's or trec_eval's own (issue 23).

:data:`LIBRARY_PROFILES` (``msmarco``, ``tf-ranking``, ``allrank``, ``torchmetrics``) joins
:data:`bench.metrics.profiles.PROFILES`; each description cites the source lines it follows and
says what it does not model. Golden tests: ``tests/test_metrics_profiles_libraries.py``.
"""

from __future__ import annotations

from dataclasses import replace

from bench.metrics.profile import Profile

MSMARCO = Profile(
    name="msmarco",
    query_weights="not_in_tool",  # the tool takes no weights
    gain="linear",
    ties="docno_asc",
    empty=0.0,
    idcg_basis="qrels",
    map_denominator="r",
    max_label=None,
    unjudged_gain="zero",
    missing="zero",
    description=(
        "ir_measures' MS MARCO provider, the one behind RR@k and MS MARCO's MRR@10 "
        "(ir_measures/providers/msmarco_provider.py, _iter_calc: the run sorted by "
        "key=(-score, doc_id), so tied scores put the smaller document id first, scores as "
        "Python floats = float64; ir_measures/bin/msmarco_eval.py compute_metrics: 1/rank of the "
        "first document with relevance >= rel among the top max_rank, 0 without one). A query "
        "without a relevant judgment is not scored by the provider and ir_measures fills 0 for "
        "it (providers/base.py), as for a qrels query without a run line: both count in the "
        "mean (empty=0, missing='zero'). Other metrics under this profile are trec_eval -c's "
        "with these ties and float64 scores (the provider computes RR only)."
    ),
)

TF_RANKING = Profile(
    name="tf-ranking",
    gain="exp2",
    ties="average",
    empty=0.0,
    map_denominator="r",
    precision_denominator="min_k_n",
    score_dtype="float32",
    arithmetic_dtype="float32",
    padding="negative",
    subtopic_gain="label",  # AlphaDCGMetric: graded subtopic labels (bench.metrics.diversity_labels)
    list_weight="denominator",
    pair_ties="wrong",
    description=(
        "TF-Ranking 0.5 metrics (tensorflow_ranking/python/metrics_impl.py): labels < 0 are "
        "padding (utils.is_label_valid: label >= 0), masked before sorting "
        "(_prepare_and_validate_params: label 0, score below the list's minimum) and so "
        "ignored; scores cast to float32 (utils.sort_by_scores) with ties shuffled at random "
        "(shuffle_ties=True: this profile gives the expected value over tie orders); gain "
        "2^l - 1 (_DEFAULT_GAIN_FN) and discount log(2)/log1p(rank) = 1/log2(rank + 1) "
        "(_DEFAULT_RANK_DISCOUNT_FN); topn is the cutoff k (None: the whole list); NDCG's "
        "ideal DCG over the list's labels cut at topn; relevant = label >= 1; MAP divides by "
        "every relevant document of the list whatever topn (MeanAveragePrecisionMetric: "
        "'total relevance regardless of self._topn'); precision by min(topn, valid documents) "
        "(_per_list_precision); recall by the relevant documents (_per_list_recall); a list "
        "without a relevant document scores 0 (divide_no_nan) and, with unit weights, counts "
        "with weight 1 (_per_example_weights_to_per_list_weights: the average weight), as does "
        "a list of padding only (its weights are not masked): empty=0, counted. Arithmetic in "
        "float32: agreement to float32 precision. Not modelled: per-example weights "
        "(per-list weight sum(w * rel) / sum(rel)); give one weight per query. ARP "
        "(ARPMetric: sum(position * label) / sum(label)) and OPA (OPAMetric: pairs of "
        "different labels ordered right, a pair of equal scores wrong: pair_ties='wrong') "
        "return their denominator as the per-list weight, so their mean is pooled: "
        "list_weight='denominator'."
    ),
)

ALLRANK = Profile(
    name="allrank",
    query_weights="not_in_tool",  # the tool takes no weights
    gain="exp2",
    ties="stable",
    empty=1.0,
    padding="minus_one",
    description=(
        "allRank (allrank/models/metrics.py, since 2021, PR #25): y_true == -1 marks padding "
        "(PADDED_Y_VALUE; __apply_mask_and_get_true_sorted_by_preds sets the padded "
        "predictions to -inf and their labels to 0, so they rank last with no gain: ignored); "
        "other negative labels are errors here. ndcg: gain_function 2^x - 1, discount "
        "1/log2(i + 2), ats clipped to the slate length, ideal DCG over the slate's labels, "
        "and a slate without a relevant item (idcg == 0) scores filler_value = 1.0 (a slate of "
        "padding only too). Ties: torch.sort(descending=True), which does not promise an "
        "order; this profile keeps row order. Not modelled: allRank's mrr takes the rank of "
        "the slate's highest label (torch.max), not of the first relevant item, so it agrees "
        "on binary labels only, and scores a slate without a relevant item 1 unless the whole "
        "batch has none (zero_sum_mask sums the batch)."
    ),
)

TORCHMETRICS = Profile(
    name="torchmetrics",
    query_weights="not_in_tool",  # the tool takes no weights
    gain="linear",
    ties="average",
    empty=0.0,
    map_denominator="hits_k",
    max_label=None,
    integer_labels=False,
    binary_labels_for_binary_metrics=True,
    binary_label_families=("map", "p", "mrr", "recall", "hits", "rprec", "fallout", "auc"),
    arithmetic_dtype="float32",
    nonpositive_scores="not_relevant",
    description=(
        "torchmetrics 1.9 functional retrieval metrics (src/torchmetrics/functional/"
        "retrieval/): retrieval_normalized_dcg (ndcg.py:21-113) linear gain, 1/log2(i+2), "
        "ties averaged (a port of sklearn's _tie_averaged_dcg) in float32, ideal DCG from "
        "the sorted targets cut at top_k, all-irrelevant -> 0; retrieval_average_precision "
        "(average_precision.py:51-62): mean over the hits in the top k of hits_i/pos_i "
        "(denominator = hits in the top k) in float32; retrieval_precision divides by top_k "
        "(precision.py:59-71); recall by the sum of targets; binary targets for those; a "
        "query without a positive target scores 0 (functional) and counts in the mean "
        "(module: empty_target_action='neg', retrieval/base.py:148-183). Since v1.7.4/1.8.0 "
        "(#3160) P, AP, RR and recall treat documents scored <= 0 as non-relevant "
        "(torch.where(preds > 0, target, 0), precision.py, reciprocal_rank.py) while the "
        "blank test and recall's denominator keep every target and NDCG every gain "
        "(nonpositive_scores='not_relevant'); hit_rate.py does not filter, so hits@k is "
        "computed without the rule (metrics/score_rules.py UNFILTERED), as are NDCG, "
        "r_precision and fall_out, which do not filter either. Not modelled: torch.topk's order among tied scores in P/AP/RR "
        "(this profile averages ties), releases before 1.7.4 (replace(..., "
        "nonpositive_scores='rank'))."
    ),
)

ALLRANK_140 = replace(
    ALLRANK,
    name="allrank@1.4.0",
    empty=0.0,
    description=(
        "allRank releases up to 1.4.0 (allrank/models/metrics.py before commit 79b5d32, "
        "2021-03-30): as 'allrank', but ndcg of a slate without a relevant item is 0 "
        "(ndcg_[idcg_mask] = 0.); allRank's own tests/losses/test_ndcg.py "
        "test_ndcg_zero_when_no_relevant still asserts this value at HEAD (1.4.3), where the "
        "code returns filler_value=1.0."
    ),
)

CATALYST = Profile(
    name="catalyst",
    query_weights="not_in_tool",  # the tool takes no weights
    gain="exp2",
    ties="stable",
    empty=0.0,
    map_denominator="hits_k",
    description=(
        "catalyst 21.x/22.x recsys metrics (catalyst/metrics/functional/): a batch of slates, "
        "each row sorted by its outputs (_misc.py process_recsys_components: torch.argsort "
        "descending; ties not defined, row order here); _ndcg.py dcg with the default "
        "gain_function='exp_rank' (2^l - 1, 1/log2(i + 2)), ndcg's ideal DCG from the row's "
        "targets sorted and cut at k, a row without a relevant target scores 0 "
        "(ndcg_score[idcg_mask] = 0.0) and counts in torch.mean; _mrr.py reciprocal_rank: "
        "1/rank of the first target in the top k, 0 without one; _average_precision.py "
        "average_precision: the mean of precision@i over the relevant items in the top k, "
        "i.e. divided by the hits in the top k (map_denominator='hits_k'), 0 without one; "
        "binary_average_precision without weights is the same over the whole list; relevant "
        "= target >= 1. gain_function='linear_rank' is the profile 'catalyst-linear'. Not "
        "modelled: binary_average_precision's per-item weights."
    ),
)

CATALYST_LINEAR = Profile(
    name="catalyst-linear",
    query_weights="not_in_tool",  # the tool takes no weights
    gain="linear",
    discount="letor4",
    ties="stable",
    empty=0.0,
    map_denominator="hits_k",
    max_label=None,
    description=(
        "catalyst _ndcg.py dcg/ndcg with gain_function='linear_rank': gain l and discounts "
        "1/log2(i + 1) for 0-based i with discounts[0] = 1, i.e. ranks 1 and 2 undiscounted, "
        "then 1/log2(rank) (this is discount='letor4'); otherwise as 'catalyst'."
    ),
)

CORNAC = Profile(
    name="cornac",
    query_weights="not_in_tool",  # the tool takes no weights
    gain=(0.0, 1.0),  # binary: an item of the user's test set gains 1; labels above 1 refused
    ties="stable",
    empty=None,
    idcg_basis="qrels",
    precision_denominator="min_k_n",
    max_label=1,
    labels_beyond_gain_table="error",
    missing="drop",
    description=(
        "cornac 1.x/2.x cornac/metrics/ranking.py, compute(gt_pos, pd_rank): binary relevance "
        "(gt_pos, items with a test rating above the threshold), pd_rank the items ranked "
        "(k=-1: all of them); NDCG = DCG of the hits in the top k (1/log2(rank + 1)) over the "
        "ideal DCG of min(|gt_pos|, k) hits, so relevant items the list does not rank count "
        "(idcg_basis='qrels'); NCRR = sum of 1/rank of the hits over sum_{i <= min(|gt_pos|, "
        "k)} 1/i; MRR = 1/rank of the first hit; Precision@k = tp / tp_fp with tp_fp the items "
        "recommended in the top k (precision_denominator='min_k_n'); Recall@k = tp / |gt_pos|; "
        "FMeasure@k their harmonic mean (0 when both are 0); AUC = the share of (positive, "
        "negative) pairs ranked right, ties 1/2 (sklearn's). Users without a test item are not "
        "evaluated (eval_methods/base_method.py ranking_eval skips them: empty=None); ties in "
        "row order (numpy argsort of -scores is not stable: tie-free rankings only)."
    ),
)

PYTORCHLTR = Profile(
    name="pytorchltr",
    query_weights="not_in_tool",  # the tool takes no weights
    gain="exp2",
    ties="average",
    empty=0.0,
    score_dtype="float32",
    description=(
        "pytorchltr 0.2 pytorchltr/evaluation/dcg.py (read at 625416e): dcg/ndcg with "
        "exp=True (the default): gain 2^y - 1, discount 1/log2(rank + 1), the cumulative DCG "
        "cut at k (k beyond the list: the whole list), ndcg's ideal DCG from the list's own "
        "relevance (dcg(relevance, relevance, n)), a list without a relevant document has "
        "idcg set to 1, so it scores 0 and counts; padded documents (beyond n) are placed "
        "last (utils/tensor_operations.py mask_padded_values) and ties broken at random "
        "(tiebreak_argsort: this profile gives the expected value over tie orders); scores "
        "are FloatTensors (float32). exp=False is the profile 'pytorchltr-linear'. ARP "
        "(evaluation/arp.py lines 32-42, at 625416e): sum(rank * relevance) / sum(relevance) "
        "with the raw relevance whatever exp, padded documents' relevance masked to 0, a list "
        "without relevance scores 0 (nrp set to 1); one value per list (list_weight='query')."
    ),
)

PYTORCHLTR_LINEAR = replace(
    PYTORCHLTR,
    name="pytorchltr-linear",
    gain="linear",
    max_label=None,
    description=(
        "pytorchltr dcg/ndcg with exp=False (pytorchltr/evaluation/dcg.py: gain y, "
        "rel_sort used as is); otherwise as 'pytorchltr'."
    ),
)

IGNITE = Profile(
    name="ignite",
    query_weights="not_in_tool",  # the tool takes no weights
    gain="exp2",
    ties="stable",
    empty=None,
    rel_level="zero",
    description=(
        "pytorch-ignite >= 0.5.4 ignite/metrics/rec_sys (read at de08e79): NDCG with its "
        "defaults gain_function='exp_rank' (2^y - 1) and 1/log2(rank + 1) (ndcg.py "
        "_compute_dcg), the ranking by torch.argsort(descending=True, stable=True) (ties in row "
        "order), labels below relevance_threshold (default 1) set to 0 before DCG and IDCG "
        "(y_for_dcg = torch.where(y >= threshold, y, 0): rel_level='zero'), ideal DCG from the "
        "user's own labels sorted and cut at k, k clipped to the list; HitRate: 1 if a target "
        "> 0 is in the top k (hitrate.py); ignore_zero_hits=True (the default) leaves users "
        "without a relevant item out of the mean (empty=None). ignore_zero_hits=False is "
        "'ignite-zero-hits', gain_function='linear_rank' 'ignite-linear'."
    ),
)

IGNITE_ZERO_HITS = replace(
    IGNITE,
    name="ignite-zero-hits",
    empty=0.0,
    description=(
        "pytorch-ignite NDCG / HitRate with ignore_zero_hits=False: a user without a relevant "
        "item scores 0 (NDCG: torch.where(idcg_k > 0, dcg_k / idcg_k, 0)) and counts in the "
        "mean (_num_examples += y.shape[0]); otherwise as 'ignite'."
    ),
)

IGNITE_LINEAR = replace(
    IGNITE,
    name="ignite-linear",
    gain="linear",
    max_label=None,
    description=(
        "pytorch-ignite NDCG with gain_function='linear_rank' (gain y, ndcg.py "
        "_compute_dcg); otherwise as 'ignite' (ignore_zero_hits=True)."
    ),
)

#: The profiles of this module by name.
LIBRARY_PROFILES: dict[str, Profile] = {
    p.name: p for p in (MSMARCO, TF_RANKING, ALLRANK, TORCHMETRICS, ALLRANK_140, CATALYST, CATALYST_LINEAR,
                        CORNAC, PYTORCHLTR, PYTORCHLTR_LINEAR, IGNITE,
                        IGNITE_ZERO_HITS, IGNITE_LINEAR)
}
