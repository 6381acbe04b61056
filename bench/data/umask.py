"""A process umask that takes the owner's own permissions, refused before anything is written.

``umask 0222`` (or ``0277``, ``0777``: a job template's typo, a hardened base image) makes every
folder and file ltrbench creates read-only, or unreadable, to the user who ran it: ``run --out
new`` wrote its run folder ``0555`` and its files ``0444``, and then ``run --resume`` and
``report`` refused that very folder as one "its owner protected" (for any user but root the
kernel refuses the writes themselves: "Permission denied" inside the folder the command had
just made, which is left behind). ``mkdir -p`` gives the folders it makes ``u+wx`` whatever
the umask (POSIX), but a run's files must be readable and writable later by the same user, so
the mask is refused instead, naming it and the fix.
"""

from __future__ import annotations

import os

from bench.errors import ConfigError

_OWNER = ((0o400, "read"), (0o200, "write"), (0o100, "execute (enter a folder)"))


def current_umask() -> int:
    """The process umask (read by setting it and putting it back at once)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def refuse_owner_umask(option: str, target: str | os.PathLike[str]) -> None:
    """A :class:`ConfigError` naming ``option`` and ``target`` when the umask removes any of the
    owner's permissions (``umask & 0o700``); group and other bits are the user's choice (077
    keeps the output private, 022 shares it read-only)."""
    mask = current_umask()
    taken = [word for bit, word in _OWNER if mask & bit]
    if taken:
        raise ConfigError(f"{option} {os.fspath(target)!r}: the umask {mask:04o} takes the "
                          f"owner's own {' and '.join(taken)} permission, so every folder and "
                          "file ltrbench made there would be unusable to you (a run could not "
                          "be resumed or reported): set umask 022, or 077 for private files, "
                          "and run again")
