"""The `rxviz` command line: argument parsing, dispatch and the exit-code contract.

Every subcommand is a thin shell over `models`, one module each in this package
(viz/cli/parser.py binds each to its `run`): the CLI simulates nothing itself. What this
module owns is the promise made to users and scripts:

    0  ok
    1  a check or lesson problem was found
    2  bad usage or unreadable input
    3  the model's checker reported a violation
    70 an internal error (a bug in rxviz: please report it)
    130 interrupted (Ctrl-C)
    143 terminated (SIGTERM), after cleaning up (a sweep's worker processes)

Bad input always produces one message on stderr, never a traceback: a first
line starting with "rxviz: " that says what was wrong and where, within 80
columns, and, when the rest does not fit there (what is expected, a list of
known names), lines indented by two spaces below it (viz/messages.py).
argparse's own usage errors are folded into the same shape (`_Parser.error`).
A `models` package that is not rxviz's own stops it first (viz/origin.py).

Startup is kept fast for `--help` and `rxviz list`: rich is imported only
when a table is printed, networkx only by `rxviz graph --format dot`
(inside models.lifecycle), and textual never.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ..messages import CliError, err
from .common import Terminated
from .parser import _parse

EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141   # 128 + SIGPIPE, as a shell reports `rxviz trace x | head`
EXIT_TERMINATED = 143    # 128 + SIGTERM


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("rxviz")
    except PackageNotFoundError:
        return "unknown"


def _dispatch(argv: list[str]) -> int:
    from ..origin import clash
    problem = clash()       # before anything imports `models`: a package of that name may not be ours
    if problem:
        raise CliError(problem, 2)
    from models import native  # which build of the model runs (compiled or pure Python)
    if native.PROBLEM:
        raise CliError(native.PROBLEM, 2)
    if native.STALE and sys.stderr.isatty():      # a developer's edit since `make compile`: say it runs slower
        err(f"rxviz: note: {native.REASON}")
    try:
        args = _parse(argv)
    except SystemExit as e:          # --help: argparse printed it and asked to exit
        return e.code if isinstance(e.code, int) else 0
    if args.version:
        print(f"rxviz {_version()} ({native.describe()})")
        return 0
    if args.command is None:
        from . import start  # `rxviz` alone
        return start.run(args)
    run: Callable[[argparse.Namespace], int] = args.run      # each command's own, bound by the parser
    return run(args)


def _tolerant_streams() -> None:
    """Output never fails on a character the terminal's encoding lacks.

    Under `LANG=C`, `PYTHONIOENCODING=ascii` or a Latin-1 terminal, a box-drawing character
    in a table or a `→` in a title would raise UnicodeEncodeError (exit 70); a path with
    bytes that are not UTF-8 does it even on a UTF-8 terminal. Such a character is written
    as its backslash escape instead.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")   # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):      # not a text stream (a test's), or closed
            pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `rxviz` and `python -m viz`; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    _tolerant_streams()
    try:
        try:
            code = _dispatch(argv)
            # What is still buffered goes now, inside the handlers: a reader that went away
            # (`| head`) would otherwise get Python's "Exception ignored" at exit.
            sys.stdout.flush()
            return code
        except CliError as e:
            err(f"rxviz: {e.message}")
            return e.code
        except ValueError as e:
            from models.scenario_checks import ScenarioError
            if not isinstance(e, ScenarioError):
                raise
            err(f"rxviz: {e}")
            return 2
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Terminated:
        return EXIT_TERMINATED
    except BrokenPipeError:
        # The reader went away (`rxviz trace x | head`): stop quietly, and keep
        # Python from complaining again when it flushes stdout at exit.
        import os
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_BROKEN_PIPE
    except Exception as e:  # the last resort: a bug, reported in one line
        msg = " ".join(str(e).split()) or "(no message)"
        err(f"rxviz: internal error: {type(e).__name__}: {msg} (please report)")
        return EXIT_INTERNAL
