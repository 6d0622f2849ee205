"""What the player does for a speaker: zoom, blank, the talk timer, and publishing the step for notes.

Mixed into `PlayerScreen`. Zoom (z) gives the active view the whole screen
(the narration, the status line and the tabs step aside) and works in every
mode, since a projector is not the only small screen; with `--present` it
zooms what a room should read instead: the paper-vs-model headline on the
payoff step, the machine everywhere else. Blank (b) covers the screen until
any key. With `--present` the screen gets the presenter classes (the paper's
and the model's figures large, the narration trimmed to the step's `say` at
a heavier weight), a talk timer in the status line (t restarts it) and tells
`rxviz notes` each step it reaches (viz.notes).
"""

from __future__ import annotations

import time

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from viz.screens.player_host import PlayerHost


class BlankScreen(Screen[None]):
    """Nothing at all, until any key or click.

    Keys typed quickly (a word: `b`, then `l`, `a`, ...) reach it before its first
    dismissal has taken it off the stack; only the first one dismisses it, or the
    second would pop the screen under it too (a ScreenStackError on an empty stack).
    """

    DEFAULT_CSS = "BlankScreen { background: black; }"

    def compose(self) -> ComposeResult:
        yield Static("")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self._leave()

    def on_click(self) -> None:
        self._leave()

    def _leave(self) -> None:
        if self.is_current and not getattr(self, "_leaving", False):
            self._leaving = True
            self.dismiss()


class Presenting(PlayerHost):
    """Zoom, blank, the timer and the notes; the host is a Screen with a StatusLine."""

    def start_presenting(self) -> None:
        present = self.present
        self.set_class(present, "-present")
        for panel in self.query("HeadlinePanel, Narration"):
            panel.set_class(present, "-present")
        self._talk_start = time.monotonic()
        if present:
            self._tick_clock()
            self.set_interval(1.0, self._tick_clock)

    def _tick_clock(self) -> None:
        from viz.widgets.status import StatusLine
        elapsed = int(time.monotonic() - self._talk_start)
        self.query_one(StatusLine).clock = f"⏱ {elapsed // 60:02d}:{elapsed % 60:02d}"

    def action_restart_timer(self) -> None:
        self._talk_start = time.monotonic()
        if self.present:
            self._tick_clock()

    def action_zoom(self) -> None:
        """z: the active view on the whole screen; z again: back. Presenting, what the room should read:
        the paper-vs-model headline on the payoff step, the machine (the current call's object) elsewhere."""
        from viz.widgets.deck import ViewDeck
        from viz.widgets.paper_vs_model import HeadlinePanel
        deck = self.query_one(ViewDeck)
        if self.has_class("-zoom") or self.has_class("-zoom-headline"):
            self.remove_class("-zoom", "-zoom-headline")
            deck.zoomed = False
            return
        if self.present:
            if self.query_one(HeadlinePanel).display:
                self.add_class("-zoom-headline")
                return
            if "machine" in deck.keys:
                deck.tabbed = True
                deck.active = "machine"
        self.add_class("-zoom")
        deck.zoomed = True

    def action_blank(self) -> None:
        self.app.push_screen(BlankScreen())

    def publish_step(self, step: int) -> None:
        publisher = self.notes
        if publisher is not None:
            had = publisher.error
            publisher.publish(self.lesson, step)
            if publisher.error and publisher.error != had:      # said once, and the talk goes on
                self.notify(publisher.error, severity="warning", timeout=10, markup=False)
