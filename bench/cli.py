"""The ``ltrbench`` command line: a thin layer over the library API.

Each sub-command lives in :mod:`bench.commands` as a module with a ``register(subparsers)``
function that adds its parser and sets ``func`` (``args -> exit status``). The commands are
registered lazily: :data:`COMMANDS` names each command's module and its one-line help, so that
``ltrbench --help`` imports no command at all and ``ltrbench evaluate ...`` imports the evaluate
module only (a command's module, and the libraries it needs, are imported when the command is
parsed; see :class:`LazyCommands`). Errors that ltrbench raises on purpose
(:class:`bench.errors.LtrbenchError`) are printed as one line, ``error: ...``, with exit status
2; so are operating-system errors that reach this level (a full disk, a permission lost while
running): ``error: PATH: reason``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from typing import Any, NamedTuple

from bench import __version__
from bench.errors import LtrbenchError, choice_hint, spelled_choice
from bench.streams import (
    best_effort_stderr,
    encodable_output,
    named_stdout,
    not_utf8,
    os_error_text,
    pipe_closed,
    refuse_cut_output,
    say,
    stdout_error,
    stdout_failed,
    stdout_lost,
    verdict,
)


class Command(NamedTuple):
    """Where a sub-command lives and the line ``ltrbench --help`` shows for it (the same text
    the module's ``register`` passes as ``help=``; ``tests/test_cli_startup.py`` checks it)."""

    module: str
    help: str


#: The sub-commands, in the order ``ltrbench --help`` lists them. A module is imported only
#: when its command is parsed (or its parser is asked for).
COMMANDS: dict[str, Command] = {
    "run": Command("bench.commands.run", "train and evaluate LightGBM/XGBoost/CatBoost rankers "
                   "and baselines over seeds"),
    "evaluate": Command("bench.commands.evaluate", "ranking metrics of a scores file or TREC "
                        "run under a named convention"),
    "crosscheck": Command("bench.commands.crosscheck", "compare LightGBM/XGBoost/CatBoost "
                          "built-in ndcg@k with the reference evaluator"),
    "crosscheck-versions": Command("bench.commands.versions", "which profile reproduces each "
                                   "release of LightGBM/XGBoost (isolated environments)"),
    "report": Command("bench.commands.report", "leaderboards (md, csv, json, tex) and plots "
                      "from run directories"),
    "reproduce": Command("bench.commands.reproduce", "re-run the configs behind a leaderboard "
                         "(or a run) and compare every number"),
    "tune": Command("bench.commands.tune", "tune GBDT models on Optuna with one budget "
                    "(scored by the reference evaluator)"),
    "convert": Command("bench.commands.convert", "ratings (MovieLens, CSV/Parquet, or "
                       "synthetic) -> LETOR train/vali/test files"),
    "datasets": Command("bench.commands.datasets", "dataset catalogue: list, info, fetch, "
                        "verify"),
    "metrics": Command("bench.commands.metrics", "metric names: every accepted spelling and "
                       "its profile"),
    "perf": Command("bench.commands.perf", "speed/memory benchmarks with ratios against peers"),
}

#: Kept for code that listed the modules (the order of ``ltrbench --help``).
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(c.module for c in COMMANDS.values()))


def load_command(name: str, prog: str = "ltrbench",
                 parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
                 ) -> argparse.ArgumentParser:
    """The parser of command ``name``: its module imported and its ``register`` run on a
    sub-parser set of its own (``prog`` is the prefix of its usage line)."""
    module = importlib.import_module(COMMANDS[name].module)
    from bench.commands.text import dash_values  # '--run -r.txt': why it took no value
    own = argparse._SubParsersAction(option_strings=[], prog=prog, parser_class=parser_class)
    module.register(own)
    parser: argparse.ArgumentParser = own.choices[name]
    once_per_option(parser)
    no_abbreviations(parser)
    no_empty_values(parser)
    dash_values(parser)
    return parser


