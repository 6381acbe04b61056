"""What the name grammar says about a name it does not read (for :mod:`bench.metrics.names`).

* :func:`suggest`: the closest valid names ("did you mean ..."), each one a name that parses:
  the closest spellings of every grammar (difflib) with the user's cutoff written the way that
  spelling takes it (``precision_10`` -> ``precision@10``, ``ndcg_at_10`` -> ``ndcg_cut_10``,
  ``ndcg@10``), never the typed name itself or a spelling that is refused in turn.
  A peer library's function typed as a name (``ndcg_score``, ``precision_at_k``) is answered
  with the name and profile that compute it (:data:`PEER_FUNCTIONS`).
* :func:`refuse_folded_case`: ir_measures reads its names case-sensitively (``util.py``
  ``parse_measure``: ``ndcg()@10``, ``map()``, ``success@2`` are "measure not found"); a name
  that only a case-folded reading makes an ir_measures measure, in letters that also spell an
  ltrbench or trec_eval measure, is refused, naming ir_measures' spelling (computed under
  ``trec_eval-c``) and the ltrbench name (under the call's profile), instead of being a second
  meaning of the name it differs from by two brackets or an ``@`` (``ndcg()@10`` under
  ``trec_eval-c`` beside ``ndcg@10`` under ``trec_eval``; ``success@2`` beside trec_eval's
  ``success_2``). Letters no other tool uses (``judged@10``) keep ir_measures' reading.
* :func:`as_written`: an error about a name names it as the user wrote it (``RR@0``, not the
  ``mrr@0`` it was read as).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import TypeVar

from bench.errors import ConfigError
from bench.metrics.families import ALIASES, FAMILIES
from bench.metrics.peer_names import TREC_EVAL, PeerMeasure, Reading, peer_names

__all__ = ["PEER_FUNCTIONS", "as_written", "measure_hint", "refuse_folded_case",
           "refuse_not_one_name", "suggest"]

_T = TypeVar("_T")


def as_written(name: str, read: Callable[..., _T], *args: str) -> _T:
    """``read(*args)``; a ConfigError it raises that does not quote ``name`` (the metric as the user
    wrote it) is raised again with ``metric 'NAME': `` in front, so that ``RR@0`` is named, not
    only the ``mrr@0`` it was read as."""
    try:
        return read(*args)
    except ConfigError as exc:
        if repr(name) in str(exc) or name in str(exc).split():
            raise
        raise ConfigError(f"metric {name!r}: {exc}") from None

#: Letters that spell an ltrbench or trec_eval measure in any case (``ndcg``, ``map``, ``p``,
#: ``success``): an ir_measures name folded onto them would be a second meaning.
_TAKEN = frozenset({*FAMILIES, *ALIASES, *(m.name.lower() for m in TREC_EVAL)})

_ACTIVE: list[bool] = []  # a candidate being parsed: its own error suggests nothing


def _torchmetrics() -> dict[str, tuple[str, str, str]]:
    """torchmetrics' retrieval classes and their functional twins
    (``torchmetrics/retrieval/*.py``, ``torchmetrics/functional/retrieval/*.py``), each with
    ``top_k=10``: the ltrbench name of what it computes."""
    table = (("NormalizedDCG", "normalized_dcg", "ndcg@10"),
             ("MAP", "average_precision", "map@10"), ("MRR", "reciprocal_rank", "mrr@10"),
             ("Precision", "precision", "p@10"), ("Recall", "recall", "recall@10"),
             ("HitRate", "hit_rate", "hits@10"), ("FallOut", "fall_out", "fallout@10"),
             ("RPrecision", "r_precision", "rprec"), ("AUROC", "auroc", "auc"))
    out: dict[str, tuple[str, str, str]] = {}
    for cls, fn, name in table:
        top = "" if "@" not in name else "top_k=10"
        out[f"retrieval{cls}".lower()] = (
            f"torchmetrics' torchmetrics.retrieval.Retrieval{cls}({top}), a class", name,
            "torchmetrics")
        out[f"retrieval_{fn}"] = (
            f"torchmetrics' torchmetrics.functional.retrieval.retrieval_{fn}(preds, target"
            f"{', top_k=10' if top else ''}), a function", name, "torchmetrics")
    return out


#: Functions of peer libraries typed as metric names (``precision_at_k``, ``ndcg_score``):
#: ``name -> (what it is, the ltrbench name, the profile that computes it as that library does)``.
PEER_FUNCTIONS = {
    "ndcg_score": ("scikit-learn's sklearn.metrics.ndcg_score(y_true, y_score, k=10), a "
                   "function", "ndcg@10", "sklearn"),
    "dcg_score": ("scikit-learn's sklearn.metrics.dcg_score(y_true, y_score, k=10), a "
                  "function", "dcg@10", "sklearn"),
    **{f"{m}_at_k": (f"Microsoft Recommenders' python_evaluation.{m}_at_k(..., k=10), a "
                     "function", name, "recommenders")
       for m, name in (("precision", "Precision@10"), ("recall", "Recall@10"),
                       ("ndcg", "ndcg@10"), ("map", "map@10"))},
    **_torchmetrics(),
}


#: Functions of peer libraries whose number no profile reproduces: ``name -> the answer``
#: (``{k}``: the k typed, ``r_precision_at_5``; 10 for the ``_at_k`` spelling).
NOT_OFFERED = {
    "r_precision_at_k": (
        "Microsoft Recommenders' python_evaluation.r_precision_at_k(..., k={k}), a function, not "
        "a metric name, and not offered: its per-user value (relevant items in the top min(k, R) "
        "over R) is ltrbench's rprec@{k} under --profile recommenders, but its mean is over the "
        "users with a relevant item in that top only (pandas' mean skips the others' NaN), "
        "where rprec@{k} averages every user (0 for those)"),
    **{name: (f"Microsoft Recommenders' python_evaluation.{name}(...), a function, not a metric "
              "name, and not offered: a beyond-accuracy measure of the recommended items "
              "(their spread, popularity or surprise), not of a ranking against judgments")
       for name in ("catalog_coverage", "distributional_coverage", "diversity", "novelty",
                    "serendipity", "user_diversity", "user_novelty", "user_serendipity",
                    "historical_item_novelty", "user_item_serendipity")},
}


def suggest(body: str, parses: Callable[[str], bool]) -> str:
    """``"; did you mean ..."`` with up to three names close to ``body`` that ``parses``
    accepts, or ``""``; for a peer library's function name (:data:`PEER_FUNCTIONS`), the name
    and profile that compute it."""
    if _ACTIVE:
        return ""
    hint = _peer_hint(body.strip())
    if hint:
        return hint
    at = re.fullmatch(r"(?P<f>[A-Za-z_-]+?)_at_(?P<k>[0-9]+|k)", body.strip())
    if at is not None:  # mrr_at_10 is mrr@10 (difflib put nerr_ia@10 beside it)
        f = "rprec" if _r_precision(at["f"]) else at["f"]
        k = "10" if at["k"] == "k" else at["k"]
        _ACTIVE.append(True)
        try:
            same = parses(f"{f}@{k}")
        finally:
            _ACTIVE.pop()
        if same:
            return f"; did you mean {f}@{k}" + (" (k a whole number)?" if at["k"] == "k" else "?")
    if _r_precision(body.partition("@")[0]):  # ranx's r-precision; not precision@10
        return f"; did you mean rprec{'@' + body.partition('@')[2] if '@' in body else ''}?"
    m = re.match(r"^(?P<base>.*?)(?P<tail>(?:@[0-9]+|[._][0-9.,]+)?)$", body)
    base, tail = (m.group("base"), m.group("tail")) if m else (body, "")
    digits = tail[1:] if tail[:1] in "@._" and tail[1:].isdigit() else ""
    tails = tuple(dict.fromkeys((tail, *((f"@{digits}", f"_{digits}") if digits else ()))))
    # a parameter typed (0.95) is kept by every suggestion: RBP_0.95@10 is no rbp@10 (p 0.8)
    params = [x for x in re.findall(r"[0-9]*\.[0-9]+", body) if not tail.endswith(x)]
    pool: dict[str, str] = {}
    for n in (*FAMILIES, *ALIASES, *peer_names()):
        pool.setdefault(n.lower(), n)
    out: list[str] = []
    _ACTIVE.append(True)
    try:
        for close in difflib.get_close_matches(base.lower(), list(pool), n=8, cutoff=0.6):
            found = next((pool[close] + t for t in tails if pool[close] + t != body
                          and pool[close] + t not in out and parses(pool[close] + t)
                          and all(x in pool[close] + t for x in params)), None)
            if found is not None:
                out.append(found)
            if len(out) == 3:
                break
    finally:
        _ACTIVE.pop()
    return f"; did you mean {', '.join(out)}?" if out else ""


def _r_precision(name: str) -> bool:
    """R-precision as other tools spell it (``r_precision``, ``R-Precision``, ``rprecision``)."""
    return re.fullmatch(r"r[-_ ]?precision", name.strip(), flags=re.IGNORECASE) is not None


def _peer_hint(body: str) -> str | None:
    """What a peer's own spelling is in ltrbench, where the grammar reads none: a function
    (:data:`PEER_FUNCTIONS`; ``precision_at_10`` as ``precision_at_k`` with k = 10, which
    difflib answered with the intent-aware ``precision_ia@10``) or an RBP persistence written
    after a dot or underscore (ranx's ``rbp.95``, ``RBP_0.8@10``: never ``rbp@95``)."""
    at = re.fullmatch(r"(?P<f>[A-Za-z_]+)_at_(?P<k>[0-9]+)", body)
    key = f"{at['f'].lower()}_at_k" if at else body.lower()
    if key in NOT_OFFERED:
        return f"; {body} is " + NOT_OFFERED[key].format(k=at["k"] if at else 10)
    if key in PEER_FUNCTIONS:
        what, name, profile = PEER_FUNCTIONS[key]
        if at:
            what, name = what.replace("k=10", f"k={at['k']}"), re.sub(r"@[0-9]+$",
                                                                        f"@{at['k']}", name)
        return (f"; {body} is {what}, not a metric name: write {name} with "
                f"--profile {profile} (profile={profile!r}) for its value as that library "
                f"computes it, or {profile}:{name} beside other profiles"
                + (f"; did you mean {name}?" if at else ""))
    rbp = re.fullmatch(r"rbp(?:\.|_)(?P<p>0?\.[0-9]+|[0-9]+)(?P<cut>@[0-9]+)?", body,
                       flags=re.IGNORECASE)
    if rbp is None:
        return None
    p = rbp["p"] if "." in rbp["p"] else f"0.{rbp['p']}"  # ranx's rbp.95: persistence 0.95
    p = p if p.startswith("0") else f"0{p}"
    cut = rbp["cut"] or ""
    return (f"; {body} reads as RBP of persistence {p} (ranx writes it rbp.p): ltrbench "
            f"spells it rbp({p}){cut}" + ("" if cut else f", rbp({p})@k with a cutoff"))


def refuse_not_one_name(token: str, body: str) -> None:
    """A ConfigError saying what ``body`` (of ``token``) is when it is no metric name at all:
    names joined by another separator than a comma or a space (``ndcg@10;map``), or a
    result's profile label (``PROFILE+field=value``, :attr:`EvaluationResult.metric_profiles`)
    cut at its comma by the list splitter; nothing otherwise (the caller's "unknown metric")."""
    from bench.metrics.profiles import PROFILES

    sep = next((c for c in ";|" if c in body), None)
    if sep is not None:
        raise ConfigError(f"unknown metric {token!r}: metric names are separated by a comma or "
                          f"a space, not {sep!r}: {body.replace(sep, ',')!r}")
    head, plus, rest = body.partition("+")
    if plus and "=" in rest and head.strip().lower() in PROFILES:
        raise ConfigError(
            f"unknown metric {token!r}: it looks like part of a result's profile label "
            "(PROFILE+overrides, as metric_profiles prints it), cut at a comma: a label is no "
            "profile; ask for the metric by the name that carries the overrides, or under the "
            f"profile {head.strip().lower()!r} ({head.strip().lower()}:NAME)")


def refuse_folded_case(token: str, body: str, reading: Reading, measure: PeerMeasure) -> None:
    """A ConfigError when ``body`` is an ir_measures measure only when read case-insensitively
    (module docstring); nothing when it is spelled as ir_measures spells it."""
    text = body.strip()
    head = re.split(r"[(@]", text, maxsplit=1)[0].strip()
    if head in (measure.name, *measure.aliases) or head.lower() not in _TAKEN:
        return  # judged@10: no other tool's measure by these letters, no second meaning
    own = measure.name + text[len(head):]
    plain = reading.family if reading.k is None else f"{reading.family}@{reading.k}"
    ours = (f", or {plain} for ltrbench's under the call's profile"
            if reading.family in FAMILIES and not reading.overrides else "")
    raise ConfigError(f"unknown metric {token!r}: ir_measures spells this measure {measure.name} "
                      f"and reads names case-sensitively (it refuses {head!r}); write {own} for "
                      f"ir_measures' value (profile trec_eval-c){ours}")


def measure_hint(item: object) -> str:
    """What to write for a measure object of another tool (ir_measures' ``nDCG@10``, whose
    text is its name): the name as text, which is also the result's key."""
    if type(item).__module__.split(".")[0] != "ir_measures":
        return ""
    return (f": an ir_measures measure object; give its name as text, str(measure) = "
            f"{str(item)!r} (also the result's key: result.metrics[{str(item)!r}])")
