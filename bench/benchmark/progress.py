"""Progress of a long step on stderr (rich), or nothing when progress is off."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from typing import Any

from bench.runners.iteration import IterationHook

#: ``advance(text, n)``: show ``text`` as the current step and move the bar by ``n``.
Advance = Callable[[str, int], None]
#: Seconds between two heartbeats of a long fit on the progress line (at most one per period).
HEARTBEAT_S = 2.0
#: ``step(text, done, total)``: show ``text`` as the current step, ``done`` of ``total`` steps
#: finished (``total`` 0: not known yet, a spinner without a bar's end).
Step = Callable[[str, int, int], None]


def _progress(*, transient: bool) -> Any:
    """The one look of every progress line: spinner, step, bar, n/total, elapsed and the time
    left (rich's estimate from the steps done so far: ``-:--:--`` until it has one), on stderr."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("eta"),
                    TimeRemainingColumn(), console=Console(stderr=True),
                    transient=transient)


def _drawn(enabled: bool) -> bool:
    """Progress is drawn when asked for and stderr is a terminal (rich cannot redraw a log)."""
    import sys

    return enabled and sys.stderr.isatty()


def plain_lines(enabled: bool, command: str) -> Callable[[str], None] | None:
    """Where no bar is drawn (stderr is a log, a pipe, CI) but progress is on: a printer of one
    plain line per step, ``"<command>: <text>"`` on stderr (flushed: a CI log shows it when it
    happens); ``None`` on a terminal (the bar shows the steps) or with progress off. A line that
    cannot be written (a full or closed stderr) stops the lines, never the command."""
    import sys

    if not enabled or sys.stderr.isatty():
        return None
    failed = [False]

    def line(text: str) -> None:
        # Best effort: stderr on a full log volume or a pipe whose reader went away
        # (``2>&1 | head``) stopped the run half-way, with exit 0 for a broken pipe.
        if failed[0]:
            return
        try:
            print(f"{command}: {text}", file=sys.stderr, flush=True)
        except OSError:  # BrokenPipeError too; the run's files are its output, not this line
            failed[0] = True

    return line


def with_lines(advance: Advance, lines: Callable[[str], None] | None, total: int) -> Advance:
    """``advance`` that also gives ``lines`` (:func:`plain_lines`) one line per finished step,
    ``"k/total TEXT"``, where no bar is drawn (the steps between, and a long fit's heartbeat,
    stay off the log); ``advance`` itself without ``lines``."""
    if lines is None:
        return advance
    done = [0]

    def line(text: str, n: int) -> None:
        advance(text, n)
        if n > 0:
            done[0] += n
            lines(f"{done[0]}/{total} {text}")

    return line


@contextlib.contextmanager
def progress_bar(enabled: bool, total: int) -> Iterator[Advance]:
    """A rich progress bar over ``total`` steps on a terminal; yields :data:`Advance`.

    Not drawn when stderr is not a terminal (a log file, a pipe, CI): rich cannot redraw there
    and would leave a bar line, or a blank line before an error, in the log.
    """
    if not _drawn(enabled):
        yield lambda _text, _n: None
        return
    with _progress(transient=False) as bar:
        task = bar.add_task("starting", total=total)

        def advance(text: str, n: int) -> None:
            bar.update(task, description=text, advance=n)

        try:
            yield advance
        except BaseException:
            bar.live.transient = True  # an error stands alone: no half-done bar line before it
            raise


@contextlib.contextmanager
def progress_steps(enabled: bool) -> Iterator[Step]:
    """A rich progress line on stderr whose total is learnt while working; yields :data:`Step`.

    For work whose size is known only once it starts (a search's candidates, a report's runs).
    Shown only on a terminal, and cleared when the work ends (what it made is printed after).
    """
    if not _drawn(enabled):
        yield lambda _text, _done, _total: None
        return
    with _progress(transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def step(text: str, done: int, total: int) -> None:
            bar.update(task, description=text, completed=done, total=total or None)

        yield step


def heartbeat(advance: Advance, prefix: str, *, total: int, metric: str,
              every: float | None = None, clock: Callable[[], float] = time.monotonic) -> IterationHook:
    """An :data:`~bench.runners.iteration.IterationHook` that shows ``"<prefix>: iteration i/n,
    <metric> on vali <v>"`` as the current step, at most once per ``every`` seconds
    (:data:`HEARTBEAT_S`) of ``clock``: the first after ``every`` seconds of fitting, so a short
    fit shows none. ``total`` is the most rounds the fit may grow (early stopping may end it
    sooner). A NaN value (LightGBM on Dask relays the round only: its fit computes no global
    validation value) leaves the metric out. With progress off ``advance`` draws nothing and
    neither does the heartbeat."""
    period = HEARTBEAT_S if every is None else every
    last = [clock()]

    def beat(iteration: int, value: float) -> None:
        now = clock()
        if now - last[0] >= period:
            last[0] = now
            shown = "" if math.isnan(value) else f", {metric} on vali {value:.4f}"
            advance(f"{prefix}: iteration {iteration}/{total}{shown}", 0)

    return beat
