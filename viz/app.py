"""The Textual app: screens, app-wide keys, and the factory everything else builds it with.

`make_app(lesson, step, compare)` is the one way to build the app: `rxviz`
and `rxviz play` run it (`run_app`), the UI tests drive it with Pilot, and
`rxviz screenshot` exports it (viz.screenshot). Esc from a lesson goes to the
lessons, which are at the bottom of the stack; when the app opens a lesson
directly (`rxviz play`), they are built the first time Esc shows them (over an
empty bottom screen) and kept: most such sessions never show them, and building
them cost a fifth of a second of start-up.

Each lesson's player is installed once and kept for the session: reopening
a lesson resumes where it was, without recomputing its steps. Progress and
answers are saved between runs (viz.progress), so a lesson opened tomorrow
starts where it was left. With `present=True` (`rxviz play --present`) the
app uses a high-contrast theme (viz.theme) and publishes each step for
`rxviz notes` (viz.notes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.geometry import Size
from textual.pilot import Pilot
from textual.screen import Screen

from models.lesson import LessonError, LessonNotFound, find_lesson
from models.lesson.schema import Lesson
from viz.commands import LessonCommands
from viz.course import Course, OpenLesson, ShowLessons, shipped_lessons
from viz.notes import NotesPublisher
from viz.progress import ProgressStore
from viz.screens.home import HomeScreen, LessonsLater
from viz.screens.too_small import TooSmallScreen, too_small

if TYPE_CHECKING:
    from rich.console import RenderableType


class RxvizApp(App[int]):
    """rxviz: step through how Linux network drivers receive packets."""

    CSS_PATH = "app.tcss"
    TITLE = "rxviz"
    COMMANDS = App.COMMANDS | {LessonCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-tiny"), (80, "-narrow"), (140, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-normal"), (34, "-roomy"), (50, "-tall")]
    BINDINGS = [
        Binding("q", "quit", "quit", show=False),      # in help; the footer keeps its room for the lesson keys
        Binding("question_mark", "help", "help", key_display="?"),
    ]

    def __init__(self, lesson: Lesson | str | None = None, step: int | None = 0, compare: bool = False,
                 present: bool = False, remember: bool = True) -> None:
        super().__init__()
        # Nothing here is animated on purpose; Textual's own (the tab underline sliding) would
        # keep repainting for 300 ms after every step.
        self.animation_level = "none"
        self.start = (lesson, step, compare)
        self.present = present
        self.notes: NotesPublisher | None = None
        self.notices: list[str] = []        # shown once the app is up (the notes' directory, say)
        if present:
            from viz.state import Unusable
            from viz.theme import PRESENT
            self.register_theme(PRESENT)
            self.theme = PRESENT.name
            try:
                self.notes = NotesPublisher(notice=self.notices.append)
            except Unusable as e:         # the talk goes on, without `rxviz notes`
                self.notices.append(f"speaker notes are off: {e}")
        self.store = ProgressStore(remember=remember)
        self.store.load()
        self.course = Course(shipped_lessons(), self.store, self._changed)

    def get_default_screen(self) -> Screen[None]:
        return HomeScreen(self.course) if self.start[0] is None else LessonsLater()

    leaving = False

    def exit(self, result: int | None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        # Keys typed after `q` (the rest of a word) still arrive while the screens are torn down;
        # from here on they are dropped (on_event), never run against screens that are gone.
        self.leaving = True
        super().exit(result, return_code, message)

    async def on_event(self, event: events.Event) -> None:
        # A key that arrives when no screen is left (the last one just closed, the app on its way
        # out) has nothing to act on: Textual would raise ScreenStackError looking for bindings.
        if isinstance(event, events.Key) and (self.leaving or not self.screen_stack):
            return
        await super().on_event(event)

    def on_mount(self) -> None:
        lesson, step, compare = self.start
        if lesson is not None:
            self.open_lesson(lesson, step, compare)
        self._check_size()
        for notice in ([self.store.notice] if self.store.notice else []) + self.notices:
            self._notice(notice)

    def on_unmount(self) -> None:
        if self._save_pending:              # a step recorded just before quitting
            self._save()
        if self.notes is not None:
            self.notes.close()

    # -- progress ----------------------------------------------------------------
    def _changed(self, now: bool) -> None:
        """The course changed: an answer is saved at once, a step shown after the paint.

        After the paint, because the store writes with an fsync, which on a busy disk can hold a
        step's repaint for milliseconds. Steps recorded meanwhile are saved in one write."""
        if now:
            self._save()
        elif not self._save_pending:
            self._save_pending = True
            self.call_after_refresh(self._save)

    _save_pending = False

    def _save(self) -> None:
        self._save_pending = False
        had = self.store.notice
        self.store.save()
        if self.store.notice and self.store.notice != had:
            self._notice(self.store.notice)

    def _notice(self, text: str) -> None:
        """A one-line warning; it names a path, so it is plain text with terminal controls escaped."""
        from models.lesson.sanitize import shown
        self.notify(shown(text), severity="warning", timeout=10, markup=False)

    # -- lessons ---------------------------------------------------------------
    # Both come as messages: one a quick Esc posted can still be waiting when a later key quits and the
    # app takes its screens down (Esc ×4 at once from a lesson), and then there is nothing to show it on.
    def on_open_lesson(self, message: OpenLesson) -> None:
        if self.screen_stack:
            self.open_lesson(message.lesson_id, message.step)

    def on_show_lessons(self, message: ShowLessons) -> None:
        if self.screen_stack:
            self.action_lessons()

    def open_lesson(self, lesson: Lesson | str, step: int | None = None, compare: bool = False) -> None:
        """Show a lesson's player (resuming it if it was opened before), over the home screen."""
        from viz.screens.player import PlayerScreen

        if isinstance(lesson, str):
            lesson = self.course.lesson(lesson)
        name = f"lesson:{lesson.id}"
        if not self.is_screen_installed(name):
            if step is None:                 # opened from the lessons: resume where it was left
                step = self.course.progress.get(lesson.id, (0, 0))[0]
            self.install_screen(PlayerScreen(lesson, self.course, step, compare, self.present, self.notes), name)
        elif step is not None:
            player = self.get_screen(name)
            assert isinstance(player, PlayerScreen)
            player.goto(step)
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(name)
        self._check_size()

    def action_lessons(self) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()
        if isinstance(self.screen, LessonsLater):      # a lesson opened directly: the lessons go over it
            if not self.is_screen_installed("lessons"):
                self.install_screen(HomeScreen(self.course), "lessons")
            self.push_screen("lessons")

    def action_command_palette(self) -> None:
        """ctrl+p: Textual's palette, made safe against being taken down mid-search (viz/palette.py)."""
        from textual.command import CommandPalette

        from viz.palette import SafePalette
        # Textual types is_open(app: App[object]); App is invariant in its return type, and any app will do.
        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(SafePalette(id="--command-palette"))

    def action_help(self) -> None:
        from viz.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    # -- the size floor ----------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        # Runs before App._on_resize records the new size: use the event's.
        self._check_size(event.size)

    def _check_size(self, size: Size | None = None) -> None:
        small = too_small(*(size or self.size))
        covered = isinstance(self.screen, TooSmallScreen)
        if small and not covered:
            self.push_screen(TooSmallScreen())
        elif covered and not small:
            self.pop_screen()


