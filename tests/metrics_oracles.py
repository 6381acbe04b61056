"""Slow, obviously-correct ranking metrics, one query at a time, for testing the evaluator.

Nothing here is vectorised or clever: each query is sorted with Python's ``sorted``, each metric
is the textbook loop over ranks, and ``ties="average"`` is the plain mean of the metric over
*every* ordering of every tied group (``itertools.permutations``), so inputs must keep tied
groups small. Only :class:`bench.metrics.Profile` (plain data) and the metric-name parser are
shared with the code under test.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from bench.metrics import Profile, get_profile, parse_metrics


def gain(profile: Profile, label: float) -> float:
    """Gain of a label; a negative label stands for an unjudged document of gain 0."""
    if label < 0:
        return 0.0
    if profile.gain == "exp2":
        return 2.0**label - 1.0
    if profile.gain == "linear":
        return float(label)
    table = profile.gain
    return table[int(label)] if int(label) < len(table) else 0.0


def is_relevant(profile: Profile, label: float) -> bool:
    if label < 0 or label < profile.relevance_threshold:
        return False
    if profile.max_relevant_label is not None and label > profile.max_relevant_label:
        return False
    return not (isinstance(profile.gain, tuple) and profile.labels_beyond_gain_table == "zero"
                and label >= len(profile.gain))


def discount(profile: Profile, i: int) -> float:
    """Discount of 0-based position ``i``."""
    b = profile.discount_base
    if profile.discount == "letor4":
        return 1.0 if i < 2 else 1.0 / math.log(i + 1, b)
    return 1.0 / math.log(i + 2, b)


def dcg(profile: Profile, ranked: Sequence[float], k: int | None) -> float:
    top = ranked if k is None else ranked[:k]
    return sum(gain(profile, lab) * discount(profile, i) for i, lab in enumerate(top))


def ideal_dcg(profile: Profile, basis: Sequence[float], k: int | None) -> float:
    return dcg(profile, sorted(basis, key=lambda lab: -gain(profile, lab)), k)


def average_precision_sum(profile: Profile, ranked: Sequence[float], k: int | None) -> float:
    top = ranked if k is None else ranked[:k]
    hits = 0
    total = 0.0
    for i, lab in enumerate(top):
        if is_relevant(profile, lab):
            hits += 1
            total += hits / (i + 1)
    return total


def threshold_ap_sum(profile: Profile, ranked: Sequence[float], ranked_scores: Sequence[float],
                     k: int | None) -> float:
    """AP's sum as scikit-learn's ``average_precision_score`` reads it (``ap_ties="threshold"``):
    each relevant document in the top k counts the precision at the *end* of its group of equal
    scores (the whole group ranked), not at its own position."""
    n = len(ranked)
    total = 0.0
    for i in range(n if k is None else min(k, n)):
        if not is_relevant(profile, ranked[i]):
            continue
        end = i
        while end + 1 < n and ranked_scores[end + 1] == ranked_scores[i]:
            end += 1
        total += sum(1 for lab in ranked[:end + 1] if is_relevant(profile, lab)) / (end + 1)
    return total


def threshold_map(profile: Profile, k: int | None, labels: Sequence[float],
                  scores: Sequence[float], basis: Sequence[float]) -> float | None:
    """AP under ``ap_ties="threshold"``: :func:`threshold_ap_sum` over every order of every
    tied group (whatever ``ties`` says: a group read at its end has no order of its own; a cut
    through a group takes the mean over its orders), divided as ``map`` divides."""
    r_total = sum(1 for lab in basis if is_relevant(profile, lab))
    if r_total == 0:
        return None
    den = r_total if (profile.map_denominator == "r" or k is None) else min(r_total, k)
    orders = rankings(replace(profile, ties="average"), labels, scores)
    sums = [threshold_ap_sum(profile, [labels[i] for i in o], [float(scores[i]) for i in o], k)
            for o in orders]
    return sum(sums) / len(sums) / den


def reciprocal_rank(profile: Profile, ranked: Sequence[float], k: int | None) -> float:
    top = ranked if k is None else ranked[:k]
    for i, lab in enumerate(top):
        if is_relevant(profile, lab):
            return 1.0 / (i + 1)
    return 0.0


def err(profile: Profile, ranked: Sequence[float], k: int | None) -> float:
    """Chapelle et al. (2009): sum_r R_r / r * prod_{i<r} (1 - R_i), R = (2^g - 1) / 2^gmax."""
    top = ranked if k is None else ranked[:k]
    reach = 1.0
    total = 0.0
    for i, lab in enumerate(top):
        r = (2.0 ** max(lab, 0.0) - 1.0) / 2.0**profile.err_max_grade
        total += reach * r / (i + 1)
        reach *= 1.0 - r
    return total


def hits_in(profile: Profile, ranked: Sequence[float], k: int | None) -> int:
    top = ranked if k is None else ranked[:k]
    return sum(1 for lab in top if is_relevant(profile, lab))


def bpref(profile: Profile, ranked: Sequence[float], judged: Sequence[bool], r_total: int,
          n_nonrel: int) -> float:
    """trec_eval m_bpref.c: unjudged documents skipped; each relevant one adds
    1 - min(nonrel above, R) / min(N, R) (1 when nothing non-relevant is above); divided by R."""
    above = 0
    total = 0.0
    for lab, j in zip(ranked, judged, strict=True):
        if not j:
            continue
        if is_relevant(profile, lab):
            total += 1.0 - min(above, r_total) / min(n_nonrel, r_total) if above else 1.0
        else:
            above += 1
    return total / r_total


def metric_on_ranking(
    profile: Profile, family: str, k: int | None, ranked: Sequence[float], basis: Sequence[float],
    judged: Sequence[bool] | None = None, n_nonrel: int | None = None,
    param: float | None = None,
) -> float | None:
    """One metric of one ranked list of labels; ``None`` marks 0/0 (blank query).

    ``judged`` (bpref): per ranked document, whether it is judged (default: all);
    ``n_nonrel``: the query's judged non-relevant documents (default: those of ``basis``);
    ``param``: the family's parameter (RBP's p, ...)."""
    n = len(ranked)
    r_total = sum(1 for lab in basis if is_relevant(profile, lab))
    if family in MORE_FAMILIES:
        jd = [True] * n if judged is None else list(judged)
        nn = sum(1 for lab in basis if not is_relevant(profile, lab)) if n_nonrel is None else n_nonrel
        return more_on_ranking(profile, family, k, ranked, jd, r_total, nn, param)
    if family in ("rprec", "bpref", "set_recall", "set_f") and r_total == 0:
        return None
    if family == "rprec":
        return hits_in(profile, ranked, r_total if k is None else min(r_total, k)) / r_total
    if family == "bpref":
        nn = sum(1 for lab in basis if not is_relevant(profile, lab)) if n_nonrel is None else n_nonrel
        return bpref(profile, ranked, [True] * n if judged is None else judged, r_total, nn)
    if family == "set_p":
        return hits_in(profile, ranked, None) / n if n else 0.0
    if family == "set_recall":
        return hits_in(profile, ranked, None) / r_total
    if family == "set_f":
        p_set = hits_in(profile, ranked, None) / n if n else 0.0
        r_set = hits_in(profile, ranked, None) / r_total
        return 2 * p_set * r_set / (p_set + r_set) if p_set + r_set > 0 else 0.0
    if family == "dcg":
        return dcg(profile, ranked, k)
    if family == "ndcg":
        ideal = ideal_dcg(profile, basis, k)
        if ideal == 0:
            return None
        if profile.k_beyond_n == "zero" and k is not None and n < k:
            return 0.0
        return dcg(profile, ranked, k) / ideal
    if family == "map":
        if r_total == 0:
            return None
        if profile.map_denominator == "hits_k":
            den = hits_in(profile, ranked, k)
            return average_precision_sum(profile, ranked, k) / den if den else 0.0
        den = r_total if (profile.map_denominator == "r" or k is None) else min(r_total, k)
        return average_precision_sum(profile, ranked, k) / den
    if family == "recall":
        if r_total == 0:
            return None
        return hits_in(profile, ranked, k) / r_total
    if family == "p":
        if k is None:
            den = n
        elif profile.precision_denominator == "min_k_n":
            den = min(k, n)
        else:
            den = k
        return hits_in(profile, ranked, k) / den if den else 0.0
    if family == "mrr":
        return reciprocal_rank(profile, ranked, k)
    if family == "err":
        return err(profile, ranked, k)
    if family == "hits":
        return 1.0 if hits_in(profile, ranked, k) > 0 else 0.0
    raise ValueError(family)


#: Issue 23's families (their textbook loops are in :func:`more_on_ranking`).
MORE_FAMILIES = ("num_ret", "num_rel", "num_rel_ret", "set_map", "gm_map", "f1", "fallout",
                 "rprec_mult", "iprec_at_recall", "rbp", "rbp_residual", "ncrr", "auc", "gauc",
                 "infap")
#: Families over the whole list whatever the profile's default_k (a bare rprec too).
WHOLE_LIST = ("rprec", "bpref", "set_p", "set_recall", "set_f", "num_ret", "num_rel", "num_rel_ret",
              "set_map", "gm_map", "rprec_mult", "iprec_at_recall", "auc", "gauc", "infap")
#: Defaults of the families' parameters (RBP's persistence: ir_measures' p=0.8).
PARAM_DEFAULTS = {"rbp": 0.8, "rbp_residual": 0.8}


def more_on_ranking(profile: Profile, family: str, k: int | None, ranked: Sequence[float],
                    judged: Sequence[bool], r_total: int, n_nonrel: int,
                    param: float | None) -> float | None:
    """Issue 23's families on one ranked list, as their sources write them (no shortcuts)."""
    n = len(ranked)
    rel = [is_relevant(profile, lab) for lab in ranked]
    top = n if k is None else min(k, n)
    p = PARAM_DEFAULTS.get(family) if param is None else param
    if family == "num_ret":
        return float(n)
    if family == "num_rel":
        return float(r_total)
    if family == "num_rel_ret":
        return float(sum(rel))
    if family in ("auc", "gauc"):  # every (relevant, judged non-relevant) pair, ties 1/2
        return None  # scores needed: see auc_oracle
    if family == "fallout":
        if n_nonrel == 0:
            return None
        return sum(1 for i in range(top) if judged[i] and not rel[i]) / n_nonrel
    if family == "rbp":
        assert p is not None
        return sum((1 - p) * p**i for i in range(top) if rel[i])
    if family == "rbp_residual":
        assert p is not None
        return sum((1 - p) * p**i for i in range(top) if not judged[i]) + p**top
    if r_total == 0:
        if family == "gm_map":  # trec_eval: log(max(0, MIN_GEO_MEAN)) (profile empty = 0)
            e = profile.empty if profile.empty is not None else 0.0
            return math.log(max(e, 1e-5))
        return None
    if family == "set_map":
        return sum(rel) ** 2 / (n * r_total) if n else 0.0
    if family == "infap":  # m_infAP.c with every document judged or outside the pool
        a = b = 0
        total = 0.0
        for j in (j for j in range(n) if judged[j]):
            if rel[j]:
                total += 1.0 if j == 0 else 1 / (j + 1) + (j / (j + 1)) * ((a + b) / j) * (
                    (a + 1e-5) / (a + b + 2e-5))
            a, b = a + rel[j], b + (not rel[j])
        return total / r_total
    if family == "gm_map":
        return math.log(max(average_precision_sum(profile, ranked, None) / r_total, 1e-5))
    if family == "f1":
        prec_den = top if (k is None or profile.precision_denominator == "min_k_n") else k
        prec = sum(rel[:top]) / prec_den if prec_den else 0.0
        rec = sum(rel[:top]) / r_total
        return 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
    if family == "ncrr":  # cornac: sum 1/rank over relevant / sum_{i <= min(R, k')} 1/i
        ideal = sum(1.0 / i for i in range(1, min(r_total, top) + 1))
        return sum(1.0 / (i + 1) for i in range(top) if rel[i]) / ideal if ideal else 0.0
    assert param is not None
    if family == "rprec_mult":  # m_Rprec_mult.c: cutoff (long)(x R + 0.9)
        cut = int(param * r_total + 0.9)
        return sum(rel[:cut]) / cut if cut else 0.0
    if family == "iprec_at_recall":  # trec_eval 9.0.8: (long)(x R + 0.9) relevant documents
        c = int(param * r_total + 0.9)
        best = 0.0
        seen = 0
        for i in range(n):
            if rel[i]:
                seen += 1
                if seen >= max(c, 1):
                    best = max(best, seen / (i + 1))
        return best if sum(rel) >= c else 0.0
    raise ValueError(family)


