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

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.strip import Strip
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

    _cache: tuple[tuple, list[Strip]] | None = None

    def watch_state(self, state: ViewState | None) -> None:
        self._cache = None
        self.refresh()

    # -- the Line API, shared: views only say what their lines are ------------------------
    def build_lines(self, width: int, height: int) -> list[Text]:
        """The view's content for this size; only called when the state, size or theme changed."""
        return [Text("no model yet")]

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        base = self.rich_style
        key = (width, height, self.app.theme, base)
        if self._cache is None or self._cache[0] != key:
            texts = self.build_lines(width, height) if self.state is not None else [Text("no model yet")]
            self._cache = (key, [Strip(t.render(self.app.console, end="")).crop_extend(0, width, base)
                                 .apply_style(base) for t in texts])
        lines = self._cache[1]
        if y >= len(lines) or width <= 0:
            return Strip.blank(width, base)
        return lines[y]

    def _s(self, name: str) -> Style:
        """A component style of this view (`<classname>--name` in its DEFAULT_CSS)."""
        return self.get_component_rich_style(f"{type(self).__name__.lower()}--{name}")

    def _text(self, *parts: tuple[str, str] | str) -> Text:
        """A line from plain strings and (text, component) pairs."""
        out = Text(no_wrap=True, end="")
        for part in parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(part[0], self._s(part[1]) if part[1] else None)
        return out

    def delta(self, name: str) -> int:
        """How much a counter moved since the previous step."""
        st = self.state
        if st is None:
            return 0
        return st.sim.rec.counts.get(name, 0) - st.prev_counts.get(name, 0)


def wrap_phrases(parts: list[Text], width: int, max_lines: int, sep: str = " ") -> list[Text]:
    """Join phrases with `sep` into at most max_lines lines, never splitting a phrase."""
    lines: list[Text] = []
    line = Text()
    for part in parts:
        if line.cell_len and line.cell_len + len(sep) + part.cell_len > width:
            lines.append(line)
            line = Text("  ")
        elif line.cell_len:
            line.append(sep)
        line.append_text(part)
    lines.append(line)
    return lines[:max_lines]
