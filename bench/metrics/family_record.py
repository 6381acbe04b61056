"""The record of a metric family (:class:`Family`), what its formula reads (:class:`Inputs`) and
its real parameter (:class:`Param`); the families themselves are in
:mod:`bench.metrics.families` and :mod:`bench.metrics.more_families`."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
from numpy.typing import NDArray

from bench.errors import ConfigError
from bench.metrics.kernels.components import with_param
from bench.metrics.profile import Profile

Array = NDArray[np.float64]
#: Components computed at a family's parameter (keyed ``name=param``).
_PARAM_COMPONENTS = frozenset({"rprec_mult", "rbp", "rbp_residual", "iprec"})


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
        r_list: relevant documents among the scored ones; ``param``: the family's parameter.
    """

    comp: Mapping[str, Array]
    n: Array
    r: Array
    k: int | None
    profile: Profile
    r_list: Array | None = None
    param: float | None = None

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
#: How a family's per-query values become one number: ``mean`` (weighted by the query
#: weights), ``sum`` (trec_eval's and ir_measures' counts), ``geometric`` (``exp`` of the mean
#: of the per-query values, which are logarithms: trec_eval ``gm_map``), ``documents`` (the
#: mean weighted by each query's document count, blank queries always left out: GAUC).
Mean = Literal["mean", "sum", "geometric", "documents"]
#: Which queries are blank (0/0) for a family (see :class:`Family`).
Blank = Literal["no_relevant", "no_gain", "no_nonrelevant", "one_class", "no_label", "no_pair"]
#: The per-query weight of a family's mean (``None``: the query weights), see ``Family.weight``.
Weight = Callable[[Inputs], Array | None]


