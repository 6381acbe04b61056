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

The user's spelling stays the output key (``result.metrics["ndcg_burges@10"]``). Behind a
qualifier (:func:`qualified_ranx`) ``ranx:`` or ``ranx-burges:`` keeps the Burges profile
(``ranx:ndcg_burges@10`` is ranx's own name of it); another profile's qualifier on a Burges
spelling (``lightgbm:ndcg_burges@10``) is refused naming both readings. ``r-precision`` takes
any qualifier (``trec_eval:r-precision`` is trec_eval's ``Rprec``).
"""

from __future__ import annotations

import re

from bench.errors import ConfigError

__all__ = ["RANX_EXAMPLES", "qualified_ranx", "ranx_level", "ranx_spelling"]

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


def qualified_ranx(token: str, qualifier: str | None, implied: str | None) -> str | None:
    """The profile of ``token``: its ``PROFILE:`` ``qualifier`` and the profile its ranx spelling
    implies (:func:`ranx_spelling`), reconciled (module docstring).

    >>> qualified_ranx("ranx:ndcg_burges@10", "ranx", "ranx-burges")
    'ranx-burges'
    """
    if implied is None or qualifier is None or qualifier == implied:
        return qualifier or implied
    if qualifier == "ranx":
        return implied
    body = token.split(":", 1)[-1].strip()
    plain = body.replace("_burges", "")
    raise ConfigError(
        f"{token!r}: {body} is ranx's Burges DCG (gain 2^rel - 1, ranx/metrics/ndcg.py), the "
        f"profile {implied!r}, not a metric of profile {qualifier!r}: write {implied}:{plain} "
        f"(or {body}) for ranx's value, or {qualifier}:{plain} for its value under {qualifier!r}")


def ranx_level(token: str, base: str, n: int) -> None:
    """A ConfigError for ranx's relevance-level suffix (``ndcg@10-l2``, ``ndcg_burges@10-l2``:
    ranx/metrics, a judgment >= n is relevant), naming the option that sets it here; ``-l0``
    (every judged document relevant) has none: the level is above 0, as pytrec_eval and
    ir_measures require."""
    if n < 1:
        raise ConfigError(f"unknown metric {token!r}: ranx's '-l{n}' suffix makes every judged "
                          "document relevant (a judgment >= 0), which ltrbench does not compute: "
                          f"the relevance level is above 0 (--relevance-level 1 is {base}, "
                          "the default)")
    raise ConfigError(f"unknown metric {token!r}: ranx's '-l{n}' suffix (a judgment >= {n} is "
                      f"relevant) is an option here: {base} with --profile ranx "
                      f"--relevance-level {n} (in Python profile=dataclasses.replace("
                      f"get_profile('ranx'), relevance_threshold={n}))")
