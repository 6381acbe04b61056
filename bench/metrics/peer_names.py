"""The metric names of two peer tools, trec_eval and ir_measures, read as ltrbench metrics.

:mod:`bench.metrics.names` owns the grammar and the resolution order; this module owns the two
peer tables (one row per measure: the tool's spelling, the ltrbench family it is, its cutoff
rule) and turns one token of either grammar into :class:`Reading` s.

* **trec_eval** (9.0.8, as bundled by pytrec_eval): the measure list is ``te_trec_measures`` in
  ``measures.c``; a measure takes parameters as ``-m name.p1,p2`` or ``name_p1`` (pytrec_eval's
  spelling, ``py/__init__.py``); ``ndcg_cut``, ``map_cut``, ``P``, ``recall`` without parameter
  mean the cutoffs 5, 10, 15, 20, 30, 100, 200, 500, 1000 (``m_ndcg_cut.c``, ``m_map_cut.c``,
  ``m_P.c``, ``m_recall.c``), ``success`` 1, 5, 10 (``m_success.c``); ``set_F``'s parameter is
  beta (``m_set_F.c``). A trec_eval name is evaluated under the ``trec_eval`` profile.
* **ir_measures** (0.4.3): ``Name(param=value, ...)@cutoff`` read as a Python expression
  (``util.py:328-361``, ``parse_measure``); the names, aliases and parameters are those of
  ``measures/*.py`` (``nDCG`` ``ndcg.py:17-22``, ``AP`` ``ap.py:18-22``, ``P`` ``p.py:17-21``,
  ...). ``rel=``, ``gains=`` and ``dcg=`` become :class:`Profile` overrides:
  ``rel=n`` is ``relevance_threshold=n`` (pytrec_eval's ``relevance_level``,
  ``providers/pytrec_eval_provider.py:62-98``); ``gains={l: g}`` is a gain table where a label
  without an entry gains its own value (trec_eval ``gain_init.c:58-72``; labels 0..31);
  ``dcg='exp-log2'`` is gdeval's NDCG (``providers/gdeval_provider.py``, ``bin/gdeval.pl``:
  gain ``2^l - 1``, judgments above 4 rejected, scores as doubles). An ir_measures name is
  evaluated under :data:`IR_MEASURES_PROFILE`.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

from bench.data.big_ints import digit_count
from bench.errors import ConfigError
from bench.metrics.families import FAMILIES
from bench.metrics.peer_params import Overrides, ir_literal, ir_overrides, stated_fields

#: Largest cutoff ``@k`` accepted (int32, what the kernels' rank arithmetic is safe with).
MAX_CUTOFF = 2**31 - 1
#: The profile of a trec_eval name.
TREC_EVAL_PROFILE = "trec_eval"
#: The profile of an ir_measures name. ir_measures scores a qrels query missing from the run 0
#: (``providers/base.py:18-27``), as trec_eval with ``-c`` does: the ``trec_eval-c`` profile.
IR_MEASURES_PROFILE = "trec_eval-c"
#: trec_eval's default cutoffs of ``P``, ``recall``, ``ndcg_cut``, ``map_cut`` (``m_P.c``).
_TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)



@dataclass(frozen=True)
class Reading:
    """One metric as a grammar reads it: family, cutoff, profile (``None``: the call's),
    profile overrides (sorted by field), and the grammar's own spelling of it."""

    family: str
    k: int | None
    profile: str | None
    overrides: Overrides
    spelling: str
    grammar: str
    param: float | None = None
    #: the profile fields the name states itself, defaults included (``P(rel=1)``:
    #: ``relevance_threshold`` 1.0; ``judged_only=False``), whether or not they are overrides:
    #: a call option that sets the field otherwise contradicts the name
    #: (:func:`bench.metrics.qualified.resolve`)
    stated: Overrides = ()

    @property
    def core(self) -> tuple[str, int | None, str | None, Overrides, float | None]:
        """What the metric is, whatever its spelling."""
        return (self.family, self.k, self.profile, self.overrides, self.param)


@dataclass(frozen=True)
class PeerMeasure:
    """A peer tool's measure: its spelling, the ltrbench family (``None``: not computed here),
    its cutoff rule (``"none"``, ``"optional"``, ``"required"``; trec_eval: ``"param"``, or
    ``"real"`` for the family's real parameter, ``Rprec_mult_0.20``; ir_measures: ``"recall"``,
    ``IPrec@0.1``), the cutoffs (``reals``: parameters) of the bare name (trec_eval), and the
    keyword parameters it takes (ir_measures)."""

    name: str
    family: str | None
    cutoff: str = "none"
    defaults: tuple[int, ...] = ()
    params: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    reals: tuple[float, ...] = ()


TREC_EVAL: tuple[PeerMeasure, ...] = (
    PeerMeasure("ndcg", "ndcg"),
    PeerMeasure("ndcg_cut", "ndcg", "param", _TREC_CUTOFFS),
    PeerMeasure("map", "map"),
    PeerMeasure("map_cut", "map", "param", _TREC_CUTOFFS),
    PeerMeasure("P", "p", "param", _TREC_CUTOFFS),
    PeerMeasure("recall", "recall", "param", _TREC_CUTOFFS),
    PeerMeasure("recip_rank", "mrr"),
    PeerMeasure("success", "hits", "param", (1, 5, 10)),
    PeerMeasure("Rprec", "rprec"),
    PeerMeasure("bpref", "bpref"),
    PeerMeasure("set_P", "set_p"),
    PeerMeasure("set_recall", "set_recall"),
    PeerMeasure("set_F", "set_f", "beta"),
    PeerMeasure("num_ret", "num_ret"),
    PeerMeasure("num_rel", "num_rel"),
    PeerMeasure("num_rel_ret", "num_rel_ret"),
    PeerMeasure("num_q", "num_q"),
    PeerMeasure("set_map", "set_map"),
    PeerMeasure("gm_map", "gm_map"),
    PeerMeasure("infAP", "infap"),
    PeerMeasure("Rprec_mult", "rprec_mult", "real",
                reals=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    PeerMeasure("iprec_at_recall", "iprec_at_recall", "real",
                reals=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)),
    *(PeerMeasure(n, None) for n in (
        "runid",
        "relstring", "gm_bpref", "utility", "11pt_avg", "binG", "G",
        "ndcg_rel", "Rndcg", "relative_P", "set_relative_P", "num_nonrel_judged_ret",
        "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
        "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
        "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
        "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap",
    )),
)

_REL = ("rel", "judged_only")
IR_MEASURES: tuple[PeerMeasure, ...] = (
    PeerMeasure("nDCG", "ndcg", "optional", params=("dcg", "gains", "judged_only"),
                aliases=("NDCG",)),
    PeerMeasure("AP", "map", "optional", params=_REL, aliases=("MAP",)),
    PeerMeasure("RR", "mrr", "optional", params=_REL, aliases=("MRR",)),
    PeerMeasure("P", "p", "required", params=_REL, aliases=("Precision",)),
    PeerMeasure("R", "recall", "required", params=_REL, aliases=("Recall",)),
    PeerMeasure("Success", "hits", "required", params=_REL),
    PeerMeasure("ERR", "err", "optional"),
    PeerMeasure("Rprec", "rprec", params=_REL, aliases=("RPrec",)),
    PeerMeasure("Bpref", "bpref", params=("rel",), aliases=("BPref",)),
    PeerMeasure("SetP", "set_p", params=("rel", "relative", "judged_only")),
    PeerMeasure("SetR", "set_recall", params=("rel",)),
    PeerMeasure("SetF", "set_f", params=("rel", "beta", "judged_only")),
    PeerMeasure("Judged", "judged", "optional"),
    PeerMeasure("NumRet", "num_ret", params=("rel",)),  # with rel=: NumRelRet (ir_measures)
    PeerMeasure("NumRel", "num_rel", params=("rel",)),
    PeerMeasure("NumRelRet", "num_rel_ret", params=("rel",)),
    PeerMeasure("NumQ", "num_q"),
    PeerMeasure("SetAP", "set_map", params=("rel",)),
    PeerMeasure("IPrec", "iprec_at_recall", "recall", params=("rel",)),
    PeerMeasure("RBP", "rbp", "optional", params=("p", "rel")),
    PeerMeasure("infAP", "infap", params=("rel",)),
    PeerMeasure("alpha_nDCG", "alpha_ndcg", "required", params=("alpha", "rel", "judged_only")),
    PeerMeasure("nERR_IA", "nerr_ia", "required", params=_REL),
    PeerMeasure("P_IA", "precision_ia", "required", params=_REL),  # pyndeval P-IA
    *(PeerMeasure(n, None) for n in (
        "AP_IA", "Accuracy", "BPM", "Compat", "ERR_IA", "INSQ", "INST", "MAP_IA",
        "NERR8", "NERR9", "NERR10", "NERR11", "NRBP",
        "SDCG", "SetRelP", "StRecall", "alpha_DCG",
        "nNRBP",
    )),
)
#: Families computed from TREC qrels only (which documents are judged): ``evaluate_trec`` computes
#: them; an evaluation of labelled rows, where every row is judged, refuses them.
QRELS_ONLY: dict[str, str] = {
    "judged": "fraction of the top k that has a relevance judgment (ir_measures Judged@k)",
}

_TREC_BY = {m.name.lower(): m for m in TREC_EVAL}
_TREC_ORDER = sorted(_TREC_BY, key=len, reverse=True)
_IR_BY = {n.lower(): m for m in IR_MEASURES for n in (m.name, *m.aliases)}
_TREC_PARAM = re.compile(r"[0-9][0-9.=]*")
_DECIMAL_CUTOFF = re.compile(r"\s*[0-9]+\s*")  # no sign: ndcg@+5 is no name


def check_cutoff(k: str | int, what: str) -> int:
    """``k`` as a cutoff in ``1..MAX_CUTOFF``, else a ConfigError naming ``what``."""
    long = isinstance(k, str) and digit_count(k.strip()) > len(str(MAX_CUTOFF))
    kk = MAX_CUTOFF + 1 if long else int(k)  # 5000 digits: no int() (bench.data.big_ints)
    if not 1 <= kk <= MAX_CUTOFF:
        shown = what if len(str(what)) <= 60 else f"{str(what)[:40]}...({len(str(what))} characters)"
        raise ConfigError(f"cutoff must be an integer in 1..{MAX_CUTOFF}, got {shown}")
    return kk


def peer_names() -> list[str]:
    """Every spelling of both tables that ltrbench computes (for suggestions)."""
    return [n for m in (*TREC_EVAL, *IR_MEASURES) if m.family is not None
            for n in (m.name, *m.aliases)]


# -- trec_eval ---------------------------------------------------------------------------------

def read_trec_eval(token: str) -> tuple[list[Reading], PeerMeasure] | None:
    """A trec_eval token (``ndcg_cut_10``, ``P.5``, ``ndcg_cut``) as readings, with its measure
    (so that a following bare number continues it); ``None`` if it is not a trec_eval name."""
    low = token.lower()
    for name in _TREC_ORDER:
        if low == name:
            measure, param = _TREC_BY[name], None
            break
        if low.startswith(name) and low[len(name):len(name) + 1] in ("_", ".") and \
                _TREC_PARAM.fullmatch(low[len(name) + 1:]):
            measure, param = _TREC_BY[name], low[len(name) + 1:]
            break
    else:
        return None
    if measure.family is None:
        raise ConfigError(f"trec_eval measure {measure.name!r} ({token!r}) is not computed by "
                          f"ltrbench; trec_eval names it computes: {_computed(TREC_EVAL)}")
    if param is None:
        if measure.cutoff == "param" and measure.defaults:
            return [trec_reading(measure, str(k)) for k in measure.defaults], measure
        if measure.cutoff == "real":
            return [trec_reading(measure, repr(x)) for x in measure.reals], measure
        return [trec_reading(measure, None)], measure
    return [trec_reading(measure, param)], measure


def trec_reading(measure: PeerMeasure, param: str | None) -> Reading:
    """One trec_eval measure with one parameter (a cutoff, or set_F's beta)."""
    assert measure.family is not None
    if param is None:
        return Reading(measure.family, None, TREC_EVAL_PROFILE, (), measure.name, "trec_eval")
    if measure.cutoff == "real":
        return _real_reading(measure, param)
    if measure.cutoff == "beta":
        if float(param) != 1.0:
            raise ConfigError(f"trec_eval set_F with beta {param}: ltrbench computes beta 1 only")
        return Reading(measure.family, None, TREC_EVAL_PROFILE, (), measure.name, "trec_eval")
    if measure.cutoff != "param" or not param.isdigit():
        hint = " (custom gains: ir_measures nDCG(gains={0:0,1:1,2:3}))" if measure.name == "ndcg" \
            else ""
        raise ConfigError(f"trec_eval measure {measure.name!r} takes no parameter {param!r} in "
                          f"ltrbench{hint}")
    k = check_cutoff(param, f"{measure.name}_{param}")
    return Reading(measure.family, k, TREC_EVAL_PROFILE, (), f"{measure.name}_{k}", "trec_eval")


def _real_reading(measure: PeerMeasure, param: str) -> Reading:
    """``Rprec_mult_0.20``, ``iprec_at_recall_0.10``: the family at a real parameter, spelled
    as trec_eval prints it (two decimals where they say it exactly)."""
    assert measure.family is not None
    try:
        x = float(param)
    except ValueError:
        raise ConfigError(f"trec_eval {measure.name}_{param}: the parameter is a decimal number "
                          f"such as {measure.name}_0.20") from None
    spec = FAMILIES[measure.family].param
    assert spec is not None
    x = spec.check(x, f"trec_eval {measure.name}_{param}")
    shown = f"{x:.2f}" if float(f"{x:.2f}") == x else repr(x)
    return Reading(measure.family, None, TREC_EVAL_PROFILE, (), f"{measure.name}_{shown}",
                   "trec_eval", None if x == spec.default else x)


# -- ir_measures -------------------------------------------------------------------------------

def _refuse_positional(tree: ast.Call, token: str) -> None:
    """A call with a positional argument: an ltrbench name with a parameter its grammar does
    not read (``rbp(nan)``, ``rprec_mult(-1)``, ``rbp(1e-400)``: digits and a point only) is
    refused as that name, not as an ir_measures name (that message named ``Name(p=v)`` syntax
    to a user who wrote ``rbp(p)``); anything else as ir_measures' grammar."""
    name = tree.func.id.lower() if isinstance(tree.func, ast.Name) else ""
    fam = FAMILIES.get(name)
    if fam is not None and fam.param is not None:
        example = fam.param.default if fam.param.default is not None else 0.5
        raise ConfigError(f"{token.strip()!r}: the parameter of {name}({fam.param.name}) is a "
                          f"number written in decimal digits and a point, such as "
                          f"{name}({example}) (no sign, exponent, nan or inf; ir_measures "
                          "parameters are named, Name(p=v)@k)")
    raise ConfigError(f"ir_measures parameters are named, Name(p=v)@k; got {token!r}")


#: trec_eval's measure sets (``-m all_trec``; ``measures.c`` ``te_trec_measure_nicknames``,
#: which pytrec_eval takes too): a set of measures, not one; refused by name.
TREC_EVAL_SETS = {
    "all_trec": "every trec_eval measure",
    "official": "trec_eval's official measures (num_q, num_ret, num_rel, num_rel_ret, map, "
                "gm_map, Rprec, bpref, recip_rank, iprec_at_recall, P)",
    "set": "trec_eval's set measures (set_P, set_recall, set_F, set_map, ...)",
    "qrels_jg": "trec_eval's measures over judgment groups",
}


def refuse_measure_set(token: str) -> None:
    """A trec_eval measure set given as a metric name (``all_trec``, ``official``: trec_eval
    ``-m all_trec``) is a :class:`ConfigError` naming the form: ltrbench takes measures one by
    one (``--metrics map P_5 ndcg_cut_10``), never a set whose content depends on the tool's
    release."""
    what = TREC_EVAL_SETS.get(token.strip().lower())
    if what is not None:
        raise ConfigError(f"{token.strip()!r} is a trec_eval measure set (-m {token.strip()}: "
                          f"{what}), not a metric: name the measures one by one, e.g. --metrics "
                          "map P_5 ndcg_cut_10 ('ltrbench metrics list' shows every name)")


_PARAMS_AFTER = re.compile(r"\s*(?P<head>[A-Za-z_]\w*)\s*@\s*(?P<k>[0-9]+)\s*\((?P<params>.*)\)\s*")


def refuse_parameters_after_cutoff(token: str) -> None:
    """``nDCG@10(gains={...})``, an ir_measures measure whose parameters follow the cutoff, is
    a :class:`ConfigError` naming the order ir_measures reads (``Name(params)@k``,
    ``util.py`` ``parse_measure``), never an "unknown metric" followed by every name."""
    m = _PARAMS_AFTER.fullmatch(token)
    if m is not None and m["head"].lower() in _IR_BY:
        raise ConfigError(f"{token.strip()!r}: ir_measures writes a measure's parameters before "
                          f"its cutoff: {m['head']}({m['params']})@{m['k']}")


_LEADING_ZERO = re.compile(r"\s*(?P<head>[A-Za-z_]\w*)\s*(?:\(.*\))?\s*@\s*(?P<k>0[0-9]+)\s*")


def without_leading_zero(token: str) -> str | None:
    """A name spelled as ir_measures spells a measure (case included: ``nDCG``, ``AP``, ``RR``)
    whose cutoff has a leading zero (``nDCG@05``), with the zeros dropped (``nDCG@5``); else
    ``None``. ir_measures' own parser refuses the spelling (``util.py`` ``parse_measure`` reads
    a name as Python, where ``05`` is no number); read as an ltrbench name it would be computed
    under the call's profile, not ir_measures' (``nDCG@05`` under trec_eval beside ``nDCG@5``
    under trec_eval-c: two numbers for one measure). It is read as the measure it spells, as
    ``ndcg_cut_05`` is trec_eval's ``ndcg_cut_5`` (``atol``)."""
    m = _LEADING_ZERO.fullmatch(token)
    if m is None:
        return None
    measure = _IR_BY.get(m["head"].lower())
    if measure is None or m["head"] not in (measure.name, *measure.aliases):
        return None
    return f"{token[:m.start('k')]}{int(m['k'])}".strip()


def read_ir_measures(token: str) -> tuple[Reading, PeerMeasure, dict[str, object]] | None:
    """An ir_measures token (``nDCG(dcg='exp-log2')@10``) as a reading, with its measure and
    parameters (so that a following bare number continues it); ``None`` if it is not one."""
    try:
        with warnings.catch_warnings():  # '10inf', 'P@5and': Python's own warnings on the
            warnings.simplefilter("ignore")  # text ("invalid decimal literal") are no line
            tree = ast.parse(token.strip(), mode="eval").body  # of ltrbench's
    except SyntaxError:
        return None
    cutoff: object = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        try:
            cutoff = ast.literal_eval(tree.right)
        except ValueError:
            return None
        tree = tree.left
    params: dict[str, object] = {}
    if isinstance(tree, ast.Call):
        if tree.args or any(kw.arg is None for kw in tree.keywords):
            _refuse_positional(tree, token)
        given = [str(kw.arg) for kw in tree.keywords]
        twice = sorted({a for a in given if given.count(a) > 1})
        if twice:  # AP(rel=2,rel=3): ast keeps both, ir_measures the last, silently
            raise ConfigError(f"ir_measures parameter {', '.join(twice)} of {token!r} is given "
                              "twice: give each parameter once")
        for kw in tree.keywords:
            keys = [ast.dump(k) for k in kw.value.keys if k is not None] \
                if isinstance(kw.value, ast.Dict) else []
            if len(set(keys)) != len(keys):  # {1: 1, 1: 2}: Python keeps the last, silently
                raise ConfigError(f"ir_measures parameter {kw.arg} of {token!r} gives a key "
                                  "twice: expected each label once")
            ir_literal(kw.value, str(kw.arg), token, token.strip())
            try:
                params[str(kw.arg)] = ast.literal_eval(kw.value)
            except ValueError:
                raise ConfigError(f"ir_measures parameter {kw.arg} of {token!r} is not a "
                                  "literal (number, string, True/False, {int: number})") from None
        tree = tree.func
    if not isinstance(tree, ast.Name) or tree.id.lower() not in _IR_BY:
        return None
    measure = _IR_BY[tree.id.lower()]
    if measure.family is None:
        raise ConfigError(f"ir_measures measure {measure.name!r} ({token!r}) is not computed by "
                          f"ltrbench; ir_measures names it computes: {_computed(IR_MEASURES)}")
    if measure.cutoff == "recall":
        return _recall_reading(measure, params, cutoff, token), measure, params
    at_cutoff = cutoff is not None
    if "cutoff" in params:  # ir_measures' own keyword form: nDCG(cutoff=10) is nDCG@10
        if at_cutoff and params["cutoff"] != cutoff:
            raise ConfigError(f"{token!r} gives two cutoffs, cutoff={params['cutoff']!r} and "
                              f"@{cutoff!r}: give the cutoff once")
        cutoff = params.pop("cutoff")
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int)):
        # ndcg@1e3, nDCG@10.0, nDCG@True: whatever grammar the name is meant in
        raise ConfigError(f"cutoff of {token!r} must be a positive integer written in decimal "
                          f"digits (1000, not 1e3, 10.0 or True)")
    if at_cutoff and not _DECIMAL_CUTOFF.fullmatch(token.strip().rsplit("@", 1)[-1]):
        raise ConfigError(f"cutoff of {token!r} must be written in decimal digits (no sign, "
                          "'_', 0x, 0o or 0b: bench.data.inputs reads numbers strictly)")
    return ir_reading(measure, params, cutoff), measure, params


