"""How a user's factory module is found: ``"package.module:attribute"`` imported as Python would
import it under ``python -m bench`` (the working directory searched too, which an installed
``ltrbench`` script does not do by itself), and the hint for a module shadowed by another of the
same name, and the closest name for a typo of an attribute (:func:`close_name`;
:mod:`bench.runners.custom` resolves factories with these)."""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

from bench.errors import did_you_mean

#: Folders kept on ``sys.path`` when :class:`bench.runners.custom_state.ImportState` puts it
#: back after a ranker's call: the working directory this module puts first for a factory's
#: module, and the folders that module put there itself while it was imported (its own setup,
#: ``sys.path.insert(0, os.path.dirname(__file__))``, for the siblings ``fit`` imports later).
SEARCHED: set[str] = set()


def import_user_module(module_name: str) -> Any:
    """Import ``module_name``; a module or package of that top-level name in the working
    directory is found as ``python -m bench`` finds it (Python puts the working directory first
    on ``sys.path`` for ``-m``, not for an installed ``ltrbench`` script): the directory is put
    on ``sys.path`` once such a module is not found otherwise."""
    before = set(sys.path)
    try:
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            top = module_name.split(".")[0]
            here = Path.cwd()
            if exc.name != top or not ((here / f"{top}.py").is_file() or (here / top).is_dir()):
                raise
        sys.path.insert(0, str(here))
        return importlib.import_module(module_name)
    finally:  # kept when the import's process state is put back (a call's own changes are not)
        SEARCHED.update(p for p in sys.path if isinstance(p, str) and p not in before)


def shadow_hint(module: Any) -> str:
    """`` (module loaded from <file>; your <path> of the same name is not it: rename yours)``
    when a module of the same top-level name lies in the working directory or on ``sys.path``
    but another one was imported (Python's standard library, ltrbench itself, a package)."""
    loaded = getattr(module, "__file__", None)
    if not inspect.ismodule(module):
        return ""
    text = f" (module loaded from {loaded or 'a built-in module'}"
    top = module.__name__.split(".")[0]
    for folder in dict.fromkeys(["", *sys.path]):
        for candidate in (Path(folder or ".") / f"{top}.py", Path(folder or ".") / top):
            if candidate.exists() and (loaded is None or not Path(loaded).resolve()
                                       .is_relative_to(candidate.resolve())):
                return (f"{text}; your {candidate} is another module of the same name, which "
                        f"Python does not import: rename it)")
    return text + ")"


def close_name(obj: Any, attribute: str) -> str:
    """``; did you mean 'MyRanker'?`` for a typo of one of ``obj``'s names (a module's or a
    class's own, read from its ``__dict__``: no user code runs), or ``""``."""
    owners = inspect.getmro(obj) if isinstance(obj, type) else (obj,) if inspect.ismodule(obj) \
        else ()
    names: list[str] = []
    try:
        for owner in owners:
            names += [n for n in list(vars(owner)) if isinstance(n, str)
                      and (attribute.startswith("_") or not n.startswith("_"))]
    except Exception:  # a module object of the user's own kind, whose __dict__ misbehaves
        return ""
    hint = did_you_mean(attribute, names).strip()
    return f"; {hint}" if hint else ""
