"""Kernel-call counters and where the CPU time goes: the numbers behind every lesson's claim.

Top: the headline metrics (throughput, CPU, ns per frame) with sparklines
of the steps seen so far. Then the non-zero counters in the order `rxviz run
--json` reports them (documented ones first), each with what the last step
added, highlighted, and beside or below them the CPU time per frame by cost
category as bars with their ns values.

The sparkline history is the only state this view keeps: a value per
(variant, step). On a step back the entries past the current step are
dropped, so going back and forward again draws the same screen. In compare
mode the bars share one scale with the other variant's, so their lengths
can be compared across the two panels.
"""

from __future__ import annotations

from rich.text import Text

from models.calls import CATEGORIES

from . import register
from .base import ModelView

_SPARK = "▁▂▃▄▅▆▇█"
_BLOCKS = " ▏▎▍▌▋▊▉█"


def sparkline(values: list[float], width: int) -> str:
    """The last `width` values as ▁..█, scaled from 0 to their maximum."""
    values = values[-width:] if width > 0 else []
    top = max(values, default=0)
    if top <= 0:
        return _SPARK[0] * len(values)
    return "".join(_SPARK[min(7, int(v / top * 7 + 0.5))] for v in values)


def hbar(value: float, scale: float, width: int) -> str:
    """A horizontal bar in eighths of a cell; `scale` fills `width` cells."""
    if scale <= 0 or width <= 0:
        return ""
    eighths = max(0, min(width * 8, round(value / scale * width * 8)))
    return "█" * (eighths // 8) + (_BLOCKS[eighths % 8] if eighths % 8 else "")


@register
class CountersView(ModelView):
    KEY = "counters"
    TITLE = "Kernel calls · CPU"

    COMPONENT_CLASSES = {"countersview--delta", "countersview--muted", "countersview--label",
                         "countersview--bar", "countersview--spark"}
    DEFAULT_CSS = """
    CountersView > .countersview--delta { color: $text-accent; text-style: bold; }
    CountersView > .countersview--muted { color: $text-muted; }
    CountersView > .countersview--label { text-style: bold; }
    CountersView > .countersview--bar { color: $text-primary; }
    CountersView > .countersview--spark { color: $text-primary; }
    """


    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._history: dict[tuple[str, int], tuple[float, float]] = {}

    # -- Line API -----------------------------------------------------------------
    def watch_state(self, state) -> None:
        if state is not None:
            m = state.sim.metrics()
            # Forget the future of this variant: after a step back, the next step forward
            # re-adds the same value, so back+forward draws the same screen.
            for key in [k for k in self._history if k[0] == state.variant and k[1] > state.step]:
                del self._history[key]
            self._history[(state.variant, state.step)] = (m["throughput_mbps"], m["cpu_percent"])
        super().watch_state(state)

    # -- content ------------------------------------------------------------------
    def build_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        if st is None:
            return [self._text(("no model yet", "muted"))]
        m = st.sim.metrics()
        head = [self._text((f"{m['throughput_mbps']:,.1f}", "label"), " Mbit/s  CPU ",
                           (f"{m['cpu_percent']:.1f}%", "label"), "  ",
                           (f"{m['cpu_ns_per_frame']:,.0f}", "label"), " ns/frame")]
        head += self._sparks(width)
        legend = [self._text(("+N: since the previous step · bars: CPU ns per frame" if width >= 60
                              else "+N this step · bars: CPU ns/frame", "muted"))]
        room = max(0, height - len(head) - len(legend))
        if width >= 70:
            # Wide: the table on the left, the bars on the right, side by side.
            bars_w = min(44, max(30, width * 2 // 5))
            table_w = width - bars_w - 2
            table = self._table(table_w, room)
            bars = self._bars(bars_w)[:room]
            body = []
            for i in range(max(len(table), len(bars))):
                line = table[i].copy() if i < len(table) else self._text()
                line.pad_right(table_w + 2 - line.cell_len)
                body.append(line.append_text(bars[i]) if i < len(bars) else line)
        else:
            bars = self._bars(width)
            n_bars = min(len(bars), max(0, room // 2))
            body = self._table(width, room - n_bars) + bars[:n_bars]
        return head + body + legend

    def _sparks(self, width: int) -> list[Text]:
        st = self.state
        hist = [v for (variant, _), v in sorted(self._history.items()) if variant == st.variant]
        thr = [t for t, _ in hist]
        cpu = [c for _, c in hist]
        n = len(hist)
        if width >= 60:
            w = max(1, min(n, (width - 22) // 2))
            return [self._text(("Mbit/s ", "muted"), (sparkline(thr, w), "spark"),
                               ("   CPU% ", "muted"), (sparkline(cpu, w), "spark"),
                               (f"  {n} step{'s' if n != 1 else ''}", "muted"))]
        w = max(1, min(n, width - 8))
        return [self._text(("Mbit/s ", "muted"), (sparkline(thr, w), "spark")),
                self._text(("CPU%   ", "muted"), (sparkline(cpu, w), "spark"))]

    def _table(self, width: int, rows: int) -> list[Text]:
        """Non-zero counters, flowed into as many columns as fit, with the step's delta."""
        if rows <= 0:
            return []
        st = self.state
        items = [(k, v, v - st.prev_counts.get(k, 0) if k in st.sim.rec.counts else 0)
                 for k, v in st.sim.rec.counters().items() if v]
        name_w = min(28, max((len(k) for k, _, _ in items), default=8))
        num_w = max((len(f"{v:,}") for _, v, _ in items), default=1)
        d_w = max((len(f"+{d:,}") for _, _, d in items if d), default=0)
        col_w = name_w + 1 + num_w + 1 + d_w
        cols = max(1, min(3, (width + 2) // (col_w + 2)))
        name_w = max(6, min(name_w, (width + 2) // cols - 2 - num_w - d_w - 2))
        cap = rows * cols
        if len(items) > cap:
            items, more = items[:cap - 1], len(items) - cap + 1
        else:
            more = 0
        cells = []
        for k, v, d in items:
            name = k if len(k) <= name_w else k[:name_w - 1] + "…"
            cells.append(self._text(name.ljust(name_w), " ", f"{v:,}".rjust(num_w), " ",
                                    ((f"+{d:,}" if d else "").ljust(d_w), "delta")))
        if more:
            cells.append(self._text((f"… {more} more", "muted")))
        height = -(-len(cells) // cols)
        lines = []
        for r in range(height):
            line = self._text()
            for c in range(cols):
                i = c * height + r
                if i < len(cells):
                    if c:
                        line.pad_right(c * (name_w + num_w + d_w + 4) - line.cell_len)
                    line.append_text(cells[i])
            lines.append(line)
        return lines

    def _bars(self, width: int) -> list[Text]:
        """CPU ns per frame by cost category, in the fixed category order."""
        st = self.state
        cats = st.sim.metrics()["cpu_ns_per_frame_by_category"]
        shown = [(c, cats.get(c, 0.0)) for c in CATEGORIES if cats.get(c, 0.0) >= 0.5]
        if not shown:
            return [self._text(("no frames yet", "muted"))]
        scale = max(v for _, v in shown)
        if st.other is not None:
            # Compare mode: one scale for both panels.
            other = st.other.sim.metrics()["cpu_ns_per_frame_by_category"]
            scale = max([scale] + list(other.values()))
        name_w = max(len(c) for c, _ in shown)
        num_w = max(len(f"{v:,.0f}") for _, v in shown)
        bar_w = max(1, width - name_w - num_w - 6)
        return [self._text((c.ljust(name_w), "label"), " ", (hbar(v, scale, bar_w).ljust(bar_w), "bar"),
                           f" {v:>{num_w},.0f} ns") for c, v in shown]
