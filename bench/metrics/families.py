"""What each metric family is: one record per family, the table every reader, printer and
evaluator of a metric uses.

A metric name is ``family[@k]`` (parsed by :func:`bench.metrics.names.parse_metrics`). A
:class:`Family` says, in one place: how a table prints it (``ndcg@10`` -> ``NDCG@10``,
``recall@10`` -> ``R@10``; the header parses back to the same metric) and its other spellings,
what it means, whether it takes a cutoff, which kernel components
(:mod:`bench.metrics.kernels.components`) it is finished from and by which formula, which
queries are blank for it (0/0, so that a profile's ``empty`` policy decides them) and whether
"a blank query scores 1" is a meaningful alternative. Per query (``n`` documents, ``R`` relevant
in the profile's IDCG basis, ``k' = min(k, n)``) the formulas are::

    ndcg@k   = dcg@k / idcg@k               (0/0 when idcg = 0: profile.empty)
               letor4 (k_beyond_n="zero"): 0 when n < k
    map@k    = ap@k / min(R, k)   or  ap@k / R      (0/0 when R = 0: profile.empty)
    map@k    = ap@k / hits@k                        (map_denominator="hits_k": torchmetrics)
    recall@k = hits@k / R                           (0/0 when R = 0: profile.empty)
    p@k      = hits@k / k   or  hits@k / k'
    rprec    = hits@R / R,  bpref = bpref sum / R   (0/0 when R = 0: profile.empty)
    rprec@k  = hits@min(R, k) / R                   (trec_eval Rprec with -M k)
    set_p    = hits / n,  set_recall = hits / R,  set_f = 2 hits / (n + R)   (whole list)
    dcg, mrr, err, hits: the component itself (0 on a query without relevant documents)

and those of :mod:`bench.metrics.more_families` (counts, set_map, gm_map, F1@k, fall-out@k,
Rprec_mult, iprec_at_recall, RBP and its residual, NCRR, AUC, GAUC), whose docstring gives
their formulas and sources. A family may take a real parameter (``Family.param``: RBP's
persistence ``p``, the recall level of ``iprec_at_recall``), written ``rbp(0.95)@10``, and may
be averaged otherwise than by the mean (``Family.mean``: counts are summed as trec_eval and
ir_measures sum them, ``gm_map`` is a geometric mean, GAUC weighs queries by their documents).

:func:`bench.metrics.aggregate.per_query_values` applies them and the blank rule. A metric built
from existing components is one more record here (and its tests); one that needs a new
component adds it to the kernels (:mod:`bench.metrics.kernels`) too.
"""

from __future__ import annotations

import numpy as np

from bench.errors import ConfigError, did_you_mean
from bench.metrics.family_record import (
    Array,
    Family,
    Inputs,
    Param,
    map_components,
    map_value,
    precision_denominator,
    ratio,
)
from bench.metrics.more_families import more_families
from bench.metrics.name_tokens import non_ascii
from bench.metrics.profile import Profile

__all__ = [
    "ALIASES",
    "DEFAULT_METRICS",
    "EVALUATE_METRICS",
    "FAMILIES",
    "NOT_QUALITY",
    "PRIMARY_METRIC",
    "SELECTION_FAMILY",
    "Array",
    "Family",
    "Inputs",
    "Param",
    "better",
    "check_families",
    "check_profile_families",
    "cutoff_of",
    "family_aliases",
    "family_headers",
    "is_family",
    "metric_header",
    "precision_denominator",
    "ratio",
    "refuse_no_quality",
    "selection_cutoff",
    "split_name",
    "unit_interval",
]

def _ndcg(q: Inputs) -> Array:
    v = q.ratio(q.comp["dcg"], q.comp["idcg"])
    if q.profile.k_beyond_n == "zero" and q.k is not None:
        v[q.n < q.k] = 0.0  # LETOR 4.0: NDCG@k = 0 when the query has fewer than k documents
    return v


def _squared(d: Array) -> Array:
    return d * d


