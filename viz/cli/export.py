"""`rxviz export`: a handout, the page and an SVG per step.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..messages import CliError, put
from .common import playable


def run(args: argparse.Namespace) -> int:
    """A handout: the page and an SVG per step, written into a directory."""
    import asyncio

    lesson = playable(args.lesson, 0)
    from viz.screenshot import parse_size, screenshots

    from .. import handout
    from .progress import progress
    try:
        size = parse_size(args.size)
    except ValueError as e:
        raise CliError(f"--size: {e}", 2) from None
    from .. import files
    outdir = Path(args.output or f"{lesson.id}-handout")
    try:
        files.own_dir(outdir, create=False)        # before the seconds the screens take
    except files.Unsafe as e:
        raise CliError(f"-o: {e}", 2) from None
    steps = range(len(lesson.steps) + 1)
    with progress(f"{lesson.id}: the player at {len(steps)} steps") as report:
        svgs = asyncio.run(screenshots(args.lesson, steps, size, report=report))
    result = None
    if lesson.paper is not None:
        from models.runner import run_lesson
        with progress(f"{lesson.id}: paper vs model, {lesson.headline.frames:,} frames") as report:
            result = run_lesson(lesson, variants=[lesson.headline.before, lesson.headline.after],
                                progress=report)
    try:
        page = handout.write(lesson, args.format, outdir, svgs, result)
    except files.Unsafe as e:
        raise CliError(f"-o: {e}", 2) from None
    except OSError as e:
        raise CliError(f"cannot write into {outdir}: {e.strerror}", 2) from None
    put(str(page))
    return 0
