"""What a run config holds that is not a run config's own text: a template left unrendered, an
environment variable in a path, or a whole TOML file meant for another tool.

Configs generated for a fleet of experiments (Jinja, Helm/Go templates, ``envsubst``, a script
that converts YAML to TOML) leave their marks when a variable is missing: ``"{{ name }}"``,
``"{% if big %}..."``, ``"${DATASET}"``, Go's ``"<no value>"``. Each is a valid TOML string, and
``name = "{{ name }}"`` ran and named the run's folders after it. :func:`check_rendered` refuses
such a value wherever it is (a key, a table, a list item), naming the key path as the file
spells it (``[model_params.lightgbm-lambdarank] learning_rate``). A path key (``dataset``,
``data_dir``) holding ``$NAME`` is refused too: no shell expands a config file, so
``"$HOME/ltr"`` would be a folder literally named ``$HOME``; so is a path or the dataset's name
that is a template's word for a missing value (``"None"``, ``"null"``, :data:`MISSING`).
Plain braces and dollar amounts
(``"MSLR {30K}"``, ``"$5"``) are text and kept.

:func:`foreign_document` names the kind of a TOML file that is not a run config at all (a
``pyproject.toml``, a LightGBM config file written as TOML, a dataset card), for the first
unknown key's error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bench.errors import ConfigError

#: A template's placeholder or tag left in a value: Jinja / Mustache / Go ``{{ x }}``, a Jinja
#: tag ``{% if %}``, shell / envsubst / Terraform ``${X}``, and what Go's text/template (Helm)
#: renders for a missing key.
PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\$\{[^}]*\}|<no value>")
#: An environment variable written into a path (``$HOME/ltr``).
ENV_VARIABLE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*")
#: The top keys whose values are paths (never expanded by a shell when read from a file).
PATH_KEYS = ("dataset", "data_dir")
#: What a template writes for a missing value, as a whole value: Jinja and Python ``None``,
#: JSON / JavaScript ``null`` and ``undefined``, Ruby ``nil``, Go's ``<nil>``.
MISSING = frozenset({"None", "null", "undefined", "nil", "<nil>"})
#: The top keys (paths and the dataset's name) where such a value is refused in a file:
#: ``data_dir = "None"`` ran (a folder named None, unused by a synthetic dataset), ``name =
#: "None"`` named every table None.
MISSING_KEYS = (*PATH_KEYS, "name")


def check_rendered(doc: Mapping[str, Any], *, file: bool = True) -> None:
    """Refuse the first string of ``doc`` (at any depth) that holds a template placeholder
    (:data:`PLACEHOLDER`), and, in a document read from a ``file`` (no shell expanded it), a
    path key (:data:`PATH_KEYS`) holding an environment variable."""
    for path, value in _strings(doc, ()):
        found = PLACEHOLDER.search(value)
        if found:
            raise ConfigError(f"{_where(path)}: {value!r} holds {found.group()!r}, a template "
                              "placeholder left unrendered (a variable the template did not "
                              "get?); render the template before running")
        if file and len(path) == 1 and path[0] in MISSING_KEYS and value.strip() in MISSING:
            folder = (f" (a folder of that name: write it as ./{value.strip()})"
                      if path[0] in PATH_KEYS else "")
            raise ConfigError(f"{_where(path)}: {value!r} is what a template writes for a "
                              "missing value (a variable it did not get?); render it with a "
                              f"value, or leave the key out{folder}")
        path_key = file and len(path) == 1 and path[0] in PATH_KEYS
        found = ENV_VARIABLE.search(value) if path_key else None
        if found:
            raise ConfigError(f"{_where(path)}: {value!r} holds {found.group()!r}, an "
                              "environment variable: a config file is not expanded by a "
                              "shell; write the path itself, or pass it on the command line "
                              f"(--{path[0].replace('_', '-')} \"{found.group()}/...\"), where "
                              "the shell expands it")


def _strings(value: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], str]]:
    """``(key path, text)`` of every string in ``value``; a list item's path ends ``item N``."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, Mapping):
        return [s for k, v in value.items() for s in _strings(v, (*path, str(k)))]
    if isinstance(value, list | tuple):
        return [s for i, v in enumerate(value, start=1) for s in _strings(v, (*path, f"item {i}"))]
    return []


def _where(path: tuple[str, ...]) -> str:
    """``seeds``, ``models: item 2``, ``[params] n_trees``, ``[custom_models.mine.params]
    alpha``, ``[xgboost."xgboost.eta"] choices``: the key path as the file spells it."""
    keys = [p for p in path if not p.startswith("item ")]
    items = "".join(f": {p}" for p in path if p.startswith("item "))
    if len(keys) == 1:
        return keys[0] + items
    bare = [k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else f'"{k}"' for k in keys]
    return f"[{'.'.join(bare[:-1])}] {bare[-1]}{items}"  # a dotted name quoted, as TOML does


#: Tables of a ``pyproject.toml`` (PEP 518, PEP 621).
_PYPROJECT = frozenset({"project", "tool", "build-system"})
#: Keys of a LightGBM config file (``task = train``, docs/Parameters.rst) that no run config has.
_LIGHTGBM = frozenset({"task", "objective", "application", "boosting", "boosting_type", "data",
                       "train_data", "valid", "valid_data", "test_data", "num_iterations",
                       "num_trees", "num_boost_round", "metric", "output_model", "input_model",
                       "config", "is_save_binary_file", "header", "label_column", "group_column"})
#: Keys of a dataset card (``bench/datasets/cards/*.toml``) that no run config has.
_CARD = frozenset({"title", "kind", "loader", "variants", "n_features", "max_label", "homepage",
                   "licence", "citation", "archive_format", "default_variant", "size",
                   "redistributable"})


def foreign_document(doc: Mapping[str, Any], valid: list[str]) -> ConfigError | None:
    """The error for a TOML document that is another tool's file rather than a run config
    (:data:`_PYPROJECT`; two or more keys of :data:`_LIGHTGBM` and none of the ``valid`` run
    config keys, so that a run config with typos keeps its closest names; two or more keys of
    :data:`_CARD`), naming what it looks like and where its settings go; ``None`` otherwise."""
    keys = set(doc)
    if keys & _PYPROJECT:
        return ConfigError(f"{', '.join(sorted(keys & _PYPROJECT))}: this is a pyproject.toml "
                           "(its [project], [tool] and [build-system] tables), not a run config: "
                           "ltrbench reads no [tool.ltrbench] table; give the run's keys "
                           "(dataset, models, seeds, [params]) at the top of a TOML file of "
                           "their own")
    lightgbm = sorted(keys & _LIGHTGBM)
    if len(lightgbm) >= 2 and not keys & set(valid):
        return ConfigError(f"{', '.join(lightgbm)}: this looks like a LightGBM config file, not "
                           "a run config: ltrbench runs LightGBM itself; give the data as "
                           "dataset, the parameters in [params] (ltrbench's names: n_trees, "
                           "learning_rate, ...) or [params.lightgbm] (LightGBM's own names)")
    card = sorted(keys & _CARD)
    if len(card) >= 2:
        return ConfigError(f"{', '.join(card)}: this is a dataset card (the TOML that describes "
                           "a catalogue dataset), not a run config: name the dataset in a run "
                           "config (dataset = \"<catalogue name or folder>\")")
    return None