def _absolute(d: Array) -> Array:
    return np.abs(d)


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("dcg", "DCG", "discounted cumulative gain of the top k", ("dcg",),
               lambda q: q.value("dcg"), blank_when="no_gain"),
        Family("ndcg", "NDCG", "DCG@k divided by the ideal DCG@k", ("dcg", "idcg"), _ndcg,
               blank_when="no_gain", normalised=True, blank_scores_one=True, unit_interval=True),
        Family("map", "MAP", "average precision of the top k (mean over queries: MAP)", ("ap",),
               map_value, normalised=True, blank_scores_one=True,
               aliases=("ap", "mean_average_precision"), more_components=map_components,
               unit_interval=True),
        Family("mrr", "MRR", "reciprocal rank of the first relevant document within the top k",
               ("rr",), lambda q: q.value("rr"), blank_scores_one=True,
               aliases=("rr", "recip_rank"), unit_interval=True),
        Family("p", "P", "precision: relevant documents in the top k divided by k (or min(k, n))",
               ("hits",), lambda q: q.ratio(q.comp["hits"], precision_denominator(q)),
               aliases=("precision", "pre", "prec"), unit_interval=True),
        Family("recall", "R", "relevant documents in the top k divided by all relevant documents",
               ("hits",), lambda q: q.ratio(q.comp["hits"], q.r), normalised=True,
               blank_scores_one=True, aliases=("r",),
               unit_interval=True),  # r: the table header R@k parses back
        Family("err", "ERR", "expected reciprocal rank (Chapelle et al. 2009) of the top k",
               ("err",), lambda q: q.value("err"), blank_when="no_gain", unit_interval=True),
        Family("hits", "Hits", "1 if the top k holds a relevant document, else 0 (hit rate)",
               ("any",), lambda q: q.value("any"), blank_scores_one=True,
               aliases=("hit_rate", "hr", "hit"),
               unit_interval=True),  # hit: RecBole's Hit@k (metrics.py Hit)
        Family("rprec", "Rprec", "R-precision: precision at rank R, R = relevant documents of the "
               "query (trec_eval Rprec); rprec@k: the run cut at k (trec_eval -M k)", ("rprec",),
               lambda q: q.ratio(q.comp["rprec"], q.r), normalised=True, bare_whole=True,
               unit_interval=True),
        Family("bpref", "bpref", "binary preference (Buckley & Voorhees, SIGIR 2004): judged "
               "non-relevant documents ranked above each relevant one (trec_eval bpref)",
               ("bpref",), lambda q: q.ratio(q.comp["bpref"], q.r), normalised=True, cutoff=False,
               unit_interval=True),
        Family("set_p", "set_P", "set precision: relevant retrieved documents divided by all "
               "retrieved (trec_eval set_P)", ("hits",), lambda q: q.ratio(q.comp["hits"], q.n),
               cutoff=False, unit_interval=True),
        Family("set_recall", "set_recall", "set recall: relevant retrieved documents divided by "
               "all relevant (trec_eval set_recall)", ("hits",),
               lambda q: q.ratio(q.comp["hits"], q.r), normalised=True, cutoff=False,
               unit_interval=True),
        # F1 = 2PR / (P + R) = 2 hits / (n + R) (trec_eval m_set_F.c with beta = 1)
        Family("set_f", "set_F", "set F1: harmonic mean of set precision and set recall "
               "(trec_eval set_F, beta 1)", ("hits",),
               lambda q: q.ratio(2.0 * q.comp["hits"], q.n + q.r), normalised=True, cutoff=False,
               unit_interval=True),
        Family("num_q", "num_q", "queries evaluated: 1 per query, summed over queries "
               "(trec_eval num_q, ir_measures NumQ)", (),
               lambda q: np.ones(q.n.shape[0]), cutoff=False, mean="sum"),
        Family("rmse", "RMSE", "root mean squared error of score against label, lower is "
               "better", error=_squared, root=True, lower_is_better=True),
        Family("mae", "MAE", "mean absolute error of score against label, lower is better",
               error=_absolute, lower_is_better=True),
    )
}
FAMILIES.update(more_families())
#: Spellings accepted for a family besides its canonical name (``ltrbench`` and peer tools').
ALIASES: dict[str, str] = {a: f.name for f in FAMILIES.values() for a in f.aliases}


def family_aliases() -> dict[str, str]:
    """:data:`ALIASES` as :data:`FAMILIES` holds them now (a record declared after import
    counts: the names grammar reads this, not the copy taken at import)."""
    return {a: f.name for f in FAMILIES.values() for a in f.aliases}


def family_headers() -> frozenset[str]:
    """The families' table headers as :data:`FAMILIES` holds them now."""
    return frozenset(f.header for f in FAMILIES.values())


