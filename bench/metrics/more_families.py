"""The families of issue 23: counts, set and geometric MAP, F1, fall-out, Rprec_mult, 11-point
interpolated precision, RBP and its residual, NCRR, AUC and GAUC, ARP and OPA, alpha-nDCG,
alpha-DCG and nERR-IA, Precision-IA (one :class:`Family` each).

Per query (``n`` scored documents, ``R`` relevant in the profile's IDCG basis, ``N`` judged
non-relevant, ``hits@k`` relevant in the top ``k``, ``k' = min(k, n)``, components of
:mod:`bench.metrics.kernels.ranked`)::

    num_ret        = n                 num_rel = R          num_rel_ret = hits   (summed over queries)
    set_map        = hits^2 / (n R)                          (trec_eval m_set_map.c; 0/0 when R = 0)
    gm_map         = log(max(AP, 1e-5))   mean: exp(mean)    (trec_eval m_gm_map.c, MIN_GEO_MEAN)
    f1@k           = 2 P R / (P + R) = 2 hits@k / (k + R)    (P's denominator as p@k's; ranx f1)
    fallout@k      = fall@k / N          (non-relevant retrieved / all non-relevant; 0/0 when N = 0)
    rprec_mult(x)  = hits@c / c,  c = floor(x R + 0.9)       (trec_eval m_Rprec_mult.c)
    iprec_at_recall(x) = max precision at or after the c-th relevant document, c = floor(x R + 0.9)
                                                             (trec_eval 9.0.8 m_iprec_at_recall.c)
    rbp(p)@k       = (1 - p) sum_{i < k'} rel_i p^i          (Moffat & Zobel, TOIS 2008, eq. 6)
    rbp_residual(p)@k = (1 - p) sum_{i < k', unjudged} p^i + p^k'   (ibid., section 5)
    ncrr@k         = sum_{i < k'} rel_i / (i + 1) / H(min(R, k'))   (cornac metrics/ranking.py NCRR)
    infap          = infAP sum / R  (trec_eval 9.0.8 m_infAP.c; kernels/ranked.py infap)
    auc            = U / (R_n N_n)  (pairs of a relevant and a non-relevant ranked document ordered
                                     right, ties 1/2: sklearn roc_auc_score of the query)
    gauc           = sum_q n_q auc_q / sum_q n_q over the queries with both classes
                     (Zhou et al., Deep Interest Network, KDD 2018, "GAUC"; weighted by documents;
                     under gauc_weight="relevant" n_q is the query's relevant ranked documents:
                     RecBole recbole/evaluator/metrics.py GAUC.metric_info, lines 272-317)
    alpha_dcg(a)@k = sum_{i < k'} sum_{j covered by d_i} (1 - a)^{c_j(i)} / log2(i + 2)
    alpha_ndcg(a)@k = alpha_dcg / the same of ndeval's greedy ideal  (Clarke et al., SIGIR 2008;
                     subtopic qrels: bench.metrics.diversity, bench.metrics.kernels.diversity)
    nerr_ia(a)@k   = the same ratio with the discount 1/(i + 1)      (ndeval nERR-IA)
    precision_ia@k = sum_{i < k'} |{j: d_i relevant to j}| / (D S), S the subtopics with a
                     relevant document, D = k or min(k, n) (precision_denominator)
                     (ndeval computePrecision P-IA; TF-Ranking PrecisionIAMetric)
    arp            = sum_i i y_i / sum_i y_i   (i the 1-based rank, y_i the raw label; average
                     relevance position, lower is better: pytorchltr pytorchltr/evaluation/arp.py
                     lines 32-42, TF-Ranking metrics_impl.py ARPMetric lines 509-536; kernels/pairs.py)
    opa            = pairs y_i > y_j ranked right / pairs y_i > y_j   (ordered pair accuracy:
                     TF-Ranking metrics_impl.py OPAMetric lines 708-742; kernels/pairs.py, ties as
                     Profile.pair_ties says)

**Per-query value and mean.** The counts are summed over queries (trec_eval's ``all`` line and
ir_measures' ``NumRet`` aggregate are sums, ``te_calc_avg_meas_s`` is not called for them);
``gm_map``'s per-query value is trec_eval's own (``-q``): the logarithm, and its mean the
exponential of the mean of the logarithms (``te_calc_avg_meas_s_gm``), so a query with AP = 0
counts as AP = 1e-5 instead of zeroing the product; under ``ties="average"`` the logarithm is
taken of the query's tie-averaged AP (the value ``map`` reports), not averaged over tied orders,
so that ``gm_map`` stays the geometric mean of the per-query APs. GAUC's per-query value is the query's AUC;
its mean weighs each query by its document count (not by the query weights) and leaves out the
queries without both a relevant and a non-relevant ranked document whatever the profile's
``empty``. ARP and OPA are ratios that are 0/0 on a query with labels summing to 0 (ARP) or
without two different labels (OPA): there they keep the natural value 0 (pytorchltr's ARP of a
list without relevance: ``nrp`` set to 1, so 0) except under ``empty=None`` (left out). Their
mean weighs each query by its weight (``Profile.list_weight="query"``) or by its weight times
the ratio's denominator (``"denominator"``: ``sum w num / sum w den``, TF-Ranking's Keras mean
of the per-list values with ``per_list_weights`` = the denominator; a blank query weighs 0;
every query blank: NaN, where TF-Ranking prints 0). Every other family is averaged as usual.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bench.metrics.family_record import (
    Array,
    Family,
    Inputs,
    Param,
    map_components,
    map_value,
    precision_denominator,
)

#: trec_eval's floor of a geometric mean's terms (``trec_eval.h``: ``#define MIN_GEO_MEAN .00001``).
MIN_GEO_MEAN = 1e-5
#: RBP's persistence when none is given (ir_measures ``RBP``: ``p=0.8``; Moffat & Zobel's middle).
RBP_P = 0.8


def _gm_map(q: Inputs) -> Array:
    ap = map_value(q)
    blank = q.r <= 0  # AP is 0/0: the profile's empty value (0 in trec_eval)
    ap[blank] = q.profile.empty if q.profile.empty is not None else 0.0
    return geo_term(ap)


def geo_term(values: Array) -> Array:
    """A geometric mean's per-query term: ``log(max(value, 1e-5))`` (trec_eval ``m_gm_map.c``)."""
    return np.log(np.maximum(values, MIN_GEO_MEAN))


