"""What the evaluator cross-check compares: the table of (tool, the tool's measure, the ltrbench
metric, the ltrbench profile that claims to reproduce it), and the built-in probe cases.

A row whose profile or metric ltrbench does not have (yet) is kept in the table and skipped with
a note (:func:`row_gap`): the profiles ``msmarco``, ``tf-ranking``, ``allrank`` and the metrics
``auc`` and ``f1@k`` are being added (issue 23), and their rows start to count once they exist. Rows of a tool
that is not installed are skipped too (the report says so).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from bench.crosscheck.evaluator_tools import QrelsDict, RunDict, subtopic_key
from bench.errors import ConfigError
from bench.metrics.names import parse_metrics
from bench.metrics.profiles import PROFILES


@dataclass(frozen=True)
class EvaluatorRow:
    """One measure of one tool and the ltrbench metric and profile that claim to reproduce it.

    ``provider``: the ir_measures provider (``""`` for the other tools); ``note``: what the row
    shows (printed in the report); ``tol``: the tolerance when the tool prints rounded values
    (default: the profile's, :func:`bench.crosscheck.evaluator_compare.tolerance`)."""

    tool: str
    measure: str
    metric: str
    profile: str
    provider: str = ""
    note: str = ""
    tol: float | None = None

    @functools.cached_property
    def subtopics(self) -> bool:
        """Whether the metric is a diversity measure (it reads subtopic qrels); parsed once per
        row (the checks read it for every input)."""
        from bench.metrics.diversity import is_diversity

        try:
            return any(is_diversity(s) for s in parse_metrics([self.metric]))
        except ConfigError:
            return False

    @property
    def label(self) -> str:
        """``tool[provider] measure``, as the report names the row."""
        where = f"{self.tool}[{self.provider}]" if self.provider else self.tool
        return f"{where} {self.measure}"


def _rows(tool: str, profile: str, pairs: tuple[tuple[str, str], ...],
          provider: str = "") -> tuple[EvaluatorRow, ...]:
    return tuple(EvaluatorRow(tool, m, metric, profile, provider) for m, metric in pairs)


_TREC = (("ndcg", "ndcg"), ("ndcg_cut_10", "ndcg@10"), ("map", "map"), ("map_cut_10", "map@10"),
         ("P_10", "p@10"), ("recall_10", "recall@10"), ("recip_rank", "mrr"),
         ("success_1", "hits@1"), ("Rprec", "rprec"), ("bpref", "bpref"), ("set_P", "set_p"),
         ("set_recall", "set_recall"), ("set_F", "set_f"))
_IR_TREC = (("nDCG@10", "ndcg@10"), ("nDCG", "ndcg"), ("AP", "map"), ("AP@10", "map@10"),
            ("RR", "mrr"), ("P@10", "p@10"), ("R@10", "recall@10"), ("Success@1", "hits@1"),
            ("Rprec", "rprec"), ("Bpref", "bpref"), ("SetP", "set_p"), ("SetR", "set_recall"),
            ("SetF", "set_f"))
_IR_RANX = (("nDCG@10", "ndcg@10"), ("AP", "map"), ("RR", "mrr"), ("P@10", "p@10"),
            ("R@10", "recall@10"), ("Success@1", "hits@1"), ("Rprec", "rprec"))
#: ndeval's measures as ir_measures runs them (pyndeval: the qrels' iteration column is the
#: subtopic), against the same ir_measures spellings in ltrbench (ties by document id
#: ascending, as pyndeval sorts them); ndeval's cutoffs stop at 20.
_IR_DIVERSITY = (("alpha_nDCG@5", "alpha_nDCG@5"), ("alpha_nDCG@20", "alpha_nDCG@20"),
                 ("alpha_nDCG(alpha=0.8)@10", "alpha_nDCG(alpha=0.8)@10"),
                 ("nERR_IA@20", "nERR_IA@20"))
_RANX = (("ndcg@10", "ndcg@10"), ("ndcg", "ndcg"), ("map", "map"), ("map@10", "map@10"),
         ("precision@10", "p@10"), ("recall@10", "recall@10"), ("mrr", "mrr"),
         ("mrr@10", "mrr@10"), ("hit_rate@10", "hit_rate@10"), ("r-precision", "rprec"),
         ("bpref", "bpref"), ("f1@10", "f1@10"))
_TORCH = (("retrieval_normalized_dcg(top_k=10)", "ndcg@10"), ("retrieval_average_precision", "map"),
          ("retrieval_precision(top_k=10)", "p@10"), ("retrieval_recall(top_k=10)", "recall@10"),
          ("retrieval_reciprocal_rank", "mrr"))
_TFR = (("NDCGMetric(k=10)", "ndcg@10"), ("MRRMetric(k=10)", "mrr@10"),
        ("MeanAveragePrecisionMetric(k=10)", "map@10"), ("PrecisionMetric(k=10)", "p@10"),
        ("RecallMetric(k=10)", "recall@10"))

#: A value printed with 5 decimals is within 5e-6 of the true one (and float rounding on top).
_FIVE_DECIMALS = 5e-6 + 1e-12
_GDEVAL = "gdeval.pl prints 5 decimals (printf '%.5f'); it refuses query ids that are not numbers"

#: Every row the cross-check knows: tool, the tool's measure, the ltrbench metric, its profile.
TABLE: tuple[EvaluatorRow, ...] = (
    *_rows("pytrec_eval", "trec_eval", _TREC),
    *_rows("ir_measures", "trec_eval-c", _IR_TREC, "pytrec_eval"),
    *_rows("ir_measures", "ranx", _IR_RANX, "ranx"),
    EvaluatorRow("ir_measures", "nDCG(dcg='exp-log2')@10", "ndcg@10", "ranx-burges", "ranx"),
    EvaluatorRow("ir_measures", "nDCG(dcg='exp-log2')@10", "ndcg@10", "gdeval", "gdeval",
                 _GDEVAL, _FIVE_DECIMALS),
    EvaluatorRow("ir_measures", "ERR@10", "err@10", "gdeval", "gdeval", _GDEVAL, _FIVE_DECIMALS),
    EvaluatorRow("ir_measures", "Judged@10", "judged@10", "trec_eval-c", "judged"),
    *_rows("ir_measures", "trec_eval-c", _IR_DIVERSITY, "pyndeval"),
    EvaluatorRow("ir_measures", "RR@10", "mrr@10", "msmarco", "msmarco",
                 "MS MARCO's MRR@10: ties by document id ascending, float64"),
    EvaluatorRow("ir_measures", "RR", "mrr", "msmarco", "msmarco"),
    *_rows("ranx", "ranx", _RANX),
    EvaluatorRow("ranx", "ndcg_burges@10", "ndcg@10", "ranx-burges"),
    EvaluatorRow("sklearn", "ndcg_score(k=10)", "ndcg@10", "sklearn"),
    EvaluatorRow("sklearn", "ndcg_score", "ndcg", "sklearn"),
    EvaluatorRow("sklearn", "dcg_score(k=10)", "dcg@10", "sklearn"),
    EvaluatorRow("sklearn", "ndcg_score(k=10, ignore_ties=True)", "ndcg@10",
                 "sklearn-ignore-ties", note="only tie-free queries are defined"),
    EvaluatorRow("sklearn", "roc_auc_score", "auc", "sklearn"),
    *_rows("torchmetrics", "torchmetrics", _TORCH),
    *_rows("tf-ranking", "tf-ranking", _TFR),
    *_rows("allrank", "allrank", (("ndcg(k=10)", "ndcg@10"), ("mrr(k=10)", "mrr@10"))),
)


#: What ``evaluators.md`` / ``.json`` say of the diversity rows, and ``--tools`` when it names
#: ndeval's measures as a tool (they are ir_measures' ``pyndeval`` provider's rows).
DIVERSITY_NOTE = (
    "the diversity measures (ir_measures' alpha_nDCG and nERR_IA through its pyndeval provider, "
    "ndeval's definitions; ltrbench's alpha_ndcg and nerr_ia) need subtopic qrels ('qid "
    "subtopic docno rel', subtopics from 1): their rows compare the inputs that have them (the "
    "built-in 'graded' case, or a --qrels file in that format) and skip the others")
#: Names a user may give ``--tools`` for the diversity measures: the tool to name instead.
TOOL_OF: dict[str, str] = {name: "ir_measures" for name in (
    "pyndeval", "ndeval", "alpha_ndcg", "alpha_nDCG", "nerr_ia", "nERR_IA", "NERR_IA")}


def row_gap(row: EvaluatorRow) -> str | None:
    """Why ``row`` cannot be compared in this ltrbench (its profile or metric is missing), or
    ``None``."""
    if row.profile not in PROFILES:
        return f"profile {row.profile!r} does not exist in this ltrbench yet (issue 23)"
    try:
        parse_metrics([row.metric])
    except ConfigError:
        return f"metric {row.metric!r} does not exist in this ltrbench yet (issue 23)"
    return None


@dataclass(frozen=True)
class EvaluatorInput:
    """One qrels and run that every tool evaluates: a built-in case or the user's files."""

    name: str
    qrels: QrelsDict
    run: RunDict
    description: str = ""
    #: subtopic judgments (:func:`~bench.crosscheck.evaluator_tools.subtopic_key`), read by the
    #: diversity rows; ``None``: they skip this input. ``qrels`` empty: only they read it.
    subtopics: QrelsDict | None = None

    @property
    def n_queries(self) -> int:
        """Queries of the qrels or the run."""
        return len(set(self.qrels) | set(self.run))


def _graded(seed: int, n_queries: int, ties: bool) -> tuple[QrelsDict, RunDict]:
    """Queries of 1 to 30 documents, labels 0..3 (every third query without a relevant one),
    scores distinct (or from a few values, ``ties``), every document judged."""
    rng = np.random.default_rng(seed)
    qrels: QrelsDict = {}
    run: RunDict = {}
    for i in range(n_queries):
        n = int(rng.integers(1, 31))
        labels = rng.integers(0, 4, n) * (rng.random(n) < 0.4)
        if i % 3 == 1:
            labels[:] = 0
        scores = rng.integers(0, 4, n) / 4 if ties else rng.permutation(n) / n + i
        q = str(101 + i)
        docs = [f"d{q}-{j + 1:02d}" for j in range(n)]
        qrels[q] = {d: int(y) for d, y in zip(docs, labels, strict=True)}
        run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
    return qrels, run


def _subtopics(qrels: QrelsDict) -> QrelsDict:
    """Subtopic judgments from graded ones: the j-th document of label y covers the y
    subtopics ``(j + i) % 3 + 1`` (i < y), so documents share and miss subtopics; a label 0 is
    one judgment 0 of subtopic 1."""
    out: QrelsDict = {}
    for q, docs in qrels.items():
        mine = out.setdefault(q, {})
        for j, (d, y) in enumerate(docs.items()):
            for i in range(max(min(y, 3), 1)):
                mine[subtopic_key((j + i) % 3 + 1, d)] = int(y > 0)
    return out


def _trec_like() -> tuple[QrelsDict, RunDict]:
    """Unjudged retrieved documents, judged documents never retrieved, a qrels query without a
    run line and a run query without qrels."""
    qrels, run = _graded(11, 8, ties=False)
    for i, q in enumerate(list(run)):
        run[q][f"d{q}-u1"] = 0.5 + i  # unjudged
        qrels[q][f"d{q}-x1"] = 1 + i % 2  # judged, not retrieved
    qrels["190"] = {"d190-01": 1, "d190-02": 0}
    run["191"] = {"d191-01": 1.0}
    return qrels, run


def probe_cases() -> list[EvaluatorInput]:
    """The built-in cases (used when no data is given)."""
    graded = _graded(3, 12, ties=False)
    subtopics = _subtopics(graded[0])
    tied = _graded(5, 10, ties=True)
    trec = _trec_like()
    return [
        EvaluatorInput("graded", *graded, "12 queries of 1 to 30 documents, labels 0-3, "
                       "distinct scores, every third query without a relevant document; for "
                       "the diversity rows, subtopic qrels: a document of label y covers y of "
                       "3 subtopics (one judgment 0 where y = 0)", subtopics),
        EvaluatorInput("ties", *tied, "10 queries whose scores take four values (ties between "
                       "relevant and non-relevant documents)"),
        EvaluatorInput("trec", *trec, "unjudged retrieved documents, judged documents not "
                       "retrieved, a qrels query without a run line, a run query without qrels"),
    ]
