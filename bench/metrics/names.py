"""Metric names: parse ``"ndcg@10"``, ``"ndcg_cut_10"``, ``"nDCG(dcg='exp-log2')@10"`` into specs.

Three grammars are accepted, names case-insensitive, items separated by commas or white space
(not inside brackets or quotes; so a name and its ``@k`` take no space between them; an empty
name between commas is refused, :mod:`bench.metrics.name_tokens`), every
character ASCII (a look-alike such as fullwidth ``ＮＤＣＧ`` is an unknown metric naming it)::

    item      := [ profile ":" ] name | k          # a bare k continues the previous name
    name      := ltrbench | trec_eval | ir_measures
    ltrbench  := family [ "(" x ")" ] [ "@" k ]     # ndcg@10, map, p@5, NDCG@10, R@10, rbp(0.95)@10
    trec_eval := measure [ ("_" | ".") param ]      # ndcg_cut_10, ndcg_cut.5,10, P_5, Rprec_mult_0.20
    ir_measures := Name [ "(" key=value, ... ")" ] [ "@" k ]   # P(rel=2)@5, SetF, Success@10

**What a name means** is what its tool means: an ltrbench name is computed under the profile of
the call (``evaluate(..., profile=...)``); a trec_eval name under the ``trec_eval`` profile; an
ir_measures name under :data:`~bench.metrics.peer_names.IR_MEASURES_PROFILE`, its parameters
(``rel=``, ``gains=``, ``dcg=``) as profile overrides (see :mod:`bench.metrics.peer_names`).
``profile:name`` (``trec_eval:ndcg@10``, ``lightgbm:ndcg_cut_10``) computes any name under
the named profile instead (with the name's overrides). When the call gives its profile
explicitly, :func:`bench.metrics.qualified.resolve` applies it to the peer names of its tool's
family and refuses the others (issue 19: never a silent mix of conventions).

**When grammars coincide** the spelling decides, case included: a name spelled as ltrbench
spells it -- lower case (``map``, ``ndcg@10``, ``ap``, ``rr@10``, ``recip_rank``, ``bpref``) or
a table header (``NDCG@10``, ``MAP@10``, ``MRR``, ``P@10``, ``R@10``, ``ERR@10``, ``Rprec``,
``set_P``) -- is the ltrbench name; one spelled exactly as trec_eval or ir_measures spells the
measure and as no ltrbench name (``nDCG@10``, ``AP``, ``RR@10``, ``Bpref``, ``RPrec``,
``Precision@5``, ``Recall@10``) is that tool's; any other case (``NdCg@10``) is read in the order
ltrbench, trec_eval, ir_measures. trec_eval's bare ``P`` and ``recall`` are therefore ltrbench's
precision and recall over the whole list (table headers), not trec_eval's nine default cutoffs.
An ir_measures name in another case than ir_measures' (which refuses it) in letters of an
ltrbench or trec_eval measure (``ndcg()@10``, ``map()``, ``success@2``) is refused
(:mod:`bench.metrics.name_hints`).
``evaluate_trec``'s default profile is ``trec_eval``, where the ltrbench spellings mean what
trec_eval means. trec_eval comes before ir_measures for ``success`` (trec_eval's cutoffs 1, 5, 10).

``"ndcg@1,3,5,10,map@10"`` is ``ndcg@1, ndcg@3, ndcg@5, ndcg@10, map@10``; ``"ndcg_cut.5,10"``
is ``ndcg_cut_5, ndcg_cut_10``. An ltrbench name without ``@k`` is over the whole list, unless
the profile has a ``default_k`` (XGBoost truncates a bare ``ndcg``/``map``/``pre`` at 32:
``rank_metric.cc:219-228``, ``ranking_utils.h:66-127``). ``rmse`` and ``mae`` are pointwise and
take no ``@k``; nor do ``bpref``, the set measures, the counts, ``auc`` and ``gauc``. A
family's real parameter is written in brackets (``rbp(0.95)@10``, ``iprec_at_recall(0.1)``;
``Family.param``): a decimal number in its range, left out for its default (RBP's 0.8); a
family whose parameter has no default, spelled without it (``iprec_at_recall``,
``Rprec_mult``), is trec_eval's name: its default list of parameters.

A spec's ``name`` is its canonical spelling, which parses back to the same spec: ``p@10`` for
``precision@10``, the tool's spelling for a peer name (``ndcg_cut_10``, ``P(rel=2)@5``), with
``profile:`` in front when the profile is not the one the spelling implies. Its ``label`` (the
key of every result) is the user's own spelling: ``recip_rank``, ``NDCG@10``, ``ndcg_cut.10``
(a bare cutoff continues the previous spelling: ``NDCG@5,10`` gives ``NDCG@5``, ``NDCG@10``).
Two spellings of one metric are two keys; a repeated spelling is one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from bench.errors import ConfigError
from bench.metrics.families import FAMILIES, check_families, family_aliases, family_headers
from bench.metrics.name_hints import as_written, refuse_folded_case, refuse_not_one_name, suggest
from bench.metrics.name_hints import measure_hint as _measure_hint
from bench.metrics.name_tokens import cutoff_stem, named_twice
from bench.metrics.name_tokens import tokens as _tokens
from bench.metrics.peer_names import (
    IR_MEASURES,
    MAX_CUTOFF,
    QRELS_ONLY,
    TREC_EVAL,
    Reading,
    check_cutoff,
    ir_reading,
    read_ir_measures,
    read_trec_eval,
    refuse_measure_set,
    refuse_parameters_after_cutoff,
    trec_reading,
    without_leading_zero,
)
from bench.metrics.peer_params import Overrides
from bench.metrics.profiles import PROFILES, get_profile
from bench.metrics.ranx_spellings import (
    RANX_EXAMPLES,
    qualified_ranx,
    ranx_level,
    ranx_spelling,
)

#: Ranking metric families (canonical names) and what they compute.
RANKING_FAMILIES: dict[str, str] = {f.name: f.meaning for f in FAMILIES.values() if f.ranking}
#: Pointwise metrics (no ranking, no ``@k``).
POINTWISE_FAMILIES: dict[str, str] = {f.name: f.meaning for f in FAMILIES.values() if f.pointwise}
#: Families whose value on a query without relevant documents is 0/0, so that the profile's
#: ``empty`` policy decides it. The others have a natural value there (0).
NORMALISED_FAMILIES: frozenset[str] = frozenset(f.name for f in FAMILIES.values() if f.normalised)
#: The grammars, in the order that decides a name two of them read.
GRAMMARS = ("ltrbench", "trec_eval", "ir_measures")
_ITEM = re.compile(r"^(?P<family>[a-z][a-z0-9_]*)(?:\((?P<param>[0-9.]*)\))?(?:@(?P<k>[0-9]+))?$")
_CUTOFF = re.compile(r"[0-9]+")
_REAL = re.compile(r"[0-9]*\.[0-9]+")  # Rprec_mult.0.2,0.4: trec_eval's list of reals
_QUALIFIED = re.compile(r"^(?P<profile>[A-Za-z][A-Za-z0-9_.+@-]*):(?P<body>.+)$")  # xgboost@1.7:
__all__ = ["MAX_CUTOFF", "MetricSpec", "parse_metrics", "valid_metric_names"]

_Continue = Callable[[str], Reading]


@dataclass(frozen=True)
class MetricSpec:
    """One metric: ``family`` (canonical), cutoff ``k`` (``None`` = whole list), its ``name``,
    the ``profile`` it is computed under (``None``: the call's) and profile ``overrides``
    (``(field, value)`` pairs of :class:`~bench.metrics.profiles.Profile`, sorted by field).

    ``name`` is the canonical spelling (``"p@10"`` for ``"precision@10"``, ``"ndcg_cut_10"``,
    ``"trec_eval:map"``) and parses back to an equal spec. ``label`` is the user's own spelling
    (``"recip_rank"``, ``"NDCG@10"``, ``"ndcg_cut.10"``), the key of
    :attr:`EvaluationResult.metrics`. ``grammar`` is the grammar that read the name and
    ``explicit`` says whether ``profile`` came from a ``PROFILE:`` qualifier (else from the
    grammar): :func:`bench.metrics.qualified.resolve` decides from them what an explicitly given
    call profile does with the name. The last four fields do not take part in equality.
    """

    family: str
    k: int | None
    name: str
    profile: str | None = None
    overrides: Overrides = ()
    param: float | None = None
    label: str = field(default="", compare=False)
    grammar: str = field(default="ltrbench", compare=False)
    explicit: bool = field(default=False, compare=False)
    stated: Overrides = field(default=(), compare=False)  # fields the name states (peer_names)

    @property
    def key(self) -> str:
        """The output key: the user's spelling (``label``), else the canonical ``name``."""
        return self.label or self.name

    @property
    def pointwise(self) -> bool:
        """True for ``rmse`` / ``mae``."""
        return self.family in FAMILIES and FAMILIES[self.family].pointwise  # read now

    @property
    def normalised(self) -> bool:
        """True when the value on a query without relevant documents is 0/0 (see profiles)."""
        return self.family in FAMILIES and FAMILIES[self.family].normalised

    @property
    def qualified(self) -> bool:
        """True when the spec carries its own profile or overrides (not only the call's)."""
        return self.profile is not None or bool(self.overrides)


def valid_metric_names() -> str:
    """Human-readable list of accepted metric names, for error messages and ``--help``."""
    def shown(f: str) -> str:
        param = FAMILIES[f].param
        head = f + (f"({param.name})" if param is not None else "")
        return f"{head}@k" if FAMILIES[f].cutoff else head

    ranked = ", ".join(shown(f) for f in FAMILIES if FAMILIES[f].ranking)
    bare = ", ".join(f for f in FAMILIES if FAMILIES[f].ranking and FAMILIES[f].cutoff)
    aliases = ", ".join(f"{a}={c}" for a, c in sorted(family_aliases().items()))
    return (
        f"{ranked} (k a positive integer; without @k: {bare} over the whole list), "
        f"{', '.join(f for f in FAMILIES if FAMILIES[f].pointwise)}; aliases {aliases}; 'ndcg@1,3,5,10' expands; "
        "trec_eval: ndcg_cut_10, P_5, map_cut.5,10, recall_100, success_10, ...; "
        "ir_measures: nDCG@10, P(rel=2)@5, AP(rel=2), SetF, Success@10, ...; "
        "PROFILE:NAME picks the profile ('ltrbench metrics list' shows them all)"
    )


def parse_metrics(metrics: str | Iterable[str], *, repeated: str = "merge") -> list[MetricSpec]:
    """Parse metric names of any grammar into specs, in the given order, without duplicates
    (``repeated="refuse"``: a name given twice is refused, naming it, as a user's list is).

    ``metrics`` is one string (``"ndcg@1,3,5,10 map@10"``) or an iterable of such strings.
    Raises :class:`ConfigError` naming the grammars and the closest names on anything it does
    not know, and saying so when it is a peer tool's measure that ltrbench does not compute.

    >>> [s.name for s in parse_metrics("ndcg@1,3 map@10 recip_rank ndcg@3")]
    ['ndcg@1', 'ndcg@3', 'map@10', 'mrr']
    >>> parse_metrics("ndgc@10")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bench.errors.ConfigError: ...ndcg@10...
    """
    if isinstance(metrics, bytes | bytearray) or (
            not isinstance(metrics, str) and not isinstance(metrics, Iterable)):
        raise ConfigError(f"metrics is a text such as 'ndcg@10 map' or a list of them, got "
                          f"{type(metrics).__name__} {metrics!r}{_measure_hint(metrics)}")
    if isinstance(metrics, Mapping) or (isinstance(metrics, set | frozenset) and len(metrics) > 1):
        why = ("maps names to values that would be ignored" if isinstance(metrics, Mapping)
               else "has no order (the columns follow the order asked, a comparison's "
               "primary metric is the first)")  # and a str hash differs per process
        raise ConfigError(f"metrics is a {type(metrics).__name__}, which {why}: give a list or "
                          "a text such as 'ndcg@10 map'")
    items = [metrics] if isinstance(metrics, str) else list(metrics)
    for item in items:
        if not isinstance(item, str):
            raise ConfigError(f"metric names must be strings, got {type(item).__name__} "
                              f"{item!r}{_measure_hint(item)}")
    check_families()  # the table as declared now: a record added since import too
    tokens = _tokens(items)
    if not tokens:
        raise ConfigError(f"no metric names given; valid names: {valid_metric_names()}")
    out: list[MetricSpec] = []
    seen: dict[str, str] = {}  # label -> the list item that gave it ('ndcg@1,10' for ndcg@10)
    previous: tuple[_Continue, str | None, str, bool, bool] | None = None
    origin = ""
    for token in tokens:
        cutoff = _CUTOFF.fullmatch(token) or _REAL.fullmatch(token)
        origin = f"{origin},{token}" if cutoff else token
        if cutoff:
            if previous is None or (_REAL.fullmatch(token) and not previous[4]):
                raise ConfigError(  # P_5,0.5; IPrec@0.1,0.2: whole cutoffs or trec_eval reals
                    f"cutoff {token!r} does not follow a ranking metric it continues (a list "
                    "continues whole cutoffs, ndcg@5,10, or trec_eval's reals, "
                    "Rprec_mult.0.2,0.4: write each other name in full); valid names: "
                    f"{valid_metric_names()}")
            written = previous[2] + token
            readings = [as_written(written or token, previous[0], token)]
            qualifier, implied, labels = previous[1], previous[3], [written if previous[2] else ""]
        else:
            if token.startswith("@") or token.endswith("@"):
                raise ConfigError(f"unknown metric {token!r}: a name and its @cutoff are written "
                                  "without a space between them (nDCG@10, ndcg@5,10)")
            qualifier, body = _qualifier(token)
            own, body = ranx_spelling(body)  # ranx's r-precision, ndcg_burges@10
            implied = own is not None and qualifier is None  # the spelling's, not the user's
            qualifier = qualified_ranx(token, qualifier, own)
            readings, cont = as_written(token, _read, body, token)
            stem = cutoff_stem(token)
            last = readings[-1]  # Rprec_mult.0.2: a bare real continues it
            reals = last.grammar == "trec_eval" and FAMILIES[last.family].param is not None
            previous = (cont, qualifier, stem, implied, reals) if cont is not None else None
            labels = [token] if len(readings) == 1 else [""] * len(readings)
        for reading, label in zip(readings, labels, strict=True):
            spec = _spec(reading, qualifier)
            if implied:  # ndcg_burges@10: ranx's spelling implies ranx-burges; the call's
                spec = replace(spec, explicit=False, grammar="ranx")  # options still apply
            spec = replace(spec, label=label or (f"{qualifier}:{reading.spelling}"
                                                 if qualifier else reading.spelling))
            if spec.label not in seen:
                seen[spec.label] = origin
                out.append(spec)
            elif repeated == "refuse":
                raise ConfigError(named_twice(spec.label, seen[spec.label], origin))
    return out



def _qualifier(token: str) -> tuple[str | None, str]:
    m = _QUALIFIED.match(token)
    label = re.match(r"^(?P<head>[A-Za-z][^:()]*?)\s*\+[^:()]*:", token)
    if label is not None and label["head"].lower() in PROFILES:
        # trec_eval-c+relevance_threshold=2.0:map, a result's label: get_profile says so
        try:
            get_profile(token.partition(":")[0])
        except ConfigError as exc:
            raise ConfigError(f"{token!r} (PROFILE:NAME): {exc}") from None
    if m is None:
        return None, token
    profile = m.group("profile").lower()
    if profile not in PROFILES:
        if "=" in m.group("body"):  # NDCG:top=10;type=Base, CatBoost's spelling of a metric
            raise ConfigError(
                f"unknown metric {token!r}: CatBoost's metric spellings (NDCG:top=10;type=Exp, "
                "MAP:top=10, PrecisionAt:top=10) are not metric names here; write "
                "catboost:ndcg@10 (CatBoost's type=Exp), catboost:map@10, catboost:p@10 "
                "('ltrbench metrics list' shows every name)")
        if profile.rpartition("-")[2] in ("blank0", "blank1") or "@" in profile:  # a csv label,
            try:
                get_profile(profile)  # or a release (xgboost@2.1.4): get_profile says which
            except ConfigError as exc:
                raise ConfigError(f"{token!r} (PROFILE:NAME): {exc}") from None
        raise ConfigError(f"unknown profile {m.group('profile')!r} in {token!r} (PROFILE:NAME); "
                          f"valid profiles: {', '.join(PROFILES)}")
    return profile, m.group("body")


def _read(body: str, token: str) -> tuple[list[Reading], _Continue | None]:
    """The readings of one name (ltrbench, else trec_eval, else ir_measures) and how a bare
    number after it continues it (``None`` after a pointwise metric)."""
    lt = _read_ltrbench(body)
    if lt is not None and not _ltrbench_exact(body):
        peer = _read_peer_exact(body)  # nDCG@10, AP, RR: ir_measures' own spelling
        if peer is not None:
            return peer
    if lt is not None:
        family, lt_param = lt.family, lt.param
        cont = None if FAMILIES[family].pointwise else (lambda k: _ltrbench(family, k, lt_param))
        return [lt], cont
    trec = read_trec_eval(body)
    if trec is not None:
        measure = trec[1]
        return trec[0], (lambda k: trec_reading(measure, k))
    refuse_measure_set(body)  # all_trec, official: trec_eval's -m sets
    refuse_parameters_after_cutoff(body)  # nDCG@10(gains=...): nDCG(gains=...)@10
    fixed = without_leading_zero(body)  # P(rel=2)@05, Judged@05: ir_measures' @5
    ir = read_ir_measures(body if fixed is None else fixed)
    if ir is not None:
        _, ir_measure, params = ir
        refuse_folded_case(token, body, ir[0], ir_measure)  # ndcg()@10: ir_measures refuses it
        return [ir[0]], (lambda k: ir_reading(ir_measure, params, check_cutoff(k, k)))
    if body.endswith("-") and _read_ltrbench(body[:-1]) is not None:
        # XGBoost's ndcg@10- / map- (a group without relevant documents scores 0): a profile
        raise ConfigError(f"unknown metric {token!r}: XGBoost's '-' suffix (a query without "
                          "relevant documents scores 0) is the profile xgboost-: write "
                          f"xgboost-:{body[:-1]} (or --profile xgboost- with {body[:-1]})")
    level = re.fullmatch(r"(?P<base>.+)-l(?P<level>[0-9]+)", body)
    if level is not None and _read_ltrbench(ranx_spelling(level["base"].lower())[1]) is not None:
        ranx_level(token, level["base"], int(level["level"]))  # ndcg_burges@10-l2: an option
    refuse_not_one_name(token, body)  # ndcg@10;map, a profile label cut at its comma
    raise ConfigError(f"unknown metric {token!r}; valid names: {valid_metric_names()} "
                      f"(it is not a name of {', '.join(GRAMMARS)}){_suggest(body)}")


def _ltrbench_exact(body: str) -> bool:
    """True when ``body`` is spelled as ltrbench spells it: lower case (``ndcg@10``, ``ap``,
    ``recip_rank``) or a table header (``NDCG@10``, ``MAP@10``, ``MRR``, ``P@10``, ``Rprec``)."""
    if _ITEM.match(body) is not None:
        return True
    return body.partition("@")[0].partition("(")[0] in family_headers()


def _read_peer_exact(body: str) -> tuple[list[Reading], _Continue | None] | None:
    """The trec_eval or ir_measures reading of ``body`` when it is spelled exactly (case
    included) as that tool spells the measure, e.g. ``nDCG@10``, ``AP``, ``RR@10``, ``Bpref``;
    else ``None``. Such a name means what its tool means, not what the ltrbench name that the
    same letters in another case spell means."""
    trec = read_trec_eval(body)
    if trec is not None and body.startswith(trec[1].name):
        measure = trec[1]
        return trec[0], (lambda k: trec_reading(measure, k))
    fixed = without_leading_zero(body)  # nDCG@05: ir_measures' nDCG@5, not ltrbench's ndcg@5
    ir = read_ir_measures(body if fixed is None else fixed)
    if ir is None:
        return None
    _, measure, params = ir
    head = re.split(r"[(@]", body.strip(), maxsplit=1)[0].strip()
    if head not in (measure.name, *measure.aliases):
        return None
    return [ir[0]], (lambda k: ir_reading(measure, params, check_cutoff(k, k)))


def _read_ltrbench(body: str) -> Reading | None:
    m = _ITEM.match(body.lower())
    if m is None:
        return None
    family = family_aliases().get(m.group("family"), m.group("family"))
    if family not in FAMILIES:  # read now: a family declared after import is a name too
        return None
    k = m.group("k")
    spec = FAMILIES[family].param
    if spec is not None and spec.default is None and m.group("param") is None:
        return None  # iprec_at_recall, Rprec_mult without (x): trec_eval's default list
    if spec is None and m.group("param") is not None:
        return None  # ndcg(1): not an ltrbench name (ir_measures says why)
    if k is not None and FAMILIES[family].pointwise:
        raise ConfigError(f"{family} is pointwise and takes no @k (got {body!r})")
    if k is not None and not FAMILIES[family].cutoff:
        raise ConfigError(f"{family} is over the whole list and takes no @k (got {body!r})")
    return _ltrbench(family, k, _param(family, m.group("param"), body))


def _param(family: str, text: str | None, body: str) -> float | None:
    """The parameter of ``rbp(0.95)``: a decimal number in the family's range; ``None`` for
    the default (a required one missing is an error)."""
    spec = FAMILIES[family].param
    if spec is None:
        if text is not None:
            raise ConfigError(f"{family} takes no parameter (got {body!r})")
        return None
    if text is None:
        if spec.default is None:
            raise ConfigError(f"{family} needs its {spec.name}: {family}(0.5) (got {body!r})")
        return None
    if not re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", text):
        raise ConfigError(f"the parameter of {body!r} must be a decimal number such as 0.5")
    v = spec.check(float(text), body)
    return None if v == spec.default else v


def param_text(value: float | None) -> str:
    """``"(0.95)"`` for a parameter, ``""`` for none (the family's default)."""
    return "" if value is None else f"({value!r})"


def _ltrbench(family: str, k: str | None, param: float | None = None) -> Reading:
    head = family + param_text(param)
    if k is None:
        return Reading(family, None, None, (), head, "ltrbench", param)
    if not FAMILIES[family].cutoff:
        raise ConfigError(f"{family} is over the whole list and takes no cutoff (got {k})")
    kk = check_cutoff(k, f"{family}@{k}")
    return Reading(family, kk, None, (), f"{head}@{kk}", "ltrbench", param)


def _spec(reading: Reading, qualifier: str | None) -> MetricSpec:
    """The spec of a reading under an explicit ``profile:`` and its canonical name."""
    r = reading if qualifier is None else replace(reading, profile=qualifier)
    return MetricSpec(r.family, r.k, _name(r, reading.profile), r.profile, r.overrides,
                      r.param, grammar=reading.grammar, explicit=qualifier is not None,
                      stated=reading.stated)


def _name(r: Reading, implied: str | None) -> str:
    """Canonical spelling: the grammar's, with ``profile:`` when the profile is not the one the
    spelling implies; a peer spelling another grammar reads first becomes ``profile:ltrbench``."""
    if r.grammar == "ltrbench":
        return r.spelling if r.profile is None else f"{r.profile}:{r.spelling}"
    if _grammar_of(r.spelling) == r.grammar:
        return r.spelling if r.profile == implied else f"{r.profile}:{r.spelling}"
    assert not r.overrides, r
    head = r.family + param_text(r.param)
    plain = head if r.k is None else f"{head}@{r.k}"
    return f"{r.profile}:{plain}"


def _grammar_of(spelling: str) -> str:
    if _read_ltrbench(spelling) is not None and (
            _ltrbench_exact(spelling) or _read_peer_exact(spelling) is None):
        return "ltrbench"
    trec = read_trec_eval(spelling)
    if trec is not None and (_read_ltrbench(spelling) is None or spelling.startswith(trec[1].name)):
        return "trec_eval"
    return "ir_measures"


def _suggest(body: str) -> str:
    """``"; did you mean ..."``: the closest names that parse (:func:`name_hints.suggest`)."""
    return suggest(body, _parses)


def _parses(name: str) -> bool:
    try:
        parse_metrics(name)
    except ConfigError:
        return False
    return True


def describe_names() -> list[dict[str, str]]:
    """Every accepted spelling, one row per (family, grammar): ``family``, ``grammar``,
    ``spelling`` (pattern), ``example`` (a name that parses), ``meaning``, ``profile`` (what the
    example is computed under: ``"the call's"``, ``trec_eval``, ...). ``ltrbench metrics list``
    prints it; the example is parsed here, so the profile column is the grammar's own answer."""
    rows: list[dict[str, str]] = []

    def add(family: str, grammar: str, spelling: str, example: str) -> None:
        spec = parse_metrics(example)[0]
        meaning = FAMILIES[family].meaning if family in FAMILIES else QRELS_ONLY[family] + \
            " (TREC qrels and runs only)"
        if spec.grammar != grammar and grammar in ("trec_eval", "ir_measures"):
            # ERR@10, P@10, R@10: spelled as ltrbench's table headers, read as ltrbench's
            meaning += (f"; this spelling is read as the {spec.grammar} name (computed under "
                        f"{spec.profile or 'the call' + chr(39) + 's'} profile), not as "
                        f"{grammar}'s own measure")
        if spec.overrides:
            meaning += "; profile overrides " + ", ".join(
                f"{f}={v!r}" if not isinstance(v, tuple) else
                f"{f}=({', '.join(f'{g:g}' for g in v[:4])}, ...)" for f, v in spec.overrides)
        rows.append({"family": family, "grammar": grammar, "spelling": spelling,
                     "example": example, "name": spec.name, "meaning": meaning,
                     "profile": spec.profile or "the call's"})

    for fam in FAMILIES.values():
        par = fam.param is not None and fam.param.default is None  # iprec_at_recall(x)
        ex = "(0.5)" if par else ""
        pat = f"({fam.param.name})" if fam.param is not None else ""
        if fam.pointwise or not fam.cutoff:
            add(fam.name, "ltrbench", fam.name + pat, fam.name + ex)
        else:
            add(fam.name, "ltrbench", f"{fam.name}{pat}@k, {fam.name}{pat}", f"{fam.name}{ex}@10")
        for alias in sorted(a for a, c in family_aliases().items() if c == fam.name):
            add(fam.name, "ltrbench", alias + pat + ("@k" if fam.cutoff and fam.ranking else ""),
                alias + ex + ("@10" if fam.cutoff and fam.ranking else ""))
        if fam.ranking and fam.header.lower() != fam.name:
            head = fam.header + ("@k" if fam.cutoff else "")
            add(fam.name, "ltrbench", f"{head} (table header)", head.replace("@k", "@10"))
    for family, spelling, example in RANX_EXAMPLES:  # ranx's own: r-precision, ndcg_burges@k
        add(family, "ranx", spelling, example)
    for m in TREC_EVAL:
        if m.family is None:
            continue
        if m.cutoff == "param":
            add(m.family, "trec_eval", f"{m.name}_k, {m.name}.k1,k2", f"{m.name}_10")
        elif m.cutoff == "real":
            add(m.family, "trec_eval", f"{m.name}_x, {m.name} (its default list)",
                f"{m.name}_0.20")
        else:
            add(m.family, "trec_eval", m.name, m.name)
    for m in IR_MEASURES:
        if m.family is None:
            continue
        if m.cutoff == "recall":
            add(m.family, "ir_measures", f"{m.name}@recall", f"{m.name}@0.1")
            continue
        at = {"none": "", "optional": "[@k]", "required": "@k"}[m.cutoff]
        params = f"({', '.join(p + '=' for p in m.params)})" if m.params else ""
        call = "(rel=1)" if m.name == "RBP" else ""  # ir_measures' RBP without rel= is graded
        example = m.name + call + ("@10" if m.cutoff != "none" else "")
        add(m.family, "ir_measures", f"{m.name}{params}{at}", example)
        if "rel" in m.params:
            fam_rel = "num_rel_ret" if m.name == "NumRet" else m.family  # NumRet(rel=n)
            add(fam_rel, "ir_measures", f"{m.name}(rel=n){at}",
                f"{m.name}(rel=2)" + ("@10" if m.cutoff != "none" else ""))
    add("ndcg", "ir_measures", "nDCG(gains={label:gain})[@k]", "nDCG(gains={0:0,1:1,2:3})@10")
    add("ndcg", "ir_measures", "nDCG(dcg='exp-log2')@k (gdeval)", "nDCG(dcg='exp-log2')@10")
    add("ndcg", "qualified", "PROFILE:NAME", "lightgbm:ndcg@10")
    return rows


def refused_names() -> dict[str, list[str]]:
    """The peer tools' measures that ltrbench refuses (it does not compute them)."""
    return {"trec_eval": [m.name for m in TREC_EVAL if m.family is None],
            "ir_measures": [m.name for m in IR_MEASURES if m.family is None]}
