"""What a profile is: the frozen :class:`Profile`, every convention a field, validated once.

The named profiles (one per tool) are in :mod:`bench.metrics.profiles`, which also holds the
definitions every profile shares.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields

from bench.errors import ConfigError, choice_hint, spelled_choice

_GAINS = ("exp2", "linear")
_DISCOUNTS = ("log2", "letor4")
_TIES = ("stable", "average", "pessimistic", "optimistic", "random", "docno_desc", "docno_asc", "row_desc")
_BASES = ("list", "qrels")
_K_BEYOND = ("clip", "zero")
_MAP_DEN = ("min_r_k", "r", "hits_k")
_P_DEN = ("k", "min_k_n")
_DTYPES = ("float64", "float32")
_BEYOND_TABLE = ("error", "zero")
_BLANK_WEIGHT = ("query", "one")
_EMPTY_FAMILIES = ("ndcg", "map", "recall", "auc")
_MISSING = ("drop", "zero")
_RANKING_FAMILIES = ("dcg", "ndcg", "map", "mrr", "p", "recall", "err", "hits", "rprec", "bpref",
                     "set_p", "set_recall", "set_f", "judged")
_UNJUDGED = ("label0", "zero")
_REL_LEVEL = ("keep", "zero")
_PADDING = ("none", "minus_one", "negative")
_NONPOSITIVE = ("rank", "not_relevant")
_SUBTOPIC_GAIN = ("binary", "label")
_LIST_WEIGHT = ("query", "denominator")
_PAIR_TIES = ("rank", "wrong")
_GAUC_WEIGHT = ("documents", "relevant")
_AP_TIES = ("ties", "threshold")
_SINGLE = ("warn", "refuse")


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
            ids the row number stands in, higher first); ``"docno_asc"`` document id ascending
            (ir_measures' Judged: ``sorted(run[q].items(), key=lambda x: (-x[1], x[0]))``,
            ``providers/judged_provider.py``; without ids, row order); ``"row_desc"`` the higher row number
            first (scikit-learn ``ignore_ties=True``: ``np.argsort(y_score)[:, ::-1]``,
            ``_ranking.py:1702``).
        empty: value of NDCG, AP and recall on a query without relevant documents (0/0):
            ``1.0``, ``0.0``, or ``None`` = left out of the mean (NaN per query). Metrics with a
            natural value there (DCG, P, RR, ERR, hits: 0) keep it, except under ``None``, which
            leaves blank queries out of every ranking metric (one query set per evaluation).
        empty_by_family: per-family exceptions to ``empty``, ``(("map", 0.0),)``: CatBoost
            scores a blank query 1 in NDCG but 0 in MAP. Families: ndcg, map, recall, auc; a
            value may be ``None`` (left out: sklearn's ``roc_auc_score`` refuses one class).
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
        binary_labels_for_binary_metrics: the families of ``binary_label_families`` accept
            only labels 0/1 (XGBoost's ``CheckPreLabels``; torchmetrics'
            ``_check_retrieval_target_and_prediction_types``).
        binary_label_families: those families: AP and P@k for XGBoost; every torchmetrics
            retrieval function but NDCG (it refuses a target above 1, and would take a fraction
            such as 0.5 as relevant in AP and RR, as half a hit in P and recall).
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
        missing_by_family: per-family exceptions to ``missing``, ``(("ndcg", "zero"),)``: MS
            Recommenders averages ``ndcg_at_k`` over every user of the ground truth but precision,
            recall and MAP over the users common to both frames. Families: those of
            :mod:`bench.metrics.families` that rank (not rmse/mae).
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
        query_weights: ``"use"`` the query (or row) weights given, or ``"ignore"`` them: an
            unweighted mean whatever the input carries (XGBoost 1.x ``rank_metric.cc:225``,
            ``sum / ngroups``), or ``"float32_mean"``: LightGBM's, the row weights as float32
            (``label_t``) and a query's weight their float32 sum in row order divided by the
            row count in float32 (``Metadata::CalculateQueryWeights``), or ``"float32"``: the
            query weights rounded to float32 (XGBoost's and CatBoost's group weights), or
            ``"not_in_tool"``: used as given, but the tool takes no weights at all (trec_eval,
            ranx, RecBole ...): a weighted mean it cannot print, said by a ``ToolWeightsWarning``.
        unweighted_families: the families whose mean ignores the query weights whatever
            ``query_weights`` says (CatBoost's MAP, PrecisionAt, RecallAt and QueryAUC take no
            group weight, its NDCG and MRR do).
        run_depth: trec_eval ``-M N``: only the top ``N`` documents of each query's ranking (in
            the profile's order: ``score_dtype``, then ``ties``) are evaluated; the rest are
            dropped before any metric, and under ``idcg_basis="qrels"`` a dropped judged
            document counts as judged and not retrieved (``form_res_rels.c``: the run is sorted,
            then ``num_results`` is cut to ``max_num_docs_per_topic``). ``None``: every
            document. Under ``ties="average"`` a tied group that straddles rank ``N`` has no
            top ``N`` and is an error naming the query.
        judged_only: trec_eval ``-J``: scored documents without a judgment (or with a negative
            one) are dropped from the ranking before any metric, after ``run_depth``
            (``form_res_rels.c``, ``judged_docs_only_flag``: the judged documents keep their
            order, the ranks close up). TREC input only: labelled rows are all judged. A query
            left without a document scores as one the run does not rank (R from the qrels).
        rel_level: what the relevance level ``relevance_threshold`` does to gains: ``"keep"``
            (trec_eval ``-l N``: it decides only binary relevance, NDCG keeps every label's
            gain, ``m_ndcg.c``) or ``"zero"`` (ranx ``rel_lvl``: a judgment below the level is
            removed, ``ranx/metrics/common.py`` ``clean_qrels``, so it gains 0 as well).
        padding: labels that mark padding rows of a dense batch, dropped before anything else:
            ``"none"`` (a negative label is an error), ``"minus_one"`` (label ``-1`` exactly:
            allRank ``PADDED_Y_VALUE``, ``allrank/models/metrics.py``
            ``__apply_mask_and_get_true_sorted_by_preds``; other negatives stay errors) or
            ``"negative"`` (every label below 0: TF-Ranking ``utils.is_label_valid``, masked in
            ``metrics_impl.py`` ``_prepare_and_validate_params``). A padding row's score is not
            read (NaN and infinity allowed); a query with padding rows only is a query without
            documents: it scores the profile's blank value (``empty``) and counts as any blank
            query does. Padding rows with per-row weights are refused. One reading on every
            input path: a DataFrame's padding row may have a NaN score, and a TREC qrels
            judgment the rule reads as padding makes its retrieved document padding (it leaves
            the ranking, :func:`bench.metrics.dropped_rows.padding_judgments`), where
            trec_eval would keep it ranked as unjudged.
        nonpositive_scores: ``"rank"`` (a score is only a rank) or ``"not_relevant"``
            (torchmetrics >= 1.7.4, PR #3160: ``torch.where(preds > 0, target, 0)`` in
            ``retrieval/precision.py``, ``reciprocal_rank.py``, ``average_precision.py``,
            ``recall.py``): a relevant document scored <= 0 keeps its rank and its gain (NDCG,
            DCG) but is no hit in P, AP, RR, hits and recall, while ``R`` (recall's denominator,
            the blank-query test) still counts it (:mod:`bench.metrics.score_rules`).
        subtopic_gain: a subtopic label's gain in alpha-DCG (``evaluate(subtopics=...)``):
            ``"binary"`` (1 when ``label >= relevance_threshold``: ndeval, pyndeval) or
            ``"label"`` (the label itself, its decay ``(1 - alpha)^(sum of the labels above)``:
            TF-Ranking ``_alpha_dcg_gain_fn``, :mod:`bench.metrics.diversity_labels`).
        list_weight: how ARP and OPA weigh a query in their mean: ``"query"`` (its weight:
            the mean of the per-query ratios; pytorchltr ``evaluation/arp.py`` returns one ARP
            per list) or ``"denominator"`` (its weight times its ratio's denominator -- the sum
            of its labels for ARP, its pairs of different labels for OPA -- so the mean is
            ``sum w num / sum w den`` and a blank query weighs 0: TF-Ranking
            ``metrics_impl.py`` ``ARPMetric`` / ``OPAMetric`` (lines 531-536, 737-742 at
            053cdcd) return that denominator as the per-list weight, the ``sample_weight`` of
            the Keras mean, ``keras/metrics.py`` line 193).
        pair_ties: OPA's pair of different labels and equal scores: ``"rank"`` (as ``ties``
            ranks them: 1/2 under ``"average"``, else the order the tie rule makes) or
            ``"wrong"`` (never correct: TF-Ranking ``OPAMetric``, ``pair_pred_diff > 0``,
            ``metrics_impl.py`` line 732;
            rax ``opa_metric``: "pairs with equal scores are considered incorrectly ordered").
        gauc_weight: GAUC's weight of a query's AUC: ``"documents"`` (its ranked documents,
            Zhou et al., KDD 2018) or ``"relevant"`` (its relevant ranked documents: RecBole
            ``recbole/evaluator/metrics.py`` ``GAUC.metric_info``,
            ``(user_auc * pos_len_list).sum() / pos_len_list.sum()``).
        ap_ties: how AP (``map``, ``gm_map``) takes documents of equal score: ``"ties"`` as
            ``ties`` orders them, or ``"threshold"``, scikit-learn's ``average_precision_score``:
            precision and recall are read at each distinct score (``_binary_clf_curve``'s
            thresholds, ``sklearn/metrics/_ranking.py``), so every relevant document of a
            tied group takes the precision at the group's last position, whatever ``ties`` says
            (scores 0.5, 0.5, 0.5, 0.1 of labels 1, 0, 0, 1: AP (1/3 + 2/4) / 2 = 0.4167, where
            the average over the tied orders is 0.5556). The NumPy kernel computes it.
        auc_labels: how the tool reads a query's labels for ``auc``: ``"threshold"``
            (relevant: ``label >= relevance_threshold``) or ``"two_classes"`` (scikit-learn's
            ``roc_auc_score``: ``y_true`` of two values, the larger the positive class; three
            or more values refused: ``multi_class must be in ('ovo', 'ovr')``). Under
            ``"two_classes"`` a query the threshold reads otherwise (labels 0, 1, 2; or 1, 2)
            is scored by the threshold and said (:class:`bench.metrics.diagnostics.AucLabelsWarning`).
        description: what the profile reproduces, with sources.
    """

    name: str
    gain: str | tuple[float, ...] = "exp2"
    discount: str = "log2"
    ties: str = "average"
    empty: float | None = None
    empty_by_family: tuple[tuple[str, float | None], ...] = ()
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
    binary_label_families: tuple[str, ...] = ("map", "p")
    blank_ndcg_weight: str = "query"
    clamp_ndcg_mean: bool = False
    err_max_grade: int = 4
    tie_seed: int = 0
    missing: str = "drop"
    missing_by_family: tuple[tuple[str, str], ...] = ()
    unjudged_gain: str = "label0"
    arithmetic_dtype: str = "float64"
    discount_base: float = 2.0
    query_weights: str = "use"
    unweighted_families: tuple[str, ...] = ()
    run_depth: int | None = None
    judged_only: bool = False
    rel_level: str = "keep"
    padding: str = "none"
    nonpositive_scores: str = "rank"
    subtopic_gain: str = "binary"
    list_weight: str = "query"
    pair_ties: str = "rank"
    gauc_weight: str = "documents"
    ap_ties: str = "ties"
    single_document_by_family: tuple[tuple[str, str], ...] = ()
    tool_tie_order: str = "reproduced"
    auc_labels: str = "threshold"
    description: str = ""

    def __post_init__(self) -> None:
        _check_types(self)  # before any rule reads a field: "no" is no bool, "10" no cutoff
        if isinstance(self.gain, (tuple, list)):
            gains = tuple(float(g) for g in self.gain)
            if not gains or any(not (g >= 0) for g in gains):
                raise ConfigError(f"profile {self.name!r}: a gain table needs gains >= 0")
            object.__setattr__(self, "gain", gains)
        else:
            _check(self, "gain", _GAINS, "or a tuple of per-label gains")
        _check(self, "discount", _DISCOUNTS)
        _check(self, "ties", _TIES)
        _check(self, "idcg_basis", _BASES)
        _check(self, "k_beyond_n", _K_BEYOND)
        _check(self, "map_denominator", _MAP_DEN)
        _check(self, "precision_denominator", _P_DEN)
        _check(self, "score_dtype", _DTYPES)
        _check(self, "labels_beyond_gain_table", _BEYOND_TABLE)
        _check(self, "blank_ndcg_weight", _BLANK_WEIGHT)
        _check(self, "missing", _MISSING)
        _check(self, "unjudged_gain", _UNJUDGED)
        _check(self, "arithmetic_dtype", _DTYPES)
        _check(self, "query_weights", ("use", "ignore", "float32_mean", "float32", "not_in_tool"))
        _check(self, "rel_level", _REL_LEVEL)
        _check(self, "padding", _PADDING)
        _check(self, "nonpositive_scores", _NONPOSITIVE)
        _check(self, "subtopic_gain", _SUBTOPIC_GAIN)
        _check(self, "list_weight", _LIST_WEIGHT)
        _check(self, "pair_ties", _PAIR_TIES)
        _check(self, "gauc_weight", _GAUC_WEIGHT)
        _check(self, "ap_ties", _AP_TIES)
        _check(self, "tool_tie_order", ("reproduced", "not_reproduced"))
        _check(self, "auc_labels", ("threshold", "two_classes"))
        _check_options(self)
        base = self.discount_base
        if isinstance(base, bool) or not isinstance(base, (int, float)) or not (1.0 < base < math.inf):
            raise ConfigError(
                f"profile {self.name!r}: discount_base must be a finite number above 1, got {base!r}"
            )
        object.__setattr__(self, "discount_base", float(base))
        if self.empty is not None and self.empty not in (0.0, 1.0):
            raise ConfigError(f"profile {self.name!r}: empty must be 0.0, 1.0 or None")
        by_family = tuple((str(f), None if v is None else float(v)) for f, v in self.empty_by_family)
        if self.empty_by_family and (self.empty is None or any(
                f not in _EMPTY_FAMILIES or v not in (0.0, 1.0, None) for f, v in by_family)):
            raise ConfigError(
                f"profile {self.name!r}: empty_by_family maps {', '.join(_EMPTY_FAMILIES)} to "
                "0.0, 1.0 or None (left out), and needs empty set (not None)"
            )
        object.__setattr__(self, "empty_by_family", by_family)
        for field_name, policies in (("missing_by_family", _MISSING),
                                     ("single_document_by_family", _SINGLE)):
            object.__setattr__(self, field_name, self._family_policies(field_name, policies))
        if self.default_k is not None and self.default_k < 1:
            raise ConfigError(f"profile {self.name!r}: default_k must be a positive integer")
        if self.gain == "exp2" and (self.max_label is None or self.max_label > 31):
            raise ConfigError(
                f"profile {self.name!r}: exp2 gain needs max_label <= 31 (2^l - 1 must be exact)"
            )
        if not 0 <= self.err_max_grade <= 31:
            raise ConfigError(f"profile {self.name!r}: err_max_grade must be in 0..31")


    def _family_policies(self, field_name: str,
                         policies: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
        """The field ``field_name`` (pairs of a ranking family and one of ``policies``) as a tuple
        of text pairs; a ConfigError naming the field and the first pair that is neither."""
        pairs = tuple((str(f), str(v)) for f, v in getattr(self, field_name))
        for fam, policy in pairs:
            if fam not in _RANKING_FAMILIES or policy not in policies:
                raise ConfigError(
                    f"profile {self.name!r}: {field_name} maps a ranking family "
                    f"({', '.join(_RANKING_FAMILIES)}) to {' or '.join(policies)}, got "
                    f"({fam!r}, {policy!r})"
                )
        return pairs
    def empty_for(self, family: str) -> float | None:
        """What a blank query scores in ``family``: its ``empty_by_family`` entry, else ``empty``."""
        return dict(self.empty_by_family).get(family, self.empty)

    def missing_for(self, family: str) -> str:
        """What happens to a qrels query without a run line in ``family``: its
        ``missing_by_family`` entry, else ``missing`` (``"drop"`` or ``"zero"``)."""
        return dict(self.missing_by_family).get(family, self.missing)

    def describe(self) -> dict[str, object]:
        """The profile as a plain dict (for JSON output and manifests)."""
        out: dict[str, object] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


#: Fields that are True or False / a whole number or None (with its least value) / a finite
#: number (``None`` allowed where the field is optional) / text.
_BOOLS = ("integer_labels", "binary_labels_for_binary_metrics", "clamp_ndcg_mean")
_INTS = {"default_k": 1, "max_label": 0, "err_max_grade": 0}
_NUMBERS = {"relevance_threshold": False, "max_relevant_label": True, "empty": True}
_TEXTS = ("name", "description")


def _check_types(p: Profile) -> None:
    """Each field of ``p`` built by hand of its declared type, never coerced (``"no"`` would be
    true, ``"1"`` a threshold, ``1.5`` a cutoff): a NumPy number or an Enum member is its plain
    value (:func:`bench.data.python_args.plain_scalar`: ``np.bool_(True)`` is ``True``, as in
    ``RunConfig``; ``np.int64(1)`` is no flag); anything else is a ConfigError naming the
    field and what it takes."""
    from bench.data.python_args import plain_scalar

    for f in fields(p):
        object.__setattr__(p, f.name, plain_scalar(getattr(p, f.name)))

    def refuse(name: str, expected: str) -> None:
        raise ConfigError(f"profile {p.name!r}: {name} must be {expected}; got "
                          f"{getattr(p, name)!r} ({type(getattr(p, name)).__name__})")

    for name in _TEXTS:
        if not isinstance(getattr(p, name), str):
            refuse(name, "text (a str)")
    for name in _BOOLS:
        if not isinstance(getattr(p, name), bool):
            refuse(name, "True or False")
    for name, least in _INTS.items():
        v = getattr(p, name)
        if (v is not None or name == "err_max_grade") and (
                isinstance(v, bool) or not isinstance(v, int) or v < least):
            refuse(name, f"a whole number >= {least}" + ("" if name == "err_max_grade" else
                                                         " or None"))
    for name, optional in _NUMBERS.items():
        v = getattr(p, name)
        if not (v is None and optional) and not _finite(v):
            refuse(name, "a finite number" + (" or None" if optional else ""))
    if isinstance(p.gain, tuple | list):
        gains = [plain_scalar(g) for g in p.gain]
        if not all(_finite(g) for g in gains):
            refuse("gain", "'exp2', 'linear' or a tuple of finite numbers >= 0 (one per label)")
        object.__setattr__(p, "gain", tuple(gains))
    for name in ("binary_label_families", "unweighted_families"):
        fams = getattr(p, name)
        if not isinstance(fams, tuple | list) or not all(isinstance(f, str) for f in fams):
            refuse(name, "a tuple of metric families, such as ('map', 'p')")
        object.__setattr__(p, name, tuple(fams))
    for name in ("empty_by_family", "missing_by_family", "single_document_by_family"):
        v = getattr(p, name)
        if not isinstance(v, tuple | list) or not all(
                isinstance(pair, tuple | list) and len(pair) == 2 for pair in v):
            refuse(name, "a tuple of (family, value) pairs, such as (('map', 0.0),)")


def _finite(v: object) -> bool:
    """Whether ``v`` is a finite real number (not a bool, not text)."""
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _check_options(p: Profile) -> None:
    """``run_depth`` is ``None`` or a whole number >= 1; ``judged_only`` a bool."""
    depth = p.run_depth
    if depth is not None:
        if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
            raise ConfigError(f"profile {p.name!r}: run_depth (trec_eval -M) must be a whole "
                              f"number >= 1, or None for every document; got {depth!r}")
        object.__setattr__(p, "run_depth", int(depth))
        if p.ties == "random":
            raise ConfigError(f"profile {p.name!r}: run_depth with ties='random' is not "
                              "supported (the cut and the ranking of what is left would draw "
                              "two tie orders); choose stable, docno_desc, ... for run_depth")
    seed = p.tie_seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        # None would draw a new order from the operating system on every call; True is no seed
        raise ConfigError(f"profile {p.name!r}: tie_seed (the seed of ties='random') must be a "
                          f"whole number >= 0, the same seed giving the same order; got {seed!r}")
    object.__setattr__(p, "tie_seed", int(seed))
    if not isinstance(p.judged_only, bool):
        raise ConfigError(f"profile {p.name!r}: judged_only (trec_eval -J) must be True or "
                          f"False, got {p.judged_only!r}")


def _check(p: Profile, field: str, valid: tuple[str, ...], extra: str = "") -> None:
    """``p.<field>`` one of ``valid``; a case variant (``ties="Stable"``) read as its spelling
    and said once (:func:`bench.errors.spelled_choice`), anything else refused with a hint."""
    value = spelled_choice(getattr(p, field), valid, f"profile {p.name!r}: {field}")
    if value not in valid:
        raise ConfigError(f"profile {p.name!r}: unknown {field} {value!r}; "
                          f"{choice_hint(value, valid)}valid: {', '.join(map(str, valid))} "
                          f"{extra}".rstrip())
    object.__setattr__(p, field, value)