def no_abbreviations(parser: argparse.ArgumentParser) -> None:
    """Turn off argparse's prefix matching on ``parser`` and its sub-commands: with it,
    ``--tree 5`` was read as ``--trees 5``, ``--out`` as ``--out-dir`` and ``--seed`` as
    ``--seeds``, so a typo or a stale spelling picked an option in silence, and adding an
    option could change what an old command line meant. Only an option's full spelling (or
    ``--option=value``) is read now; a prefix is an unrecognized argument, reported with the
    closest option (:func:`_unrecognized`). See ``allow_abbrev`` in the ``argparse``
    documentation (https://docs.python.org/3/library/argparse.html#allow-abbrev)."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                no_abbreviations(sub)


def no_empty_values(parser: argparse.ArgumentParser) -> None:
    """Refuse an empty value (``--query ""``, ``--data-dir=``) for every option and positional
    argument of ``parser`` and its sub-commands, before its type reads it: an empty value was
    read as its option left out (``datasets --data-dir ""`` listed the default data directory,
    ``evaluate --query ""`` was ignored), and a path type reads ``""`` as ``.``, the current
    folder. Whitespace is a value (``--sep " "``); only the empty string is refused, as a usage
    error (exit 2) naming the option. An optional value whose bare flag stands for ``""``
    (``tune --resume``: argparse reads its ``const`` through the type) is left as it is."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                no_empty_values(sub)
        elif action.nargs != 0 and not getattr(action.type, "_refuses_empty", False) \
                and not (action.nargs == "?" and action.const == ""):  # a bare flag's own ""
            action.type = _non_empty(action.type)


def _non_empty(read: Any) -> Callable[[str], Any]:
    def value(text: str) -> Any:
        if text == "":
            raise argparse.ArgumentTypeError("an empty value: give one, or leave the option out")
        if any("\udc80" <= c <= "\udcff" for c in text):  # os.fsdecode's escapes of bytes
            raise argparse.ArgumentTypeError(not_utf8(text))
        return text if read is None else read(text)

    value.__name__ = getattr(read, "__name__", "str")  # argparse's "invalid <name> value"
    value._refuses_empty = True  # type: ignore[attr-defined]
    return value


#: The attribute of a parsed namespace that holds the options given so far, by destination
#: (removed by :func:`main` once parsing is done).
_GIVEN = "_ltrbench_given"


class _Once:
    """Mixed into a store action: the one rule of every command for an option given twice.

    A second, *different* value for the same destination is a usage error (exit 2) naming both
    values: ``--config a.toml --config b.toml`` trained ``b.toml`` in silence (argparse's
    last-wins), ``evaluate --profile ranx --profile trec_eval`` printed trec_eval's numbers, and
    ``--crosscheck --no-crosscheck`` left the user guessing. Round 5 warned for ``run`` and
    ``report`` and refused for ``evaluate``; one grammar now refuses everywhere, since every such
    option chooses a number, a file or an output. The same value twice is accepted silently
    (``--format json --format=json``); options that add up (``append``, ``extend``, ``count``)
    are not single-valued and are left alone."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        dest = self.dest  # type: ignore[attr-defined]
        value = values
        if isinstance(self, argparse._StoreConstAction):
            value = self.const
        elif isinstance(self, argparse.BooleanOptionalAction) and option_string is not None:
            value = not option_string.startswith("--no-")
        given: dict[str, tuple[str, Any]] = namespace.__dict__.setdefault(_GIVEN, {})
        if option_string is not None and dest in given and given[dest][1] != value:
            first, before = given[dest]
            if first == option_string:
                how = f"given twice ({before!r}, then {value!r})"
            else:
                how = f"given after {first} (both set {dest!r}: {before!r}, then {value!r})"
            raise argparse.ArgumentError(self,  # type: ignore[arg-type]
                                         f"{how}: give it once")
        if option_string is not None:
            given[dest] = (option_string, value)
        super().__call__(parser, namespace, values, option_string)  # type: ignore[misc]


def once_per_option(parser: argparse.ArgumentParser) -> None:
    """Make every single-valued option of ``parser`` (and of its sub-commands) refuse a second,
    different value: see :class:`_Once`. Options that add up (``append``, ``count``) are kept."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                once_per_option(sub)
        elif type(action) in (argparse._StoreAction, argparse._StoreConstAction,
                              argparse._StoreTrueAction, argparse._StoreFalseAction,
                              argparse.BooleanOptionalAction) and action.option_strings:
            action.__class__ = type(f"Once{type(action).__name__}", (_Once, type(action)), {})


