"""ranx's own metric spellings that are not ltrbench's, read as the metric ranx computes.

ranx names its metrics in ``ranx/metrics/__init__.py`` (``metric_switch``): ``hits``,
``hit_rate``, ``precision``, ``recall``, ``f1``, ``r-precision``, ``mrr``, ``map``, ``dcg``,
``dcg_burges``, ``ndcg``, ``ndcg_burges``, ``bpref``, ``rbp``, each with an optional ``@k``.
Most are ltrbench names too (``hits@k`` is a homonym, refused under ranx:
:data:`bench.metrics.qualified.HOMONYMS`); the two spellings here are not:

* ``r-precision`` (ranx's report prints it ``R-Prec``) is R-precision, ltrbench's ``rprec``,
  computed under the call's profile like every ltrbench name;
* ``ndcg_burges@k`` / ``dcg_burges@k`` are ranx's DCG with gain ``2^rel - 1``
  (``ranx/metrics/ndcg.py``, Burges et al. 2005): the profile ``ranx-burges``, so the name
  carries that profile as ``ranx-burges:ndcg@k`` would (its result names the profile).

The user's spelling stays the output key (``result.metrics["ndcg_burges@10"]``).
"""

from __future__ import annotations

import re

__all__ = ["RANX_EXAMPLES", "ranx_spelling"]

#: ``(family, spelling, example)`` of each spelling here, for ``ltrbench metrics list``.
RANX_EXAMPLES = (("rprec", "r-precision", "r-precision"),
                 ("ndcg", "ndcg_burges@k, ndcg_burges", "ndcg_burges@10"),
                 ("dcg", "dcg_burges@k, dcg_burges", "dcg_burges@10"))

_BURGES = re.compile(r"(?P<family>n?dcg)_burges(?P<cut>@[0-9]+)?")


def ranx_spelling(body: str) -> tuple[str | None, str]:
    """``(qualifier, body)`` for a name without ``PROFILE:``: ranx's own spellings (module
    docstring) become the ltrbench name and the profile they imply; any other name is returned
    as it is, with no qualifier.

    >>> ranx_spelling("ndcg_burges@10")
    ('ranx-burges', 'ndcg@10')
    >>> ranx_spelling("r-precision")
    (None, 'rprec')
    >>> ranx_spelling("map@10")
    (None, 'map@10')
    """
    if body == "r-precision":
        return None, "rprec"
    m = _BURGES.fullmatch(body)
    if m is not None:
        return "ranx-burges", m["family"] + (m["cut"] or "")
    return None, body