def _recall_reading(measure: PeerMeasure, params: dict[str, object], cutoff: object,
                    token: str) -> Reading:
    """ir_measures ``IPrec@0.1``: the "cutoff" is the recall level (``measures/iprec.py``)."""
    if cutoff is None or isinstance(cutoff, bool) or not isinstance(cutoff, int | float):
        raise ConfigError(f"ir_measures {measure.name} needs a recall level: {measure.name}@0.1 "
                          f"(got {token!r})")
    return ir_reading(measure, params, None, recall=float(cutoff))


def ir_reading(measure: PeerMeasure, params: dict[str, object], cutoff: int | None,
               recall: float | None = None) -> Reading:
    """One ir_measures measure with its parameters and cutoff (see the module docstring);
    ``recall``: ``IPrec``'s recall level."""
    assert measure.family is not None
    if measure.cutoff == "recall" and recall is None:
        raise ConfigError(f"ir_measures {measure.name} needs a recall level: {measure.name}@0.1")
    family, param, params = _ir_family(measure, params, recall)
    unknown = sorted(set(params) - set(measure.params))
    if unknown:
        raise ConfigError(f"ir_measures {measure.name} takes no parameter {', '.join(unknown)} "
                          f"(it takes: {', '.join(measure.params) or 'none'})")
    k = None
    if cutoff is not None:
        if measure.cutoff == "none":
            raise ConfigError(f"ir_measures {measure.name} takes no @cutoff")
        k = check_cutoff(cutoff, f"{measure.name}@{cutoff}")
    elif measure.cutoff == "required":
        raise ConfigError(f"ir_measures {measure.name} needs a cutoff: {measure.name}@k")
    overrides, shown = ir_overrides(measure.name, params)
    if measure.name == "RR" and k is not None and params.get("judged_only") is True:
        raise ConfigError("ir_measures RR(judged_only=True)@k is not a measure ir_measures "
                          "computes (its RR@k is MS MARCO's evaluator, without judged_only); "
                          "write RR(judged_only=True) for trec_eval's recip_rank -J")
    if measure.name == "RR" and k is not None:
        # ir_measures computes RR@k with MS MARCO's evaluator, not pytrec_eval (which has no
        # cutoff for recip_rank): the run sorted by (-score, doc id), ties by document id
        # ascending (providers/msmarco_provider.py:41), the scores Python floats (float64:
        # 1e-320 ranks above 0, where trec_eval's float32 ties them); a hit is
        # relevance >= rel (:34).
        overrides = tuple(sorted((*overrides, ("score_dtype", "float64"),
                                  ("ties", "docno_asc"))))
    if measure.name in ("alpha_nDCG", "nERR_IA", "P_IA"):
        if params.get("judged_only") is True:  # no value of the tool's to be equal to
            raise ConfigError(
                f"ir_measures {measure.name}(judged_only=True): ir_measures 0.4.3's pyndeval "
                "provider fails on judged_only (TypeError in pyndeval_provider.py iter_calc); "
                f"ltrbench computes it as {measure.family}@k with --judged-only (or a "
                "profile with judged_only=True), pyndeval's judged_only filter")
        overrides, shown = _pyndeval(measure.name, k, param, overrides, shown)
    if measure.name == "RBP" and param is not None:
        shown.insert(0, f"p={param!r}")
    if (measure.name == "RBP" or (measure.name == "NumRet" and family == "num_rel_ret")) and \
            not any(x.startswith("rel=") for x in shown):
        shown.append("rel=1")  # NumRet(rel=1) is NumRelRet, bare NumRet num_ret; RBP needs rel
    at = f"@{k}" if k is not None else (f"@{recall!r}" if recall is not None else "")
    spelling = measure.name + (f"({','.join(shown)})" if shown else "") + at
    profile = TREC_EVAL_PROFILE if measure.name in _IR_COUNTS_OF_RUN_QUERIES else IR_MEASURES_PROFILE
    return Reading(family, k, profile, overrides, spelling, "ir_measures", param,
                   stated=stated_fields(params))


