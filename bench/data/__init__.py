"""Data types, loaders, writers and integrity checks.

- :class:`LetorData` (query-grouped feature matrix) and :class:`Ratings` (user-item table);
- SVMlight/LETOR reading and writing (:mod:`bench.data.svmlight`);
- group offsets from query ids or sizes (:mod:`bench.data.groups`).

The names are loaded when first used (PEP 562), so that importing one reader
(``bench.data.trec``) does not import pandas through :class:`Ratings`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.data.letor import LetorData, LetorSplits
    from bench.data.ratings import Ratings

_HOMES = {"LetorData": "bench.data.letor", "LetorSplits": "bench.data.letor",
          "Ratings": "bench.data.ratings"}

__all__ = ["LetorData", "LetorSplits", "Ratings"]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'bench.data' has no attribute {name!r}")
