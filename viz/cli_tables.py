"""Rich tables for `rxviz list` and `rxviz run`.

Kept apart from the commands so that rich is imported only when a table is
actually printed (`--json`, `trace` and `graph` never load it). Tables put
variants side by side, right-align numbers and fit 80 columns: a projector
or a narrow terminal is the normal case for this tool, not the exception.
Colour follows rich's defaults (none when stdout is not a terminal).
"""

from __future__ import annotations

import textwrap
from typing import Any

# The metrics `rxviz run` shows, in this order (all of them come from models.metrics).
KEY_METRICS = ("throughput_mbps", "cpu_percent", "cpu_ns_per_frame", "acks_per_segment", "segments_per_skb",
               "bus_percent", "frames_delivered", "frames_dropped", "sim_time_s")


def _console():
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich would exit 1 ("a lesson problem" here); let viz.cli handle it like print() does.
            raise BrokenPipeError

    # markup and emoji off: lesson titles and kernel messages contain "[...]" and ":x:" text.
    return _Console(highlight=False, markup=False, emoji=False)


def _para(con, text: str, style: str | None = None) -> None:
    """A paragraph wrapped at spaces to the report's width, with no trailing spaces.

    rich's own wrapping leaves the space it broke at on the line; a line
    with trailing blanks breaks `diff` of two runs and copy-paste on a
    projector, so prose is wrapped here and printed as is.
    """
    width = min(con.width, 80) - 1
    con.print(textwrap.fill(text, width=width, subsequent_indent="  ", break_long_words=False,
                            break_on_hyphens=False), style=style, soft_wrap=True)


def _num(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return format(v, ",")
    return str(v)


def _pct(v: Any) -> str:
    return "-" if v is None else f"{v:+.1f}%"


def _table(title: str, first: str, columns: list[str]):
    """A table whose title is printed above it (a rich title would wrap to the table's width)."""
    from rich.table import Table
    t = Table(header_style="bold")
    t.title_line = title
    t.add_column(first, overflow="fold")
    for c in columns:
        t.add_column(c, justify="right", overflow="fold")
    return t


def _show(con, t) -> None:
    con.print(t.title_line, style="bold")
    con.print(t, "")


def print_lessons(lessons: list) -> None:
    from rich.table import Table
    t = Table(header_style="bold")
    t.add_column("id", no_wrap=True)
    t.add_column("driver")
    t.add_column("title", ratio=1)
    t.add_column("steps", justify="right")
    for x in lessons:
        t.add_row(x.id, x.driver, x.title, str(len(x.steps)))
    _console().print(t)


def print_run(result: dict[str, Any], lesson) -> None:
    """The run report: metrics, CPU by category, counters, headline, violations."""
    con = _console()
    names = list(result["variants"])
    runs = result["variants"]
    _para(con, f"{lesson.id}: {lesson.title}", style="bold")
    _para(con, f"{result['frames']:,} frames per variant after a warm-up, seed {result['seed']}")
    con.print()

    t = _table("Metrics", "metric", names)
    for m in KEY_METRICS:
        t.add_row(m, *(_num(runs[n]["metrics"].get(m)) for n in names))
    _show(con, t)

    cats: dict[str, list] = {}
    for n in names:
        for cat, ns in (runs[n]["metrics"].get("cpu_ns_per_frame_by_category") or {}).items():
            cats.setdefault(cat, [])
    t = _table("CPU ns per frame, by cost category", "category", names)
    for cat in cats:
        row = [runs[n]["metrics"].get("cpu_ns_per_frame_by_category", {}).get(cat, 0) for n in names]
        if any(row):
            t.add_row(cat, *map(_num, row))
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
            t.add_row(k, *map(_num, row))
    _show(con, t)

    if result.get("headline"):
        _print_headline(con, result["headline"], lesson)
    _print_problems(con, runs)


def _print_headline(con, h: dict[str, Any], lesson) -> None:
    if h.get("changed"):
        _print_changed(con, h)
        return
    change = h.get("compare") == "change"
    cols = ["before", "after"] + (["change"] if change else [])
    t = _table(f"Paper vs model: {h['metric']} ({h['unit']})", "", cols)
    paper, model = h["paper"], h["model"]
    t.add_row("paper", *(_num(paper.get(c)) for c in cols))
    t.add_row("model", *(_num(model.get(c)) if model.get(c) is not None else "not run" for c in cols))
    errs = [h.get("before_error_pct"), h.get("after_error_pct")] + ([h.get("change_error_pct")] if change else [])
    t.add_row("error", *map(_pct, errs))
    con.print(t.title_line, style="bold")
    con.print(t)
    within = h.get("within")
    verdict = "-" if within is None else ("yes" if within else "NO")
    tol = h.get("tolerance") or "run both headline variants to compare"
    _para(con, f"within tolerance: {verdict} ({tol})")
    for f in h.get("fitted") or []:
        raw = lesson.scenario_raw.get(f["param"], f.get("value"))    # as the lesson wrote it
        value = "" if raw is None else f" = {raw}"
        note = f" ({f['note']})" if f.get("note") else ""
        _para(con, f"fitted: {f['param']}{value}, to {f['to']}{note}")
    if not h.get("fitted"):
        _para(con, "fitted: nothing (every parameter comes from the platform profile)")
    if h.get("source"):
        _para(con, f"source: {h['source']}")
    con.print()


def _print_changed(con, h: dict[str, Any]) -> None:
    """A run the paper never measured: the model's figures alone, and why nothing is compared."""
    t = _table(f"Model: {h['metric']} ({h['unit']}), changed scenario", "", ["before", "after"])
    t.add_row("model", *(_num(h["model"].get(c)) if h["model"].get(c) is not None else "not run"
                         for c in ("before", "after")))
    _show(con, t)
    _para(con, f"not compared with the paper: {', '.join(h['changed'])} changed, and the published "
               f"figures are for the lesson's own scenario")
    con.print()


def _print_problems(con, runs: dict[str, Any]) -> None:
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
        rows = []
        for n, r in runs.items():
            counts = r.get(kind[:-1] + "_counts") or {}
            first = {}
            for v in r.get(kind) or []:
                first.setdefault(v["name"], v)
            for name, times in counts.items():
                if expected is None or (name in r.get("expect", ())) == expected:
                    rows.append((n, name, times, first.get(name)))
        if rows:
            _problem_table(con, title, rows)


def _problem_table(con, title: str, rows: list[tuple[str, str, int, dict | None]]) -> None:
    from rich.table import Table
    con.print(title, style="bold")
    t = Table(header_style="bold")
    for name in ("variant", "name", "times", "first at"):
        t.add_column(name, no_wrap=True, justify="left" if name in ("variant", "name") else "right")
    for n, name, times, first in rows:
        t.add_row(n, name, _num(times), "-" if first is None else f"{first['t_ns'] / 1e6:,.3f}ms")
    con.print(t)
    for n, name, _, first in rows:
        if first is not None:
            _para(con, f"{n}, {name}: {first['message']}")
    con.print()
