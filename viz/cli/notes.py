"""`rxviz notes [--session ID] [--list] [--once]`: speaker notes following a presenter.

viz/notes.py finds the presenters and renders their notes; this is the command's shell
around it (the directory to look in, `--list`, `--once`, the exit code).
"""

from __future__ import annotations

import argparse
import sys

from ..messages import CliError, err


def run(args: argparse.Namespace) -> int:  # noqa: C901 (older than the complexity rule)
    """`rxviz notes [--session ID] [--list] [--once]`: 0, or 1 when `--once` finds no presenter."""
    # Here, not above: the parser imports every command's module, and nothing may import
    # `models` before viz/origin.py has checked it is rxviz's own.
    from models.lesson.sanitize import shown

    from ..notes import follow, pick, sessions
    from ..state import Unusable, runtime_dir

    try:
        directory = runtime_dir(lambda line: err(f"rxviz: note: {line}"))
    except Unusable as e:
        raise CliError(f"notes: no safe directory to find presenters in: {e}", 2) from None
    if args.list:
        live = sessions(directory)
        for d in live:
            print(shown(f"{d['session']}  {d['lesson']}  step {d['step']}/{d['total']}"))
        if not live:
            print("no presenter is running (start one with rxviz play LESSON --present)")
        return 0

    def out(text: str) -> None:
        if sys.stdout.isatty() and not args.once:
            print("\x1b[2J\x1b[H", end="")
        print(text, flush=True)

    if args.once:
        if pick(args.session, directory) is None:
            who = f"presenter session {args.session!r}" if args.session else "presenter"
            raise CliError(f"notes: no {who} is running on this machine; start one with "
                           f"`rxviz play LESSON --present` (`rxviz notes --list` lists them)", 1)
    try:
        for _ in follow(args.session, out, once=args.once, directory=directory):
            pass
    except KeyboardInterrupt:
        return 0
    return 0