#: ir_measures measures that are sums over queries. ir_measures scores a qrels query without a
#: run line 0 in every measure (``providers/base.py:18-27``), so its ``NumQ`` counts and its
#: ``NumRel`` sums the queries the run answered: trec_eval without ``-c`` (``-c`` counts every
#: qrels query, and ``trec_eval-c`` would give NumQ 3 where ir_measures gives 2).
_IR_COUNTS_OF_RUN_QUERIES = ("NumQ", "NumRel")



def _ir_family(measure: PeerMeasure, params: dict[str, object], recall: float | None
               ) -> tuple[str, float | None, dict[str, object]]:
    """The family, its real parameter and the parameters left for the profile overrides:
    ``NumRet(rel=n)`` is ``NumRelRet`` (ir_measures ``measures/num_ret.py``), ``RBP(p=...)``'s
    persistence is RBP's parameter and its ``rel=`` is required (without it ir_measures'
    RBP is graded, through cwl_eval, which ltrbench does not compute), ``IPrec@x`` is
    ``iprec_at_recall(x)``."""
    assert measure.family is not None
    family = measure.family
    if measure.name == "NumRet" and "rel" in params:
        family = "num_rel_ret"
    fam = FAMILIES.get(family)
    if fam is None:  # a qrels-only family (Judged)
        return family, None, params
    param: float | None = None
    if measure.name == "RBP":
        if "rel" not in params:
            raise ConfigError("ir_measures RBP without rel= is graded RBP (its trectools "
                              "provider; cwl_eval requires rel=), which ltrbench does not "
                              "compute; write RBP(rel=1) for binary RBP (Moffat & Zobel 2008)")
        p = params.get("p", fam.param.default if fam.param else None)
        if isinstance(p, bool) or not isinstance(p, int | float):
            raise ConfigError(f"ir_measures RBP(p=...) is a number in (0, 1), got {p!r}")
        assert fam.param is not None
        param = fam.param.check(float(p), "ir_measures RBP")
        params = {key: v for key, v in params.items() if key != "p"}
    if measure.name == "alpha_nDCG" and "alpha" in params:
        a = params["alpha"]
        if isinstance(a, bool) or not isinstance(a, int | float):
            raise ConfigError(f"ir_measures alpha_nDCG(alpha=...) is a number in [0, 1], got {a!r}")
        assert fam.param is not None
        param = fam.param.check(float(a), "ir_measures alpha_nDCG")
        params = {key: v for key, v in params.items() if key != "alpha"}
    if recall is not None:
        assert fam.param is not None
        param = fam.param.check(recall, f"ir_measures {measure.name}@{recall!r}")
    if fam.param is not None and param == fam.param.default:
        param = None
    return family, param, params


def _pyndeval(name: str, k: int | None, alpha: float | None, overrides: Overrides,
              shown: list[str]) -> tuple[Overrides, list[str]]:
    """ir_measures ``alpha_nDCG`` and ``nERR_IA`` (alpha 0.5: ``DEFAULT_ALPHA``) are pyndeval's
    (``providers/pyndeval_provider.py``): the run
    sorted by ``(-score, doc id)`` in Python floats (pyndeval ``_coerce_run_iter``: ties by
    document id ascending, float64), cutoffs up to 20 (``assert max_cutoff <= 20``: ndeval's
    ``DEPTH``)."""
    if k is not None and k > 20:
        raise ConfigError(f"ir_measures {name}@{k}: pyndeval computes cutoffs up to 20 "
                          f"(ndeval's DEPTH); ltrbench's {name.lower()}@{k} has no such limit")
    if alpha is not None:
        shown.insert(0, f"alpha={alpha!r}")
    return tuple(sorted((*overrides, ("score_dtype", "float64"), ("ties", "docno_asc")))), shown


def _computed(table: tuple[PeerMeasure, ...]) -> str:
    return ", ".join(m.name for m in table if m.family is not None and m.family not in QRELS_ONLY)
