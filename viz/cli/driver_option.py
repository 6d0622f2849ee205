"""`--driver FILE` of `play` and `screenshot`: the learner's own driver as a variant.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..messages import CliError

if TYPE_CHECKING:
    from models.lesson.schema import Lesson


def add(p: argparse.ArgumentParser) -> None:
    p.add_argument("--driver", metavar="FILE",
                   help="add your own driver (a driver.py of `rxviz exercise start`) as the variant "
                        "your-driver, beside the lesson's. It runs in this process with your rights: pass only "
                        "a file you wrote or trust (it is first tried in a child process under limits)")


def with_driver(args: argparse.Namespace, lesson: Lesson) -> str | Lesson:
    """The lesson to open: as it is, or with `--driver` as its variant your-driver (tried first in a
    child process under limits; a driver that fails there is one line, exit 2)."""
    if not getattr(args, "driver", None):
        named: str = args.lesson             # by its name: the app opens its own copy of a shipped lesson
        return named
    from ..exercises.play import DriverFailed, lesson_with_driver
    from .progress import progress
    try:
        with progress(f"trying your driver on {lesson.id}"):
            return lesson_with_driver(lesson, args.driver)
    except DriverFailed as e:
        raise CliError(f"--driver: {e.line}", 2) from None
