"""The hostile catalogue of issue 19: cases by class, each a small callable judging one outcome.

Run ``python tests/hostile_catalogue.py`` (from the project root; ``--fast`` leaves out the cases
that train, start Dask or run several commands; ``-k WORD`` keeps cases whose name contains WORD;
``-v`` prints every case) for counts by class. ``tests/test_hostile_catalogue.py`` runs each
case as a test. A case returns ``None`` when ltrbench behaved (a clear error naming the file /
key, the oracle's number, an input left intact) and otherwise one line saying what went wrong;
``"SKIP: ..."`` when the platform cannot run it.

``source`` says where a case comes from: ``"issue"`` (an input named in issue 19, reproduced
from its text) or ``"more"`` (another instance of the same class written here). Oracles:
pytrec_eval (trec_eval's C code), ir_measures, ranx, hand arithmetic from the tools' source.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hostile_cases_a
import hostile_cases_b
from hostile_kit import CLASSES


@dataclass(frozen=True)
class Case:
    name: str
    klass: str
    fn: Callable[[Path], str | None]
    source: str
    slow: bool


def all_cases() -> list[Case]:
    cases = [Case(n, k, f, s, slow) for (n, k, f, s, slow) in
             hostile_cases_a.CASES + hostile_cases_b.CASES]
    assert all(c.klass in CLASSES for c in cases), {c.klass for c in cases} - set(CLASSES)
    assert len({c.name for c in cases}) == len(cases), "case names must be unique"
    return cases


def _known_failing() -> frozenset[str]:
    """Names listed in ``hostile_known_failing.txt`` (one a line, ``#`` comments)."""
    path = Path(__file__).resolve().parent / "hostile_known_failing.txt"
    if not path.is_file():
        return frozenset()
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(ln.split("#", 1)[0].strip() for ln in lines if ln.split("#", 1)[0].strip())


#: Cases that fail on main as of the catalogue's writing (commit 0d7e88f, issue 19): the pytest
#: wrapper marks them ``xfail(strict=False)``. ``--list-failing`` prints the current list; delete
#: a line of ``tests/hostile_known_failing.txt`` when its fix lands.
KNOWN_FAILING: frozenset[str] = _known_failing()


def run_case(case: Case, folder: Path) -> str | None:
    import os
    import traceback

    folder.mkdir(parents=True, exist_ok=True)
    saved = list(sys.path)
    cwd = os.getcwd()
    try:
        return case.fn(folder)
    except Exception:
        return "traceback: " + traceback.format_exc().strip().splitlines()[-1][:200]
    finally:
        sys.path[:] = saved
        os.chdir(cwd)


def main(argv: list[str]) -> int:
    import tempfile
    import time

    fast = "--fast" in argv
    verbose = "-v" in argv
    keep = argv[argv.index("-k") + 1] if "-k" in argv else ""
    cases = [c for c in all_cases() if (not fast or not c.slow) and keep in c.name]
    counts: dict[str, list[int]] = {k: [0, 0, 0] for k in CLASSES}
    failing: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ltrbench-hostile-") as tmp:
        for i, case in enumerate(cases):
            t0 = time.perf_counter()
            verdict = run_case(case, Path(tmp) / f"c{i}")
            dt = time.perf_counter() - t0
            slot = 2 if verdict and verdict.startswith("SKIP") else 1 if verdict else 0
            counts[case.klass][slot] += 1
            if slot == 1:
                failing.append(case.name)
            if verbose or slot:
                tag = ("pass", "FAIL", "skip")[slot]
                print(f"{tag} [{case.klass}] {case.name} ({case.source}, {dt:.1f}s)"
                      + (f": {verdict}" if verdict else ""), flush=True)
    print(f"\n{'class':<24} {'cases':>5} {'pass':>5} {'fail':>5} {'skip':>5}")
    for k, (p, f, s) in counts.items():
        print(f"{k:<24} {p + f + s:>5} {p:>5} {f:>5} {s:>5}")
    tot = [sum(v[i] for v in counts.values()) for i in range(3)]
    print(f"{'total':<24} {sum(tot):>5} {tot[0]:>5} {tot[1]:>5} {tot[2]:>5}")
    if "--list-failing" in argv:
        print("\n".join(sorted(failing)))
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
