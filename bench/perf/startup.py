"""``ltrbench perf startup``: how long the command line takes to start, beside a bare script.

Three commands are run as fresh processes, in turns (A, B, C, A, B, C, ...; ``--repeat`` rounds
after one warm-up round that is shown but not counted, so the numba and page caches are warm),
and the median and minimum wall time of each is printed:

* ``ltrbench --help`` (``python -m bench --help``);
* ``ltrbench evaluate --qrels Q --run R`` on a small TREC pair (default: three queries written to
  a temporary folder, the size of trec_eval's own test files; ``--qrels``/``--run`` choose
  others), with the default metrics;
* a bare pytrec_eval script on the same pair: read both files, ``RelevanceEvaluator`` with the
  same metrics (``ndcg_cut.1,3,5,10``, ``map_cut.10``, ``recip_rank``), print the means.

The ratios evaluate / bare script and the targets (``--help`` <= 0.3 s, ``evaluate`` <= 0.6 s and
<= 4x the bare script) are printed, with the load average before and after (other work on the
machine slows every command alike, which is why they run in turns: on a loaded machine the
ratio is the figure to compare, and the report says so). One more, untimed run of the evaluate
command lists the heavy libraries it imported (:data:`HEAVY`; none is expected on a small pair:
:mod:`bench.metrics.kernels.small`). A benchmark, never a timed test:
``tests/test_cli_startup.py`` and ``tests/test_cli_evaluate_imports.py`` check what is imported,
not how long it takes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.data.atomic import write_text
from bench.machine import cpu_model, load_average, usable_cpus
from bench.runners.libraries import LIBRARIES

#: Libraries ``ltrbench evaluate`` of a small TREC pair should not import (module names).
HEAVY = ("numba", "pandas", "pyarrow", "scipy", "sklearn", "dask", "distributed",
         *(lib.import_name for lib in LIBRARIES.values()), "rich.progress")
#: A probe: run ``python -m bench ARGV`` and print the :data:`HEAVY` modules loaded, at exit.
_PROBE = """\
import atexit, json, runpy, sys
atexit.register(lambda: sys.__stderr__.write("HEAVY " + json.dumps(
    [m for m in {heavy!r} if m in sys.modules]) + "\\n"))
sys.argv = ["bench", *{argv!r}]
runpy.run_module("bench", run_name="__main__", alter_sys=True)
"""
HELP_TARGET_S = 0.3
EVALUATE_TARGET_S = 0.6
EVALUATE_TARGET_RATIO = 4.0

#: A bare pytrec_eval script: what a user writes instead of ``ltrbench evaluate``.
BARE_SCRIPT = '''\
import sys
import pytrec_eval
def read(path, run):
    out = {}
    with open(path) as f:
        for line in f:
            c = line.split()
            out.setdefault(c[0], {})[c[2]] = float(c[4]) if run else int(c[3])
    return out
qrels, run = read(sys.argv[1], False), read(sys.argv[2], True)
measures = {"ndcg_cut.1,3,5,10", "map_cut.10", "recip_rank"}
res = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
for m in sorted(next(iter(res.values()))):
    print(m, sum(r[m] for r in res.values()) / len(res))
'''

#: Three queries, as in trec_eval's test files: graded labels, a few unjudged documents.
_QRELS = [(q, d, (q * 7 + d * 3) % 3) for q in (1, 2, 3) for d in range(10)]
_RUN = [(q, d, 12 - r) for q in (1, 2, 3) for r, d in enumerate((q * 5 + k * 7) % 12
                                                                    for k in range(12))]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ltrbench perf startup``."""
    parser.add_argument("--repeat", type=int, default=7,
                        help="rounds of the three commands, in turns (default 7; median of them)")
    parser.add_argument("--qrels", metavar="FILE", help="TREC qrels (default: 3 queries written "
                        "to a temporary folder)")
    parser.add_argument("--run", metavar="FILE", help="TREC run of the same queries")
    parser.add_argument("--baseline", metavar="DIR",
                        help="also time both ltrbench commands with the package of another "
                        "checkout (PYTHONPATH=DIR), in the same turns: before/after figures")
    parser.add_argument("--out", metavar="FILE.md", help="also write the table here")


def _write_pair(folder: Path) -> tuple[Path, Path]:
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    write_text(qrels, "".join(f"{q} 0 d{d} {rel}\n" for q, d, rel in _QRELS))
    write_text(run, "".join(f"{q} Q0 d{d} {k + 1} {s}.5 startup\n"
                            for k, (q, d, s) in enumerate(_RUN)))
    return qrels, run


def _timed(argv: list[str]) -> float:
    """Wall seconds of one run of ``argv`` (output discarded); a failure is an error. An
    ``argv`` starting with ``PYTHONPATH=DIR`` runs with that package path."""
    env, cwd = dict(os.environ), None
    if argv[0].startswith("PYTHONPATH="):  # and run there: ``-m`` puts the cwd first on sys.path
        env["PYTHONPATH"] = cwd = argv[0].partition("=")[2]
        argv = argv[1:]
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False,
                          env=env, cwd=cwd)
    took = time.perf_counter() - start
    if done.returncode != 0:  # the timed command's own one-line error, named
        from bench.errors import ConfigError

        said = " ".join(done.stderr.decode(errors="replace").split())[-500:]
        raise ConfigError(f"the timed command '{' '.join(argv)}' failed (exit "
                          f"{done.returncode}): {said}")
    return took


