"""The course: the lessons on offer, where the learner stands in each, and the requests a
screen makes of the app to move through them.

State flows down and events up, as in any Textual app. The app owns one `Course` and hands
it to the screens that show it (the home screen's list, the player's questions); they read
it and record into it, and the course tells the app through one callback that there is
something to save. A screen never calls the app: to open a lesson or go back to the list it
posts `OpenLesson` or `ShowLessons`, which the app handles. So the screens import this
module, never viz/app.py, and the app stays the only one that knows the screen stack.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from textual.message import Message

from models.lesson import all_lessons, find_lesson
from models.lesson.schema import Lesson
from viz.progress import ProgressStore


@lru_cache(maxsize=1)
def shipped_lessons() -> list[Lesson]:
    """The lessons, loaded once per process (they are frozen; tests build many apps)."""
    return all_lessons()


class Course:
    """The lessons and the learner's way through them: the step reached, the answers, what is finished.

    `changed(now)` is called after each change: `now` True asks for the save at once (an
    answer), False for one after the paint (a step shown: several of them make one write).
    """

    def __init__(self, lessons: list[Lesson], store: ProgressStore,
                 changed: Callable[[bool], None] = lambda now: None) -> None:
        self.lessons = lessons
        self.store = store
        self.changed = changed
        self.progress: dict[str, tuple[int, int]] = {}       # lesson id -> (step, total)
        self.answers: dict[tuple[str, int], int] = {}        # (lesson id, step) -> choice
        self.finished: set[str] = set()
        for lid, p in store.lessons.items():
            self.progress[lid] = (p.step, p.total)
            self.answers.update({(lid, k): v for k, v in p.answers.items()})
            if p.finished:
                self.finished.add(lid)

    def lesson(self, lesson_id: str) -> Lesson:
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        return find_lesson(lesson_id)

    def after(self, lesson: Lesson) -> Lesson | None:
        """The lesson that follows `lesson` in the list (None: the last one, or one not in it)."""
        ids = [x.id for x in self.lessons]
        if lesson.id not in ids:
            return None
        i = ids.index(lesson.id)
        return self.lessons[i + 1] if i + 1 < len(ids) else None

    def record(self, lesson_id: str, step: int, total: int, finished: bool = False) -> None:
        """The player shows `step` of a lesson (`finished`: its end screen).

        The end screen finishes a lesson only once every step of it was shown: a jump to the last
        step (End, --step) and → is not having gone through it."""
        entry = self.store.get(lesson_id)
        new = step > 0 and step not in entry.seen
        if new:
            entry.seen.add(step)
        done = entry.finished or (finished and entry.saw_all(total))
        if (entry.step, entry.total, entry.finished) == (step, total, done) and not new:
            return
        entry.step, entry.total, entry.finished = step, total, done
        self.progress[lesson_id] = (step, total)
        if done:
            self.finished.add(lesson_id)
        self.changed(False)

    def seen(self, lesson_id: str) -> frozenset[int]:
        """The steps of a lesson the player has shown (their titles are no secret any more)."""
        entry = self.store.lessons.get(lesson_id)
        return frozenset(entry.seen) if entry is not None else frozenset()

    def answer(self, lesson_id: str, step: int, choice: int) -> None:
        self.answers[(lesson_id, step)] = choice
        self.store.get(lesson_id).answers[step] = choice
        self.changed(True)

    def forget(self, lesson_id: str, step: int) -> None:
        """The learner asks a question again: its answer is no longer given."""
        if self.answers.pop((lesson_id, step), None) is not None:
            self.store.get(lesson_id).answers.pop(step, None)
            self.changed(True)


class OpenLesson(Message):
    """Show this lesson's player over the home screen (resumed where it was when `step` is None)."""

    def __init__(self, lesson_id: str, step: int | None = None) -> None:
        super().__init__()
        self.lesson_id = lesson_id
        self.step = step


class ShowLessons(Message):
    """Back to the list of lessons: every screen above the home screen goes."""
