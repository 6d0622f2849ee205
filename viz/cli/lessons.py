"""`rxviz list`: the lessons, as a table or JSON.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from ..messages import err

if TYPE_CHECKING:
    from models.lesson.schema import Lesson


def run(args: argparse.Namespace) -> int:
    from models.lesson import LessonError, load_lesson, loader
    lessons, problems = [], []
    for p in loader.lesson_paths():
        try:
            lessons.append(load_lesson(p))
        except LessonError as e:
            problems.append(str(e))
    if args.json:
        print(json.dumps([lesson_summary(x) for x in lessons], indent=2))
    elif lessons:
        from .tables import print_lessons
        print_lessons(lessons)
    else:
        print(f"no lessons in {loader.lessons_dir()}")
    err(*(f"rxviz: {p}" for p in problems))
    return 1 if problems else 0


def lesson_summary(lesson: Lesson) -> dict[str, Any]:
    patch = lesson.patch
    return {
        "id": lesson.id, "title": lesson.title, "driver": lesson.driver, "summary": lesson.summary,
        "steps": len(lesson.steps), "variants": list(lesson.variants),
        "patch": None if patch is None else {"subject": patch.subject, "author": patch.author, "date": patch.date,
                                             "message_id": patch.message_id, "commit": patch.commit},
    }