@dataclass(frozen=True)
class Param:
    """A family's real parameter: its ``name``, its ``default`` (``None``: it must be given),
    its range ``low <= v <= high`` (``open_low``: ``low < v``; ``open_high``: ``v < high``) and
    how trec_eval prints it (``trec``: ``"{:.2f}"`` for ``iprec_at_recall_0.10``)."""

    name: str
    default: float | None
    low: float
    high: float
    open_low: bool = False
    open_high: bool = False
    trec: str = "{:.2f}"

    def __post_init__(self) -> None:
        """A range that holds a value, and a default inside it (a bare name is computed at the
        default, which no name checks)."""
        if not self.low <= self.high:
            raise ConfigError(f"parameter {self.name!r} (Param record): low {self.low!r} is above "
                              f"high {self.high!r}")
        if self.default is not None:
            try:
                self.check(self.default, f"parameter {self.name!r} (Param record) default")
            except ConfigError as exc:
                raise ConfigError(f"{exc}: a bare name is computed at the default") from None

    def check(self, value: float, what: str) -> float:
        """``value`` as a float in range, else a :class:`ConfigError` naming ``what``."""
        v = float(value)
        if not (self.low < v if self.open_low else self.low <= v) or not (
                v < self.high if self.open_high else v <= self.high):
            lo = "(" if self.open_low else "["
            hi = ")" if self.open_high else "]"
            raise ConfigError(f"{what}: {self.name} must be in {lo}{self.low:g}, {self.high:g}{hi}, "
                              f"got {value!r}")
        return v


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
        blank_when: the queries that are blank for it: ``"no_relevant"`` (no relevant document),
            ``"no_gain"`` (no document with a positive gain: NDCG, DCG, ERR),
            ``"no_nonrelevant"`` (no judged non-relevant document: fall-out), ``"one_class"``
            (no pair of a relevant and a judged non-relevant document: AUC), ``"no_label"``
            (labels summing to 0: ARP) or ``"no_pair"`` (no two different labels: OPA).
        normalised: its value on a blank query is 0/0, decided by the profile's ``empty``;
            else it keeps its natural value there (0) except under ``empty=None``.
        blank_scores_one: "a blank query scores 1" is a meaningful alternative (best value 1),
            reported among the diagnostics' blank policies.
        cutoff: takes ``@k`` (else always over the whole list).
        error: pointwise families only: the per-document error of ``score - label``;
            ``root``: the value is the square root of its mean (RMSE).
        param: its real parameter (:class:`Param`), or ``None``.
        mean: how its per-query values are averaged (:data:`Mean`).
        bare_whole: it takes ``@k`` but a bare name is over the whole list whatever the
            profile's ``default_k`` (``rprec``).
        ordered: it needs one order of the documents: refused under ``ties="average"``
            (a maximum over ranks has no closed-form expectation over tied orders).
        subtopics: it needs subtopic (diversity) qrels: computed by
            :mod:`bench.metrics.diversity` from TREC qrels and a run, never by the kernels.
        weight: the per-query weight its mean uses, from its :class:`Inputs` (it may read the
            profile): multiplied by the query weights under ``mean="mean"``, alone under
            ``mean="documents"``; ``None``, or a return of ``None``: the query weights
            (``documents``: the document counts).
        lower_is_better: True for the families whose best value is the lowest (ARP: a rank;
            RMSE, MAE: errors; fall-out: the non-relevant share retrieved);
            a run comparison picks its best run by it.
        unit_interval: every per-query value lies in [0, 1] whatever the profile, the labels
            (gains are never negative in a run) or the cutoff: a run holding a value outside
            is damaged (NDCG, MAP, precision, ...; not DCG, RMSE, ARP or the counts).
    """

    name: str
    header: str
    meaning: str
    components: tuple[str, ...] = ()
    finish: Finish | None = None
    blank_when: Blank = "no_relevant"
    normalised: bool = False
    blank_scores_one: bool = False
    cutoff: bool = True
    aliases: tuple[str, ...] = ()
    more_components: Callable[[Profile], tuple[str, ...]] | None = None
    error: Callable[[Array], Array] | None = None
    root: bool = False
    param: Param | None = None
    mean: Mean = "mean"
    bare_whole: bool = False
    ordered: bool = False
    subtopics: bool = False
    weight: Weight | None = None
    lower_is_better: bool = False
    unit_interval: bool = False

    def __post_init__(self) -> None:
        check_record(self)

    @property
    def pointwise(self) -> bool:
        """True for the families of per-document errors (rmse, mae): no ranking, no ``@k``."""
        return self.error is not None

    @property
    def ranking(self) -> bool:
        """True for the families computed on a ranking (most take ``@k``: see ``cutoff``)."""
        return not self.pointwise

    def components_for(self, profile: Profile, param: float | None = None) -> tuple[str, ...]:
        """The components this family needs under ``profile`` (at ``param``, for the
        components named with a parameter: :func:`~bench.metrics.kernels.components.with_param`)."""
        more = self.more_components(profile) if self.more_components is not None else ()
        return tuple(with_param(c, param) if c in _PARAM_COMPONENTS else c
                     for c in (*self.components, *more))


#: A family's name as the metric grammar reads it (``name@k``, :mod:`bench.metrics.names`).
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_FLAGS = ("normalised", "blank_scores_one", "cutoff", "root", "bare_whole", "ordered",
          "subtopics", "lower_is_better", "unit_interval")


def check_record(f: Family) -> None:
    """A :class:`Family` whose fields have their types and values, else a ConfigError naming the
    record and the field: a name the grammar reads, tuples of names, a known blank rule and
    mean, flags that are bools, a formula (``finish``) or a per-document ``error``."""
    where = f"metric family {f.name!r} (Family record)"
    if not isinstance(f.name, str) or not _NAME.fullmatch(f.name):
        raise ConfigError(f"{where}: name must be lower-case ASCII letters, digits and '_', "
                          f"starting with a letter (metric names are read as name@k); got {f.name!r}")
    for key in ("header", "meaning"):
        if not isinstance(getattr(f, key), str) or not getattr(f, key).strip():
            raise ConfigError(f"{where}: {key} must be a non-empty text; got {getattr(f, key)!r}")
    for key in ("components", "aliases"):
        v = getattr(f, key)
        if not isinstance(v, tuple) or not all(isinstance(c, str) and c for c in v):
            raise ConfigError(f"{where}: {key} must be a tuple of names, e.g. ('hits',); got {v!r}")
    for key, valid in (("blank_when", get_args(Blank)), ("mean", get_args(Mean))):
        if getattr(f, key) not in valid:
            raise ConfigError(f"{where}: {key} {getattr(f, key)!r} is none of {', '.join(valid)}")
    for key in _FLAGS:
        if not isinstance(getattr(f, key), bool):
            raise ConfigError(f"{where}: {key} must be True or False; got {getattr(f, key)!r}")
    odd = [a for a in f.aliases if not _NAME.fullmatch(a)]
    if odd:  # names are read in lower case: 'F1x' would never be found
        raise ConfigError(f"{where}: alias {odd[0]!r} is not a name the grammar reads (lower-case "
                          "ASCII letters, digits and '_', starting with a letter)")
    for flag, needs, why in (("bare_whole", f.cutoff, "cutoff=True (it takes @k)"),
                             ("root", f.error is not None, "error (a pointwise family)")):
        if getattr(f, flag) and not needs:
            raise ConfigError(f"{where}: {flag}=True needs {why}")
    if f.finish is None and f.error is None:
        raise ConfigError(f"{where}: it has no formula: give finish (a ranking family's "
                          "per-query values) or error (a pointwise family's per-document error)")
    for key in ("finish", "error", "more_components", "weight"):
        if getattr(f, key) is not None and not callable(getattr(f, key)):
            raise ConfigError(f"{where}: {key} must be a function; got {getattr(f, key)!r}")


def map_components(profile: Profile) -> tuple[str, ...]:
    """The components AP-based families add under ``profile``: ``hits`` when AP@k is divided by
    the hits in the top k (``map_denominator="hits_k"``: torchmetrics, catalyst), read by
    :func:`map_value` for ``map`` and ``gm_map`` alike."""
    return ("hits",) if profile.map_denominator == "hits_k" else ()


def map_value(q: Inputs) -> Array:
    """AP@k divided by ``min(R, k)``, ``R`` or ``hits@k`` (``map_denominator``)."""
    den_rule = q.profile.map_denominator
    if den_rule == "hits_k":
        den = q.comp["hits"]
    else:
        den = q.r if (den_rule == "r" or q.k is None) else np.minimum(q.r, float(q.k))
    return q.ratio(q.comp["ap"], den)


def precision_denominator(q: Inputs) -> Array:
    """P@k's denominator: ``k`` or ``min(k, n)`` (``precision_denominator``); ``n`` uncut."""
    if q.k is not None and q.profile.precision_denominator == "k":
        return np.full(q.n.shape[0], float(q.k))
    return q.n if q.k is None else np.minimum(q.n, float(q.k))
