"""A deterministic build done once per process: each later call gets its own deep copy.

The embedded default dataset (``synthetic``: generated ratings through the default adapter) is
the same every time it is built in a process, and building it costs about half a second; a
notebook or a test session that runs it again and again pays that once. Each call gets a deep
copy, so a caller that changes its arrays changes nothing of the next call's, and hears the same
progress lines the build said. A build is keyed by the objects it depends on (the functions in
use): when one is replaced (a test's stand-in, a reloaded module), it is built again.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: ``{name: (key, value, progress lines)}``
_BUILT: dict[str, tuple[tuple[Any, ...], Any, tuple[str, ...]]] = {}


def built_once(name: str, key: tuple[Any, ...], build: Callable[[Callable[[str], None]], T],
               progress: Callable[[str], None] | None = None) -> T:
    """A deep copy of ``build(say)``'s value, built on the first call for ``name`` (or when an
    object of ``key`` is not the one the kept value was built with); ``progress`` hears the
    lines the build passed to ``say``."""
    kept = _BUILT.get(name)
    if kept is None or len(kept[0]) != len(key) or any(
            a is not b for a, b in zip(kept[0], key, strict=True)):
        said: list[str] = []
        value = build(said.append)
        kept = _BUILT[name] = (key, value, tuple(said))
    if progress is not None:
        for line in kept[2]:
            progress(line)
    copied: T = copy.deepcopy(kept[1])
    return copied
