"""The machine, always on screen: a strip under the views with the current call's object and its move.

The full machine (viz.views.machine.view) needs most of a large screen, so it is
a view one tabs to. This strip keeps its point on screen at every size and
whatever view is chosen: the object the current call moved, in its own
machine, drawn as boxes and arrows (viz.views.machine.local): where it came
from, the arrow the call took, where it is (lit), where it goes next. A
line above says which machine and object, and how long ago the move was
when the current call moved nothing. The deck hides it while the full
machine is on screen, so the same picture is never drawn twice.
"""

from __future__ import annotations

from rich.text import Text

from models.read import MACHINES, MachineState

from ..base import ModelView
from .local import draw, kept_back
from .view import MachineView


def header(ms: MachineState) -> list[tuple[str, str]]:
    """(text, role) phrases of the line above the drawing, most important first."""
    title = MACHINES[ms.machine][0].split(" (")[0]
    out = [(title, "title")]
    if ms.obj:
        out.append((f" · {ms.obj}" + (f" {ms.where}" if ms.where else ""), "muted"))
    last = ms.last
    if last is not None:
        if ms.age == 0:
            out.append((f" · {ms.call or last.call}", "name-lit"))
            if ms.call and ms.call != last.call:
                out.append((f" (edge {last.call})", "muted"))
        else:
            ago = f"{ms.age} call{'s' if ms.age != 1 else ''} ago"
            out.append((f" · {ms.call} (the move drawn: {ago})", "muted"))
    elif ms.state:
        out.append(("  (how it got there is before the recorded calls)", "muted"))
    return out


class MachineStrip(MachineView, can_focus=False):
    """Four lines: which object and machine, then its last move and next step as boxes and arrows."""

    KEY = "machine-strip"
    TITLE = ""
    DEFAULT_CSS = """
    MachineStrip {
        height: 4;
        border: none;
        padding: 0 1;
        background: $boost;
    }
    """
    PREPARE = True

    def on_mount(self) -> None:
        ModelView.on_mount(self)

    def build_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        if st is None:
            return []
        ms = kept_back(st.read.rx(st.follow, None, st.earlier).machine, st.hidden_counts)
        head = Text(no_wrap=True, end="")
        for text, role in header(ms):
            if head.cell_len + len(text) > width:
                # the move's age matters more than where the object is: shorten, else leave out
                text = "  (" + text.split(" (the move drawn: ")[-1] if "move drawn" in text else ""
                if not text or head.cell_len + len(text) > width:
                    break
            head.append(text, self._s(role))
        if ms.obj is None and ms.state is None:
            return [head, self._text(("no object has moved yet: → runs the first step", "muted"))]
        return [head] + self._rows(draw(ms, width))
