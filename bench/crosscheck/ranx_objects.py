"""ranx ``Qrels`` / ``Run`` objects whose numba kernels compile once, not once per id length.

ranx (0.3.21, ``ranx/data_structures/qrels.py`` and ``run.py``, ``__init__`` and ``from_dict``)
stores each query's document ids as a NumPy array of dtype ``<U{n}``, ``n`` the longest document
id of the whole input, and hands them to its ``@njit(cache=True)`` builders
(``ranx/data_structures/common.py``: ``create_and_sort`` and what it calls). numba types such an
array by its width, so every new longest-id length compiles the builders again: measured here,
30-40 s of one core each time (the on-disk cache only helps for a width seen before). A test
suite or a user who cross-checks runs with other id lengths paid that again and again.

The ids are the same at any width (NumPy pads a shorter string with NUL characters and strips
them when reading; ranx already pads every id but the longest), so this module widens the arrays
to the next width of ``64 * 2**k`` before ranx's own builder runs: one compile covers every id of
up to 64 characters. Values, ids and order are ranx's; only the array width changes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

#: The narrowest width ranx's id arrays are widened to (characters); wider ids take the next
#: power-of-two multiple of it.
MIN_ID_WIDTH = 64

_Builder = Callable[[Any, Any, Any], Any]


def id_width(longest: int) -> int:
    """The array width (characters) used for document ids whose longest has ``longest``
    characters: ``64 * 2**k``, the smallest such width that holds it.

    >>> id_width(3), id_width(64), id_width(65), id_width(300)
    (64, 64, 128, 512)
    """
    width = MIN_ID_WIDTH
    while width < longest:
        width *= 2
    return width


def widen(doc_ids: Any) -> Any:
    """ranx's typed list of per-query ``<U{n}`` id arrays with every array at
    :func:`id_width` ``(n)`` (a numba ``typed.List``, as ranx passes it)."""
    from numba.typed import List as TypedList

    arrays = list(doc_ids)
    longest = max((int(a.dtype.itemsize) // 4 for a in arrays), default=1)
    dtype = f"<U{id_width(longest)}"
    return TypedList([np.asarray(a).astype(dtype) for a in arrays])


def widening(builder: _Builder) -> _Builder:
    """``builder`` (ranx's ``create_and_sort(q_ids, doc_ids, scores)``) called with
    :func:`widen` ``(doc_ids)``: the wrapper the test session installs in ranx's modules so that
    the tests' own ranx objects (the oracle) compile once as well."""

    def build(q_ids: Any, doc_ids: Any, scores: Any) -> Any:
        return builder(q_ids, widen(doc_ids), scores)

    build.__wrapped__ = builder  # type: ignore[attr-defined]
    build.widens_ids = True  # type: ignore[attr-defined]
    return build


def _widens(builder: Any) -> bool:
    """Whether ``builder`` is already a :func:`widening` wrapper."""
    return getattr(builder, "widens_ids", False) is True


@contextlib.contextmanager
def widened_builders() -> Iterator[None]:
    """ranx's own constructors (``Qrels.from_df``, ``Run.from_dict``, ...: what ir_measures'
    ranx provider calls, ``ir_measures/providers/ranx_provider.py``) with :func:`widening`
    installed in ``ranx.data_structures.qrels`` and ``.run`` for the block, then put back: the
    evaluator worker's ir_measures[ranx] rows compile ranx's builders once, as the package's
    own objects do. A builder already widened (the test session's) is left as it is."""
    from ranx.data_structures import qrels as ranx_qrels
    from ranx.data_structures import run as ranx_run

    modules = (ranx_qrels, ranx_run)
    originals = [m.create_and_sort for m in modules]
    for module, builder in zip(modules, originals, strict=True):
        if not _widens(builder):
            module.create_and_sort = widening(builder)
    try:
        yield
    finally:
        for module, builder in zip(modules, originals, strict=True):
            module.create_and_sort = builder


def _built(docs: Mapping[str, Mapping[str, Any]], dtype: type) -> Any:
    """ranx's sorted typed dict of ``{q: {doc: value}}``, built as its constructors build it
    (the same lists, the same builder) but with the id arrays widened."""
    from numba.typed import List as TypedList
    from ranx.data_structures.common import create_and_sort

    lists = [list(per) for per in docs.values()]
    width = f"<U{id_width(max(len(d) for per in lists for d in per))}"
    return create_and_sort(TypedList(list(docs)),
                           TypedList([np.array(per, dtype=width) for per in lists]),
                           TypedList([np.array(list(per.values()), dtype=dtype)
                                      for per in docs.values()]))


def _has_ids(docs: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether ranx's own constructor would find a longest id (else it raises; let it)."""
    return any(len(per) for per in docs.values())


def qrels(docs: Mapping[str, Mapping[str, int]]) -> Any:
    """``ranx.Qrels(docs)`` with its id arrays widened (see the module doc); an input without
    any document id goes to ranx's own constructor, which says what it says."""
    import ranx

    return _object(ranx.Qrels, "qrels", docs, int)


def run(docs: Mapping[str, Mapping[str, float]]) -> Any:
    """``ranx.Run(docs)`` with its id arrays widened (see the module doc); an input without any
    document id goes to ranx's own constructor, which says what it says."""
    import ranx

    return _object(ranx.Run, "run", docs, float)


def _object(kind: Any, field: str, docs: Mapping[str, Mapping[str, Any]], dtype: type) -> Any:
    """An empty ``kind()`` (ranx's Qrels or Run) given the widened sorted dict as ``field``, as
    its constructor sets it (``sorted`` True)."""
    if not _has_ids(docs):
        return kind(dict(docs))
    out = kind()
    setattr(out, field, _built(docs, dtype))
    out.sorted = True
    return out