class LazyCommands(MutableMapping[str, argparse.ArgumentParser]):
    """Command name -> parser, each parser built (its module imported) on first access.

    This is the ``choices`` of the sub-parser action: argparse looks a command up with ``in``
    and ``[]`` (which loads it), lists the names with iteration (which loads nothing), and
    prints ``ltrbench --help`` from the one-line helps alone.
    """

    def __init__(self, load: Callable[[str], argparse.ArgumentParser]) -> None:
        self._load = load
        self._parsers: dict[str, argparse.ArgumentParser | None] = {}

    def declare(self, name: str) -> None:
        """A command whose parser is built when first asked for."""
        self._parsers[name] = None

    def __getitem__(self, name: str) -> argparse.ArgumentParser:
        parser = self._parsers[name]
        if parser is None:
            parser = self._parsers[name] = self._load(name)
        return parser

    def __setitem__(self, name: str, parser: argparse.ArgumentParser) -> None:
        self._parsers[name] = parser

    def __delitem__(self, name: str) -> None:
        del self._parsers[name]

    def __contains__(self, name: object) -> bool:
        return name in self._parsers

    def __iter__(self) -> Iterator[str]:
        return iter(self._parsers)

    def __len__(self) -> int:
        return len(self._parsers)


class LazySubParsersAction(argparse._SubParsersAction):  # type: ignore[type-arg]
    """A sub-parser action whose commands come from :data:`COMMANDS`, loaded when used."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._name_parser_map = self.choices = LazyCommands(  # type: ignore[assignment]
            lambda name: load_command(name, self._prog_prefix, self._parser_class))

    def declare(self, name: str, help: str) -> None:
        """List ``name`` in ``--help`` with ``help``; its parser is built when it is used."""
        self._choices_actions.append(self._ChoicesPseudoAction(name, (), help))
        self.choices.declare(name)  # type: ignore[attr-defined]


def build_parser() -> argparse.ArgumentParser:
    """The ``ltrbench`` parser; each command's module is imported only when it is parsed."""
    parser = _Parser(
        prog="ltrbench",
        description="Learning-to-rank benchmark: LambdaMART in LightGBM, XGBoost and CatBoost (and "
        "your own rankers) on LETOR and "
        "ratings data, with a convention-explicit reference evaluator.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"ltrbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", action=LazySubParsersAction)
    assert isinstance(sub, LazySubParsersAction)
    for name, command in COMMANDS.items():
        sub.declare(name, command.help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status. A reader that closed the pipe (``| head``) is a normal
    end: the command's verdict (0 unless it recorded another), nothing on stderr (see
    :func:`pipe_closed`). Run as the program (``argv`` not given), a process Ctrl-C stopped
    ends by SIGINT once its one line is said, one SIGTERM or SIGHUP stopped by that signal
    (:func:`bench.commands.stops.end_by_signal`)."""
    if sys.stdout is None:  # started with standard output closed (>&-): no traceback at print
        print("error: standard output is closed (the command was started with >&-): "
              "redirect it to a file or /dev/null", file=sys.stderr or sys.__stderr__)
        return 2
    from bench.machine import limit_note, pin_blas_kernels

    if (pinned := pin_blas_kernels()).startswith("warning:"):  # before anything loads NumPy
        print(pinned, file=sys.stderr)
    verdict(0)
    try:
        with encodable_output(), best_effort_stderr(), named_stdout():
            status = _main(argv)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, as cat does
        return pipe_closed()
    except (*_LIMIT_ERRORS, OSError) as exc:  # a command's module
        if (note := limit_note(exc)) is None:  # could not load under ulimit -v / -n
            raise
        print(f"error: {note}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # rich's Console turns a broken pipe into SystemExit(1)
        if isinstance(exc.__context__, BrokenPipeError):
            return pipe_closed()
        try:  # argparse's --help / usage exit: its text is flushed here, not at exit
            sys.stdout.flush()
            if (lost := stdout_lost()) is not None:  # a long --help that argparse dropped
                raise lost
        except BrokenPipeError:
            pipe_closed()
        except OSError as err:  # --version > /dev/full: one line, not a traceback
            say(f"error: {os_error_text(err if err.filename else stdout_error(err))}")
            return 2
        raise
    if status in (130, 143, 129) and argv is None:  # the ltrbench process itself
        from bench.commands.stops import STOPPED_STATUS, end_by_signal

        end_by_signal(STOPPED_STATUS[status])  # Ctrl-C, SIGTERM, SIGHUP: ends by that signal
    return status


#: What a resource limit can raise (``ulimit -v``), said by :func:`bench.machine.limit_note`.
_LIMIT_ERRORS = (MemoryError, ImportError, RuntimeError, SystemError)


#: The destinations of the options (and positional words) that name a file or folder, in every
#: command: a leading ``~`` in their value is the user's home, as :func:`expand_home` says.
PATH_DESTS = frozenset({
    "baseline", "cache_dir", "config", "data", "data_dir", "dataset", "dir", "leaderboard",
    "out", "per_query", "qrels", "query", "ratings", "results", "resume", "run", "runs",
    "runs_dir", "scores", "space_file", "trec_run", "tuned"})


def expand_home(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Read a leading ``~`` (``~/x``, ``~user/x``) of every path option as the home folder, as
    the shell would have: a value quoted in a Makefile, a CI step or a config template reaches
    ltrbench unexpanded. The Python API (``bench.data.python_args.user_path``) and pandas expand
    it, and so did ``evaluate --qrels``; ``--out '~/res'`` and ``--per-query '~/pq.csv'`` wrote
    into a folder named ``~`` in the working folder (``run --out`` then read its own files back
    through pandas, from the home folder, and failed), and ``--data``, ``--config`` or ``report
    --runs`` said the file did not exist. One rule for inputs and outputs now; a value that
    does not start with ``~`` (``NAME=FILE``, a catalogue name) is left as it is; one that
    cannot be expanded (no HOME, no such user) is refused naming the option
    (:func:`bench.errors.home_expanded`)."""
    from bench.errors import home_expanded

    names = {a.dest: (a.option_strings or [a.dest.upper()])[0] for a in parser._actions}
    for dest in PATH_DESTS & vars(args).keys():
        value, where = getattr(args, dest), names.get(dest, dest)
        if isinstance(value, str):
            setattr(args, dest, home_expanded(value, where))
        elif isinstance(value, list):
            setattr(args, dest, [home_expanded(v, where) if isinstance(v, str) else v
                                 for v in value])


def _parsed(parser: argparse.ArgumentParser,
            argv: Sequence[str] | None) -> argparse.Namespace | None:
    """``argv`` read by ``parser`` (a command's module is imported here); ``None`` when no
    command was given (said, with the usage)."""
    args, extras = parser.parse_known_args(argv)
    if extras:  # argparse reports them with the top-level usage, which lists no option
        _unrecognized(_command_parser(parser, args), extras)
    vars(args).pop(_GIVEN, None)
    if not getattr(args, "func", None):  # no command (``ltrbench $EMPTY`` in a CI step):
        parser.print_usage(sys.stderr)  # exit 2, as ``ltrbench datasets`` without its action
        say(f"{parser.prog}: error: a command is required: {', '.join(COMMANDS)} "
            "(ltrbench --help says what each does)")
        return None
    return args


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Run the command ``args`` chose, after the checks every command shares."""
    from bench.commands.stops import sigterm_as_interrupt
    from bench.errors import ConfigError
    from bench.machine import thread_variable_problem

    expand_home(args, _command_parser(parser, args))
    # The door of every command (a file plainly another kind), imported late: not by --help
    from bench.commands.text import check_input_kinds

    check_input_kinds(getattr(args, "command", None), args)
    if (problem := thread_variable_problem()) is not None:  # before numba or OpenMP loads
        raise ConfigError(problem)
    from bench.jit_cache import saves_best_effort

    with _one_line_warnings(), sigterm_as_interrupt(), saves_best_effort():
        status = int(args.func(args) or 0)
    sys.stdout.flush()  # a broken pipe surfaces here, not in Python's flush at exit
    refuse_cut_output()
    return status


def _main(argv: Sequence[str] | None) -> int:
    """Parse and run one command, each error as one line (Ctrl-C and a warning made an error
    too while a command's module is imported, in its first second)."""
    from bench.machine import limit_note

    parser = build_parser()
    args = None
    try:
        with _one_line_warnings():  # '--format JSON' read as json: said on one line
            args = _parsed(parser, argv)
        return 2 if args is None else _run(parser, args)
    except LtrbenchError as exc:
        say(f"error: {exc}")
        return 2
    except Warning as exc:  # PYTHONWARNINGS=error / -W error, as CI sets: the warning refuses
        text = " ".join(str(exc).split())
        ours = type(exc).__module__.split(".")[0] == "bench"
        say(f"error: {text if ours else f'{type(exc).__name__}: {text}'} (a warning made an "
            "error by -W error or PYTHONWARNINGS)")
        return 2
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk, a file made unreadable mid-run: never a traceback
        note = limit_note(exc)
        say(f"error: {note or os_error_text(stdout_failed(exc))}")
        return 2
    except _LIMIT_ERRORS as exc:  # a limit (ulimit -v) said as one line
        if (note := limit_note(exc)) is None:
            raise
        say(f"error: {note}")
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C; SIGTERM, SIGHUP (stops.Terminated)
        signum = getattr(exc, "signum", None)
        resume = " (use --resume to go on)" if hasattr(args, "resume") else ""  # run, tune
        say(f"{getattr(exc, 'how', 'interrupted')}; files already written are complete{resume}")
        return 130 if signum is None else 128 + signum


def _command_parser(parser: argparse.ArgumentParser,
                    args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``args`` chose (``ltrbench perf runners``): an option it
    does not know is reported under that command's usage, which lists its options, not under
    ``ltrbench [-h] [--version] COMMAND``."""
    while True:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
                   None)
        chosen = getattr(args, sub.dest, None) if sub is not None and sub.dest else None
        if sub is None or not isinstance(chosen, str) or chosen not in sub.choices:
            return parser
        parser = sub.choices[chosen]


def _unrecognized(parser: argparse.ArgumentParser, extras: list[str]) -> None:
    """Exit 2 under ``parser``'s usage naming the unknown arguments and, for an unknown option,
    the options it abbreviates (``--budget`` -> ``--budget-cpu-s, --budget-trials``; options
    are never abbreviated, :func:`no_abbreviations`) or else the closest option of that command
    (``--n-tree`` -> ``--n-trees``)."""
    import difflib

    options = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    if "--" in extras:  # after '--' every word is positional, an option's name too
        takes = [a.metavar or a.dest for a in parser._actions if not a.option_strings
                 and not isinstance(a, argparse._SubParsersAction)]
        what = (f"beyond its {', '.join(map(str, takes))}" if takes
                else f"which {parser.prog} does not take")
        hint = ("; '--' ends the options: every word after it is a positional argument, "
                f"{what} (write the options before '--', or leave '--' out)")
        parser.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
    from bench.commands.text import trec_eval_hints

    hints = trec_eval_hints(parser, extras)
    for word in extras:
        name = word.split("=", 1)[0]
        if not name.startswith("--"):
            continue
        longer = sorted(o for o in options if o.startswith(name))  # an abbreviation, refused
        if 1 < len(longer) <= 4:
            hints.append(f"{name}: did you mean one of {', '.join(longer)}?")
        elif not longer and (owners := _owners(name, parser.prog)):  # 'evaluate --seeds'
            hints.append(f"{name}: an option of ltrbench {', '.join(owners)}, not of "
                         f"{parser.prog}")
        elif close := (longer if len(longer) == 1
                       else difflib.get_close_matches(name, options, n=1)):
            hints.append(f"{name}: did you mean {close[0]}?")
    hint = f" ({'; '.join(hints)})" if hints else ""
    parser.error(f"unrecognized arguments: {' '.join(extras)}{hint}")


def _owners(option: str, prog: str) -> list[str]:
    """The other commands that take ``option`` (``evaluate --seeds``: run, tune, crosscheck)."""
    def takes(parser: argparse.ArgumentParser) -> bool:
        return any(option in a.option_strings or (isinstance(a, argparse._SubParsersAction)
                   and any(map(takes, a.choices.values()))) for a in parser._actions)
    return [n for n in COMMANDS if n != prog.split()[-1] and takes(load_command(n))]


class _Parser(argparse.ArgumentParser):
    """The parser of every command: an invalid choice (a command, ``--format``) names the
    closest valid one (``ltrbench evalute``: did you mean 'evaluate'?), as an option does; an
    option's choice in another case is read as spelled (:func:`bench.errors.spelled_choice`)."""

    def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
        value = super()._get_value(action, arg_string)  # '--format JSON' is json, said once
        if action.choices is None or isinstance(action, argparse._SubParsersAction):
            return value
        return spelled_choice(value, list(action.choices), "/".join(action.option_strings))

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as exc:
            from bench.streams import cut_middle  # a 100 kB word: its middle cut

            # 'TPF': did you mean 'tpe'?; a look-alike letter or a U+00A0 space named
            hint = choice_hint(value, [str(c) for c in action.choices or ()]).rstrip("; ")
            raise argparse.ArgumentError(action, cut_middle(exc.message)
                                         + (f"; {hint}" if hint else "")) from None


@contextlib.contextmanager
def _one_line_warnings() -> Iterator[None]:
    """Warnings printed while a command runs read ``warning: <message>`` (``warning: <Category>:
    <message>`` for another package's), not Python's ``file:line: Category`` and a source line."""
    import warnings

    def one_line(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 line: str | None = None) -> str:
        ours = category.__module__.split(".")[0] == "bench"
        text = " ".join(str(message).split())
        return f"warning: {text}\n" if ours else f"warning: {category.__name__}: {text}\n"

    saved = warnings.formatwarning
    warnings.formatwarning = one_line
    try:
        yield
    finally:
        warnings.formatwarning = saved


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
