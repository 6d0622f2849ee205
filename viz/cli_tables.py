"""Rich tables for `rxviz list` and `rxviz run`.

Kept apart from the commands so that rich is imported only when a table is
actually printed (`--json`, `trace` and `graph` never load it). Tables put
variants side by side, right-align numbers and fit 80 columns: a projector
or a narrow terminal is the normal case for this tool, not the exception.
Colour follows rich's defaults (none when stdout is not a terminal).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

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


@contextlib.contextmanager
def status(text: str) -> Iterator[None]:
    """A spinner on stderr while the model runs, only when stderr is a terminal."""
    from rich.console import Console
    err = Console(stderr=True)
    if not err.is_terminal:
        yield
        return
    with err.status(text):
        yield


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
    con.print(f"{lesson.id}: {lesson.title}", style="bold")
    con.print(f"{result['frames']:,} frames per variant after a warm-up, seed {result['seed']}\n")

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
    change = h.get("compare") == "change"
    cols = ["before", "after"] + (["change"] if change else [])
    t = _table(f"Paper vs model: {h['metric']} ({h['unit']})", "", cols)
    paper, model = h["paper"], h["model"]
    t.add_row("paper", *(_num(paper.get(c)) for c in cols))
    t.add_row("model", *(_num(model.get(c)) if model.get(c) is not None else "not run" for c in cols))
    errs = [h.get("before_error_pct"), h.get("after_error_pct")] + ([h.get("change_error_pct")] if change else [])
    t.add_row("error", *map(_pct, errs))
    kinds = [h.get("before_kind", ""), h.get("after_kind", "")]
    t.add_row("kind", *kinds, *([h.get("after_kind", "")] if change else []))
    con.print(t.title_line, style="bold")
    con.print(t)
    within = h.get("within")
    verdict = "-" if within is None else ("yes" if within else "NO")
    tol = h.get("tolerance") or "run both headline variants to compare"
    con.print(f"within tolerance: {verdict} ({tol})")
    kind = h.get("after_kind")
    if kind == "bounded" and h.get("capacity"):
        con.print(f"after is bounded: the link carries at most {h['capacity']:,.1f} {h['unit']} of payload, "
                  "so the after figure says little about the mechanism")
    elif kind == "fitted":
        con.print(f"after is fitted: {h.get('after_note') or 'it follows from the fitted values'}")
    elif kind == "predicted":
        con.print("after is predicted: only the before figure was used to fit")
    for f in h.get("fitted") or []:
        raw = lesson.scenario_raw.get(f["param"], f.get("value"))    # as the lesson wrote it
        value = "" if raw is None else f" = {raw}"
        note = f" ({f['note']})" if f.get("note") else ""
        con.print(f"fitted: {f['param']}{value}, to {f['to']}{note}")
        if f.get("plausible"):
            lo, hi = f["plausible"]
            where = "inside" if f.get("in_plausible_range") else "OUTSIDE"
            con.print(f"  a real machine: {_num(lo)} to {_num(hi)} ({f.get('basis', '')}); the fit is {where} it")
    if not h.get("fitted"):
        con.print("fitted: nothing (every parameter comes from the platform profile)")
    for row in h.get("sensitivity") or []:
        what = "change" if change else "after"
        pts = "; ".join(f"x{p['factor']:g} gives {what} {_num(p['figure'])}" for p in row["points"])
        con.print(f"sensitivity ({row['frames']:,} frames): {row['param']} {pts}")
    if h.get("source"):
        con.print(f"source: {h['source']}")
    con.print()


def _print_problems(con, runs: dict[str, Any]) -> None:
    """Violations and warnings, one row per (variant, name): a fault repeats on every frame."""
    from rich.table import Table
    for kind in ("violations", "warnings"):
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for n, r in runs.items():
            for v in r.get(kind) or []:
                groups.setdefault((n, v["name"]), []).append(v)
        if not groups:
            continue
        title = ("Violations reported by the checker" if kind == "violations"
                 else "Warnings (what the kernel would print)")
        con.print(title, style="bold")
        t = Table(header_style="bold")
        t.add_column("variant", no_wrap=True)
        t.add_column("name", no_wrap=True)
        t.add_column("times", justify="right", no_wrap=True)
        t.add_column("first at", justify="right", no_wrap=True)
        t.add_column("first message", ratio=1, overflow="fold")
        for (n, name), vs in groups.items():
            t.add_row(n, name, _num(len(vs)), f"{vs[0]['t_ns'] / 1e6:,.3f}ms", vs[0]["message"])
        con.print(t, "")
