"""The keyword parameters of an ir_measures name (``P(rel=2)@5``, ``nDCG(gains={...})``,
``AP(judged_only=True)``) as :class:`~bench.metrics.profile.Profile` overrides: how each is
written (``util.py`` ``_ast_to_value``), what it changes, and which fields the name states.
:mod:`bench.metrics.peer_names` reads the names; this module owns their parameters.
"""

from __future__ import annotations

import ast
import math
import re

from bench.errors import ConfigError

Overrides = tuple[tuple[str, object], ...]


def stated_fields(params: dict[str, object]) -> Overrides:
    """The profile fields an ir_measures name states (:attr:`bench.metrics.peer_names.Reading.stated`)."""
    out: list[tuple[str, object]] = []
    if isinstance(params.get("rel"), int) and not isinstance(params.get("rel"), bool):
        out.append(("relevance_threshold", float(params["rel"])))  # type: ignore[arg-type]
    if isinstance(params.get("judged_only"), bool):
        out.append(("judged_only", params["judged_only"]))
    return tuple(sorted(out))


#: A number inside an ir_measures parameter as a cutoff is written: decimal digits, a point, an
#: exponent. Python's literals ``1_0``, ``0x2``, ``0o7``, ``0b1`` (which ir_measures reads, by
#: ``ast``) are refused, as ``nDCG@1_0`` is (``bench.metrics.names``): one rule for numbers.
_DECIMAL = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def ir_literal(node: ast.expr, name: str, token: str, source: str = "") -> None:
    """An ir_measures parameter as ir_measures reads it (``util.py`` ``_ast_to_value``): a
    number, string or True/False written as is (a dict is checked as a gain table); ``+2``,
    ``-1``, ``1+1``, tuples and sets are refused by ir_measures, so they are a
    :class:`ConfigError` here. ``source``, the text ``node`` was parsed from: its numbers are
    written in decimal digits (:data:`_DECIMAL`), not ``1_0`` or ``0x2``."""
    for sub in ast.walk(node):
        text = ast.get_source_segment(source, sub) if source else None
        if isinstance(sub, ast.Constant) and type(sub.value) in (int, float) and text \
                and _DECIMAL.fullmatch(text) is None:
            raise ConfigError(f"ir_measures parameter {name} of {token!r}: the number {text!r} "
                              "must be written in decimal digits (no '_', 0x, 0o or 0b: "
                              "bench.data.inputs reads numbers strictly); ir_measures would "
                              f"read it as {sub.value!r}")
    if isinstance(node, ast.Dict):  # a gain table: its own checks say what each entry needs
        return
    if not isinstance(node, ast.Constant) or isinstance(node.value, complex | bytes):
        raise ConfigError(f"ir_measures parameter {name} of {token!r} must be written as "
                          "ir_measures reads it: a number without a sign or an operator, a "
                          "string, True/False, or {int: number} (ir_measures util.py "
                          "_ast_to_value)")


def ir_overrides(name: str, params: dict[str, object]) -> tuple[Overrides, list[str]]:
    """Profile overrides and the canonical parameter spellings (defaults dropped, sorted)."""
    out: dict[str, object] = {}
    shown: list[str] = []
    for key in sorted(params):
        value = params[key]
        if key == "rel":
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"ir_measures {name}(rel=...) needs an integer, got {value!r}")
            if value < 1:  # pytrec_eval: "Argument relevance_level should be positive."
                raise ConfigError(f"ir_measures {name}(rel={value}): rel must be >= 1 (ir_measures "
                                  "and pytrec_eval refuse a relevance level below 1; every "
                                  "judged document would count as relevant)")
            if value != 1:
                out["relevance_threshold"] = float(value)
                shown.append(f"rel={value}")
        elif key == "judged_only":
            if _judged_only(name, value):
                out["judged_only"] = True
                shown.append("judged_only=True")
        elif key in ("relative", "beta"):
            if (key == "relative" and value is not False) or (
                    key == "beta" and (isinstance(value, bool) or value != 1)):
                raise ConfigError(f"ir_measures {name}({key}={value!r}): ltrbench computes "
                                  f"{name} with the default {key} only")
        elif key == "dcg":
            if value not in ("log2", "exp-log2"):
                raise ConfigError(f"ir_measures nDCG(dcg=...) is 'log2' or 'exp-log2', "
                                  f"got {value!r}")
            if value == "exp-log2":
                if "gains" in params:
                    raise ConfigError("ir_measures nDCG(dcg='exp-log2') takes no gains= "
                                      "(gdeval has its own gain, 2^l - 1)")
                out.update(gain="exp2", max_label=4, score_dtype="float64")
                shown.append("dcg='exp-log2'")
        elif key == "gains":
            table, text = _gain_table(value)
            if text:
                out["gain"] = table
                shown.append(f"gains={text}")
    return tuple(sorted(out.items())), shown


def _judged_only(name: str, value: object) -> bool:
    """ir_measures ``judged_only=`` (pytrec_eval's ``judged_docs_only_flag``, trec_eval ``-J``:
    unjudged documents leave the ranking first; ``providers/pytrec_eval_provider.py``) as the
    profile field ``judged_only``. ``False`` is kept as an override too, so that a name that
    says ``judged_only=False`` beside ``--judged-only`` is refused, not silently overruled
    (:func:`bench.metrics.qualified.resolve`). ``RR(judged_only=True)@k`` is refused as
    ir_measures refuses it ("Unsupported measures": its RR@k is MS MARCO's evaluator, which
    has no such option: see :func:`bench.metrics.peer_names.ir_reading`)."""
    if not isinstance(value, bool):
        raise ConfigError(f"ir_measures {name}(judged_only=...) is True or False, got {value!r}")
    return value


def _gain_table(value: object) -> tuple[tuple[float, ...], str]:
    """``{label: gain}`` as a gain tuple over labels 0..31 (a label without an entry gains its
    own value: trec_eval ``gain_init.c:58-72``) and its canonical spelling (identity entries
    dropped, as ir_measures' ``Measure._param_repr``); ``""`` when it is the identity."""
    if not isinstance(value, dict) or not value or any(
            isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 31 or
            isinstance(g, bool) or not isinstance(g, (int, float)) or not 0 <= g < math.inf
            for k, g in value.items()):  # 1e400 is inf: an inf gain makes every nDCG NaN
        raise ConfigError("ir_measures nDCG(gains=...) is a dict {label: gain}, labels 0..31, "
                          f"finite gains >= 0; got {value!r}")
    table = tuple(float(value.get(label, label)) for label in range(32))
    items = [(k, value[k]) for k in sorted(value) if float(value[k]) != float(k)]
    text = "{" + ",".join(f"{k}:{_num(g)}" for k, g in items) + "}" if items else ""
    return table, text


def _num(g: object) -> str:
    """A gain as the canonical name writes it: a whole number below 2^53 as its digits
    (``3.0`` -> ``3``), any other as Python writes the float (``1e+308``, not its 309 digits)."""
    if isinstance(g, (int, float)) and float(g).is_integer() and abs(float(g)) < 2.0**53:
        return str(int(g))
    return repr(float(g)) if isinstance(g, (int, float)) else repr(g)
