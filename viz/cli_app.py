"""The commands that run the Textual app: play, screenshot, export, serve, and `rxviz` alone.

Each checks its input (the lesson, the step, a size) with the plain CLI
helpers first, so bad input is one `rxviz:` line and exit 2 before Textual
starts, takes the terminal or opens a port. viz/cli_commands.py maps the
names here and imports this module only when one of them runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .cli_commands import CliError, cmd_home, err, playable, put


def has_display() -> bool:
    """A terminal on both ends, or a browser page (`rxviz serve` runs the app with Textual's web driver)."""
    if os.environ.get("TEXTUAL_DRIVER", "").endswith("WebDriver"):
        return True
    return sys.stdin.isatty() and sys.stdout.isatty()


def with_driver(args: argparse.Namespace, lesson):
    """The lesson to open: as it is, or with `--driver` as its variant your-driver (tried first in a
    child process under limits; a driver that fails there is one line, exit 2)."""
    if not getattr(args, "driver", None):
        return args.lesson
    from .cli_progress import progress
    from .exercises.play import DriverFailed, lesson_with_driver
    try:
        with progress(f"trying your driver on {lesson.id}"):
            return lesson_with_driver(lesson, args.driver)
    except DriverFailed as e:
        raise CliError(f"--driver: {e.line}", 2) from None


def cmd_play(args: argparse.Namespace) -> int:
    lesson = playable(args.lesson, args.step or 0)
    opened = with_driver(args, lesson)
    if not has_display():
        # Without a terminal Textual would wait for keys that never come, at full CPU.
        raise CliError("play needs a terminal (stdin and stdout are not one); for output a script can "
                       f"read: `rxviz run {args.lesson}` or `rxviz screenshot {args.lesson}`", 2)
    from viz.app import run_app  # Textual only for the commands that need it

    step = args.step
    if step is None and args.present and not args.resume:
        step = 0                 # a talk starts at the beginning, wherever the rehearsal stopped
    return run_app(opened, step, args.compare, args.present)


def cmd_screenshot(args: argparse.Namespace) -> int:
    lesson = playable(args.lesson, args.step)
    opened = with_driver(args, lesson)
    from viz.screenshot import parse_size, screenshot_sync

    try:
        size = parse_size(args.size)
    except ValueError as e:
        raise CliError(f"--size: {e}", 2) from None
    out = args.output or f"{lesson.id}-step{args.step}{'-compare' if args.compare else ''}.svg"
    from . import files
    try:
        files.check_target(Path(out))             # before the seconds the screen takes
    except files.Unsafe as e:
        raise CliError(f"-o: {e}", 2) from None
    from .cli_progress import progress
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


def cmd_export(args: argparse.Namespace) -> int:
    """A handout: the page and an SVG per step, written into a directory."""
    import asyncio

    lesson = playable(args.lesson, 0)
    from viz.screenshot import parse_size, screenshots

    from . import handout
    from .cli_progress import progress
    try:
        size = parse_size(args.size)
    except ValueError as e:
        raise CliError(f"--size: {e}", 2) from None
    from . import files
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


def cmd_serve(args: argparse.Namespace) -> int:
    """The player in a browser page; the lesson, if any, is checked before anything listens."""
    if args.lesson:
        playable(args.lesson, 0)
    from viz import serve
    if not serve.is_local(args.host):
        err(f"rxviz: warning: serving on {args.host}:{args.port}: anyone who can reach this address "
             f"can open the page and run lessons on this machine")
    try:
        serve.serve(args.lesson, args.host, args.port, args.public_url,
                    max_sessions=args.max_sessions or serve.MAX_SESSIONS, resume=args.resume)
    except OSError as e:
        why = e.strerror or (os.strerror(e.errno) if e.errno else str(e))
        raise CliError(f"serve: cannot listen on {args.host}:{args.port}: {why}", 2) from None
    return 0


def cmd_start(args: argparse.Namespace) -> int:
    """`rxviz` alone: the home screen in a terminal, the usage text when piped."""
    if has_display():
        from viz.app import run_app

        return run_app()
    return cmd_home(args)
