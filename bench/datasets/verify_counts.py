"""A present copy's queries and rows held to its card's ``n_queries`` / ``n_rows`` by
``ltrbench datasets verify``, as a load under the name holds them
(:func:`bench.datasets.card_checks.check_card_counts`, its ``CardCountWarning``): a copy cut
short, a part missing or a stand-in under the name verified OK while its load warned.

Read only where no card digest vouches for every file (a card without digests, a file
``unverified``): files whose card digests match are the published files, whose counts the card
states; a copy whose digests differ already fails, and is not read.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import replace

from bench.datasets.card_checks import CardCountWarning
from bench.datasets.catalogue import Card, get_card
from bench.datasets.resolve import load_dataset
from bench.datasets.verify import VerifyReport
from bench.errors import LtrbenchError


def with_card_counts(report: VerifyReport, spec: str | Card, *,
                     data_dir: str | os.PathLike[str] | None = None) -> VerifyReport:
    """``report`` with :attr:`VerifyReport.card_counts` set when the files hold other counts
    than the card states (see the module docstring)."""
    vouched = bool(report.files) and all(f.status == "ok" for f in report.files)
    if report.folder is None or not report.ok or vouched:
        return report
    try:
        card = spec if isinstance(spec, Card) else get_card(spec)
    except LtrbenchError:  # a card verify found by another catalogue (a test's): not read
        return report
    if card.kind != "letor" or not (card.n_queries or card.n_rows):
        return report
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            load_dataset(spec if isinstance(spec, str) else card.spec, data_dir=data_dir,
                         cache=False)
        except LtrbenchError:  # unreadable: the load says why; verify judges the digests
            return report
    said = next((str(w.message) for w in caught if issubclass(w.category, CardCountWarning)),
                None)
    return replace(report, card_counts=said) if said else report
