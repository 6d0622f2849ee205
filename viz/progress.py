"""Progress through the lessons, kept between runs: the step reached, the answers, what is finished.

A lesson is finished when its end screen was reached after every one of its steps was
shown (in this session or an earlier one): `--step` and End jump to the last step without
going through the others, and reaching the end that way does not finish it.

One small JSON file in the state directory (viz.state), rewritten whole on every
change (atomically), so tomorrow's `rxviz` resumes where today's stopped:

    {"version": 1, "lessons": {"rx-basics": {"step": 5, "total": 14, "finished": false,
                                              "answers": {"4": 1}, "seen": [1, 2, 3, 4, 5]}}}

(`seen`, the steps shown, came after version 1's first files: a file without it reads as none seen.)

A file that cannot be used is never a crash and never silently lost:

- unreadable JSON (including JSON nested too deeply to parse), or not this shape: it is
  renamed aside (`progress.json.corrupt-<time>`, never over an earlier one), the app starts
  afresh and says so in one line;
- a file that cannot be read at all (permissions, a directory in its place): the app says
  so and does not save this session, so the file is left exactly as it was.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from viz.state import state_dir, write_json

VERSION = 1


@dataclass
class LessonProgress:
    step: int = 0
    total: int = 0
    finished: bool = False
    answers: dict[int, int] = field(default_factory=dict)     # step -> choice (0-based)
    seen: set[int] = field(default_factory=set)              # the steps (1-based) shown

    def saw_all(self, total: int) -> bool:
        return set(range(1, total + 1)) <= self.seen


def _parse(data: object) -> dict[str, LessonProgress]:
    """The file's content, checked; ValueError when it is not what this module writes."""
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("lessons"), dict):
        raise ValueError("not an rxviz progress file")
    out = {}
    for lid, entry in data["lessons"].items():
        if not isinstance(entry, dict):
            raise ValueError(f"bad entry for {lid!r}")
        step, total = entry.get("step", 0), entry.get("total", 0)
        answers, seen = entry.get("answers", {}), entry.get("seen", [])
        if not (isinstance(step, int) and isinstance(total, int) and isinstance(answers, dict)
                and isinstance(seen, list) and all(isinstance(k, int) and 0 < k <= 1000 for k in seen)):
            raise ValueError(f"bad entry for {lid!r}")
        out[str(lid)] = LessonProgress(step, total, bool(entry.get("finished", False)),
                                       {int(k): int(v) for k, v in answers.items()}, set(seen))
    return out


def set_aside(path: Path) -> Path:
    """Rename an unusable state file to `NAME.corrupt-<time>` (never over an earlier one) and return
    the new path; OSError when it cannot be renamed."""
    stamp = time.strftime('%Y%m%d-%H%M%S')
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while aside.exists():            # never over an earlier one set aside in the same second
        n += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    path.rename(aside)
    return aside


class ProgressStore:
    """Loads once, saves on every change; `notice` is the one line to show when something was wrong."""

    def __init__(self, path: Path | None = None, remember: bool = True) -> None:
        self.path = path or (state_dir() / "progress.json" if remember else Path("/nonexistent"))
        self.remember = remember          # False: in memory only (screenshots, handouts)
        self.notice = ""
        self.writable = remember
        self.lessons: dict[str, LessonProgress] = {}

    def load(self) -> dict[str, LessonProgress]:
        if not self.remember:
            return self.lessons
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return self.lessons
        except (OSError, UnicodeDecodeError) as exc:
            if isinstance(exc, UnicodeDecodeError):
                return self._set_aside("it is not text")
            self.writable = False
            why = getattr(exc, "strerror", None) or type(exc).__name__
            self.notice = f"progress not loaded: cannot read {self.path} ({why}); this session's is not saved"
            return self.lessons
        try:
            self.lessons = _parse(json.loads(text))
        except RecursionError:          # '[' * 200000: nested deeper than the parser can go
            return self._set_aside("nested too deeply")
        except (ValueError, TypeError, OverflowError) as exc:
            return self._set_aside(str(exc) or "unreadable")
        return self.lessons

    def _set_aside(self, why: str) -> dict[str, LessonProgress]:
        try:
            aside = set_aside(self.path)
        except OSError as exc:
            self.writable = False
            self.notice = f"progress file {self.path} is unusable ({why}) and could not be set aside " \
                          f"({exc.strerror}); this session's progress is not saved"
            return self.lessons
        self.notice = f"progress file was unusable ({why}): kept as {aside.name}, starting afresh"
        return self.lessons

    def save(self) -> None:
        if not self.writable:
            return
        data = {"version": VERSION, "lessons": {
            lid: {"step": p.step, "total": p.total, "finished": p.finished,
                  "answers": {str(k): v for k, v in sorted(p.answers.items())}, "seen": sorted(p.seen)}
            for lid, p in sorted(self.lessons.items())}}
        try:
            write_json(self.path, data)
        except OSError as exc:
            self.writable = False
            self.notice = f"progress not saved: cannot write {self.path} ({exc.strerror})"

    def get(self, lesson_id: str) -> LessonProgress:
        return self.lessons.setdefault(lesson_id, LessonProgress())
