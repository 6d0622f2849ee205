"""Shown instead of a broken layout when the terminal is below 80×24.

The app pushes it on a resize below the floor and pops it when the terminal
is large enough again, so whatever was on screen (a lesson, a dialog) comes
back as it was. Nothing underneath stops: a step being computed still lands.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

MIN_WIDTH, MIN_HEIGHT = 80, 24


def too_small(width: int, height: int) -> bool:
    return width < MIN_WIDTH or height < MIN_HEIGHT


def message(width: int, height: int) -> str:
    return (f"rxviz needs at least {MIN_WIDTH}×{MIN_HEIGHT} (now {width}×{height}): "
            "enlarge the terminal or lower the font size")


class TooSmallScreen(Screen[None]):
    """A centred message with the size needed and the size now; q still quits."""

    BINDINGS = [Binding("q", "app.quit", "quit")]
    DEFAULT_CSS = """
    TooSmallScreen {
        align: center middle;
        & > Static {
            width: 100%;
            height: auto;
            padding: 0 1;
            text-align: center;
            color: $text-warning;
            text-style: bold;
        }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="too-small-message", markup=False)

    _resumed = False         # shown once already: a later resume is a return from a screen over it

    def on_mount(self) -> None:
        self._update()

    def on_screen_resume(self) -> None:
        """On top again after a screen opened over it (? for help, the palette): the terminal may have
        grown meanwhile, which the app's size check saw with that screen on top, so this one goes by
        itself. (Not on its first showing: the app may not have recorded the small size yet.)"""
        if self._resumed and not too_small(*self.app.size):
            self.dismiss()
        self._resumed = True

    def on_resize(self) -> None:
        self._update()

    def _update(self) -> None:
        w, h = self.app.size
        self.query_one(Static).update(Content(message(w, h)))