def check_families() -> None:
    """The records of :data:`FAMILIES` agree with each other, else a ConfigError naming them:
    each stored under its own name; no name or alias claimed by two families (a metric name
    would silently mean one of them); headers told apart (case aside) and each one read back as
    its own family's name or alias (a table's column parses back to its metric)."""
    owner: dict[str, str] = {}
    heads: dict[str, str] = {}
    for key, f in FAMILIES.items():
        if not isinstance(f, Family) or key != f.name:
            raise ConfigError(f"FAMILIES[{key!r}] holds {getattr(f, 'name', f)!r}: a Family record "
                              "is stored under its own name")
        for spelling in (f.name, *f.aliases):
            other = owner.setdefault(spelling, f.name)
            if other != f.name:
                raise ConfigError(f"metric families {other!r} and {f.name!r} both claim the name "
                                  f"{spelling!r} (a family name or an alias): rename one")
        other = heads.setdefault(f.header.lower(), f.name)
        if other != f.name:
            raise ConfigError(f"metric families {other!r} and {f.name!r} both print the header "
                              f"{f.header!r}: a table could not tell their columns apart")
        if f.header.lower() not in (f.name, *f.aliases):
            raise ConfigError(f"metric family {f.name!r}: its header {f.header!r} does not read "
                              f"back as its name or an alias ({', '.join((f.name, *f.aliases))}) "
                              "in lower case: a table's column would name no metric")
    from bench.metrics.profiles import PROFILES  # profiles sit beside, not below

    for prof in list(PROFILES.values()):  # a profile registered since import too
        check_profile_families(prof)


def check_profile_families(profile: Profile) -> None:
    """The families a profile's ``binary_label_families`` and ``unweighted_families`` name are
    metric families of
    :data:`FAMILIES`: a typo (``"mapp"``, XGBoost's own ``"pre"`` for ``"p"``) would otherwise
    never match an asked family, and the profile's tool's rule would silently not apply. Read
    when a metric list is parsed (every registered profile, :func:`check_families`) and when a
    profile evaluates (:func:`bench.metrics.qualified.groups`, a hand-built one too)."""
    for field in ("binary_label_families", "unweighted_families"):
        for fam in getattr(profile, field, ()):  # a duck-typed stand-in may lack them
            if fam in FAMILIES:
                continue
            hint = did_you_mean(str(fam), FAMILIES)
            raise ConfigError(
                f"profile {getattr(profile, 'name', profile)!r}: {field} names "
                f"{fam!r}, which is no metric family; {hint or ''}expected family names such as "
                f"'map', 'p', 'mrr' ({', '.join(FAMILIES)})")


#: The metrics ltrbench computes and reports when none are named (runs, leaderboards).
DEFAULT_METRICS: tuple[str, ...] = (
    "ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "map@10", "mrr", "p@10", "recall@10",
)
#: The family of the metric that early stopping watches in each library's eval log.
SELECTION_FAMILY = "ndcg"
#: The metric that selects the iteration, orders the leaderboard and is cross-checked.
PRIMARY_METRIC = "ndcg@10"
#: The metrics ``ltrbench evaluate`` prints when none are named.
EVALUATE_METRICS = "ndcg@1,3,5,10 map@10 mrr"


def split_name(metric: str) -> tuple[str, int | None]:
    """``"ndcg@10"`` → ``("ndcg", 10)``; ``"mrr"`` → ``("mrr", None)``; ``"rbp(0.9)@10"`` →
    ``("rbp", 10)`` (canonical names only)."""
    family, _, k = metric.partition("@")
    return family.partition("(")[0], (int(k) if k.isdigit() else None)


def cutoff_of(metric: str) -> int | None:
    """The cutoff k of a metric name (``None`` for a whole-list or pointwise metric)."""
    return split_name(metric)[1]


def metric_header(metric: str) -> str:
    """Column header of a metric name: ``ndcg@10`` → ``NDCG@10``, ``recall@10`` → ``R@10``."""
    family, k = split_name(metric)
    known = FAMILIES.get(family)
    head = known.header if known else family.upper()
    paren = metric.partition("@")[0][len(family):]  # "(0.9)" of rbp(0.9)@10
    head += paren if known else paren.upper()
    return f"{head}@{k}" if k is not None else head


def best_is_lowest(metric: str) -> bool:
    """True when the best value of ``metric`` (a canonical name) is its lowest: ARP, a mean rank,
    fall-out, and the pointwise errors RMSE and MAE (``Family.lower_is_better``); leaderboards, fold
    tables and run comparisons order and test such a metric that way."""
    known = FAMILIES.get(split_name(metric)[0])
    return bool(known and known.lower_is_better)


