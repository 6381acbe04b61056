"""Progress of a long step on stderr (rich), or nothing when progress is off."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

#: ``advance(text, n)``: show ``text`` as the current step and move the bar by ``n``.
Advance = Callable[[str, int], None]


@contextlib.contextmanager
def progress_bar(enabled: bool, total: int) -> Iterator[Advance]:
    """A rich progress bar over ``total`` steps; yields :data:`Advance`."""
    if not enabled:
        yield lambda _text, _n: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    ) as bar:
        task = bar.add_task("starting", total=total)

        def advance(text: str, n: int) -> None:
            bar.update(task, description=text, advance=n)

        yield advance
