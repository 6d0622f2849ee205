"""Compare mode's difference line: what the step watches, then the counters that differ most.

    ▸tcp_send_ack: gro 506, no-gro 1 013, Δ +507 · ▸segments_per_skb: gro 3.9, no-gro 1, Δ −2.9 · …

The figures come from each variant's Recorder at the same step on the same
traffic (the replay runs every variant in lockstep), so a difference is the
patch's doing. The step's `watch` names come first, as the lesson orders
them, equal or not (a counter that stayed the same can be the point); then
the other counters, by how much they differ, as many as fit the width.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from models.calls import METRICS
from viz.views.base import ViewState
from viz.widgets.sandbox_bar import figure, fmt
from viz.widgets.status import fmt_int


def counter_diff(a: ViewState, b: ViewState) -> list[tuple[str, int, int]]:
    """(counter, value in a, value in b) for every counter that differs, biggest difference first."""
    ca, cb = a.read.counters(), b.read.counters()
    names = list(dict.fromkeys([*ca, *cb]))
    rows = [(n, ca.get(n, 0), cb.get(n, 0)) for n in names if ca.get(n, 0) != cb.get(n, 0)]
    # Relative change first (a counter that drops to zero is the story), then size.
    rows.sort(key=lambda r: (-abs(r[2] - r[1]) / max(abs(r[1]), abs(r[2]), 1), -abs(r[2] - r[1])))
    return rows


def signed(n: float) -> str:
    text = fmt_int(abs(n)) if float(n).is_integer() else fmt(abs(n))
    return ("+" if n > 0 else "−" if n < 0 else "") + text


def watched_diff(a: ViewState, b: ViewState) -> list[tuple[str, float, float]]:
    """(name, value in a, value in b) for each name the step watches, in the lesson's order."""
    out = []
    for name in a.watch:
        va, vb = (figure(r.metrics, r.counters, r.counts(), name) for r in (a.read, b.read))
        if va is not None and vb is not None:
            out.append((name, va, vb))
    return out


class DiffLine(Widget):
    """The counters-difference line under the two columns (one or two lines)."""

    COMPONENT_CLASSES = {"diff--name", "diff--delta", "diff--muted"}
    DEFAULT_CSS = """
    DiffLine {
        height: auto;
        max-height: 2;
        padding: 0 1;
        background: $boost;
        & > .diff--name { color: $text-accent; text-style: bold; }
        & > .diff--delta { color: $text-warning; }
        & > .diff--muted { color: $foreground-muted; }
    }
    """

    pair: reactive[tuple[ViewState, ViewState] | None] = reactive(None, layout=True)

    def _s(self, name: str) -> Style:
        return self.get_component_rich_style(f"diff--{name}", partial=True)

    def items(self) -> list[Text]:
        if self.pair is None:
            return []
        a, b = self.pair
        out = []
        watched = watched_diff(a, b)
        seen = {name for name, _, _ in watched}
        rows = [(n, va, vb, True) for n, va, vb in watched]
        rows += [(n, va, vb, False) for n, va, vb in counter_diff(a, b) if n not in seen]
        kept = a.hidden_counts | b.hidden_counts          # what a question still ahead keeps back
        rows = [r for r in rows if r[0] not in kept]
        for name, va, vb, mark in rows:
            t = Text()
            t.append(("▸" if mark else "") + name, self._s("name"))
            shown = fmt if name in METRICS else fmt_int
            t.append(f": {a.variant} {shown(va)}, {b.variant} {shown(vb)}, ")
            t.append(f"Δ {signed(vb - va)}" if vb != va else "same", self._s("delta"))
            out.append(t)
        return out

    def render(self) -> Text:
        width = max(1, self.content_size.width)
        items = self.items()
        if not items:
            return Text("the two variants' counters are equal at this step", self._s("muted"))
        lines = 2 if self.app.size.height >= 40 else 1
        out, used, row = Text(), 0, 0
        for item in items:
            sep = 3 if used else 0
            if used + sep + cell_len(item.plain) > width:
                if row + 1 >= lines or not used:
                    break
                out.append("\n")
                row, used, sep = row + 1, 0, 0
            if sep:
                out.append(" · ", self._s("muted"))
            out.append_text(item)
            used += sep + cell_len(item.plain)
        if not out.plain:
            out = items[0]
            out.truncate(width, overflow="ellipsis")
        return out
