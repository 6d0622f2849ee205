"""`rxviz check`: validate lessons, replay them, run their checks, and say plainly which fail.

Each file gets one line that says how it went, `ok` or `FAIL` with the number of
problems, and a failing one every problem found under it (the validator reports up
to 20 a file, each with file:line:col; then the steps that did not reach their
`until`, then the checks that failed), so a failure is as easy to spot in a long
run as a pass. Warnings (answers bunched on one choice) keep the exit at 0.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..messages import CliError, err, layout, put

if TYPE_CHECKING:
    from models.lesson.schema import Lesson


def _unreadable(path: str) -> str:
    """Why `path` cannot be read as a lesson file at all, or ''."""
    if not os.path.lexists(path):
        return "no such file"
    if os.path.isdir(path):
        return "is a directory, expected a .yaml lesson file"
    if not os.path.isfile(path):
        return "not a regular file, expected a .yaml lesson file"
    if not os.access(path, os.R_OK):
        return "permission denied"
    return ""


def _check_paths(files: list[str]) -> list[str]:
    from models.lesson import loader
    if not files:
        if not loader.lessons_dir().is_dir():
            raise CliError(f"lessons directory {loader.lessons_dir()} is missing; give lesson files to check", 2)
        return [str(p) for p in loader.lesson_paths()]
    by_id = {p.stem: str(p) for p in loader.lesson_paths()}
    # An argument that is no file but a lesson id (`rxviz check rx-basics`) means that lesson.
    return [by_id[f] if not os.path.lexists(f) and f in by_id else f for f in files]


def check_one(path: str) -> tuple[int, list[str]]:
    """(exit code, lines) for one lesson file: 0 ok, 1 lesson problem, 2 unreadable.

    A lesson that passes gets one `ok` line, one that fails a `FAIL` line with the
    number of problems, then every problem (up to the validator's limit), each with
    file:line:col, so a failure is as easy to spot in a long run as a pass.
    """
    from models.lesson import LessonError, load_lesson
    from models.lesson.fairness import spoilers
    from models.replay import LessonRun
    why = _unreadable(path)
    if why:
        return 2, [f"rxviz: {path}: {why}"]
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        lesson = load_lesson(path)
    except LessonError as e:
        if e.message.startswith("cannot read"):
            return 2, [str(e)]
        lines = [str(x) for x in e.errors]
        if e.dropped:
            lines.append(f"{e.path}: stopped looking after {len(e.errors)} problems; fix these and check again")
        return 1, [_fail_line(name, len(e.errors), e.dropped), *lines]
    lines = list(lesson.problems)          # control characters or markup in its text (shown as written)
    run = LessonRun(lesson, trace=0)
    results = run.check_all()
    for note in run.notes:
        step = lesson.steps[note.step - 1]
        if not note.reached and step.run is not None:       # a note is made only for a `run: until`
            lines.append(f"{path}:{step.line}: step {note.step} ({step.title}): run until {step.run.call}"
                         f"{f' from {step.run.source}' if step.run.source else ''} "
                         f"(count {step.run.count}) was not reached within {note.frames:,} frames "
                         f"(limit {step.run.limit:,})")
    lines += [f"{path}:{r.check.line}: check failed: {r.message}" for r in results if not r.ok]
    lines += [f"{path}:{step.line}: step {step.index + 1} ({step.title}): its question is given away: {why}"
              for step, why in spoilers(lesson)]
    if lines:
        return 1, [_fail_line(lesson.id, len(lines)), *lines]
    # Warnings say what a learner would notice but nothing breaks: printed, and the exit stays 0.
    warnings = [f"{path}: warning: {w}" for w in lesson_warnings(lesson)]
    return 0, [f"ok  {lesson.id}  ({len(lesson.steps)} steps, {len(lesson.checks)} checks)", *warnings]


def _fail_line(name: str, n: int, more: int = 0) -> str:
    return f"FAIL  {name}  ({n}{'+' if more else ''} problem{'s' if n > 1 or more else ''})"


def lesson_warnings(lesson: Lesson) -> list[str]:
    """What `rxviz check` warns about: answers bunched on one choice position, or on the longest choice."""
    return [f"answers: {w}" for w in (lesson.answer_balance(), lesson.answer_lengths()) if w]


def check_glossary() -> tuple[int, list[str]]:
    """(exit code, lines) for the glossary shipped with the lessons (models.lesson.glossary)."""
    from models.lesson import LessonError, lessons_dir
    from models.lesson.glossary import GLOSSARY, load_glossary
    try:
        terms = load_glossary(lessons_dir() / GLOSSARY)
    except LessonError as e:
        return 1, [_fail_line("glossary", 1), str(e)]
    return 0, [f"ok  glossary  ({len(terms)} terms)"]


def run(args: argparse.Namespace) -> int:
    paths = _check_paths(args.files)
    if not paths:
        print("no lessons to check")
        return 0
    worst = 0
    if not args.files:          # all the shipped lessons: their glossary too
        code, lines = check_glossary()
        put(*(part for line in lines for part in layout(line)))
        worst = max(worst, code)
    for path in paths:
        code, lines = check_one(path)
        if code == 2:
            err(*lines)
        else:
            put(*(part for line in lines for part in layout(line)))
            sys.stdout.flush()
        worst = max(worst, code)
    return worst
