"""How a command stops on a signal: SIGTERM and SIGHUP stop it as Ctrl-C does, and a process
that one of them stopped ends by that signal once its clean-up is done.

Imported by :mod:`bench.cli` once a command's options are read (``ltrbench --help`` imports
no module of :mod:`bench.commands`).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a batch system's stop) or SIGHUP (the terminal or ssh session that
    started the command went away) seen as Ctrl-C is: the same clean stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.how = "terminated (SIGTERM)" if signum == 15 else "hung up (SIGHUP: the terminal " \
            "or session that started the command went away)"


#: The signals stopped as Ctrl-C is (their names, for platforms without SIGHUP).
_STOP_SIGNALS = ("SIGTERM", "SIGHUP")


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While a command runs, SIGTERM and SIGHUP stop it as Ctrl-C does: the ``finally`` blocks
    run (a Dask cluster and worker processes are shut, locks released, temporaries removed) and
    the status is 128 + the signal's number (143, 129: what a shell reports for a process the
    signal ended; the ``ltrbench`` process then ends by the signal itself,
    :func:`end_by_signal`), where Python's default ends the process at once. Only from the main thread,
    and only for a signal with its default action (an embedding program's own handler, or
    ``nohup``'s ignored SIGHUP, is kept)."""
    import signal
    import threading

    def stop(signum: int, frame: object) -> None:
        raise Terminated(signum)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = [s for s in (getattr(signal, n, None) for n in _STOP_SIGNALS)
              if s is not None and signal.getsignal(s) is signal.SIG_DFL]
    for s in caught:
        signal.signal(s, stop)
    try:
        yield
    finally:
        for s in caught:
            signal.signal(s, signal.SIG_DFL)


def end_by_signal(signum: int) -> None:
    """End this process by the default action of ``signum`` (SIGINT, SIGTERM, SIGHUP), once the
    stop has been handled (the clean-up run, its one line said). A shell waits to see whether
    its foreground child *died* of the signal and goes on with the loop or script when the
    child exited normally ("wait and cooperative exit", bash's manual, "Signals"): an
    ``exit(130)`` left ``for d in ...; do ltrbench datasets fetch $d; done`` fetching the next
    one after Ctrl-C, and a supervisor (systemd, Kubernetes, a batch system) that sent SIGTERM
    read ``exit(143)`` as a failure of the job rather than the stop it asked for. Python does
    the same for a KeyboardInterrupt nobody caught since 3.8 (bpo-1054041); the shell's status
    is 130 / 143 / 129 either way, and, as Python does, the ``atexit`` handlers run first
    (logging flushed, a library's temporary folders removed: an ``exit(143)`` ran them).
    Returns only where the signal cannot end the process."""
    import atexit
    import os
    import signal

    posix = os.name == "posix" and signum in {getattr(signal, n, None) for n in
                                               ("SIGINT", *_STOP_SIGNALS)}
    if posix:  # first: a second signal while a stalled pipe takes the rest ends it at once
        with contextlib.suppress(OSError, ValueError):
            signal.signal(signum, signal.SIG_DFL)
    if posix:
        atexit._run_exitfuncs()  # each handler's error is printed, as at a normal exit
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if posix:
        with contextlib.suppress(OSError, ValueError):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
            signal.raise_signal(signum)


#: The exit status of a command a signal stopped -> that signal's number (128 + n).
STOPPED_STATUS = {130: 2, 143: 15, 129: 1}
