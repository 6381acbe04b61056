"""How a user's factory module is found: ``"package.module:attribute"`` imported as Python would
import it under ``python -m bench`` (the working directory searched too, which an installed
``ltrbench`` script does not do by itself), and the hint for a module shadowed by another of the
same name (:mod:`bench.runners.custom` resolves factories with these)."""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

#: Folders this module put first on ``sys.path`` (the working directory of a factory's module):
#: :class:`bench.runners.custom_state.ImportState` keeps them when it puts ``sys.path`` back.
SEARCHED: set[str] = set()


def import_user_module(module_name: str) -> Any:
    """Import ``module_name``; a module or package of that top-level name in the working
    directory is found as ``python -m bench`` finds it (Python puts the working directory first
    on ``sys.path`` for ``-m``, not for an installed ``ltrbench`` script): the directory is put
    on ``sys.path`` once such a module is not found otherwise."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        top = module_name.split(".")[0]
        here = Path.cwd()
        if exc.name != top or not ((here / f"{top}.py").is_file() or (here / top).is_dir()):
            raise
    sys.path.insert(0, str(here))
    SEARCHED.add(str(here))  # kept when the import's process state is put back
    return importlib.import_module(module_name)


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
