"""The deck's tab strip: one line naming the views, the active one marked; a click picks one.

Textual's `Tabs` is a widget per tab with an animated underline; switching
the active tab restyles two widgets and repaints the strip over the next
300 ms, on every lesson step whose focus view differs. This strip is one
widget drawn from three values (the keys, the hidden ones, the active one),
so a step repaints one line once.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

SEP = " │ "
TIGHT_SEP = "│"          # when the tabs do not fit otherwise (80 columns, nine views)


class TabStrip(Widget):
    """Tabs for `keys`; set `active` and `hidden`; posts `Picked` when a tab is clicked."""

    COMPONENT_CLASSES = {"tabstrip--active", "tabstrip--sep"}
    DEFAULT_CSS = """
    TabStrip {
        height: 1;
        padding: 0 1;
        color: $text-muted;
        & > .tabstrip--active { background: $accent-muted; color: $text; text-style: bold; }
        & > .tabstrip--sep { color: $panel-lighten-2; }
    }
    """

    active: reactive[str] = reactive("")
    hidden: reactive[frozenset[str]] = reactive(frozenset())

    class Picked(Message):
        """The user clicked the tab of view `key`."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, keys: tuple[str, ...], **kw: Any) -> None:
        super().__init__(**kw)
        self.keys = keys

    def shown(self) -> list[str]:
        return [k for k in self.keys if k not in self.hidden]

    def _sep(self) -> str:
        keys = self.shown()
        wide = sum(cell_len(k) + 2 for k in keys) + cell_len(SEP) * (len(keys) - 1)
        return SEP if wide <= self.content_size.width else TIGHT_SEP

    def _spans(self) -> list[tuple[int, int, str]]:
        """(start, end, key) of each label, in cells from the content's left edge."""
        out, x = [], 0
        sep = self._sep()
        for key in self.shown():
            label = f" {key} "
            out.append((x, x + cell_len(label), key))
            x += cell_len(label) + cell_len(sep)
        return out

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        active = self.get_component_rich_style("tabstrip--active", partial=True)
        sep = self.get_component_rich_style("tabstrip--sep", partial=True)
        between = self._sep()
        for i, key in enumerate(self.shown()):
            if i:
                text.append(between, sep)
            text.append(f" {key} ", active if key == self.active else None)
        return text

    def on_click(self, event: events.Click) -> None:
        x = event.x - self.styles.padding.left
        for start, end, key in self._spans():
            if start <= x < end:
                event.stop()
                self.post_message(self.Picked(key))
                return
