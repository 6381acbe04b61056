"""A run comparison's own arguments checked before any run is read
(:func:`bench.report.compare_runs.compare_runs`): the mapping of runs, their names (each one row
of the table and one column of the per-query file) and files, the statistics' options; and,
once the runs are evaluated, one rule for the queries a run has no line for
(:func:`refuse_mixed_rules`)."""

from __future__ import annotations

import operator
import os
from collections.abc import Mapping
from functools import reduce

import numpy as np

from bench.errors import ConfigError, DataError

__all__ = ["RESERVED_NAMES", "check_arguments", "check_files", "check_names",
           "no_common_queries", "refuse_mixed_rules"]


#: The most resamples a leaderboard or a comparison accepts (``report --bootstrap`` /
#: ``--permutations``, the ``stats`` of a document read back, ``compare_runs``' ``n_bootstrap``
#: / ``n_permutations``): enough for any interval, few enough to finish (a billion bootstrap
#: resamples asked for 15 GiB at once: a MemoryError from NumPy).
MOST_BOOTSTRAP = 1_000_000
MOST_PERMUTATIONS = 10_000_000


def check_arguments(runs: object, confidence: object, n_bootstrap: object,
                     n_permutations: object, seed: object) -> None:
    """The comparison's own arguments, before any run is read: a :class:`ConfigError` naming
    the argument and what it must be (never a ``ValueError`` from deep in the statistics)."""
    if not isinstance(runs, Mapping):
        named = isinstance(runs, list | tuple) and any(hasattr(r, "to_dict") and hasattr(r, "name")
                                                        for r in runs)
        hint = (" (ranx's compare takes a list of named Runs: pass {run.name: run for run in "
                "runs}, each name given once)") if named else ""
        raise ConfigError(f"runs must be a mapping {{name: run}} (a dict), got a "
                          f"{type(runs).__name__}: the names label the table's rows{hint}")
    if len(runs) < 2:
        raise ConfigError(f"comparing runs needs at least two, got {len(runs)}")
    bad = [name for name in runs if not isinstance(name, str) or not name.strip()]
    if bad:
        raise ConfigError(f"run names must be non-empty text, got {bad[0]!r} "
                          f"({type(bad[0]).__name__}): the names label the table's rows")
    check_names(list(runs))
    if not (isinstance(confidence, float | int | np.floating | np.integer)  # np.float32(0.9) too
            and not isinstance(confidence, bool | np.bool_) and 0 < float(confidence) < 1):
        raise ConfigError(f"confidence must be a number in (0, 1) such as 0.95, got {confidence!r}")
    for arg, value, low in (("n_bootstrap", n_bootstrap, 1), ("n_permutations", n_permutations, 1),
                            ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ConfigError(f"{arg} must be an integer >= {low}, got {value!r}")
    for arg, value, most in (("n_bootstrap", n_bootstrap, MOST_BOOTSTRAP),
                             ("n_permutations", n_permutations, MOST_PERMUTATIONS)):
        if int(value) > most:  # type: ignore[call-overload]
            raise ConfigError(f"{arg} must be at most {most:_}, got {value!r}")


#: The per-query file's own columns (:meth:`RunComparison.per_query_frame`): a run of that
#: name would overwrite them.
RESERVED_NAMES = ("qid", "metric", "profile")


def check_names(names: list[str]) -> None:
    """Run names label the table's rows and the per-query file's columns: a name that is one
    of :data:`RESERVED_NAMES`, holds a control or invisible character (a line break would split
    a row), draws nothing (a Hangul filler U+3164 alone), or reads as another name once written (surrounding blanks trimmed by the table,
    full-width ``Ａ`` read as ``A`` (NFKC), a Cyrillic or Greek ``А`` drawn as Latin ``A``:
    :func:`bench.data.look_alike.skeleton`; ``=A`` written ``'=A`` by
    :func:`bench.data.csv_cells.formula_safe`) is a :class:`ConfigError` naming both names, escaped,
    and the characters in which they differ."""
    from bench.data.csv_cells import formula_safe
    from bench.data.look_alike import clash_text, draws_nothing, skeleton

    label = "label the run differently (on the command line: --run NAME=PATH)"
    seen: dict[str, str] = {}
    for name in names:
        # 'qid ', full-width 'ｑｉｄ': the column 'qid' again once trimmed and folded
        if name in RESERVED_NAMES or skeleton(name).strip() in RESERVED_NAMES:
            raise ConfigError(f"run name {name!r} is a column of the per-query file "
                              f"({', '.join(RESERVED_NAMES)}), or reads as one once blanks "
                              f"are trimmed and full-width letters folded: {label}")
        control = next((c for c in name if not c.isprintable() and c != " "), None)
        if control is not None:
            raise ConfigError(f"run names must be printable text: {name!r} holds an invisible "
                              f"or control character (U+{ord(control):04X}); {label}")
        if draws_nothing(name):  # 'U+3164' alone: a row with an empty label
            raise ConfigError(f"run name {name!a} draws nothing (invisible characters and "
                              f"blanks only): the table would show an empty label; {label}")
        key = formula_safe(skeleton(name).strip())  # 'Ａ', Cyrillic 'А' read as 'A'
        if key in seen:
            raise ConfigError(f"run names {seen[key]!r} and {name!r} would read as one run "
                              f"({key!r}) in the table and the CSV files "
                              f"({clash_text(seen[key], name)}): {label}")
        seen[key] = name


def check_files(runs: Mapping[str, object]) -> None:
    """Two runs that are one file (the same path, a symlink or a hard link to it) are a
    :class:`ConfigError` naming both: a run compared with itself says nothing (a copy is
    allowed and is shown as a tie)."""
    seen: dict[tuple[int, int], str] = {}
    for name, run in runs.items():
        if not isinstance(run, str | os.PathLike) or not os.path.isfile(run):
            continue
        st = os.stat(run)
        key = (st.st_dev, st.st_ino)
        if key in seen:
            raise ConfigError(f"runs {seen[key]!r} and {name!r} are the same file "
                              f"({os.fspath(run)}): give each run once")
        seen[key] = name


def refuse_mixed_rules(keys: list[str], rules: list[str], names: list[str],
                       scored: dict[str, list[set[str]]], answered: dict[str, set[str]],
                       metric_profiles: dict[str, str]) -> None:
    """A :class:`ConfigError` when, left to the metrics' profiles, one metric would score 0 a
    judged query some run has no line for and another would drop it: the comparison uses one
    query set for every metric, so adding a metric of the other rule changed every metric's
    numbers, and could change the winner (``nDCG@10`` alone: zero, run A best; with
    ``ndcg_cut_10``: drop, run B best). The user chooses the rule with ``missing``. ``rules``:
    each metric's profile's ``missing`` (:func:`bench.metrics.qualified.spec_profile`), in the
    order of ``keys``."""
    if len(set(rules)) < 2:  # one rule: what differs is a blank query, which is not this
        return
    every_scored: set[str] = reduce(operator.or_, (s for n in names for s in scored[n]), set())
    lacking = every_scored - reduce(operator.and_, answered.values())
    if not lacking:
        return
    per_metric = [reduce(operator.and_, (scored[n][j] for n in names)) & lacking
                  for j in range(len(keys))]
    zero = [k for k, got in zip(keys, per_metric, strict=True) if got]
    drop = [k for k, got in zip(keys, per_metric, strict=True) if got != lacking]
    conflict = sorted(reduce(operator.or_, per_metric) - reduce(operator.and_, per_metric))
    if not zero or not drop or not conflict:
        return
    who = [n for n in names if conflict[0] not in answered[n]]

    def said(ks: list[str]) -> str:
        return ", ".join(f"{k} [{metric_profiles.get(k, '?')}]" for k in ks[:3]) + (
            f" and {len(ks) - 3} more" if len(ks) > 3 else "")

    raise ConfigError(
        f"the metrics' profiles treat a judged query a run has no line for differently "
        f"({said(zero)}: scored 0; {said([k for k in drop if k not in zero] or drop)}: "
        "dropped); "
        f"{len(conflict)} such quer{'y' if len(conflict) == 1 else 'ies'} here ({conflict[0]!r}"
        f"{', ...' if len(conflict) > 1 else ''}: no line in run {who[0]!r}). A comparison uses "
        "one query set for every metric: choose the rule with --missing zero (every judged "
        "query, a missing line scoring 0, as trec_eval -c) or --missing drop (only the queries "
        "every run answered); missing='zero' / 'drop' in Python")


def check_rules(keys: list[str], rules: list[str], explicit: list[bool], missing: str | None,
                mode: str, names: list[str], scored: dict[str, list[set[str]]],
                answered: dict[str, set[str]], metric_profiles: dict[str, str]) -> None:
    """The metrics' rules for a judged query a run lacks, against the comparison's: mixed
    rules refused when ``missing`` was not given (:func:`refuse_mixed_rules`), else a metric
    named without a profile that drops under ``missing="zero"`` (:func:`refuse_other_rule`; a
    ``PROFILE:NAME`` keeps its profile's rule on purpose, its dropped queries said in
    ``dropped`` / ``left_out``)."""
    if missing is None:
        refuse_mixed_rules(keys, rules, names, scored, answered, metric_profiles)
        return
    own = [mode if fixed else rule for fixed, rule in zip(explicit, rules, strict=True)]
    refuse_other_rule(keys, own, mode, names, scored, answered, metric_profiles)


def refuse_other_rule(keys: list[str], rules: list[str], mode: str, names: list[str],
                      scored: dict[str, list[set[str]]], answered: dict[str, set[str]],
                      metric_profiles: dict[str, str]) -> None:
    """A :class:`ConfigError` when the comparison was given ``missing="zero"`` and a metric
    named without a profile keeps a rule that drops a judged query a run has no line for
    (ir_measures' ``NumQ`` and ``NumRel`` count the answered queries under ``trec_eval-c``):
    left alone, the query set shrank to the queries every run answered although no metric
    asked for it. Said only where some run lacks a judged query. A ``PROFILE:NAME``'s rule is
    the user's own choice (the caller passes ``mode`` for it). Under ``"drop"`` every rule
    agrees: the compared queries are those every run answered."""
    other = [k for k, rule in zip(keys, rules, strict=True) if mode == "zero" and rule != mode]
    every_scored: set[str] = reduce(operator.or_, (s for n in names for s in scored[n]), set())
    if not other or not every_scored - reduce(operator.and_, answered.values()):
        return
    raise ConfigError(
        f"missing={mode!r} applies to every metric of a comparison, but "
        + ", ".join(f"{k} [{metric_profiles.get(k, '?')}]" for k in other[:3])
        + f" drop{'s' if len(other) == 1 else ''} a judged query a run has no line for (its "
        "tool's rule): write the name the comparison's profile computes (num_q, num_rel for "
        "ir_measures' NumQ, NumRel), or compare with missing='drop'")


def no_common_queries(queries: Mapping[str, set[str]]) -> DataError:
    """The error of a comparison whose runs share no query: it names the two runs (fewest
    queries first) that share none, or the runs with the fewest queries, and the rule that
    compares over every qrels query instead (with 40 runs, which file is the question)."""
    by_size = sorted(queries, key=lambda n: len(queries[n]))

    def shown(name: str) -> str:
        mine = sorted(queries[name])
        n = len(mine)
        return (f"{name!r} ({n} {'query' if n == 1 else 'queries'}: "
                f"{', '.join(mine[:3])}{', ...' if n > 3 else ''})")

    pair = next(((a, b) for i, a in enumerate(by_size) for b in by_size[i + 1:]
                 if not queries[a] & queries[b]), None)
    who = (f"runs {shown(pair[0])} and {shown(pair[1])} share none" if pair is not None else
           "the runs with the fewest: " + ", ".join(shown(n) for n in by_size[:4]))
    return DataError("the runs have no query in common (after each run's queries without qrels "
                     f"are left out): nothing to compare; {who}; --missing zero (missing='zero' "
                     "in Python) scores a query a run lacks 0 and compares over every qrels query, "
                     "as trec_eval -c")
