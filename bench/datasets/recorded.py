"""A path dataset found again from what its run recorded (``run --resume``, ``reproduce``).

A run records its dataset as given: ``config.toml``'s ``dataset`` and the manifest's
``dataset.spec`` keep the user's text, so a catalogue name stays a name and a committed run
reproduces on another clone. For a path, the manifest also records where the files were:
``dataset.path`` (its absolute form, links resolved: :func:`path_record`) and
``dataset.path_from_run`` (the same place relative to the run directory). A relative path read
again from another working folder (a cron job's, another clone's, a copied results folder's)
was "unknown dataset"; :func:`locate_recorded` now tries, in order, the path as given (from
the working folder: relative paths are relative to it, as everywhere, so an edited copy there
is read), the place the run read, and the same place relative to the run directory where it
lies now (a moved or copied project), and says which it used; none found is a
:class:`~bench.errors.DataError` naming every path tried.

The input files a resumed run reads are compared with the recorded ones by file name and
SHA-256 (:func:`changed_inputs`), not by the path text: the same files under another folder
are the same input, and a changed file is named.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.data.folder_names import FOLD_NAME
from bench.datasets.catalogue import DatasetSpec
from bench.errors import DataError

#: The manifest keys (under ``dataset``) written by :func:`path_record`.
RECORD_KEYS = ("path", "path_from_run", "fold")


def path_record(spec: DatasetSpec, run_dir: Path) -> dict[str, str]:
    """What the manifest records to find a path dataset again: its absolute form, links
    resolved (``path``), the same place relative to ``run_dir`` (``path_from_run``) and a fold
    given as ``PATH:FoldK`` (``fold``). Empty for a catalogue dataset (a name stays a name) and
    for a path that is not UTF-8 text (a manifest is UTF-8 JSON)."""
    if spec.card is not None or spec.path is None:
        return {}
    try:
        where = spec.path.expanduser().resolve()
        record = {"path": str(where), "path_from_run": os.path.relpath(where, run_dir.resolve())}
    except (OSError, ValueError, RuntimeError):  # ValueError: another drive (Windows)
        return {}
    if spec.option:
        record["fold"] = spec.option
    if not all(_utf8(v) for v in record.values()):
        return {}
    return record


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: a name's bytes that are not UTF-8
        return False
    return True


def locate_recorded(text: str, record: Any, run_dir: Path | None) -> str:
    """The dataset text to load for a run that recorded ``record`` (its manifest's ``dataset``)
    and lies in ``run_dir``: ``text`` itself for a catalogue name or a run that recorded no
    path; else the first existing place of: ``text`` from the working folder, where the run
    read it, the same place relative to ``run_dir``. A place other than the one ``text`` names
    from here is said (a warning); none existing is a DataError naming each place tried."""
    path = record.get("path") if isinstance(record, Mapping) else None
    if not isinstance(path, str) or not path:
        return text
    assert isinstance(record, Mapping)
    fold = record.get("fold") if isinstance(record.get("fold"), str) else None
    given = text[: -len(fold) - 1] if fold and text.endswith(f":{fold}") else text
    here = Path(given).expanduser().absolute()
    places = [(here, f"as given, from the working folder {Path.cwd()}"),
              (Path(path), "where the run read it")]
    beside = record.get("path_from_run")
    if isinstance(beside, str) and beside and run_dir is not None:
        places.append((Path(os.path.normpath(run_dir.absolute() / beside)),
                       f"relative to the run directory {run_dir}, as when the run started"))
    seen: list[tuple[Path, str]] = []
    for place, why in places:
        if all(os.path.normpath(place) != os.path.normpath(p) for p, _ in seen):
            seen.append((place, why))
    for place, why in seen:
        if os.path.exists(place):
            if place != here:  # the path as given names nothing from here: said
                warnings.warn(f"dataset {text!r}: not found from the working folder; read "
                              f"from {place} ({why})", RecordedDatasetWarning, stacklevel=2)
            return f"{place}:{fold}" if fold else str(place)
    tried = "; ".join(f"{p} ({why})" for p, why in seen)
    raise DataError(f"dataset {text!r} of this run is not found; tried {tried}: put the dataset "
                    "back at one of these places, or run from the folder the run was started in")


class RecordedDatasetWarning(UserWarning):
    """A run's dataset read from another place than its path names from the working folder."""


def changed_inputs(recorded: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """The input files of ``now`` (path -> SHA-256) that differ from ``recorded``, compared by
    file name (the same files found under another folder are the same input), each as
    ``name (sha256 ... then, ... now)``; by the whole path when two files share a name."""
    a, b = _by_name(recorded), _by_name(now)
    if a is None or b is None:
        a, b = {str(k): str(v) for k, v in recorded.items()}, {str(k): str(v) for k, v in now.items()}
    out = []
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            before, after = (a.get(name, "none")[:12], b.get(name, "none")[:12])
            out.append(f"{name} (sha256 {before}... then, {after}... now)")
    return out


def _by_name(inputs: Mapping[str, Any]) -> dict[str, str] | None:
    out: dict[str, str] = {}
    for key, digest in inputs.items():
        name = Path(str(key)).name
        if name in out:
            return None
        out[name] = str(digest)
    return out


#: The config key that makes a file's relative paths relative to its own folder, and its
#: values (``ltrbench tune`` writes ``best.toml`` so; the default is the working folder).
RELATIVE_TO = "paths_relative_to"
RELATIVE_TO_VALUES = ("working folder", "config file")
#: The config keys that hold a path (``dataset`` only when it is not a catalogue name).
PATH_KEYS = ("dataset", "data_dir")


def paths_from_config_folder(doc: Mapping[str, Any], config: str | Path) -> dict[str, Any]:
    """``doc`` (a parsed config file) without its :data:`RELATIVE_TO` key; when that key says
    ``"config file"``, each relative path of :data:`PATH_KEYS` joined to the folder of the file
    ``config``, as an absolute path (so a ``best.toml`` run from any working folder, or with
    its tune folder and data moved together, reads the same data). A catalogue name, an
    absolute path and ``~`` stay as they are. Any other value of the key is a ConfigError."""
    from bench.datasets.catalogue import card_names, parse_spec
    from bench.errors import ConfigError

    out = dict(doc)
    how = out.pop(RELATIVE_TO, "working folder")
    if how not in RELATIVE_TO_VALUES:
        raise ConfigError(f"{RELATIVE_TO}: expected one of {', '.join(map(repr, RELATIVE_TO_VALUES))}"
                          f" (what the relative paths of the file are relative to); got {how!r}")
    if how == "working folder":
        return out
    folder = Path(config).parent
    for key in PATH_KEYS:
        text = out.get(key)
        if not isinstance(text, str) or not text or text.startswith("~") or os.path.isabs(text):
            continue
        if key == "dataset" and not any(ch in text for ch in "/\\.") \
                and parse_spec(text)[0] in card_names():
            continue  # a catalogue name
        head, fold = _fold_suffix(text) if key == "dataset" else (text, "")
        out[key] = os.path.abspath(folder / head) + fold
    return out


def _fold_suffix(text: str) -> tuple[str, str]:
    """``("root", ":Fold2")`` of ``"root:Fold2"`` (a LETOR fold of a path), else ``(text, "")``."""
    head, sep, option = text.rpartition(":")
    return (head, sep + option) if sep and head and FOLD_NAME.fullmatch(option.strip()) \
        else (text, "")


def config_file_path(path: Path, text: str) -> str:
    """``text``, an absolute dataset path (or data folder), relative to the folder of the config
    file ``path`` (what :func:`paths_from_config_folder` reads back); a catalogue name or a
    path on another drive as it is."""
    name, fold = _fold_suffix(text)
    if not os.path.isabs(name):
        return text
    try:
        return os.path.relpath(name, os.path.abspath(path.parent)) + fold
    except ValueError:  # another drive (Windows)
        return text
