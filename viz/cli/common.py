"""What every command shares: argument types, loading a lesson and its variants, the
violation exit code, SIGTERM as an exception.

Bad input becomes a `CliError` (viz/messages.py: a message and an exit code) as close as
possible to where it is detected, so viz/cli/main.py prints it as one line.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from ..messages import CliError, err

if TYPE_CHECKING:
    from collections.abc import Callable
    from signal import Handlers
    from types import FrameType

    from models.lesson.schema import Lesson


class Terminated(BaseException):
    """SIGTERM arrived where a command cleans up first (sweep's workers): exit 143, as a shell reports it."""


def on_sigterm_raise() -> Callable[[int, FrameType | None], Any] | int | Handlers | None:
    """From now on SIGTERM raises Terminated here, so `finally` and `with` blocks run; the old handler."""
    import signal

    def terminated(signum: int, frame: FrameType | None) -> None:
        raise Terminated
    return signal.signal(signal.SIGTERM, terminated)


def fault_docs() -> dict[str, str]:
    """One line per fault of `--inject`, for `rxviz run --help`."""
    from models.calls import FAULTS
    return dict(FAULTS)


def positive_int(text: str) -> int:
    """argparse type for --frames."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def seed_int(text: str) -> int:
    """argparse type for --seed."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number 0 or more, got {text!r}")
    return int(text)


# -- loading ---------------------------------------------------------------------
def load(name: str, broken_code: int = 2) -> Lesson:
    """A lesson by id or path, or a CliError with the loader's one-line message."""
    from models.lesson import LessonError, LessonNotFound, find_lesson, load_lesson
    try:
        try:
            lesson = find_lesson(name)
        except LessonNotFound:
            if not os.path.exists(name):
                raise
            lesson = load_lesson(name)      # `rxviz run lessons` or a file without .yaml
    except LessonNotFound as e:
        from models.lesson.schema import did_you_mean
        known = ", ".join(e.known) or "(none)"
        raise CliError(f"unknown lesson {e.name!r}{did_you_mean(e.name, e.known)}; "
                       f"known lessons (`rxviz list`): {known}", 2) from None
    except LessonError as e:
        more = f"; and {len(e.more)}{'+' if e.dropped else ''} more problem(s): `rxviz check {e.path}` lists them" \
            if e.more else ""
        raise CliError(str(e) + more, broken_code) from None
    if lesson.problems:
        err(f"rxviz: note: {len(lesson.problems)} problem(s) in the text of {lesson.path} (control, bidi or "
            f"invisible characters, markup), shown as written; `rxviz check {lesson.path}` says where")
    return lesson


def variants_of(lesson: Lesson, names: list[str]) -> list[str]:
    from models.lesson.schema import did_you_mean
    out: list[str] = []
    for n in names:
        if n not in lesson.variants:
            raise CliError(f"lesson {lesson.id!r} has no variant {n!r}{did_you_mean(n, lesson.variants)}; "
                           f"its variants are {', '.join(lesson.variants)}", 2)
        if n not in out:
            out.append(n)
    return out


def settings_of(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    from models.runner import BadSetting, check_faults, parse_sets
    try:
        return parse_sets(args.set), check_faults(args.inject)
    except BadSetting as e:
        raise CliError(str(e), 2) from None


def violation_exit(found: dict[str, dict[str, int]]) -> int:
    """Exit 3 and one line when the checker reported violations no variant `expect`s."""
    if not found:
        return 0
    total = sum(n for counts in found.values() for n in counts.values())
    names = sorted(f"{variant}: {name}" for variant, counts in found.items() for name in counts)
    err(f"rxviz: the checker reported {total:,} violation(s): {'; '.join(names)}")
    return 3


def playable(lesson_id: str, step: int) -> Lesson:
    """The lesson, checked before Textual takes the terminal: a bad one is one line, exit 2."""
    lesson = load(lesson_id)
    if step > len(lesson.steps):
        n = len(lesson.steps)
        raise CliError(f"--step {step}: {lesson.id} has {n} steps: expected 1 to {n}, or 0 for its cover", 2)
    return lesson


def has_display() -> bool:
    """A terminal on both ends, or a browser page (`rxviz serve` runs the app with Textual's web driver)."""
    if os.environ.get("TEXTUAL_DRIVER", "").endswith("WebDriver"):
        return True
    return sys.stdin.isatty() and sys.stdout.isatty()
