"""What each metric family is: the one table every reader, printer and plot of a metric uses.

A metric name is ``family[@k]`` (parsed by :func:`bench.metrics.names.parse_metrics`); this module
says what a family computes, how a table prints it (``ndcg@10`` → ``NDCG@10``, ``recall@10`` →
``R@10``; the header parses back to the same metric), whether it takes a cutoff, whether it is
pointwise, and whether its value on a query without relevant documents is 0/0 (so that a profile's
``empty`` policy decides it).
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.errors import ConfigError


@dataclass(frozen=True)
class Family:
    """One metric family: canonical name, table header, meaning, and its conventions-relevant kind."""

    name: str
    header: str
    meaning: str
    pointwise: bool = False
    normalised: bool = False
    cutoff: bool = True

    @property
    def ranking(self) -> bool:
        """True for the families computed on a ranking (most take ``@k``: see ``cutoff``)."""
        return not self.pointwise


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("dcg", "DCG", "discounted cumulative gain of the top k"),
        Family("ndcg", "NDCG", "DCG@k divided by the ideal DCG@k", normalised=True),
        Family("map", "MAP", "average precision of the top k (mean over queries: MAP)",
               normalised=True),
        Family("mrr", "MRR", "reciprocal rank of the first relevant document within the top k"),
        Family("p", "P", "precision: relevant documents in the top k divided by k (or min(k, n))"),
        Family("recall", "R", "relevant documents in the top k divided by all relevant documents",
               normalised=True),
        Family("err", "ERR", "expected reciprocal rank (Chapelle et al. 2009) of the top k"),
        Family("hits", "Hits", "1 if the top k holds a relevant document, else 0 (hit rate)"),
        Family("rprec", "Rprec", "R-precision: precision at rank R, R = relevant documents of the "
               "query (trec_eval Rprec)", normalised=True, cutoff=False),
        Family("bpref", "bpref", "binary preference (Buckley & Voorhees, SIGIR 2004): judged "
               "non-relevant documents ranked above each relevant one (trec_eval bpref)",
               normalised=True, cutoff=False),
        Family("set_p", "set_P", "set precision: relevant retrieved documents divided by all "
               "retrieved (trec_eval set_P)", cutoff=False),
        Family("set_recall", "set_recall", "set recall: relevant retrieved documents divided by "
               "all relevant (trec_eval set_recall)", normalised=True, cutoff=False),
        Family("set_f", "set_F", "set F1: harmonic mean of set precision and set recall "
               "(trec_eval set_F, beta 1)", normalised=True, cutoff=False),
        Family("rmse", "RMSE", "root mean squared error of score against label", pointwise=True),
        Family("mae", "MAE", "mean absolute error of score against label", pointwise=True),
    )
}
#: Spellings accepted for a family besides its canonical name (``ltrbench`` and peer tools').
ALIASES: dict[str, str] = {
    "precision": "p",
    "pre": "p",
    "prec": "p",
    "ap": "map",
    "mean_average_precision": "map",
    "rr": "mrr",
    "recip_rank": "mrr",
    "hit_rate": "hits",
    "hr": "hits",
    "r": "recall",  # the table header R@k parses back
}
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


def family_of(metric: str) -> Family:
    """The :class:`Family` of a canonical metric name; a ConfigError for an unknown family."""
    family = split_name(metric)[0]
    try:
        return FAMILIES[family]
    except KeyError:
        raise ConfigError(f"unknown metric family {family!r}; valid: {', '.join(FAMILIES)}") from None


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
