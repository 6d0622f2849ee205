"""A line plot drawn in character cells, for `rxviz sweep`.

Drawn here rather than with plotext: plotext pads every row to its width
and ends rows with colour resets even in its colourless theme, its legend
is drawn inside the plot where it can hide a point, and its API changed
whole between 5.x and 6.x. What a sweep needs is small: a few series over
a handful of x values, readable in 80 columns, on a projector and in a
pipe, byte for byte the same on every run.

So: each series has its own ASCII marker (o x + * # @), which says which
is which without colour; straight segments of `·` join a series' points;
a cell where two series meet shows `&`. The y axis has round ticks; the x
axis has a tick at each swept value, labelled as the person wrote it
("2GiB", "10us"). Numeric values are placed by value (on a log scale when
they span a factor of 100 or more, which the axis title says); other
values (iommu=off,lazy,strict) are spaced evenly in the order given.

`render` returns rows of (text, series) runs, series None for the frame,
so the caller can colour each series on a terminal and print plain text
anywhere else; `plain` joins them. No row ends in a space.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

MARKERS = "ox+*#@"
MEET = "&"           # two or more series in one cell
LINE = "·"
LOG_SPAN = 100       # values spanning this factor or more are placed on a log scale

Run = tuple[str, int | None]     # text, and the series it belongs to (None: axes and labels)
Row = list[Run]


def numeric(values: Sequence[Any]) -> bool:
    """True when the values are numbers to place by value (booleans are categories)."""
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def y_ticks(lo: float, hi: float) -> list[float]:
    """Round ticks (steps of 1, 2 or 5 times a power of ten) from at or below `lo` to at or above `hi`.

    Of the steps that give 3 to 6 intervals, the one whose ticks waste the
    least height above and below the data: 18.3 to 40.5 gets 15 to 45 by 5,
    not 10 to 50 by 10.
    """
    if hi == lo:
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    power = 10.0 ** math.floor(math.log10(hi - lo))
    best: list[float] = []
    for step in (m * power for m in (0.1, 0.2, 0.5, 1, 2, 5, 10)):
        first = math.floor(lo / step + 1e-9)
        last = math.ceil(hi / step - 1e-9)
        if 3 <= last - first <= 6 and (not best or (last - first) * step < best[-1] - best[0]):
            best = [round(k * step, 12) for k in range(first, last + 1)]
    return best


def _tick_text(v: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    return f"{v:,.{decimals}f}"


def _x_fractions(xs: Sequence[Any]) -> tuple[list[float], bool]:
    """Where each value sits along the axis, 0 to 1, and whether that is a log scale."""
    n = len(xs)
    if not numeric(xs):
        return [(i + 0.5) / n for i in range(n)], False
    lo, hi = min(xs), max(xs)
    if hi == lo:
        return [0.5] * n, False
    log = lo > 0 and hi / lo >= LOG_SPAN

    def f(v: Any) -> float:
        return math.log(v) if log else float(v)
    return [(f(v) - f(lo)) / (f(hi) - f(lo)) for v in xs], log


class _Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.cells: list[list[tuple[str, int | None]]] = [[(" ", None)] * width for _ in range(height)]
        self.marks: dict[tuple[int, int], int] = {}

    def line_cell(self, r: int, c: int, series: int) -> None:
        if self.cells[r][c][0] == " ":
            self.cells[r][c] = (LINE, series)

    def mark(self, r: int, c: int, series: int) -> None:
        first = self.marks.setdefault((r, c), series)
        self.cells[r][c] = (MARKERS[series % len(MARKERS)], series) if first == series else (MEET, None)

    def segment(self, p: tuple[int, int], q: tuple[int, int], series: int) -> None:
        """A straight run of LINE cells from p to q (row, col), with no gap in a steep stretch."""
        (r0, c0), (r1, c1) = p, q
        steps = max(abs(r1 - r0), abs(c1 - c0))
        for k in range(1, steps):
            self.line_cell(round(r0 + (r1 - r0) * k / steps), round(c0 + (c1 - c0) * k / steps), series)


def render(labels: Sequence[str], xs: Sequence[Any], series: dict[str, Sequence[float | None]],
           *, width: int = 80, height: int = 14, x_title: str = "", y_title: str = "") -> list[Row]:
    """The plot as rows no longer than `width`; `height` is about the rows of the plot area."""
    points = [v for ys in series.values() for v in ys if v is not None]
    if not points:
        return [[(f"(no values of {y_title} to plot)", None)]]
    ticks = y_ticks(min(points), max(points))
    step = ticks[1] - ticks[0]
    texts = [_tick_text(t, step) for t in ticks]
    gutter = max(map(len, texts)) + 1
    per = max(2, math.ceil((height - 1) / (len(ticks) - 1)))      # rows from one tick to the next
    rows = per * (len(ticks) - 1) + 1
    # The last label is centred on the rightmost tick, so leave half of it to the right.
    cols = max(10, width - gutter - 1 - (len(labels[-1]) + 1) // 2)
    fracs, log = _x_fractions(xs)
    at = [1 + round(f * (cols - 3)) for f in fracs]           # keep points off the y axis
    lo, hi = ticks[0], ticks[-1]

    canvas = _Canvas(cols, rows)
    order = sorted(range(len(xs)), key=lambda i: fracs[i])
    for s, ys in enumerate(series.values()):
        pts = [(round((hi - y) / (hi - lo) * (rows - 1)), at[i]) for i in order if (y := ys[i]) is not None]
        for p, q in pairwise(pts):
            canvas.segment(p, q, s)
        for r, c in pts:
            canvas.mark(r, c, s)

    out: list[Row] = [[(y_title, None)]] if y_title else []
    for r in range(rows):
        k, on_tick = divmod(rows - 1 - r, per)
        head = f"{texts[k]:>{gutter - 1}} ┤" if on_tick == 0 else " " * gutter + "│"
        out.append(_trim([(head, None), *_runs(canvas.cells[r])]))
    axis = ["─"] * cols
    for c in at:
        axis[c] = "┬"
    out.append([(" " * gutter + "└" + "".join(axis), None)])
    out += [[(line, None)] for line in _x_labels(labels, [gutter + 1 + c for c in at], width)]
    if x_title:
        title = x_title + (" (log scale)" if log else "")
        out.append([(" " * max(0, gutter + 1 + (cols - len(title)) // 2) + title, None)])
    out += _legend(list(series), width, meet=any(MEET == cell[0] for row in canvas.cells for cell in row))
    return out


def _runs(cells: list[tuple[str, int | None]]) -> Row:
    """Adjacent cells of one series merged into one run."""
    out: Row = []
    for ch, s in cells:
        if out and out[-1][1] == s:
            out[-1] = (out[-1][0] + ch, s)
        else:
            out.append((ch, s))
    return out


def _trim(row: Row) -> Row:
    while row and not row[-1][0].rstrip():
        row.pop()
    if row:
        row[-1] = (row[-1][0].rstrip(), row[-1][1])
    return row


def _x_labels(labels: Sequence[str], centres: list[int], width: int) -> list[str]:
    """Each label centred under its tick; one that would touch the last on its line goes a line down."""
    lines: list[list[str]] = []
    ends: list[int] = []
    for text, c in zip(labels, centres, strict=True):
        start = min(max(0, c - (len(text) - 1) // 2), max(0, width - len(text)))
        i = next((k for k, end in enumerate(ends) if start > end), None)
        if i is None:
            lines.append([])
            ends.append(-1)
            i = len(lines) - 1
        line = lines[i]
        line.append(" " * (start - sum(map(len, line))) + text)
        ends[i] = start + len(text)
    return ["".join(line) for line in lines]


def _legend(names: list[str], width: int, meet: bool) -> list[Row]:
    items: list[Run] = [(f"{MARKERS[i % len(MARKERS)]} {n}", i) for i, n in enumerate(names)]
    if meet:
        items.append((f"{MEET} several at one point", None))
    rows: list[Row] = [[]]
    used = 0
    for text, s in items:
        gap = "   " if rows[-1] else ""
        if rows[-1] and used + len(gap) + len(text) > width:
            rows.append([])
            gap, used = "", 0
        if gap:
            rows[-1].append((gap, None))
        rows[-1].append((text, s))
        used += len(gap) + len(text)
    return rows


def plain(rows: list[Row]) -> str:
    return "\n".join("".join(text for text, _ in row) for row in rows)
