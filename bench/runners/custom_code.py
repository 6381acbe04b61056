"""The bodies of the functions a custom ranker must not rewrite.

:func:`bench.runners.custom_process.isolated_process` puts back a library function a ranker
replaced (``np.argsort = ...``) by comparing each module's names with the objects they were bound
to. A ranker can change what a function does and keep the object: ``f.__code__ = g.__code__``
(or ``__defaults__``, ``__kwdefaults__``) on ``bench.metrics.aggregate.weighted_mean`` made every
later mean 0.123, with exit status 0 and the object unchanged. :class:`FunctionBodies` takes the
code and defaults of every Python function in the guarded namespaces (module functions, methods,
static and class methods: about 23,000, found once per namespace; taking and checking them costs
about 5-9 ms per call of the ranker, three C-level passes each way) and puts
back, by name, any that changed. :class:`ConstantTables` does the same for ltrbench's own
module-level tables (``PROFILES``, ``FAMILIES``: a ``dict``, ``list`` or ``set`` named in
capitals), whose entries a ranker could replace for every later lookup in the process.
"""

from __future__ import annotations

import operator
import types
from collections.abc import Hashable, Iterable, Mapping
from itertools import chain
from typing import Any

#: What a ranker may rewrite on a function object and keep the object: each read by one C-level
#: ``map`` over all the functions (a Python-level comparison per function cost 10 ms a call).
_PARTS = tuple(operator.attrgetter(name) for name in ("__code__", "__defaults__",
                                                          "__kwdefaults__"))


def _functions(namespace: Mapping[str, Any]) -> Iterable[types.FunctionType]:
    for value in namespace.values():
        if type(value) is types.FunctionType:
            yield value
        elif isinstance(value, (staticmethod, classmethod)) \
                and type(value.__func__) is types.FunctionType:
            yield value.__func__


#: The functions of each namespace, found once per namespace object and size (a namespace that
#: grows or shrinks is searched again): the search is a Python-level walk over every value.
_FOUND: dict[Hashable, tuple[int, list[types.FunctionType]]] = {}


def _found(key: Hashable, namespace: Mapping[str, Any]) -> list[types.FunctionType]:
    known = _FOUND.get(key)
    if known is None or known[0] != len(namespace):
        known = _FOUND[key] = (len(namespace), list(_functions(namespace)))
    return known[1]


class FunctionBodies:
    """The code and defaults of the functions of ``namespaces`` (``(key, namespace)``: the key
    names the module or class the namespace belongs to), taken now."""

    def __init__(self, namespaces: Iterable[tuple[Hashable, Mapping[str, Any]]]) -> None:
        self.functions = list(chain.from_iterable(_found(key, ns) for key, ns in namespaces))
        self.state = [list(map(part, self.functions)) for part in _PARTS]

    def restore(self) -> list[str]:
        """Put back every changed body; what was, by name (empty when nothing changed).
        Compared by identity, never ``==`` (a default that is an array has no truth value)."""
        if all(all(map(operator.is_, map(part, self.functions), then))
               for part, then in zip(_PARTS, self.state, strict=True)):
            return []
        changed = []
        for function, *then in zip(self.functions, *self.state, strict=True):
            if any(part(function) is not was for part, was in zip(_PARTS, then, strict=True)):
                function.__code__, function.__defaults__, function.__kwdefaults__ = then
                changed.append(f"{function.__module__}.{function.__qualname__}")
        if not changed:
            return []
        more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        return [f"the code or defaults of library functions it rewrote "
                f"({', '.join(dict.fromkeys(changed[:5]))}{more})"]


_TABLES = (dict, list, set)
#: Modules whose tables are the isolation's own records, written during a ranker's call by
#: ltrbench itself (``user_import.SEARCHED``: the folders a ranker's module put on ``sys.path``
#: while imported, kept afterwards): putting them back lost the record, and the folder with it.
#: Private tables (``_FOUND``, a cache) are not constants either.
_OWN = ("bench.runners.user_import", "bench.runners.custom_")


def _same_content(then: Any, now: Any) -> bool:
    """Identity of every entry (never ``==``: a value may be an array)."""
    if isinstance(then, dict):
        return len(then) == len(now) and all(
            k1 is k2 and v1 is v2 for (k1, v1), (k2, v2) in zip(then.items(), now.items(),
                                                                strict=True))
    if isinstance(then, list):
        return len(then) == len(now) and all(map(operator.is_, then, now))
    return bool(then == now)  # a set: hashable entries


class ConstantTables:
    """ltrbench's own module-level tables (a ``dict``, ``list`` or ``set`` named in capitals,
    a constant by convention: ``PROFILES``, ``FAMILIES``), taken now. A ranker that wrote into
    one (``PROFILES["ltrbench"] = replace(..., gain="linear")``) changed every later lookup in
    the process: a second fold, a second run from the Python API."""

    def __init__(self, modules: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        self.tables = [(name, key, value, value.copy()) for name, ns in modules
                       if name.partition(".")[0] == "bench" and not name.startswith(_OWN)
                       for key, value in ns.items()
                       if type(value) in _TABLES and key.isupper() and key[0] != "_"]

    def restore(self, modules: Mapping[str, Any]) -> list[str]:
        """Put back every table's binding and content; what was, by name."""
        changed = []
        for name, key, table, content in self.tables:
            module = modules.get(name)
            rebound = module is not None and getattr(module, key, None) is not table
            if rebound:
                setattr(module, key, table)
            if rebound or not _same_content(content, table):
                table.clear()
                table.update(content) if isinstance(table, (dict, set)) else table.extend(content)
                changed.append(f"{name}.{key}")
        if not changed:
            return []
        return [f"ltrbench's tables it changed ({', '.join(changed[:5])})"]