def auc_oracle(profile: Profile, labels: Sequence[float], scores: Sequence[float],
               judged: Sequence[bool] | None = None) -> float | None:
    """Every pair of a relevant and a judged non-relevant document: 1 when the relevant one
    scores higher, 1/2 when tied (sklearn roc_auc_score); ``None`` without such a pair."""
    jd = [True] * len(labels) if judged is None else list(judged)
    pos = [s for lab, s in zip(labels, scores, strict=True) if is_relevant(profile, lab)]
    neg = [s for lab, s, j in zip(labels, scores, jd, strict=True)
           if j and not is_relevant(profile, lab)]
    if not pos or not neg:
        return None
    wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


def rankings(
    profile: Profile,
    labels: Sequence[float],
    scores: Sequence[float],
    docno: Sequence[str] | None = None,
    tiekey: Sequence[int] | None = None,
) -> list[list[int]]:
    """Every ranking (list of row indices) the tie rule allows, each equally likely."""
    n = len(labels)
    s = [float(np.float32(x)) if profile.score_dtype == "float32" else float(x) for x in scores]
    if profile.ties == "stable":
        return [sorted(range(n), key=lambda i: (-s[i], i))]
    if profile.ties == "row_desc":
        return [sorted(range(n), key=lambda i: (-s[i], -i))]
    if profile.ties == "pessimistic":
        return [sorted(range(n), key=lambda i: (-s[i], gain(profile, labels[i]), i))]
    if profile.ties == "optimistic":
        return [sorted(range(n), key=lambda i: (-s[i], -gain(profile, labels[i]), i))]
    if profile.ties in ("docno_desc", "docno_asc"):
        names = docno if docno is not None else [f"{i:012d}" for i in range(n)]
        by_doc = sorted(range(n), key=lambda i: names[i], reverse=profile.ties == "docno_desc")
        return [sorted(by_doc, key=lambda i: -s[i])]
    if profile.ties == "random":
        assert tiekey is not None
        return [sorted(range(n), key=lambda i: (-s[i], tiekey[i], i))]
    # average: every permutation of every tied group
    groups: list[list[int]] = []
    for i in sorted(range(n), key=lambda i: -s[i]):
        if groups and s[groups[-1][0]] == s[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    count = math.prod(math.factorial(len(g)) for g in groups)
    assert count <= 50_000, "tied groups too large for the brute-force oracle"
    out = []
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        out.append([i for part in combo for i in part])
    return out


def query_value(
    profile: Profile,
    family: str,
    k: int | None,
    labels: Sequence[float],
    scores: Sequence[float],
    *,
    docno: Sequence[str] | None = None,
    tiekey: Sequence[int] | None = None,
    judged_extra: Sequence[float] = (),
    param: float | None = None,
) -> float | None:
    """Mean of the metric over the rankings the tie rule allows (None: blank and undefined)."""
    basis = list(labels) + (list(judged_extra) if profile.idcg_basis == "qrels" else [])
    if family == "gm_map":  # the logarithm of the query's AP (averaged over tied orders)
        ap = query_value(profile, "map", None, labels, scores, docno=docno, tiekey=tiekey,
                         judged_extra=judged_extra)
        return math.log(max(ap if ap is not None else (profile.empty or 0.0), 1e-5))
    if family in ("auc", "gauc"):
        s32 = [float(np.float32(x)) if profile.score_dtype == "float32" else float(x)
               for x in scores]
        return auc_oracle(profile, labels, s32)
    if family == "map" and profile.ap_ties == "threshold":
        return threshold_map(profile, k, labels, scores, basis)
    values = []
    for ranking in rankings(profile, labels, scores, docno, tiekey):
        values.append(metric_on_ranking(profile, family, k, [labels[i] for i in ranking], basis,
                                        param=param))
    if values[0] is None:
        return None
    return sum(values) / len(values)


def evaluate_oracle(
    labels: Sequence[float],
    scores: Sequence[float],
    sizes: Sequence[int],
    metrics: str,
    profile: str | Profile,
    *,
    query_weights: Sequence[float] | None = None,
    docno: Sequence[str] | None = None,
    tiekey: Sequence[int] | None = None,
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Means and per-query values (NaN where excluded), like ``bench.metrics.evaluate``."""
    prof = get_profile(profile)
    specs = parse_metrics(metrics)
    means: dict[str, float] = {}
    per_q: dict[str, list[float]] = {}
    for spec in specs:
        k = spec.k if spec.k is not None else prof.default_k
        if spec.family in WHOLE_LIST and spec.k is None:
            k = None
        vals: list[float] = []
        blanks: list[bool] = []
        start = 0
        for size in sizes:
            sl = slice(start, start + size)
            start += size
            lab = [float(x) for x in labels[sl]]
            v = query_value(
                prof, spec.family, k, lab, list(scores[sl]),
                docno=None if docno is None else list(docno[sl]),
                tiekey=None if tiekey is None else list(tiekey[sl]), param=spec.param,
            )
            if v is not None and prof.empty is None and _blank(prof, spec.family, lab) and \
                    not spec.family.startswith("num_"):
                v = None  # the exclusion policy drops blank queries from every metric but counts
            if v is not None and prof.arithmetic_dtype == "float32":
                v = float(np.float32(v))
            blanks.append(v is None)
            if v is None:
                empty = prof.empty_for(spec.family)
                vals.append(math.nan if empty is None or spec.family == "gauc" else float(empty))
            else:
                vals.append(v)
        per_q[spec.name] = vals
        if spec.family in ("num_ret", "num_rel", "num_rel_ret", "gm_map", "gauc"):
            means[spec.name] = more_mean(spec.family, vals, blanks, list(sizes))
            continue
        w = [1.0] * len(vals) if query_weights is None else list(query_weights)
        num = 0.0
        den = 0.0
        for v, wq, b in zip(vals, w, blanks, strict=True):
            if math.isnan(v):
                continue
            if spec.family == "ndcg" and b and prof.blank_ndcg_weight == "one":
                num += v
            else:
                num += v * wq
            den += wq
        mean = num / den if den > 0 else math.nan
        if spec.family == "ndcg" and prof.clamp_ndcg_mean:
            mean = min(mean, 1.0)
        means[spec.name] = mean
    return means, per_q


def more_mean(family: str, vals: Sequence[float], blanks: Sequence[bool],
              sizes: Sequence[int]) -> float:
    """Counts summed; gm_map ``exp`` of the mean of its logarithms (trec_eval
    ``te_calc_avg_meas_s_gm``); GAUC ``sum n_q AUC_q / sum n_q`` over the queries with both
    classes (Zhou et al., KDD 2018)."""
    kept = [(v, n) for v, b, n in zip(vals, blanks, sizes, strict=True) if not math.isnan(v)
            and not (family == "gauc" and b)]
    if not kept:
        return math.nan
    if family == "gm_map":
        return math.exp(sum(v for v, _ in kept) / len(kept))
    if family == "gauc":
        return sum(v * n for v, n in kept) / sum(n for _, n in kept)
    return float(sum(v for v, _ in kept))


def _blank(profile: Profile, family: str, labels: Sequence[float]) -> bool:
    if family in ("dcg", "err", "ndcg"):
        return all(gain(profile, lab) <= 0 for lab in labels)
    if family == "fallout":
        return all(is_relevant(profile, lab) for lab in labels)
    return not any(is_relevant(profile, lab) for lab in labels)


def random_queries(
    rng: np.random.Generator,
    n_queries: int,
    *,
    max_size: int = 12,
    max_label: int = 4,
    score_levels: int | None = 4,
    blank_rate: float = 0.2,
    binary: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels, scores and sizes with single-document queries, blank queries and ties.

    ``score_levels`` small gives many ties; ``None`` gives continuous scores.
    """
    sizes = rng.integers(1, max_size + 1, size=n_queries)
    sizes[: max(1, n_queries // 10)] = 1
    rng.shuffle(sizes)
    n = int(sizes.sum())
    top = 1 if binary else max_label
    labels = rng.integers(0, top + 1, size=n).astype(np.float64)
    labels[rng.random(n) < 0.4] = 0
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for q in np.flatnonzero(rng.random(n_queries) < blank_rate):
        labels[starts[q] : starts[q] + sizes[q]] = 0
    if score_levels is None:
        scores = rng.normal(size=n) + 0.3 * labels
    else:
        scores = rng.integers(0, score_levels, size=n).astype(np.float64) / 2.0 - 0.5
    return labels, scores, sizes


def trec_oracle(
    qrels: dict[str, dict[str, int]],
    run: dict[str, dict[str, float]],
    metrics: str,
    profile: str | Profile,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Means and per-query values of a TREC run, query by query, like ``evaluate_trec``.

    Queries: the run's queries with qrels, plus (``missing="zero"``) the qrels queries with a
    judgment >= 0 and no run line, ranked as an empty list against their judgments. A retrieved
    document without a judgment >= 0 has label 0, or -1 (gain 0, not relevant) under
    ``unjudged_gain="zero"``; bpref skips it. Ties: any rule of :func:`rankings`, with the run's
    document ids as docno.
    """
    prof = get_profile(profile)
    queries = [q for q in run if q in qrels]
    if prof.missing == "zero":
        queries += [q for q in qrels if q not in run and any(r >= 0 for r in qrels[q].values())]
    queries.sort()
    unjudged_label = -1.0 if prof.unjudged_gain == "zero" else 0.0
    per_q: dict[str, dict[str, float]] = {}
    means: dict[str, float] = {}
    for spec in parse_metrics(metrics):
        k = spec.k if spec.k is not None else prof.default_k
        if spec.family in WHOLE_LIST and spec.k is None:
            k = None
        vals: dict[str, float] = {}
        for q in queries:
            judged = qrels[q]
            docs = list(run.get(q, {}))
            labels = [float(judged[d]) if judged.get(d, -1) >= 0 else unjudged_label for d in docs]
            is_judged = [judged.get(d, -1) >= 0 for d in docs]
            unretrieved = [float(r) for d, r in judged.items() if r >= 0 and d not in run.get(q, {})]
            # the ideal ranking / R: the scored list, plus the unretrieved judgments under the
            # qrels basis; a missing query has only its judgments
            basis = labels + unretrieved if (prof.idcg_basis == "qrels" or not docs) else labels
            n_nonrel = sum(1 for d, r in judged.items() if r >= 0 and not is_relevant(prof, float(r))
                           and (prof.idcg_basis == "qrels" or d in run.get(q, {})))
            outcomes = []
            if spec.family == "map" and prof.ap_ties == "threshold":
                outcomes.append(threshold_map(prof, k, labels, [run[q][d] for d in docs], basis))
            for ranking in ([] if outcomes else
                            rankings(prof, labels, [run[q][d] for d in docs], docs)):
                outcomes.append(metric_on_ranking(
                    prof, spec.family, k, [labels[i] for i in ranking], basis,
                    judged=[is_judged[i] for i in ranking], n_nonrel=n_nonrel, param=spec.param))
            v = None if outcomes[0] is None else sum(outcomes) / len(outcomes)  # type: ignore[arg-type]
            if v is not None and prof.empty is None and _blank(prof, spec.family, basis) and \
                    not spec.family.startswith("num_"):
                v = None
            empty = prof.empty_for(spec.family)
            vals[q] = (math.nan if empty is None else float(empty)) if v is None else v
        per_q[spec.name] = vals
        kept = [v for v in vals.values() if not math.isnan(v)]
        means[spec.name] = sum(kept) / len(kept) if kept else math.nan
    return means, per_q
