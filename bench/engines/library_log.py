"""The GBDT libraries' own logs on a Dask run go to a file in the run directory, not the terminal.

On a Dask cluster LightGBM and XGBoost talk: LightGBM's workers print their network set-up
(``[LightGBM] [Info] Trying to bind port ...``, ``Connected to rank ...``) and its client says
``Using passed-in 'machines' parameter`` and warns ``Parameter n_jobs will be ignored``; XGBoost
prints each worker's rank (``Task [xgboost.dask-0]:... got rank 0``). They are the libraries'
records of a fit, useful when a fit fails, and noise on the terminal (issue 21 item 6). Both
libraries write them with ``print`` / ``warnings`` in Python or to the process's own file
descriptors 1 and 2 from C++ (LightGBM ``python-package/lightgbm/basic.py`` ``_log_info``,
``_log_warning``; XGBoost ``python-package/xgboost/core.py`` ``_log_callback``), so:

* :func:`workers_log_to`: each worker process of a local cluster ltrbench started has its file
  descriptors 1 and 2 pointed at the log (its processes end with the cluster); a cluster the user
  gave (``--scheduler``) is left as it is: its workers' output is theirs;
* :func:`library_log`: in this process, while a fit runs, Python's ``sys.stdout``, the warnings
  shown and the native output (file descriptors 1 and 2) go to the log; Python's ``sys.stderr``
  (the progress line, this process's own messages) stays on the terminal.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

#: The log's file name in the run directory.
LIBRARY_LOG = "dask-libraries.log"


def _point_output_at(path: str) -> None:
    """Run on a worker: its file descriptors 1 and 2 (and so Python's stdout and stderr, and
    the libraries' C++ output) appended to ``path``."""
    sys.stdout.flush()
    sys.stderr.flush()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
    finally:
        os.close(fd)


def workers_log_to(client: Any, path: Path) -> None:
    """Every worker of ``client``'s cluster writes its output to ``path`` from now on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    client.run(_point_output_at, str(path))


def _show_in(log: TextIO) -> Any:
    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        log.write(warnings.formatwarning(message, category, filename, lineno, line))
        log.flush()

    return show


@contextlib.contextmanager
def _native_output_to(log: TextIO) -> Iterator[None]:
    """This process's file descriptors 1 and 2 (what C++ code writes: XGBoost's tracker, which
    runs beside a local cluster's scheduler here) pointed at ``log``, while Python's
    ``sys.stderr`` stays on the terminal (a copy of the old descriptor 2: the progress line and
    errors are this process's own); both put back on exit."""
    for stream in (sys.stdout, sys.stderr, log):
        stream.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    terminal = open(saved[2], "w", encoding="utf-8", errors="backslashreplace",  # noqa: SIM115
                    closefd=False)
    old_stderr = sys.stderr
    try:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        sys.stderr = terminal
        yield
    finally:
        with contextlib.suppress(Exception):
            terminal.flush()
        sys.stderr = old_stderr
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)


@contextlib.contextmanager
def library_log(path: Path) -> Iterator[None]:
    """While it is open, what this process writes on its standard output (Python's and the
    native one), on its native standard error and the warnings it shows are appended to
    ``path`` (the libraries' client-side lines); Python's ``sys.stderr`` stays where it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as log, _native_output_to(log), \
            contextlib.redirect_stdout(log), warnings.catch_warnings():
        warnings.showwarning = _show_in(log)
        yield


__all__ = ["LIBRARY_LOG", "library_log", "workers_log_to"]
