"""`rxviz play`: a lesson in the interactive player (Textual imported only here).
"""

from __future__ import annotations

import argparse

from ..messages import CliError
from . import common, driver_option
from .common import playable


def run(args: argparse.Namespace) -> int:
    lesson = playable(args.lesson, args.step or 0)
    opened = driver_option.with_driver(args, lesson)
    if not common.has_display():
        # Without a terminal Textual would wait for keys that never come, at full CPU.
        raise CliError("play needs a terminal (stdin and stdout are not one); for output a script can "
                       f"read: `rxviz run {args.lesson}` or `rxviz screenshot {args.lesson}`", 2)
    from viz.app import run_app  # Textual only for the commands that need it

    step = args.step
    if step is None and args.present and not args.resume:
        step = 0                 # a talk starts at the beginning, wherever the rehearsal stopped
    return run_app(opened, step, args.compare, args.present)
