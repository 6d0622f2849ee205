"""Rich tables for `rxviz list` and `rxviz run`.

Kept apart from the commands so that rich is imported only when a table is
actually printed (`--json`, `trace` and `graph` never load it). Tables put
variants side by side, right-align numbers and fit 80 columns: a projector
or a narrow terminal is the normal case for this tool, not the exception.
A table with more variants than fit (dma-bugs has six) is printed in parts,
each with the names column and as many variants as fit whole, so no number
and no name is ever broken across lines (`14,041,0` over `88`).
Colour follows rich's defaults (none when stdout is not a terminal).
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from .. import paper_vs_model_text as headline

if TYPE_CHECKING:
    from rich.console import Console

    from models.lesson.schema import Lesson

# The metrics `rxviz run` shows, in this order (all of them come from models.metrics).
KEY_METRICS = ("throughput_mbps", "cpu_percent", "cpu_ns_per_frame", "acks_per_segment", "segments_per_skb",
               "bus_percent", "frames_delivered", "frames_dropped", "sim_time_s")


def _console() -> Console:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich would exit 1 ("a lesson problem" here); let viz.cli handle it like print() does.
            raise BrokenPipeError

    # markup and emoji off: lesson titles and kernel messages contain "[...]" and ":x:" text.
    return _Console(highlight=False, markup=False, emoji=False)


def _para(con: Console, text: str, style: str | None = None) -> None:
    """A paragraph wrapped at spaces to the report's width, with no trailing spaces.

    rich's own wrapping leaves the space it broke at on the line; a line
    with trailing blanks breaks `diff` of two runs and copy-paste on a
    projector, so prose is wrapped here and printed as is.
    """
    width = min(con.width, 80) - 1
    con.print(textwrap.fill(text, width=width, subsequent_indent="  ", break_long_words=False,
                            break_on_hyphens=False), style=style, soft_wrap=True)


class _Grid:
    """A names column and one column per variant: rows collected, then printed by `_show`."""

    def __init__(self, title: str, first: str, columns: list[str]) -> None:
        self.title_line, self.first, self.columns = title, first, list(columns)
        self.rows: list[list[str]] = []

    def add_row(self, *cells: Any) -> None:
        self.rows.append([str(c) for c in cells])

    @property
    def row_count(self) -> int:
        return len(self.rows)


def _table(title: str, first: str, columns: list[str]) -> _Grid:
    """A table whose title is printed above it (a rich title would wrap to the table's width)."""
    return _Grid(title, first, columns)


def parts(first: int, widths: list[int], room: int) -> list[list[int]]:
    """The variant columns (by index) of each part of a table that must fit `room` columns.

    A column costs its width and three more (a space each side and its rule); the table
    one rule more. Every part has at least one variant, however narrow the room.
    """
    out: list[list[int]] = [[]]
    used = 1 + first + 3
    for i, w in enumerate(widths):
        if out[-1] and used + w + 3 > room:
            out.append([])
            used = 1 + first + 3
        out[-1].append(i)
        used += w + 3
    return out


def _show(con: Console, t: _Grid, gap: bool = True) -> None:
    """Print `t` in as many parts as it takes to fit the console, each titled."""
    from rich.cells import cell_len
    from rich.table import Table
    first = max([cell_len(t.first)] + [cell_len(r[0]) for r in t.rows])
    widths = [max([cell_len(c)] + [cell_len(r[i + 1]) for r in t.rows]) for i, c in enumerate(t.columns)]
    split = parts(first, widths, con.width)
    for n, part in enumerate(split, 1):
        fits = 1 + first + 3 + sum(widths[i] + 3 for i in part) <= con.width
        table = Table(header_style="bold")
        # Whole cells where they fit; only a console too narrow for one variant folds them.
        table.add_column(t.first, no_wrap=fits, overflow="fold")
        for i in part:
            table.add_column(t.columns[i], justify="right", no_wrap=fits, overflow="fold")
        for row in t.rows:
            table.add_row(row[0], *(row[i + 1] for i in part))
        title = t.title_line if len(split) == 1 else \
            f"{t.title_line} ({n}/{len(split)}: {', '.join(t.columns[i] for i in part)})"
        _para(con, title, style="bold")
        if gap:
            con.print(table, "")
        else:
            con.print(table)


def print_lessons(lessons: list[Lesson]) -> None:
    from rich.table import Table
    t = Table(header_style="bold")
    t.add_column("id", no_wrap=True)
    t.add_column("driver")
    t.add_column("title", ratio=1)
    t.add_column("steps", justify="right")
    for x in lessons:
        t.add_row(x.id, x.driver, x.title, str(len(x.steps)))
    _console().print(t)


def print_run(result: dict[str, Any], lesson: Lesson) -> None:  # noqa: C901 (older than the complexity rule)
    """The run report: metrics, CPU by category, counters, headline, violations."""
    con = _console()
    names = list(result["variants"])
    runs = result["variants"]
    _para(con, f"{lesson.id}: {lesson.title}", style="bold")
    _para(con, f"{result['frames']:,} frames per variant after a warm-up, seed {result['seed']}")
    con.print()

    t = _table("Metrics", "metric", names)
    for m in KEY_METRICS:
        t.add_row(m, *(headline.num(runs[n]["metrics"].get(m)) for n in names))
    _show(con, t)

    cats: dict[str, None] = {}            # the categories in the order they first appear
    for n in names:
        for cat in runs[n]["metrics"].get("cpu_ns_per_frame_by_category") or {}:
            cats.setdefault(cat, None)
    t = _table("CPU ns per frame, by cost category", "category", names)
    for cat in cats:
        row = [runs[n]["metrics"].get("cpu_ns_per_frame_by_category", {}).get(cat, 0) for n in names]
        if any(row):
            t.add_row(cat, *map(headline.num, row))
    if t.row_count:
        _show(con, t)

    # Counters cover the whole run (ring fill and warm-up included); metrics only the measured part.
    t = _table("Kernel calls, whole run incl. warm-up (non-zero)", "call", names)
    keys: dict[str, None] = {}
    for n in names:
        keys.update(dict.fromkeys(runs[n]["counters"]))
    for k in keys:
        row = [runs[n]["counters"].get(k, 0) for n in names]
        if any(row):
            t.add_row(k, *map(headline.num, row))
    _show(con, t)

    if result.get("headline"):
        _print_headline(con, result["headline"], lesson)
    _print_problems(con, runs)


def _print_headline(con: Console, h: dict[str, Any], lesson: Lesson) -> None:
    cols, body = headline.rows(h)
    t = _table(headline.title(h), "", cols)
    for row in body:
        t.add_row(*row)
    _show(con, t, gap=False)
    for line in headline.notes(h, lesson):
        _para(con, line)
    con.print()


def _print_problems(con: Console, runs: dict[str, Any]) -> None:
    """Violations and warnings, one row per (variant, name) with how often; then each first message.

    A fault repeats on every frame, so rows are grouped, with the full count
    (the listed ones are capped). Violations a variant `expect`s are shown
    apart: the lesson demonstrates them on purpose. Messages go under the
    table, wrapped at spaces: in a column they would be cut mid-word.
    """
    sections = (("violations", False, "Violations reported by the checker"),
                ("violations", True, "Violations shown on purpose (the lesson expects them)"),
                ("warnings", None, "Warnings (what the kernel would print)"))
    for kind, expected, title in sections:
        rows: list[tuple[str, str, int, dict[str, Any] | None]] = []
        for n, r in runs.items():
            counts = r.get(kind[:-1] + "_counts") or {}
            first: dict[str, dict[str, Any]] = {}
            for v in r.get(kind) or []:
                first.setdefault(v["name"], v)
            for name, times in counts.items():
                if expected is None or (name in r.get("expect", ())) == expected:
                    rows.append((n, name, times, first.get(name)))
        if rows:
            _problem_table(con, title, rows)


def _problem_table(con: Console, title: str, rows: list[tuple[str, str, int, dict[str, Any] | None]]) -> None:
    from rich.table import Table
    con.print(title, style="bold")
    t = Table(header_style="bold")
    for name in ("variant", "name", "times", "first at"):
        t.add_column(name, no_wrap=True, justify="left" if name in ("variant", "name") else "right")
    for n, name, times, first in rows:
        t.add_row(n, name, headline.num(times), "-" if first is None else f"{first['t_ns'] / 1e6:,.3f}ms")
    con.print(t)
    for n, name, _, first in rows:
        if first is not None:
            _para(con, f"{n}, {name}: {first['message']}")
    con.print()
