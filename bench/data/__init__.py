"""Data types, loaders, writers and integrity checks.

- :class:`LetorData` (query-grouped feature matrix) and :class:`Ratings` (user-item table);
- SVMlight/LETOR reading and writing (:mod:`bench.data.svmlight`);
- group offsets from query ids or sizes (:mod:`bench.data.groups`).
"""

from bench.data.letor import LetorData, LetorSplits
from bench.data.ratings import Ratings

__all__ = ["LetorData", "LetorSplits", "Ratings"]