def _f1(q: Inputs) -> Array:
    return q.ratio(2.0 * q.comp["hits"], precision_denominator(q) + q.r)


def _rprec_mult(q: Inputs) -> Array:
    assert q.param is not None
    return q.ratio(q.comp["rprec_mult"], np.floor(q.param * q.r + 0.9))


def _rbp_residual(q: Inputs) -> Array:
    assert q.param is not None
    depth = q.n if q.k is None else np.minimum(q.n, float(q.k))
    return q.value("rbp_residual") + np.power(q.param, depth)  # + the ranks below the top k


def harmonic(m: Array) -> Array:
    """``H(m) = 1 + 1/2 + ... + 1/m`` per entry (``m`` whole numbers >= 0; ``H(0) = 0``)."""
    top = int(m.max()) if m.shape[0] else 0
    table = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1.0, top + 1.0))])
    return table[m.astype(np.int64)]


def _ncrr(q: Inputs) -> Array:
    depth = q.n if q.k is None else np.minimum(q.n, float(q.k))
    return q.ratio(q.comp["crr"], harmonic(np.minimum(q.r, depth)))


def _auc(q: Inputs) -> Array:
    return q.ratio(q.comp["auc"], q.comp["auc_pairs"])


def _precision_ia(q: Inputs) -> Array:
    return q.ratio(q.comp["p_ia"], precision_denominator(q) * q.r)


def _alpha_ndcg(q: Inputs) -> Array:
    return q.ratio(q.comp["alpha_dcg"], q.comp["alpha_idcg"])