def make_app(lesson: str | Lesson | None = None, step: int | None = 0, compare: bool = False,
             present: bool = False, remember: bool = True) -> RxvizApp:
    """The configured app: the home screen, or `lesson` opened at `step` (and in compare mode).

    `step` None resumes the lesson where the saved progress left it; `present`
    is presenter mode; `remember` False neither reads nor saves progress (screenshots).

    `lesson` is a lesson id, the path of a lesson file, or a Lesson (one with a learner's driver,
    viz.exercises.play). Raises LessonNotFound or LessonError for one that cannot be played,
    before any screen exists.
    """
    found = lesson if isinstance(lesson, Lesson) else None
    if isinstance(lesson, str):
        found = next((x for x in shipped_lessons() if x.id == lesson), None) or find_lesson(lesson)
    return RxvizApp(found, step, compare, present, remember)


def run_app(lesson: str | Lesson | None = None, step: int | None = 0, compare: bool = False,
            present: bool = False) -> int:
    """Run the app in this terminal; the exit code for the CLI (2: no such lesson or a bad one)."""
    try:
        app = make_app(lesson, step, compare, present)
    except (LessonNotFound, LessonError) as exc:
        from viz.messages import err
        err(f"rxviz: {exc}")
        return 2
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)


async def settle(app: RxvizApp, pilot: Pilot[int]) -> None:
    """Wait until the model worker is idle and the screen shows its last frame (tests, screenshots)."""
    await pilot.pause()
    for _ in range(100):
        await app.workers.wait_for_complete()
        await pilot.pause()       # the frame the worker handed over is applied, Markdown laid out
        if not any(w.is_running for w in app.workers):
            break