#: The families whose value measures no ranking quality, and what it measures instead: no run
#: is best by them (a comparison, a leaderboard's order or bold cell, a primary metric).
NOT_QUALITY: dict[str, str] = {
    "rbp_residual": "RBP's residual, the share of RBP the unjudged documents and the ranks below "
                    "k leave open (Moffat & Zobel 2008): an uncertainty",
    "judged": "the judged share of the top k (ir_measures Judged@k): a coverage of the pool",
}


def better(metric: str) -> str:
    """Which way ``metric`` (a name or a family) is better: ``"higher"``, ``"lower"``
    (``Family.lower_is_better``: fall-out, ARP, RMSE, MAE) or ``"none"`` (no measure of quality:
    :data:`NOT_QUALITY` and the counts summed over queries, ``num_q``, ``num_ret``, ...)."""
    family = _family_of(metric)
    known = FAMILIES.get(family)
    if family in NOT_QUALITY or (known is not None and known.mean == "sum"):
        return "none"
    return "lower" if known is not None and known.lower_is_better else "higher"


def _family_of(metric: str) -> str:
    return metric if metric in FAMILIES else split_name(metric.lower())[0]


def refuse_no_quality(metric: str, spelled: str, role: str) -> None:
    """A ConfigError when ``metric`` (a name or a family) measures no quality (:func:`better` is
    ``"none"``): ``role`` (``--primary``, ``the primary (first) metric``) names where
    ``spelled`` was typed."""
    if better(metric) != "none":
        return
    what = NOT_QUALITY.get(_family_of(metric), "a count summed over queries")
    raise ConfigError(f"{role} {spelled!r} is {what}, not a measure of a ranking's quality: no "
                      "run is best by it (it would pick the best run and anchor the paired "
                      "tests); put a quality measure first (ndcg@10, map) and keep it beside")


def averaging(metric: str, profile: str = "ltrbench") -> str:
    """How the per-query values of ``metric`` (a canonical name) make its mean under the named
    ``profile``, for a reader that has only those values (a run's ``per_query.parquet``):
    ``mean``, ``sum`` (the counts), ``geometric`` (``gm_map``: ``exp`` of the mean of its
    per-query logarithms), or ``weighted`` (RMSE's and MAE's errors pooled over the documents,
    GAUC's document counts; ARP's and OPA's own weights
    under a profile whose ``list_weight`` is not ``"query"``, ``tf-ranking``: weights the values
    do not carry); an unknown family ``mean``.

    >>> averaging("ndcg@10"), averaging("num_ret"), averaging("gm_map"), averaging("rmse")
    ('mean', 'sum', 'geometric', 'weighted')
    >>> averaging("arp"), averaging("arp", "tf-ranking")
    ('mean', 'weighted')
    """
    family = FAMILIES.get(split_name(metric)[0])
    if family is None:
        return "mean"
    if family.mean == "documents" or family.pointwise:  # RMSE, MAE: over documents
        return "weighted"
    if family.weight is not None:  # ARP, OPA: the profile says whether they weigh by their own
        from bench.metrics.profiles import list_weight_of  # profiles sit beside, not below

        if list_weight_of(profile) != "query":
            return "weighted"
    return family.mean


def is_family(metric: str, family: str) -> bool:
    """True when ``metric`` belongs to ``family`` (``is_family("ndcg@10", "ndcg")``)."""
    return split_name(metric)[0] == family


def selection_cutoff(select_metric: str) -> int:
    """The k of the selection metric, which must be the libraries' NDCG at a cutoff, ``ndcg@k``."""
    family, k = split_name(select_metric)
    if family != SELECTION_FAMILY or k is None or k < 1 or select_metric != f"{family}@{k}":
        held = non_ascii(select_metric)  # ndcg@１０: int() would read the fullwidth digits
        look = f" ({held}, a look-alike: metric names are ASCII)" if held else ""
        raise ConfigError(
            f"select_metric must be the library NDCG at a cutoff, 'ndcg@k'; got "
            f"{select_metric!r}{look}")
    return k


def unit_interval(metric: str) -> bool:
    """True when every value of ``metric`` (a canonical name) lies in [0, 1]: NDCG, MAP, MRR,
    precision, recall, ERR, ... (DCG, RMSE, ARP and the counts do not)."""
    family = FAMILIES.get(split_name(metric)[0])
    return family is not None and family.unit_interval
