"""Where datasets live: the data directory (:func:`data_dirs`, :func:`primary_data_dir`) and a
catalogue dataset's folder in it (:func:`find_dataset`).

The data directory is given by ``--data-dir`` (the ``data_dir`` argument), else the environment
variable ``LTRBENCH_DATA_DIR``, else ``platformdirs.user_cache_dir("ltrbench")``. Either may list
several folders separated by :data:`os.pathsep`: the first is where fetches, the parse cache and
generated datasets write; the others are searched after it, read only. Apart from
:mod:`bench.datasets.fetch` (downloads and verification) so that the readers of a dataset
(:mod:`bench.datasets.resolve`) need not import the fetcher, and the fetcher's ``verify`` can
hold a copy to its card's counts through them (:mod:`bench.datasets.verify_counts`)."""

from __future__ import annotations

import os
from pathlib import Path

from bench.data.folder_names import refuse_windows_dirs
from bench.datasets.catalogue import Card, get_card
from bench.errors import ConfigError, home_expanded

ENV_VAR = "LTRBENCH_DATA_DIR"

# --------------------------------------------------------------------------- data directories


def repo_root() -> Path:
    """The folder holding the ``bench`` package (the repository root in a source checkout)."""
    return Path(__file__).resolve().parents[2]


def default_data_dir() -> Path:
    """``platformdirs.user_cache_dir("ltrbench")``: ``$XDG_CACHE_HOME/ltrbench`` (an absolute
    one), else ``~/.cache/ltrbench``. A batch job with no ``HOME``, no passwd entry for its
    user id and no data directory named got platformdirs' RuntimeError as a traceback."""
    import platformdirs

    try:
        return Path(platformdirs.user_cache_dir("ltrbench"))
    except RuntimeError:  # '~' cannot be expanded
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        said = f"XDG_CACHE_HOME {xdg!r} is not an absolute path (so it is ignored), " if xdg \
            else "XDG_CACHE_HOME is not set, "
        raise ConfigError(f"no data directory: {said}and the home folder is unknown (HOME is "
                          "not set and this user id has no passwd entry); name a writable "
                          f"folder with --data-dir or {ENV_VAR}, or set HOME") from None


def _listed(data_dir: str | os.PathLike[str] | None) -> tuple[list[Path], str]:
    """The folders of ``data_dir`` (else ``$LTRBENCH_DATA_DIR``; :data:`os.pathsep`-separated,
    empty entries skipped) and where they came from; ``[]`` when neither names one."""
    if data_dir is not None and str(data_dir).strip() != "":
        raw, where = os.fspath(data_dir), "--data-dir"
    else:
        raw, where = os.environ.get(ENV_VAR, ""), f"${ENV_VAR}"
    refuse_windows_dirs(raw, where)  # 'D:\\datasets' is no folder 'D' and '\\datasets'
    listed = [Path(home_expanded(x, where))  # '~nosuchuser/x', or no HOME: named
              for x in (p.strip() for p in raw.split(os.pathsep)) if x]
    if raw.strip() and not listed:
        raise ConfigError(f"{where} {raw!r} names no folder: expected the data directory, or "
                          f"folders separated by {os.pathsep!r} (the first one writable)")
    return listed, where


def primary_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where fetched datasets, the parse cache and generated datasets go: the first folder of
    ``data_dir``, else of ``$LTRBENCH_DATA_DIR``, else the user cache (created when missing)."""
    listed, where = _listed(data_dir)
    if listed:
        return _a_folder(listed[0], where)
    return _a_folder(default_data_dir(), "the default data directory ($XDG_CACHE_HOME/ltrbench, "
                     "else ~/.cache/ltrbench; set --data-dir or LTRBENCH_DATA_DIR)")


def _a_folder(path: Path, where: str) -> Path:
    """``path`` unless it exists and is not a folder: a data directory that is a file would
    find no dataset, silently."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{where} {os.fspath(path)!r} is not a folder: expected the data "
                          "directory (created when missing)")
    for link in (path, *path.parents):  # a link to a folder not mounted, or a link loop
        if os.path.islink(link) and not link.exists():
            raise ConfigError(f"{where} {os.fspath(path)!r}: {os.fspath(link)!r} is a symbolic "
                              f"link to nothing ({os.readlink(link)!r}, missing or a loop of "
                              "links): mount or create its target, or name another folder")
    above = next((p for p in path.parents if os.path.lexists(p)), None)
    if not path.exists() and above is not None and not above.is_dir():  # 'notes.txt/data'
        raise ConfigError(f"{where} {os.fspath(path)!r}: {os.fspath(above)!r} is a file, not a "
                          "folder, so the data directory cannot be created under it; expected "
                          "a folder (created when missing)")
    if where == f"${ENV_VAR}" and not path.is_absolute():  # as '.' in $PATH (README, Data)
        raise ConfigError(f"{where}: the entry {os.fspath(path)!r} is a relative path, read "
                          "from whatever folder a command runs in (a dataset placed there by "
                          "anyone would be read as yours, and --resume elsewhere finds another); "
                          f"expected absolute folders: write {os.fspath(Path.cwd() / path)!r}")
    return path


def data_dirs(data_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Every folder searched for datasets, the writable one first (see the module docstring).

    >>> import os
    >>> [str(p) for p in data_dirs(os.pathsep.join(["/tmp/mine", "", "/srv/ltr", "/tmp/mine"]))]
    ['/tmp/mine', '/srv/ltr']
    """
    listed, where = _listed(data_dir)
    out = [primary_data_dir(data_dir)]
    for d in listed[1:]:
        d = _a_folder(d, where)
        if not any(d == o or _same(d, o) for o in out):
            out.append(d)
    return out


def find_dataset(
    spec: str | Card, *, data_dir: str | os.PathLike[str] | None = None
) -> Path | None:
    """The folder of a dataset in the data directories, or ``None`` when it is absent."""
    card = spec if isinstance(spec, Card) else get_card(spec)
    if card.kind == "synthetic":
        return None
    for d in data_dirs(data_dir):
        for name in card.folder_names:
            cand = d / name
            if cand.is_dir():
                return cand
    return None


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
