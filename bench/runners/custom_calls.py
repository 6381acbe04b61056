"""The one calling convention of a custom ranker: which arguments ``fit`` gets, read from its
signature (``group``, ``qid`` or CatBoost's ``group_id``; the validation split as eval set where
``fit`` takes it), and a ``fit`` or ``predict`` that cannot take that call refused before any data
(:func:`check_calls`). See :mod:`bench.runners.custom` for the convention itself."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from bench.data.groups import group_index
from bench.data.letor import LetorData
from bench.errors import ConfigError
from bench.runners.custom_checks import read_only


def parameters(func: Any) -> tuple[set[str], bool]:
    """The parameter names of ``func`` and whether it takes ``**kwargs``."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):  # a builtin without a signature: assume it takes anything
        return set(), True
    except Exception:  # the user's __signature__ raised: nothing known, so the same
        return set(), True
    names = {p.name for p in sig.parameters.values()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    return names, any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())


def fit_style(where: str, ranker: Any, signature: tuple[set[str], bool]) -> str:
    """``"group"``, ``"qid"`` or ``"group_id"``: how ``ranker.fit`` (whose ``signature`` is
    :func:`parameters`) takes the query groups."""
    names, var_kw = signature
    if "group" in names or (var_kw and not {"qid", "group_id"} & names):
        return "group"
    if "qid" in names:
        return "qid"
    if "group_id" in names:
        return "group_id"
    alike = sorted(n for n in names if n.lower() in _GROUP_SPELLINGS)
    hint = (f" (its {alike[0]!r} is not one of these spellings: name it group to get the rows "
            "per query, or qid to get one query number per row, as scikit-learn's groups)"
            if alike else "")
    raise ConfigError(f"{where}: {type(ranker).__name__}.fit takes no group "
                      "(nor qid or group_id) parameter; ltrbench calls fit(X, y, group=<rows per "
                      f"query>, ...){hint}")


#: Parameter names a ranker may mean as its query groups but that ltrbench does not pass
#: (scikit-learn's ``groups``, one id per row, and its kin): named in the refusal.
_GROUP_SPELLINGS = frozenset({"groups", "query", "queries", "query_id", "query_ids", "qids",
                              "group_ids", "groupid", "qid_list"})


def fit_keys(style: str, signature: tuple[set[str], bool]) -> tuple[str, ...]:
    """The keyword arguments ``fit`` gets in its ``style``: the groups, then the validation split
    as eval set where ``fit`` takes it (``eval_X``/``eval_y`` for LightGBM >= 4.6, which
    deprecates ``eval_set``)."""
    names, var_kw = signature

    def takes(key: str) -> bool:
        return key in names or var_kw

    if style == "group_id":
        return ("group_id", "eval_set") if takes("eval_set") else ("group_id",)
    eval_key = "eval_qid" if style == "qid" else "eval_group"
    if "eval_X" in names and "eval_y" in names:
        evals: tuple[str, ...] = ("eval_X", "eval_y")
    elif takes("eval_set"):
        evals = ("eval_set",)
    else:
        return (style,)
    return (style, *evals, *((eval_key,) if takes(eval_key) else ()))


def check_calls(where: str, ranker: Any, methods: dict[str, Any], style: str) -> None:
    """Refuse, before any data, a ``fit`` or ``predict`` (``methods``) that cannot take the call
    ltrbench makes (``fit(X, y, group=..., ...)``, ``predict(X)``): a parameter without a default
    that it does not give (``sample_weight``), the groups as a positional-only parameter, ``X``
    keyword-only. A signature that cannot be read is not checked (the call itself then says)."""
    keys = fit_keys(style, parameters(methods["fit"]))
    calls = (("fit", (None, None), keys), ("predict", (None,), ()))
    for method, args, given in calls:
        try:
            sig = inspect.signature(methods[method])
        except Exception:  # a builtin without a signature, or the user's __signature__ raised
            continue
        try:
            sig.bind(*args, **dict.fromkeys(given))
        except TypeError as exc:
            call = ", ".join(["X", *(["y"] if method == "fit" else []), *(f"{k}=..." for k in given)])
            names = ", ".join(sig.parameters)
            raise ConfigError(f"{where}: {type(ranker).__name__}.{method}({names}) cannot take "
                              f"the call ltrbench makes, {method}({call}): {exc}") from None


def fit_arguments(style: str, signature: tuple[set[str], bool], train: LetorData,
                   vali: LetorData) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments of ``fit`` in its ``style`` (:func:`fit_keys`; the validation split as
    eval set)."""
    vali_X, vali_y = read_only(vali.X), read_only(vali.y)
    values: dict[str, Callable[[], Any]] = {
        "group": lambda: read_only(train.group_sizes),
        "qid": lambda: read_only(group_index(train.offsets)),
        "group_id": lambda: read_only(group_index(train.offsets)),
        "eval_group": lambda: [read_only(vali.group_sizes)],
        "eval_qid": lambda: [read_only(group_index(vali.offsets))],
        "eval_X": lambda: (vali_X,),
        "eval_y": lambda: (vali_y,),
        "eval_set": lambda: [(vali_X, vali_y)],
    }
    if style == "group_id":
        from catboost import Pool  # the one convention that needs a library's own type

        values["eval_set"] = lambda: Pool(vali.X, label=vali.y, group_id=group_index(vali.offsets))
    kwargs = {key: values[key]() for key in fit_keys(style, signature)}
    return (read_only(train.X), read_only(train.y)), kwargs
