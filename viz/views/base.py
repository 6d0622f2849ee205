"""The contract every view keeps: state comes down, nothing is simulated here.

The player sets `state` (a `ViewState`: the model of one variant at the
current step, the counters at the previous step, the lesson) and the view
repaints from it. A view never advances the simulation and never reads the
lesson's narration for facts: every number, state and colour it draws comes
from the `Sim` it was given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.reactive import reactive
from textual.widget import Widget

from models.lesson.schema import Lesson
from models.sim import Sim


@dataclass
class ViewState:
    """What a view draws: one variant of the model at one step."""
    sim: Sim
    variant: str
    lesson: Lesson | None = None
    step: int = 0                                   # steps applied (0 = just set up)
    code_line: int | None = None                    # pseudocode line the step lights (1-based)
    prev_counts: dict[str, int] = field(default_factory=dict)   # counters at the previous step
    other: Any = None                               # compare mode: the other variant's ViewState


class ModelView(Widget, can_focus=True):
    """Base of all views. Subclasses set KEY/TITLE and draw `self.state`."""

    KEY = ""
    TITLE = ""
    DEFAULT_CSS = """
    ModelView {
        height: 1fr;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        padding: 0 1;
    }
    ModelView:focus-within, ModelView:focus {
        border: round $accent;
        border-title-color: $accent;
    }
    """

    state: reactive[ViewState | None] = reactive(None, always_update=True, layout=False)

    def on_mount(self) -> None:
        self.border_title = self.TITLE

    def watch_state(self, state: ViewState | None) -> None:
        self.refresh()

    def delta(self, name: str) -> int:
        """How much a counter moved since the previous step."""
        st = self.state
        if st is None:
            return 0
        return st.sim.rec.counts.get(name, 0) - st.prev_counts.get(name, 0)