#: alpha's default (ndeval ``#define ALPHA 0.5``; ir_measures ``alpha_nDCG``: 0.5).
ALPHA = 0.5


def _gauc_weight(q: Inputs) -> Array:
    """GAUC's weight per query: its documents, or its relevant ones (``Profile.gauc_weight``)."""
    if q.profile.gauc_weight == "relevant":
        assert q.r_list is not None
        out: Array = np.array(q.r_list, dtype=np.float64)
        return out
    return np.array(q.n, dtype=np.float64)


def _pooled(den: str) -> Callable[[Inputs], Array | None]:
    """The per-query weight of ARP / OPA: the denominator ``den`` under
    ``list_weight="denominator"``, else ``None`` (the query weights)."""
    def weight(q: Inputs) -> Array | None:
        return q.comp[den].copy() if q.profile.list_weight == "denominator" else None
    return weight


_RECALL = Param("x", None, 0.0, 1.0)
_ALPHA = Param("alpha", ALPHA, 0.0, 1.0, trec="{!r}")
_PERSISTENCE = Param("p", RBP_P, 0.0, 1.0, open_low=True, open_high=True, trec="{!r}")
_MULTIPLE = Param("x", None, 0.0, 1e6, open_low=True)


def more_families() -> dict[str, Family]:
    """The records of this module's families, by name."""
    fams = (
        Family("num_ret", "num_ret", "documents retrieved (scored) for the query; summed over "
               "queries (trec_eval num_ret)", (), lambda q: q.n.copy(), cutoff=False, mean="sum"),
        Family("num_rel", "num_rel", "relevant documents of the query (R); summed over queries "
               "(trec_eval num_rel)", (), lambda q: q.r.copy(), cutoff=False, mean="sum"),
        Family("num_rel_ret", "num_rel_ret", "relevant documents retrieved; summed over queries "
               "(trec_eval num_rel_ret)", ("hits",), lambda q: q.value("hits"), cutoff=False,
               mean="sum"),
        Family("set_map", "set_map", "set MAP: hits^2 / (retrieved * relevant), set precision "
               "times set recall (trec_eval set_map)", ("hits",),
               lambda q: q.ratio(q.comp["hits"] * q.comp["hits"], q.n * q.r), normalised=True,
               cutoff=False, unit_interval=True),
        Family("gm_map", "gm_map", "geometric MAP: per query log(max(AP, 1e-5)), the mean is "
               "exp of their mean (trec_eval gm_map)", ("ap",), _gm_map, cutoff=False,
               mean="geometric", more_components=map_components),
        Family("f1", "F1", "F1 of the top k: 2 P@k R@k / (P@k + R@k) = 2 hits / (k + R) (ranx f1)",
               ("hits",), _f1, normalised=True, blank_scores_one=True, unit_interval=True),
        Family("fallout", "Fallout", "fall-out: judged non-relevant documents in the top k "
               "divided by all judged non-relevant documents", ("fall", "nonrel"),
               lambda q: q.ratio(q.comp["fall"], q.comp["nonrel"]), blank_when="no_nonrelevant",
               normalised=True, aliases=("fall_out",), unit_interval=True, lower_is_better=True),
        Family("rprec_mult", "Rprec_mult", "precision at rank floor(x R + 0.9), a multiple x of R "
               "(trec_eval Rprec_mult)", ("rprec_mult",), _rprec_mult, normalised=True,
               cutoff=False, param=_MULTIPLE),
        Family("iprec_at_recall", "iprec_at_recall", "interpolated precision at recall level x: "
               "the best precision at or after the rank reaching it (trec_eval iprec_at_recall, "
               "the 11-point curve)", ("iprec",), lambda q: q.value("iprec"), normalised=True,
               cutoff=False, param=_RECALL, ordered=True, aliases=("iprec",)),
        Family("rbp", "RBP", "rank-biased precision (Moffat & Zobel 2008) with persistence p "
               "(default 0.8) over the top k", ("rbp",), lambda q: q.value("rbp"),
               param=_PERSISTENCE),
        Family("rbp_residual", "RBP_residual", "RBP's residual: what unjudged documents and the "
               "ranks below the top k could add (Moffat & Zobel 2008)", ("rbp_residual",),
               _rbp_residual, param=_PERSISTENCE),
        Family("ncrr", "NCRR", "normalised cumulative reciprocal rank: sum of 1/rank of the "
               "relevant documents in the top k over its ideal (cornac NCRR)", ("crr",), _ncrr,
               normalised=True, blank_scores_one=True),
        Family("infap", "infAP", "inferred AP (Yilmaz & Aslam, CIKM 2006) from a sampled "
               "judgment pool: negative judgments are pooled but unjudged, documents without a "
               "judgment outside the pool (trec_eval infAP)", ("infap",),
               lambda q: q.ratio(q.comp["infap"], q.r), normalised=True, cutoff=False,
               ordered=True, aliases=("inf_ap",)),
        Family("auc", "AUC", "area under the ROC curve of the query: pairs of a relevant and a "
               "non-relevant document ranked right (unjudged: non-relevant), ties 1/2 (sklearn roc_auc_score)",
               ("auc", "auc_pairs"), _auc, blank_when="one_class", normalised=True, cutoff=False,
               unit_interval=True),
        Family("gauc", "GAUC", "group AUC: each query's AUC weighted by its documents, queries "
               "with one class left out (Zhou et al., KDD 2018)", ("auc", "auc_pairs"), _auc,
               blank_when="one_class", cutoff=False, mean="documents", weight=_gauc_weight,
               unit_interval=True),
        Family("alpha_ndcg", "ALPHA_NDCG", "alpha-nDCG (Clarke et al., SIGIR 2008): DCG whose "
               "gain for a subtopic decays by (1 - alpha) with each document above covering it, "
               "over ndeval's greedy ideal; needs subtopic qrels (ndeval alpha-nDCG)",
               ("alpha_dcg", "alpha_idcg"), _alpha_ndcg, normalised=True, param=_ALPHA,
               ordered=True, subtopics=True),
        Family("alpha_dcg", "ALPHA_DCG", "alpha-DCG (Clarke et al., SIGIR 2008), unnormalised: "
               "the numerator of alpha-nDCG; needs subtopic qrels", ("alpha_dcg",),
               lambda q: q.value("alpha_dcg"), param=_ALPHA, ordered=True, subtopics=True),
        Family("nerr_ia", "NERR_IA", "intent-aware ERR over ndeval's greedy ideal (Chapelle et "
               "al., CIKM 2009; ndeval nERR-IA): alpha-nDCG's gains discounted by 1/rank; needs "
               "subtopic qrels", ("err_ia", "err_ia_ideal"),
               lambda q: q.ratio(q.comp["err_ia"], q.comp["err_ia_ideal"]), normalised=True,
               param=_ALPHA, ordered=True, subtopics=True),
        Family("precision_ia", "PRECISION_IA", "intent-aware precision (Clarke et al., TREC 2009 "
               "Web track): relevant (document, subtopic) pairs in the top k over k times the "
               "subtopics (ndeval P-IA, TF-Ranking PrecisionIAMetric); needs subtopics",
               ("p_ia",), _precision_ia, normalised=True, subtopics=True),
        Family("arp", "ARP", "average relevance position: the label-weighted mean rank, "
               "sum rank x label / sum label, lower is better (pytorchltr arp, TF-Ranking ARP)",
               ("arp", "arp_labels"), lambda q: q.ratio(q.comp["arp"], q.comp["arp_labels"]),
               blank_when="no_label", cutoff=False, weight=_pooled("arp_labels"),
               lower_is_better=True),
        Family("opa", "OPA", "ordered pair accuracy: pairs of different labels ranked in label "
               "order over all such pairs (TF-Ranking OPAMetric)", ("opa", "opa_pairs"),
               lambda q: q.ratio(q.comp["opa"], q.comp["opa_pairs"]), blank_when="no_pair",
               cutoff=False, weight=_pooled("opa_pairs"), unit_interval=True),
    )
    return {f.name: f for f in fams}
