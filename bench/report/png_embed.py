"""A PNG figure embedded in the HTML report as a ``data:`` URI, only when it is one.

The report embeds the PNG files it finds in a table's folder (``<out>/<dataset>/*.png``,
``tuned-<dataset>/*.png``). A folder others can write to (a shared machine, a results folder
cloned from someone's repository) may hold a file named ``*.png`` that is no plot: a symbolic
link to ``~/.ssh/id_ed25519`` was read and published, base64-encoded, inside
``leaderboard.html``. Only a regular file, opened without following a link, whose bytes begin
with the PNG signature is embedded; anything else is named in the page and left out.
"""

from __future__ import annotations

import base64
import html
import os
import stat
from pathlib import Path

#: The eight bytes every PNG file begins with (PNG specification, 5.2).
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_bytes(path: Path) -> bytes | str:
    """The bytes of the PNG file ``path``, or why it is not embedded (a link, not a regular
    file, not a PNG, unreadable)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return "a symbolic link" if os.path.islink(path) else f"unreadable ({exc.strerror})"
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return "not a regular file"
        data = f.read()
    return data if data.startswith(PNG_SIGNATURE) else "not a PNG image"


def png_figure(path: Path, alt: str) -> str:
    """``<figure>`` with ``path`` embedded, or a warning naming the file and why it is not."""
    data = png_bytes(path)
    if isinstance(data, str):
        return (f'<p class="warn">{html.escape(path.name, quote=True)} is not embedded: '
                f"{data} (the report embeds only the PNG plots in its folder).</p>")
    text = base64.b64encode(data).decode("ascii")
    return (f'<figure><img alt="{html.escape(alt, quote=True)}" '
            f'src="data:image/png;base64,{text}">'
            f"<figcaption>{html.escape(path.name, quote=True)}</figcaption></figure>")
