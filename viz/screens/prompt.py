"""A small modal that asks for one whole number: "jump to step" (g) and "fast-forward N frames" (f).

Dismisses with the number, or None on Escape. Out-of-range input is
refused in place with the reason, rather than clamped silently.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class NumberPrompt(ModalScreen[int | None]):
    """Ask for an integer in [lo, hi]."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]
    DEFAULT_CSS = """
    NumberPrompt {
        align: center middle;
        & > Vertical {
            width: 56;
            max-width: 100%;
            height: auto;
            border: round $accent;
            border-title-color: $text-accent;
            background: $surface;
            padding: 0 1;
        }
        & #prompt-help { color: $text-muted; }
        & #prompt-error { color: $text-error; height: auto; }
    }
    """

    def __init__(self, title: str, help_text: str, lo: int, hi: int, value: int | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.help_text = help_text
        self.lo, self.hi = lo, hi
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(Content(self.help_text), id="prompt-help", markup=False)
            blink = not self.app.is_headless       # snapshots must not depend on a blink phase
            field = Input(value="" if self.value is None else str(self.value), type="integer",
                          id="prompt-input", compact=True)
            field.cursor_blink = blink
            yield field
            yield Static(id="prompt-error", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip().replace("_", "")
        try:
            n = int(text)
        except ValueError:
            self.query_one("#prompt-error", Static).update(Content(f"type a whole number from {self.lo} to {self.hi}"))
            return
        if not self.lo <= n <= self.hi:
            self.query_one("#prompt-error", Static).update(Content(f"{n} is out of range: {self.lo} to {self.hi}"))
            return
        self.dismiss(n)

    def action_cancel(self) -> None:
        self.dismiss(None)
