"""What a ``[custom_models.<name>]`` table holds, checked at the door: its ``params`` (named
parameters a config file can record as given, read-only at every depth once checked: the
factory gets a plain copy for each seed, and the record is that copy) and what a factory
reference that cannot be one looks like (a look-alike letter, white space, a file path), and
a reference to Python's own functions and classes (``builtins:eval``, ``os:remove``), which
build no ranker and would be called with ``params`` when the model is checked.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping
from typing import Any

from bench.data.frozen import MAX_NESTING, frozen, thawed
from bench.data.toml import is_toml_value, show
from bench.errors import ConfigError, non_ascii

#: Parameter names the run owns (the seed of each run).
SEED_KEYS = ("seed", "random_state", "random_seed")
#: TOML's integers (TOML 1.0: 64-bit signed; a reader must refuse a larger one).
_INT64 = (-(2**63), 2**63 - 1)


def params_where(name: str) -> str:
    """``custom_models['mine'].params``: how a read-only params value names itself."""
    return f"custom_models[{name!r}].params"


def frozen_params(name: str, params: Any) -> Any:
    """``params`` read-only at every depth (:func:`bench.data.frozen.frozen`), named after the
    model; a ConfigError for a value nested too deep or holding itself."""
    return frozen(params, params_where(name),
                  "make a new config with dataclasses.replace(config, custom_models={...}) "
                  "(each seed's factory gets its own plain copy to change)")


def plain_params(params: Any) -> dict[str, Any]:
    """A new plain copy of a model's params: what the factory gets and what the run records."""
    return thawed(params)  # type: ignore[no-any-return]


def check_params(table: str, params: Any) -> None:
    """``params`` of the table ``table`` (``[custom_models.mine]``): named parameters (no seed
    key) whose values a config file records as given; a ConfigError naming the key."""
    where = f"{table} params"
    if not isinstance(params, Mapping) or not all(isinstance(k, str) for k in params):
        raise ConfigError(f"{where}: expected a table of named parameters (params = {{ alpha = "
                          f"0.1 }}); got {show(params)}")
    owned = sorted(set(params) & set(SEED_KEYS))
    if owned:
        raise ConfigError(f"{where} sets {', '.join(owned)}: the seed is the "
                          "run's (each seed of `seeds` is given to the factory)")
    for key, value in params.items():
        frozen(value, f"{where}.{key}")  # nested too deep or holding itself: said by name
        if not is_toml_value(value):
            raise ConfigError(f"{where}.{key} = {value!r}: parameters must be "
                              "strings, numbers, booleans, lists or tables (the run writes them "
                              "to config.toml)")
        if _holds_nan(value):  # nan != nan: the config would differ from itself read back
            raise ConfigError(f"{where}.{key}: nan is no value a run can record: it equals "
                              "nothing, not even itself, so the config would differ from its "
                              "own config.toml (resume, reproduce); give a number, or leave the "
                              "parameter out for the factory's default")
        big = _beyond_int64(value)
        if big is not None:
            raise ConfigError(f"{where}.{key}: the integer {big} is beyond TOML's 64-bit "
                              f"integers ({_INT64[0]} .. {_INT64[1]}), so config.toml could not "
                              "record it; give it as a string (and convert it in the factory)")


def _holds_nan(value: Any, depth: int = 0) -> bool:
    if isinstance(value, float):
        return value != value
    items = value.values() if isinstance(value, Mapping) else value \
        if isinstance(value, list | tuple) and depth < MAX_NESTING else ()
    return any(_holds_nan(v, depth + 1) for v in items)


def _beyond_int64(value: Any, depth: int = 0) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value if not _INT64[0] <= value <= _INT64[1] else None
    items = value.values() if isinstance(value, dict) else value \
        if isinstance(value, list | tuple) and depth < MAX_NESTING else ()
    return next((b for v in items if (b := _beyond_int64(v, depth + 1)) is not None), None)


def reference_hint(reference: str) -> str:
    """Why ``reference`` is not ``"package.module:attribute"``, when it can be said: a letter
    that is not ASCII (a look-alike), white space around it, a file path or a ``.py`` file
    name (with the reference to write instead); else ``""``."""
    module, _, attribute = reference.strip().rpartition(":")
    odd = non_ascii(reference)
    if odd:
        return f"; it holds {odd}, not ASCII: a look-alike letter? retype it"
    if reference != reference.strip():
        return "; it begins or ends with white space: remove it"
    path = module.replace("\\", "/")
    if "/" in path or path.endswith(".py"):
        name = path.rsplit("/", 1)[-1].removesuffix(".py")
        return (f"; {module!r} is a file path or file name: name the module as Python imports "
                f"it, '{name}:{attribute}', with its folder on sys.path (PYTHONPATH) or as the "
                "working directory")
    return ""


def refuse_standard_library(obj: Any, module: str, reference: str, where: str) -> None:
    """A ConfigError, before the factory is ever called, for a reference to a function or class
    of Python's standard library or its built-ins (``builtins:eval``, ``os:remove``,
    ``shutil:rmtree``; ``print`` given in Python is ``builtins:print``): none returns a ranker,
    and the check that builds the ranker once would call it with ``params``, so ``os:remove``
    with ``params = {path = ...}`` deleted the file. A C function that is not a class
    (``inspect.isbuiltin``) is refused alike: it has no parameters to read the seed from."""
    plain = inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj)
    owner = getattr(obj, "__module__", None) if plain else None  # a partial's is 'functools'
    tops = {str(name).split(".")[0].lstrip("_") for name in (module, owner) if name}
    stdlib = sorted(t for t in tops if t in sys.stdlib_module_names or t == "builtins")
    if stdlib or (inspect.isbuiltin(obj) and not isinstance(obj, type)):
        what = (f"Python's standard library ({stdlib[0]})" if stdlib
                else "a built-in C function")
        raise ConfigError(f"{where}: {reference} is a callable of {what}, not a ranker "
                          "factory: it would be called with the params to build a ranker; "
                          "name a class or function of your own module that returns an "
                          "object with fit(X, y, group=...) and predict(X) (e.g. "
                          "\"mypackage.rankers:make_ranker\", or \"lightgbm:LGBMRanker\")")
