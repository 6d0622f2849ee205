"""Lessons: untrusted YAML files that script a scenario around a real driver patch.

`load_lesson(path)` / `find_lesson(id)` return a validated, frozen `Lesson`
or raise `LessonError` (one line: `file:line:column: field: message`).
The format is documented for authors in lessons/README.md. Pure Python:
nothing here imports the TUI.
"""

from .loader import MAX_BYTES, all_lessons, find_lesson, lesson_paths, lessons_dir, load_lesson, load_lesson_text
from .schema import Ask, Check, Fitted, Headline, Lesson, LessonError, LessonNotFound, Paper, Patch, Run, Step

__all__ = [
    "Lesson", "LessonError", "LessonNotFound", "load_lesson", "load_lesson_text", "lesson_paths",
    "lessons_dir", "find_lesson", "all_lessons", "MAX_BYTES",
    "Ask", "Check", "Fitted", "Headline", "Paper", "Patch", "Run", "Step",
]
