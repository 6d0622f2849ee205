"""Help: every key binding and what the colours mean.

The key table is generated from the screens' and the app's BINDINGS, so it
cannot drift from what the keys really do; the colour legend is the same
one the player shows under the narration.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from viz.widgets.legend import ENTRIES

NAMES = {
    "right": "→", "left": "←", "pagedown": "PgDn", "pageup": "PgUp", "space": "space",
    "plus": "+", "equals_sign": "=", "minus": "−", "question_mark": "?", "escape": "Esc",
    "shift+tab": "shift+tab", "ctrl+p": "ctrl+p", "home": "Home", "end": "End", "up": "↑", "down": "↓",
    "right_square_bracket": "]", "left_square_bracket": "[",
}

NOTES = """\
A step with a question first shows the model as it was before the step
ran, so you can predict; answering (1–6), or pressing → once, shows what
happened, and the next → moves on.
Step back is exact: the model restores a snapshot and replays, so a step
looks the same however you reach it. Fast-forward (f) runs every variant
beyond the lesson's step; → or ← returns to the lesson's steps.
Below 140 columns one view is shown at a time (tab switches, or click its
name); wider terminals show a grid, taller ones more views. Compare (c)
shows the active view for two variants side by side on the same traffic;
v shows the next variant on the same step. ▸ marks what the step watches.
The sandbox (s) takes name=value as --set does (ram=2GiB), runs the lesson
again from this step and says what moved; ctrl+x in it returns to the
lesson's own run. z gives the active view the whole screen, b blanks it.
With --present: a talk timer (t restarts it), and `rxviz notes` in a
second terminal shows the speaker notes. Progress is saved between runs.
] and [ move one kernel call forward and back, within a step and across
its ends: the model stops right after that call and every view shows that
moment (status: step 4/13 · call 17/212). o follows the object the call
moved (a buffer, page, slot, head): ] and [ then jump to its next and
previous move, across steps, and space plays call by call. o again stops.
Every view lights what the current call touched (the call before's, dim):
the machine strip under the views draws that object's move as boxes and
arrows at every size; the machine view draws its whole lifecycle and, on a
wide screen, takes the whole deck. The pseudo-code lights the call's line.
m lists the lesson's steps and how each question went (Enter jumps); w is
the glossary; a asks a question again after its answer or its reveal.
"""


def key_label(keys: str) -> str:
    return " ".join(NAMES.get(k, k) for k in keys.split(","))


def rows(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """(keys, description) for each binding, digits folded into one row."""
    out: list[tuple[str, str]] = []
    digits = []
    for given in bindings:
        b = given if isinstance(given, Binding) else Binding(*given)
        if b.key.isdigit():
            digits.append(b.key)
            continue
        out.append((key_label(b.key), b.description or b.action))
    if digits:
        out.append((f"{digits[0]}–{digits[-1]}", "answer the step's question"))
    return out


class HelpScreen(ModalScreen[None]):
    """Keys and colours; any of Esc, ?, q closes it."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "close", key_display="Esc")]
    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > VerticalScroll {
            width: 84;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            border: round $accent;
            border-title-color: $text-accent;
            background: $surface;
            padding: 0 1;
        }
        & .help-head { text-style: bold; color: $text-accent; margin-top: 1; }
        & .help-notes { color: $text-muted; }
    }
    """

    def compose(self) -> ComposeResult:
        from viz.screens.home import HomeScreen
        from viz.screens.player import PlayerScreen

        with VerticalScroll() as box:
            box.border_title = "rxviz help · Esc closes"
            box.can_focus = True
            yield Static("In a lesson", classes="help-head")
            yield Static(self._table(rows(PlayerScreen.BINDINGS)), markup=False)
            yield Static("On the lessons screen and everywhere", classes="help-head")
            general = dict(rows(HomeScreen.BINDINGS) + rows(self.app.BINDINGS))
            general["ctrl+p"] = "command palette: open a lesson, jump to a step, compare"
            yield Static(self._table(list(general.items())), markup=False)
            yield Static("Colours (every state also has its letter)", classes="help-head")
            yield Static(self._legend(), markup=False)
            yield Static(NOTES, classes="help-notes", markup=False)

    @staticmethod
    def _table(items: list[tuple[str, str]]) -> Content:
        width = max(len(k) for k, _ in items) + 2
        lines = [Content.assemble((k.ljust(width), "bold $text-accent"), d) for k, d in items]
        return Content("\n").join(lines)

    @staticmethod
    def _legend() -> Content:
        lines = [Content.assemble((f"■{glyph} ", f"bold $text-{name}"), meaning) for name, glyph, _, meaning in ENTRIES]
        return Content("\n").join(lines)

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
