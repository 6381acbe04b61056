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
    set_p    = hits / n,  set_recall = hits / R,  set_f = 2 hits / (n + R)   (whole list)
    dcg, mrr, err, hits: the component itself (0 on a query without relevant documents)

:func:`bench.metrics.aggregate.per_query_values` applies them and the blank rule. A metric built
from existing components is one more record here (and its tests); one that needs a new
component adds it to the kernels (:mod:`bench.metrics.kernels`) too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from bench.errors import ConfigError
from bench.metrics.profile import Profile

Array = NDArray[np.float64]


def ratio(num: Array, den: Array, f32: bool = False) -> Array:
    """``num / den`` where ``den > 0``, else 0 (blank queries are filled by the caller);
    ``f32``: both rounded to float32 and divided in float32 (``arithmetic_dtype``)."""
    if f32:
        out32 = np.zeros(num.shape[0], dtype=np.float32)
        np.divide(num.astype(np.float32), den.astype(np.float32), out=out32, where=den > 0)
        return out32.astype(np.float64)
    out = np.zeros(num.shape[0], dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


@dataclass(frozen=True)
class Inputs:
    """What a finishing formula reads, per query, for one metric under one profile.

    Attributes:
        comp: component name -> its per-query sum at the metric's cutoff (the family's
            components only).
        n: scored documents per query (float64).
        r: relevant documents per query in the profile's IDCG basis.
        k: the metric's cutoff (``None``: whole list).
        profile: the profile it is computed under.
    """

    comp: Mapping[str, Array]
    n: Array
    r: Array
    k: int | None
    profile: Profile

    @property
    def f32(self) -> bool:
        """True when the profile divides in float32 (``arithmetic_dtype``)."""
        return self.profile.arithmetic_dtype == "float32"

    def ratio(self, num: Array, den: Array) -> Array:
        """:func:`ratio` in the profile's arithmetic."""
        return ratio(num, den, self.f32)

    def value(self, name: str) -> Array:
        """A component as the metric's value (a copy, rounded to float32 under
        ``arithmetic_dtype="float32"``)."""
        v: Array = self.comp[name].copy()
        return v.astype(np.float32).astype(np.float64) if self.f32 else v


#: A family's finishing formula: its per-query values (a new array) from its components.
Finish = Callable[[Inputs], Array]


@dataclass(frozen=True)
class Family:
    """One metric family, declared once.

    Attributes:
        name: canonical name (``ndcg``); ``header``: its table header (``NDCG``), which parses
            back; ``meaning``: one line for ``ltrbench metrics list``; ``aliases``: other
            accepted spellings.
        components: kernel components it is finished from, at its cutoff; ``more_components``:
            those a profile adds (AP's ``hits`` under ``map_denominator="hits_k"``).
        finish: the formula from :class:`Inputs` to per-query values (ranking families).
        blank_when: the queries that are blank for it: ``"no_relevant"`` (no relevant document)
            or ``"no_gain"`` (no document with a positive gain: NDCG, DCG, ERR).
        normalised: its value on a blank query is 0/0, decided by the profile's ``empty``;
            else it keeps its natural value there (0) except under ``empty=None``.
        blank_scores_one: "a blank query scores 1" is a meaningful alternative (best value 1),
            reported among the diagnostics' blank policies.
        cutoff: takes ``@k`` (else always over the whole list).
        error: pointwise families only: the per-document error of ``score - label``;
            ``root``: the value is the square root of its mean (RMSE).
    """

    name: str
    header: str
    meaning: str
    components: tuple[str, ...] = ()
    finish: Finish | None = None
    blank_when: Literal["no_relevant", "no_gain"] = "no_relevant"
    normalised: bool = False
    blank_scores_one: bool = False
    cutoff: bool = True
    aliases: tuple[str, ...] = ()
    more_components: Callable[[Profile], tuple[str, ...]] | None = None
    error: Callable[[Array], Array] | None = None
    root: bool = False

    @property
    def pointwise(self) -> bool:
        """True for the families of per-document errors (rmse, mae): no ranking, no ``@k``."""
        return self.error is not None

    @property
    def ranking(self) -> bool:
        """True for the families computed on a ranking (most take ``@k``: see ``cutoff``)."""
        return not self.pointwise

    def components_for(self, profile: Profile) -> tuple[str, ...]:
        """The components this family needs under ``profile``."""
        more = self.more_components(profile) if self.more_components is not None else ()
        return (*self.components, *more)


def _ndcg(q: Inputs) -> Array:
    v = q.ratio(q.comp["dcg"], q.comp["idcg"])
    if q.profile.k_beyond_n == "zero" and q.k is not None:
        v[q.n < q.k] = 0.0  # LETOR 4.0: NDCG@k = 0 when the query has fewer than k documents
    return v


def _map(q: Inputs) -> Array:
    den_rule = q.profile.map_denominator
    if den_rule == "hits_k":
        den = q.comp["hits"]
    else:
        den = q.r if (den_rule == "r" or q.k is None) else np.minimum(q.r, float(q.k))
    return q.ratio(q.comp["ap"], den)


def _map_more(profile: Profile) -> tuple[str, ...]:
    return ("hits",) if profile.map_denominator == "hits_k" else ()


def precision_denominator(q: Inputs) -> Array:
    """P@k's denominator: ``k`` or ``min(k, n)`` (``precision_denominator``); ``n`` uncut."""
    if q.k is not None and q.profile.precision_denominator == "k":
        return np.full(q.n.shape[0], float(q.k))
    return q.n if q.k is None else np.minimum(q.n, float(q.k))


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
               blank_when="no_gain", normalised=True, blank_scores_one=True),
        Family("map", "MAP", "average precision of the top k (mean over queries: MAP)", ("ap",),
               _map, normalised=True, blank_scores_one=True,
               aliases=("ap", "mean_average_precision"), more_components=_map_more),
        Family("mrr", "MRR", "reciprocal rank of the first relevant document within the top k",
               ("rr",), lambda q: q.value("rr"), blank_scores_one=True,
               aliases=("rr", "recip_rank")),
        Family("p", "P", "precision: relevant documents in the top k divided by k (or min(k, n))",
               ("hits",), lambda q: q.ratio(q.comp["hits"], precision_denominator(q)),
               aliases=("precision", "pre", "prec")),
        Family("recall", "R", "relevant documents in the top k divided by all relevant documents",
               ("hits",), lambda q: q.ratio(q.comp["hits"], q.r), normalised=True,
               blank_scores_one=True, aliases=("r",)),  # r: the table header R@k parses back
        Family("err", "ERR", "expected reciprocal rank (Chapelle et al. 2009) of the top k",
               ("err",), lambda q: q.value("err"), blank_when="no_gain"),
        Family("hits", "Hits", "1 if the top k holds a relevant document, else 0 (hit rate)",
               ("any",), lambda q: q.value("any"), blank_scores_one=True,
               aliases=("hit_rate", "hr")),
        Family("rprec", "Rprec", "R-precision: precision at rank R, R = relevant documents of the "
               "query (trec_eval Rprec)", ("rprec",), lambda q: q.ratio(q.comp["rprec"], q.r),
               normalised=True, cutoff=False),
        Family("bpref", "bpref", "binary preference (Buckley & Voorhees, SIGIR 2004): judged "
               "non-relevant documents ranked above each relevant one (trec_eval bpref)",
               ("bpref",), lambda q: q.ratio(q.comp["bpref"], q.r), normalised=True, cutoff=False),
        Family("set_p", "set_P", "set precision: relevant retrieved documents divided by all "
               "retrieved (trec_eval set_P)", ("hits",), lambda q: q.ratio(q.comp["hits"], q.n),
               cutoff=False),
        Family("set_recall", "set_recall", "set recall: relevant retrieved documents divided by "
               "all relevant (trec_eval set_recall)", ("hits",),
               lambda q: q.ratio(q.comp["hits"], q.r), normalised=True, cutoff=False),
        # F1 = 2PR / (P + R) = 2 hits / (n + R) (trec_eval m_set_F.c with beta = 1)
        Family("set_f", "set_F", "set F1: harmonic mean of set precision and set recall "
               "(trec_eval set_F, beta 1)", ("hits",),
               lambda q: q.ratio(2.0 * q.comp["hits"], q.n + q.r), normalised=True, cutoff=False),
        Family("rmse", "RMSE", "root mean squared error of score against label",
               error=_squared, root=True),
        Family("mae", "MAE", "mean absolute error of score against label", error=_absolute),
    )
}
#: Spellings accepted for a family besides its canonical name (``ltrbench`` and peer tools').
ALIASES: dict[str, str] = {a: f.name for f in FAMILIES.values() for a in f.aliases}
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
    """``"ndcg@10"`` → ``("ndcg", 10)``; ``"mrr"`` → ``("mrr", None)`` (canonical names only)."""
    family, _, k = metric.partition("@")
    return family, (int(k) if k.isdigit() else None)


def cutoff_of(metric: str) -> int | None:
    """The cutoff k of a metric name (``None`` for a whole-list or pointwise metric)."""
    return split_name(metric)[1]


def metric_header(metric: str) -> str:
    """Column header of a metric name: ``ndcg@10`` → ``NDCG@10``, ``recall@10`` → ``R@10``."""
    family, k = split_name(metric)
    known = FAMILIES.get(family)
    head = known.header if known else family.upper()
    return f"{head}@{k}" if k is not None else head


def is_family(metric: str, family: str) -> bool:
    """True when ``metric`` belongs to ``family`` (``is_family("ndcg@10", "ndcg")``)."""
    return split_name(metric)[0] == family


def selection_cutoff(select_metric: str) -> int:
    """The k of the selection metric, which must be the libraries' NDCG at a cutoff, ``ndcg@k``."""
    family, k = split_name(select_metric)
    if family != SELECTION_FAMILY or k is None or k < 1 or select_metric != f"{family}@{k}":
        raise ConfigError(
            f"select_metric must be the library NDCG at a cutoff, 'ndcg@k'; got {select_metric!r}"
        )
    return k
