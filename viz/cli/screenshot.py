"""`rxviz screenshot`: an SVG of the player at a step, written atomically.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..messages import CliError, put
from . import driver_option
from .common import playable


def run(args: argparse.Namespace) -> int:
    lesson = playable(args.lesson, args.step)
    opened = driver_option.with_driver(args, lesson)
    from viz.screenshot import parse_size, screenshot_sync

    try:
        size = parse_size(args.size)
    except ValueError as e:
        raise CliError(f"--size: {e}", 2) from None
    out = args.output or f"{lesson.id}-step{args.step}{'-compare' if args.compare else ''}.svg"
    from .. import files
    try:
        files.check_target(Path(out))             # before the seconds the screen takes
    except files.Unsafe as e:
        raise CliError(f"-o: {e}", 2) from None
    from .progress import progress
    with progress(f"{lesson.id}: computing step {args.step}") as report:
        svg = screenshot_sync(opened, args.step, size, args.compare, report=report)
    try:
        files.write(Path(out), svg)
    except files.Unsafe as e:
        raise CliError(f"-o: {e}", 2) from None
    except OSError as e:
        raise CliError(f"cannot write {out}: {e.strerror}", 2) from None
    put(out)
    return 0
