"""Quick mode (``quick = true`` in a config, ``--quick`` on ``run`` and ``tune``): its caps and
the one rule for a value above a cap, which ``run``'s options, ``tune``'s search spaces and a
config's unused settings (:meth:`bench.benchmark.config.RunConfig.unused`) all say in these
words. An option or a searched value above a cap is refused (it would not be what is trained);
a value a config file sets above it is trained at the cap, and said."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bench.errors import ConfigError
from bench.runners.params import Params

#: ``quick = true`` caps these parameters (for every model).
QUICK_LIMITS: dict[str, int] = {"n_trees": 20, "early_stopping_rounds": 5, "num_leaves": 15}


def quick_capped(p: Params) -> Params:
    """``p`` with every capped parameter at most its cap."""
    return replace(p, **{k: min(getattr(p, k), v) for k, v in QUICK_LIMITS.items()})


def above_cap(key: str, value: Any) -> int | None:
    """The cap of ``key`` when ``value`` (a number) is above it, else ``None``."""
    cap = QUICK_LIMITS.get(key)
    above = isinstance(value, int | float) and not isinstance(value, bool)
    return cap if cap is not None and above and value > cap else None


def _caps(key: str, cap: int) -> str:
    return f"quick mode (--quick, or quick = true in the config file) caps {key} at {cap}"


def refuse_above_cap(what: str, key: str, value: Any, *, trained: str = "trained") -> None:
    """A ConfigError ``"<what>: quick mode ... caps <key> at <cap>, so <value> would not be
    <trained>; leave one of the two out"`` when ``value`` is above ``key``'s cap."""
    cap = above_cap(key, value)
    if cap is not None:
        raise ConfigError(f"{what}: {_caps(key, cap)}, so {value!r} would not be {trained}; "
                          "leave one of the two out")


def cap_note(what: str, key: str, value: Any) -> str | None:
    """``"<what>: quick mode ... caps <key> at <cap>; <cap> is trained"`` when ``value`` is
    above the cap (a config file's value: trained at the cap, and said), else ``None``."""
    cap = above_cap(key, value)
    return None if cap is None else f"{what}: {_caps(key, cap)}; {cap} is trained"
