"""Kernel-call counters and where the CPU time goes: the numbers behind every lesson's claim.

Top: the headline metrics (throughput, CPU, ns per frame) with sparklines
of the steps seen so far. Then the non-zero counters, each with what the
last step added, highlighted, the most telling first: those the last step
moved most, or in compare mode those that differ most between the two
variants (ranked the same way in both panels, so a counter sits on the same
row in each). Beside or below them the CPU time per frame by cost category
as bars with their ns values, largest first; categories that do not fit are
counted and summed on the last line, so the bars never look complete when
they are not.

What the step watches (`watch:` in the lesson) comes first and is marked
"▸" in the accent colour, zero or not: "swiotlb_bounce 0" after a patch is
the point. Watched metrics that are not in the headline row get a row of
their own. Each bar says its category's share of the frame's CPU time in
percent. In compare mode the categories that differ between the two
variants come first and are drawn on their own scale (the largest of them
fills the bar), so a big category both variants pay alike, such as the
stack, cannot flatten the change into bars that look the same; those are
listed with their figures and "same in both".

The sparkline history is the only state this view keeps: a value per
(variant, step). On a step back the entries past the current step are
dropped, so going back and forward again draws the same screen. In compare
mode the bars share one scale with the other variant's, so their lengths
can be compared across the two panels.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from models.read import CALLS, CATEGORIES, COUNTERS, METRICS, kept_costs

from . import register
from .base import ModelView, Part, ViewState

_SPARK = "▁▂▃▄▅▆▇█"
HEAD_METRICS = ("throughput_mbps", "cpu_percent", "cpu_ns_per_frame")     # the view's first row
_BLOCKS = " ▏▎▍▌▋▊▉█"


def sparkline(values: list[float], width: int) -> str:
    """The last `width` values as ▁..█, scaled from 0 to their maximum."""
    values = values[-width:] if width > 0 else []
    top = max(values, default=0)
    if top <= 0:
        return _SPARK[0] * len(values)
    return "".join(_SPARK[min(7, int(v / top * 7 + 0.5))] for v in values)


def _canonical(name: str) -> tuple[int, int, str]:
    """The order `rxviz run --json` reports counters in (documented ones first): the tie-break."""
    if name in COUNTERS:
        return (0, COUNTERS.index(name), name)
    return (1, list(CALLS).index(name) if name in CALLS else len(CALLS), name)


def step_counts(st: ViewState) -> dict[str, tuple[int, int]]:
    """Each counter's total and what the last step added, but those a question still ahead keeps
    back (its answer is in their figures)."""
    counts, prev, kept = st.read.counts(), st.prev_counts, st.hidden_counts
    return {k: (v, v - prev.get(k, 0) if k in counts else 0) for k, v in st.read.counters().items() if k not in kept}


def rank_counters(mine: dict[str, tuple[int, int]],
                  theirs: dict[str, tuple[int, int]] | None, watch: tuple[str, ...] = ()) -> list[str]:
    """The non-zero counters, most telling first.

    Alone: by how much the last step moved them. Compared: by how much the two
    variants differ, as diff^2 / larger (a counter only one variant calls scores
    its whole count, a large counter a few percent apart scores little), so the
    counters a lesson is about (swiotlb_bounce, dma_map_page...) come first. The
    key is symmetric, so both panels rank the same names the same way.
    """
    pinned = [k for k in watch if k in COUNTERS or k in CALLS]
    return pinned + [k for k in _ranked(mine, theirs) if k not in pinned]


# A counter of something other than calls ranks as the call it measures, right after it: bytes
# would otherwise outrank every call (2,048 bytes a bounce against one swiotlb_bounce call).
MEASURES = {"swiotlb_bounce_bytes": "swiotlb_bounce"}


def _ranked(mine: dict[str, tuple[int, int]], theirs: dict[str, tuple[int, int]] | None) -> list[str]:
    zero = (0, 0)
    if theirs is None:
        names = [k for k, (v, _) in mine.items() if v]

        def alone(k: str) -> tuple[int, tuple[int, int, str], bool]:
            call = MEASURES.get(k, k)
            return (-mine.get(call, zero)[1], _canonical(call), k != call)

        return sorted(names, key=alone)
    both = {k for k, (v, _) in (*mine.items(), *theirs.items()) if v}

    def key(k: str) -> tuple[float, int, tuple[int, int, str], bool]:
        call = MEASURES.get(k, k)
        (a, da), (b, db) = mine.get(call, zero), theirs.get(call, zero)
        return (-(a - b) ** 2 / max(a, b, 1), -max(abs(da), abs(db)), _canonical(call), k != call)

    return sorted(both, key=key)


def hbar(value: float, scale: float, width: int) -> str:
    """A horizontal bar in eighths of a cell; `scale` fills `width` cells."""
    if scale <= 0 or width <= 0:
        return ""
    eighths = max(0, min(width * 8, round(value / scale * width * 8)))
    return "█" * (eighths // 8) + (_BLOCKS[eighths % 8] if eighths % 8 else "")


@register
class CountersView(ModelView):
    KEY = "counters"
    TITLE = "Kernel calls · CPU · so far"     # the player's own run: not the headline's run of N frames
    READS = ("hidden_counts",)      # the counters a question ahead keeps back

    COMPONENT_CLASSES = {"countersview--delta", "countersview--muted", "countersview--label",
                         "countersview--bar", "countersview--spark", "countersview--watch",
                         "countersview--other"}
    DEFAULT_CSS = """
    CountersView > .countersview--delta { color: $text-accent; text-style: bold; }
    CountersView > .countersview--watch { color: $text-accent; text-style: bold; }
    CountersView > .countersview--other { color: $text-secondary; }
    CountersView > .countersview--muted { color: $text-muted; }
    CountersView > .countersview--label { text-style: bold; }
    CountersView > .countersview--bar { color: $text-primary; }
    CountersView > .countersview--spark { color: $text-primary; }
    """


    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._history: dict[tuple[str, int], tuple[float, float]] = {}

    # -- Line API -----------------------------------------------------------------
    def watch_state(self, state: ViewState | None) -> None:
        if state is not None:
            # Forget the future of this variant: after a step back, the next step forward
            # re-adds the same value, so back+forward draws the same screen.
            for key in [k for k in self._history if k[0] == state.variant and k[1] > state.step]:
                del self._history[key]
            self._history[(state.variant, state.step)] = self._point(state)
        super().watch_state(state)

    @staticmethod
    def _point(state: ViewState) -> tuple[float, float]:
        m = state.read.metrics()
        return m["throughput_mbps"], m["cpu_percent"]

    def _earlier(self, state: ViewState) -> list[tuple[tuple[str, int], tuple[float, float]]]:
        """The variant's history before the state's step, oldest first: with its own point, all
        the sparklines draw (what watch_state keeps, without waiting for it: see ahead_inputs)."""
        return sorted((k, v) for k, v in self._history.items() if k[0] == state.variant and k[1] < state.step)

    def ahead_inputs(self) -> object:
        return self._earlier(self.state) if self.state is not None else None

    # -- content ------------------------------------------------------------------
    def build_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        if st is None:
            return [self._text(("no model yet", "muted"))]
        m = st.read.metrics()
        # The bars hold the reader's calls too; the headline is the RX path's: say both, so the
        # bars add up to what is written.
        reader = m.get("app_ns_per_frame", 0.0)
        watch = st.watch

        def fig(name: str, text: str) -> tuple[str, str]:
            return (("▸" + text) if name in watch else text, "watch" if name in watch else "label")
        parts: list[Part] = [fig("throughput_mbps", f"{m['throughput_mbps']:,.1f}"), " Mbit/s  CPU ",
                 fig("cpu_percent", f"{m['cpu_percent']:.1f}%"), "  ",
                 fig("cpu_ns_per_frame", f"{m['cpu_ns_per_frame']:,.0f}"), " ns/frame"]
        extra: list[Part] = ["  + reader ", (f"{reader:,.0f}", "label")] if reader >= 0.5 else []
        # Too wide, the reader's share goes first, then "/frame", then the ns figure: never cut mid-word.
        for cut in ([*parts, *extra], parts, [*parts[:-1], " ns"], parts[:-3]):
            line = self._text(*cut)
            if line.cell_len <= width:
                break
        head = [line]
        head += self._watched_metrics(m, width)
        head += self._sparks(width)
        legend = [self._legend(width)]
        room = max(0, height - len(head) - len(legend))
        if width >= 70:
            # Wide: the table on the left, the bars on the right, side by side.
            bars_w = min(44, max(30, width * 2 // 5))
            table_w = width - bars_w - 2
            table = self._table(table_w, room)
            bars = self._bars(bars_w, room)
            body = []
            for i in range(max(len(table), len(bars))):
                line = table[i].copy() if i < len(table) else self._text()
                line.pad_right(table_w + 2 - line.cell_len)
                body.append(line.append_text(bars[i]) if i < len(bars) else line)
        else:
            bars = self._bars(width, room // 2)
            body = self._table(width, room - len(bars)) + bars
        return head + body + legend

    def _legend(self, width: int) -> Text:
        long = "▸ watched · +N: since the previous step · bars: CPU ns per frame and its share"
        return self._text((long if len(long) <= width else "▸ watched · +N this step · bars: ns/frame, %", "muted"))

    def rows_wanted(self, width: int) -> int:
        """The headline, the watched metrics' row, the sparklines, a row a watched counter, the
        "… more" row and the legend: what a step that watches counters is about, all on screen."""
        st = self.state
        if st is None:
            return 0
        m = st.read.metrics()
        head = 1 + len(self._watched_metrics(m, width)) + len(self._sparks(width))
        watched = [k for k in st.watch if k in COUNTERS or k in CALLS]
        return head + len(watched) + 2 if watched else 0

    def _watched_metrics(self, m: dict[str, Any], width: int) -> list[Text]:
        """The watched metrics the headline row does not carry, on one row (as many as fit)."""
        names = [k for k in self.st.watch if k in METRICS and k not in HEAD_METRICS and k not in self.st.hidden_counts]
        if not names:
            return []
        line = self._text()
        for name in names:
            v = m.get(name)
            text = "-" if v is None else f"{v:,.3g}" if isinstance(v, float) and abs(v) < 10 else f"{v:,.1f}" \
                if isinstance(v, float) else f"{v:,}"
            piece = self._text(("▸" + name, "watch"), f" {text}")
            if line.cell_len and line.cell_len + 2 + piece.cell_len > width:
                break
            if line.cell_len:
                line.append("  ")
            line.append_text(piece)
        return [line]

    def _sparks(self, width: int) -> list[Text]:
        st = self.st
        hist = [v for _, v in self._earlier(st)] + [self._point(st)]
        thr = [t for t, _ in hist]
        cpu = [c for _, c in hist]
        n = len(hist)
        if width >= 60:
            w = max(1, min(n, (width - 22) // 2))
            return [self._text(("Mbit/s ", "muted"), (sparkline(thr, w), "spark"),
                               ("   CPU% ", "muted"), (sparkline(cpu, w), "spark"),
                               (f"  {n} step{'s' if n != 1 else ''}", "muted"))]
        if width >= 24:
            # Both on one line: in a narrow panel (compare mode) the row goes to the counters.
            w = max(1, min(n, (width - 14) // 2))
            return [self._text(("Mbit/s ", "muted"), (sparkline(thr, w), "spark"),
                               ("  CPU% ", "muted"), (sparkline(cpu, w), "spark"))]
        w = max(1, min(n, width - 8))
        return [self._text(("Mbit/s ", "muted"), (sparkline(thr, w), "spark")),
                self._text(("CPU%   ", "muted"), (sparkline(cpu, w), "spark"))]

    def _table(self, width: int, rows: int) -> list[Text]:
        """Non-zero counters, most telling first, flowed into as many columns as fit, with the step's delta."""
        if rows <= 0:
            return []
        st = self.st
        mine = step_counts(st)
        theirs = step_counts(st.other) if st.other is not None else None
        names = rank_counters(mine, theirs, st.watch)
        # Compare mode: widths from both panels too, so the columns (and rows) line up.
        every = list(mine.values()) + list(theirs.values() if theirs else [])
        items = [(k, *mine.get(k, (0, 0))) for k in names]
        name_w = min(28, max((len(k) for k in names), default=8))
        num_w = max((len(f"{v:,}") for v, _ in every if v), default=1)
        d_w = max((len(f"+{d:,}") for _, d in every if d), default=0)
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
            name = ("▸" + k) if k in st.watch else k      # watched: a glyph too, never colour alone
            name = name if len(name) <= name_w else name[:name_w - 1] + "…"
            cells.append(self._text((name.ljust(name_w), "watch" if k in st.watch else ""), " ",
                                    f"{v:,}".rjust(num_w), " ",
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

    def _bars(self, width: int, rows: int) -> list[Text]:
        """CPU ns per frame by cost category, each with its share of the frame, in at most `rows` lines.

        When they do not all fit, the last line counts and sums the rest: a chart
        that silently drops a category (often the biggest, "stack") reads as
        complete and adds up to the wrong total. In compare mode the categories
        that differ come first, on their own scale (see the module docstring).
        """
        st = self.st
        if rows <= 0:
            return []
        cats = st.read.metrics()["cpu_ns_per_frame_by_category"]
        other = st.other.read.metrics()["cpu_ns_per_frame_by_category"] if st.other is not None else None
        # A question still ahead keeps these rows back (`hide_figures`), and the shares with them:
        # the others' shares would say what the kept ones add up to.
        kept = kept_costs(st.hidden_counts)
        order = [c for c in _bar_order(cats, other or {}) if c not in kept]
        if not kept:
            return self._bar_rows(width, rows, cats, other, order, shares=True)
        if not order or kept >= set(CATEGORIES):
            note = self._text(("ns per frame by category: kept back until you answer", "muted"))
            note.no_wrap = False
            return list(note.wrap(self.app.console, max(8, width)))[:rows]
        note = self._text((f"{', '.join(sorted(kept))}: kept back until you answer", "muted"))
        return self._bar_rows(width, rows - 1, cats, other, order, shares=False) + [note]

    def _bar_rows(self, width: int, rows: int, cats: dict[str, float], other: dict[str, float] | None,
                  order: list[str], shares: bool) -> list[Text]:
        """The bars of `order` in at most `rows` lines; `shares`: each with its share of the frame."""
        if rows <= 0:
            return []
        if not order:
            return [self._text(("no frames yet", "muted"))]
        total = sum(cats.values()) or 1.0
        same = set() if other is None else {c for c in order if not _differs(cats.get(c, 0.0), other.get(c, 0.0))}
        if other is not None:          # the change first: what differs, by how much, then the rest by size
            order = sorted(order, key=lambda c: (c in same, -abs(cats.get(c, 0.0) - other.get(c, 0.0))
                                                 if c not in same else -cats.get(c, 0.0)))
        shown, hidden = _fit_bars(order, cats, rows)
        rest = sum(cats.get(c, 0.0) for c in hidden)

        def share(v: float, w: int = 0) -> str:
            return f" {v / total:>{w}.0%}" if shares else ""

        if not shown:            # one line: the largest as a figure, the rest summed beside it
            top = max(order, key=lambda c: cats.get(c, 0.0))
            rest -= cats.get(top, 0.0)
            return [self._text((top, "label"), f" {cats.get(top, 0.0):,.0f} ns{share(cats.get(top, 0.0))}",
                               (f" · {len(hidden) - 1} more {rest:,.0f} ns", "muted"))]
        changing = [c for c in order if c not in same]
        scaled = changing or order
        scale = max([cats.get(c, 0.0) for c in scaled] + [(other or {}).get(c, 0.0) for c in scaled])
        name_w = max(len(c) for c in shown)
        num_w = max(len(f"{cats.get(c, 0.0):,.0f}") for c in shown)
        bar_w = max(1, width - name_w - num_w - 11)
        lines = []
        for c in shown:
            v = cats.get(c, 0.0)
            tail = f" {v:>{num_w},.0f} ns{share(v, 4)}"
            if c in same:
                lines.append(self._text((c.ljust(name_w), "label"), " ",
                                        ("same in both".ljust(bar_w)[:bar_w], "muted"), tail))
            else:
                lines.append(self._text((c.ljust(name_w), "label"), " ",
                                        (hbar(v, scale, bar_w).ljust(bar_w), "bar"), tail))
        if hidden:
            lines.append(self._text((f"… {len(hidden)} more · {rest:,.0f} ns{share(rest)}", "muted")))
        return lines

def _differs(a: float, b: float) -> bool:
    """Two costs that a reader should see as different: more than 2% (or 1 ns) apart."""
    return abs(a - b) > max(1.0, 0.02 * max(a, b))


def _bar_order(cats: dict[str, float], other: dict[str, float]) -> list[str]:
    """Categories worth a bar, largest first.

    In compare mode by the larger of the two variants' costs, so a category sits
    on the same row in both panels (a category only the other variant pays shows
    an empty bar here); ties keep the fixed category order.
    """
    def cost(c: str) -> float:
        return max(cats.get(c, 0.0), other.get(c, 0.0))
    return sorted((c for c in CATEGORIES if cost(c) >= 0.5), key=lambda c: -cost(c))


def _fit_bars(order: list[str], cats: dict[str, float], rows: int) -> tuple[list[str], list[str]]:
    """(bars shown, categories summed on the "… N more" line), in `rows` lines.

    This variant's largest category is always shown: in compare mode the order
    follows both variants, and the other's big categories must not push it out.
    No bar at all (`[]`) when only one line is left for several categories.
    """
    if len(order) <= rows:
        return order, []
    if rows < 2:
        return [], order
    shown = order[:rows - 1]
    top = max(order, key=lambda c: cats.get(c, 0.0))
    if top not in shown:
        shown[-1] = top
    return shown, [c for c in order if c not in shown]
