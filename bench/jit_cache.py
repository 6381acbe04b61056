"""numba's compile cache written best effort: a kernel that cannot be saved is used all the same.

ltrbench's kernels are compiled with ``cache=True``: numba saves each compiled signature into
the ``__pycache__`` folder beside the module (or ``NUMBA_CACHE_DIR``). numba treats a failed
save as fatal (``numba/core/caching.py``, ``Cache.save_overload``: only Windows' ``EACCES`` is
forgiven), so a full disk, a quota or a file-size limit (``ulimit -f``) where the package lives
stopped every command that compiled a kernel with a bare ``error: File too large``, naming no
file, even when the command's own output went to another disk.

:func:`saves_best_effort` makes a failed save a :class:`JitCacheWarning` naming the cause; the
compiled code is kept in memory and used, and the next run compiles again. numba is never
imported here: when it is not loaded yet, an import hook wraps ``Cache.save_overload`` once
``numba.core.caching`` is loaded (so ``ltrbench --help`` still loads no heavy library).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

_MODULE = "numba.core.caching"


class JitCacheWarning(RuntimeWarning):
    """numba could not save a compiled kernel in its cache (the run goes on)."""


@contextlib.contextmanager
def saves_best_effort() -> Iterator[None]:
    """While the block runs (and after, once patched), a kernel numba cannot save in its cache
    is a warning, not an error (see the module docstring)."""
    loaded = sys.modules.get(_MODULE)
    if loaded is not None:
        _patch(loaded)
        yield
        return
    hook = _AfterImport()
    sys.meta_path.insert(0, hook)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(hook)


def _patch(module: ModuleType) -> None:
    cache = module.Cache
    original = cache.save_overload
    if getattr(original, "_best_effort", False):
        return

    def save_overload(self: Any, sig: Any, data: Any) -> None:
        try:
            original(self, sig, data)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            warnings.warn(JitCacheWarning(
                f"numba could not save a compiled kernel in its cache ({where}"
                f"{exc.strerror or exc}): the kernel is used all the same and compiled again "
                "in the next run; free space where ltrbench is installed, or set "
                "NUMBA_CACHE_DIR to a writable folder"), stacklevel=2)

    save_overload._best_effort = True  # type: ignore[attr-defined]
    cache.save_overload = save_overload
    _no_folder_is_no_cache(module)


def _no_folder_is_no_cache(module: ModuleType) -> None:
    """Where numba finds no folder at all for its cache (``NUMBA_CACHE_DIR`` unwritable, the
    package read-only, no home: a locked-down node), it raised "RuntimeError: cannot cache
    function ...: no locator available" at the import of ltrbench's kernels, so every command
    that evaluates ended in a traceback. A last locator now takes such a kernel, whose cache is
    then off (it compiles in memory on each run), with one :class:`JitCacheWarning`."""
    base, impl = getattr(module, "_CacheLocator", None), getattr(module, "CacheImpl", None)
    if base is None or impl is None:  # another numba's layout: its own behaviour stays
        return

    class NoFolder(base):  # type: ignore[misc,valid-type]
        said = False

        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file, self._lineno = py_file, py_func.__code__.co_firstlineno

        def ensure_cache_path(self) -> None:
            return None

        def get_cache_path(self) -> str:
            return "/dev/null/no-numba-cache"  # never a folder: nothing is read or written

        def get_source_stamp(self) -> Any:
            return self._py_file

        def get_disambiguator(self) -> str:
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if not cls.said:
                cls.said = True
                warnings.warn(JitCacheWarning(
                    f"numba found no writable folder for its compile cache (for {py_file}): "
                    "ltrbench's kernels are compiled in memory on each run instead (slower "
                    "start); set NUMBA_CACHE_DIR to a writable folder to keep them"),
                    stacklevel=2)
            return cls(py_func, py_file)

    impl._locator_classes = [*impl._locator_classes, NoFolder]
    init, flush = module.Cache.__init__, module.Cache.flush

    def __init__(self: Any, py_func: Any) -> None:
        init(self, py_func)
        if isinstance(self._impl.locator, NoFolder):
            self.disable()

    def no_flush(self: Any) -> None:
        if not isinstance(self._impl.locator, NoFolder):
            flush(self)

    module.Cache.__init__, module.Cache.flush = __init__, no_flush


class _AfterImport:
    """A meta path finder, duck-typed (``importlib.abc`` would import ``tempfile`` and
    ``importlib.resources`` at every command's start): finds ``numba.core.caching`` with the
    other finders, in their order, and patches it once executed; ``sys.meta_path`` is left as
    it is while it looks."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != _MODULE:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None) if finder is not self else None
            spec: ModuleSpec | None = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Then(spec.loader, _patch)  # type: ignore[assignment]
                return spec
        return None


class _Then:
    """A loader that runs ``after(module)`` once ``loader`` executed it; anything else is the
    loader's own."""

    def __init__(self, loader: Any, after: Callable[[ModuleType], None]) -> None:
        self._loader = loader
        self._after = after

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        made: ModuleType | None = self._loader.create_module(spec)
        return made

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._after(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)