def commands(qrels: Path, run: Path, script: Path,
             baseline: str | None = None) -> dict[str, list[str]]:
    """The command lines, by the name the table gives them (with ``baseline``, both ltrbench
    commands again under that checkout's package)."""
    py = sys.executable
    ours = {
        "ltrbench --help": [py, "-m", "bench", "--help"],
        "ltrbench evaluate (TREC pair)": [py, "-m", "bench", "evaluate", "--qrels", str(qrels),
                                          "--run", str(run)],
    }
    cmds = {**ours, "bare pytrec_eval script": [py, str(script), str(qrels), str(run)]}
    if baseline is not None:
        path = str(Path(baseline).resolve())
        cmds |= {f"baseline: {k}": [f"PYTHONPATH={path}", *v] for k, v in ours.items()}
    return cmds


def measure(cmds: dict[str, list[str]], repeat: int) -> tuple[dict[str, float],
                                                             dict[str, list[float]]]:
    """One warm-up round (returned first), then ``repeat`` rounds in turns."""
    warm = {name: _timed(argv) for name, argv in cmds.items()}
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(repeat):
        for name, argv in cmds.items():
            times[name].append(_timed(argv))
    return warm, times


def heavy_imports(argv: list[str]) -> list[str]:
    """The :data:`HEAVY` modules that ``python -m bench ARGV`` imports (one untimed run)."""
    code = _PROBE.format(heavy=HEAVY, argv=argv)
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False, text=True)
    line = next((x for x in done.stderr.splitlines() if x.startswith("HEAVY ")), None)
    if done.returncode != 0 or line is None:
        from bench.errors import ConfigError

        raise ConfigError(f"the import probe of 'ltrbench {' '.join(argv)}' failed (exit "
                          f"{done.returncode}): {' '.join(done.stderr.split())[-500:]}")
    loaded: list[str] = json.loads(line.removeprefix("HEAVY "))
    return loaded


def report(warm: dict[str, float], times: dict[str, list[float]], load: tuple[str, str],
           heavy: list[str] | None = None) -> str:
    """The table of medians, minimums and ratios, the verdict on each target and (``heavy``)
    the heavy libraries the evaluate command imported."""
    med = {k: statistics.median(v) for k, v in times.items()}
    bare = med["bare pytrec_eval script"]
    lines = [f"CPU: {cpu_model()}, {usable_cpus()} usable; load average (1, 5, 15 min, "
             f"runnable/tasks) before: {load[0]}; after: {load[1]}", "",
             "| command | median s | min s | warm-up s | / bare script |", "|---|---:|---:|---:|---:|"]
    for name, values in times.items():
        lines.append(f"| {name} | {med[name]:.3f} | {min(values):.3f} | {warm[name]:.3f} | "
                     f"{med[name] / bare:.2f}x |")
    help_s, eval_s = med["ltrbench --help"], med["ltrbench evaluate (TREC pair)"]
    lines += ["", f"--help: {help_s:.3f} s (target <= {HELP_TARGET_S} s: "
              f"{'met' if help_s <= HELP_TARGET_S else 'NOT met'})",
              f"evaluate: {eval_s:.3f} s (target <= {EVALUATE_TARGET_S} s: "
              f"{'met' if eval_s <= EVALUATE_TARGET_S else 'NOT met'}), {eval_s / bare:.2f}x the "
              f"bare script (target <= {EVALUATE_TARGET_RATIO:g}x: "
              f"{'met' if eval_s / bare <= EVALUATE_TARGET_RATIO else 'NOT met'})",
              f"median of {len(times['ltrbench --help'])} rounds in turns, after one warm-up round"]
    busy = _busy(load)
    if busy:
        lines.append(f"the machine was busy ({busy}): every command ran slower alike; compare "
                     "the ratios, not the seconds")
    if heavy is not None:
        lines.append("heavy libraries imported by evaluate: "
                     f"{', '.join(heavy) if heavy else f'none (of {len(HEAVY)} checked)'}")
    return "\n".join(lines) + "\n"


def _busy(load: tuple[str, str]) -> str:
    """``"load average X per usable CPU"`` when the 1-minute load exceeded the usable CPUs
    before or after the rounds, else ``""``."""
    try:
        worst = max(float(x.split()[0]) for x in load)
    except (ValueError, IndexError):
        return ""
    cpus = usable_cpus()
    return f"1-minute load average up to {worst:g} on {cpus} usable CPUs" if worst > cpus else ""


def run(args: argparse.Namespace) -> int:
    """Run ``ltrbench perf startup``; exit status 0 (the targets are printed, not enforced)."""
    if args.repeat < 1:
        from bench.errors import ConfigError

        raise ConfigError(f"--repeat {args.repeat}: expected an integer >= 1")
    if (args.qrels is None) != (args.run is None):
        from bench.errors import ConfigError

        raise ConfigError("give both --qrels and --run, or neither (3 queries are written)")
    if args.baseline is not None and not (Path(args.baseline) / "bench").is_dir():
        from bench.errors import ConfigError

        raise ConfigError(f"--baseline {args.baseline}: expected a checkout of ltrbench (a "
                          "folder holding bench/)")
    with tempfile.TemporaryDirectory(prefix="ltrbench-startup-") as tmp:
        folder = Path(tmp)
        qrels, trec_run = ((Path(args.qrels).resolve(), Path(args.run).resolve())
                           if args.qrels else _write_pair(folder))
        script = folder / "bare_pytrec_eval.py"
        write_text(script, BARE_SCRIPT)
        before = load_average()
        warm, times = measure(commands(qrels, trec_run, script, args.baseline), args.repeat)
        after = load_average()
        heavy = heavy_imports(["evaluate", "--qrels", str(qrels), "--run", str(trec_run)])
        text = report(warm, times, (before, after), heavy)
    print(text, end="")
    if args.out:
        write_text(args.out, "# ltrbench perf startup\n\n" + text)
    return 0
