"""What the player's mixins (call stepping, wayfinding, presenting) use of the player.

The player is one screen split by concern into mixins (viz.screens.stepping, wayfinding,
presenting), each a plain class at run time. For the type checker each one subclasses
`PlayerHost`: a Screen with the attributes and methods of the player that the mixins read
or call, declared here once. So a mixin is checked against what the player really has,
and this module imports neither the player nor a mixin (no cycle among the screens).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# One kernel call on: (step, variant, the call it is at, +1 or -1, the object followed or None).
CallMove = tuple[int, str, int, int, "str | None"]

if TYPE_CHECKING:
    from textual.screen import Screen

    from models.lesson.schema import Lesson
    from viz.course import Course
    from viz.notes import NotesPublisher
    from viz.session import Frame

    class PlayerHost(Screen[None]):
        lesson: Lesson
        course: Course
        present: bool
        notes: NotesPublisher | None
        frame: Frame | None              # the frame last shown
        seen: Frame | None               # what the views show (the step before, while a question waits)
        want: tuple[int, int]            # (step, extra frames) asked for
        variant: str | None              # `v`: the variant shown instead of the step's
        revealed: set[int]               # question steps whose outcome was shown without an answer
        playing: bool

        @property
        def waiting(self) -> bool: ...
        def holding(self, frame: Frame | None = None) -> bool: ...
        def answered(self, step: int) -> bool: ...
        def goto(self, k: int) -> None: ...
        def _request(self, kind: str, n: int | CallMove = 0) -> None: ...
        def _set_playing(self, on: bool) -> None: ...
        def _show(self, frame: Frame, keep: bool = False) -> None: ...
else:
    PlayerHost = object
