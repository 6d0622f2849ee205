"""One layout pass per change, instead of two.

When a widget's size changes in a layout pass, Textual sets its reactive
`virtual_size`, which asks for a *second* full layout pass one refresh later
(about 30 ms on a 2-core machine at 160x50, with a second write to the
terminal). For a widget whose children are laid out by size alone, the
second pass finds nothing to change. Widgets that change size from step to
step (the views when the grid is rearranged, the question panel appearing
beside the narration) mix this in: their virtual size is still recorded, and
scrollbars still follow it (`_size_updated` updates them separately), but no
second pass is asked for; the resize itself has already repainted them.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Static


class OnePass(Widget):
    """Mix in *after* the widget class, `class X(Static, OnePass)`: Textual takes a widget's
    default CSS from its first base, so `OnePass` first would drop Static's `height: auto`."""

    virtual_size = Reactive(Size(0, 0), layout=False, repaint=False)


class Line(Static, OnePass):
    """A Static whose height may change from step to step (a heading, a question)."""

    def show(self, content: VisualType) -> None:
        """update(), asking for a layout pass only when the new content's height differs at the
        present width: a new step's heading is nearly always one line, like the last one, and a
        layout pass re-arranges and repaints the whole screen (15-40 ms at 160x50)."""
        width, height = self.content_size
        self.update(content, layout=False)
        if width <= 0 or self.get_content_height(self.content_size, self.app.size, width) != height:
            self.refresh(layout=True)
