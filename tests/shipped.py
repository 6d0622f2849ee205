"""The shipped lessons, parsed once per test process and shared by every test in it.

Parsing a lesson (safe YAML, then every check of models.lesson) costs about 0.1 s of
CPU, and the tests take the same seven lessons as their input hundreds of times:
parsed afresh each time, that was a tenth of `make test`. A `Lesson` is a frozen
dataclass, so one parsed copy can be shared, as the app shares its own
(viz.course.shipped_lessons, whose copy this is). The loader's own tests (test_lesson_loader) and
the subprocesses the CLI tests start still parse from the files.
"""

from __future__ import annotations

import functools

from models.lesson import find_lesson
from models.lesson.schema import Lesson


@functools.cache
def shipped_lessons() -> tuple[Lesson, ...]:
    """Every lesson, in all_lessons() order: the same objects every app in this process shows.

    Taken from the app's own cache, so a worker that runs model tests and Pilot tests parses the
    seven lessons once, not twice (0.45 s of CPU a worker)."""
    from viz.course import shipped_lessons as the_apps
    return tuple(the_apps())


def shipped_lesson(name: str) -> Lesson:
    """A shipped lesson by id; anything else (a path, an unknown id) goes to find_lesson as it is."""
    for lesson in shipped_lessons():
        if lesson.id == name:
            return lesson
    return find_lesson(name)
