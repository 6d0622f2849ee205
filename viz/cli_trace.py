"""`rxviz trace` output: one kernel call a line, within 80 columns, with set-up marked.

The model's own one-line form (`Event.line()`) is for logs and reaches
about 100 columns; here a call that does not fit is wrapped at a space,
its continuation indented under the call name, so the time and context
columns stay clean for `grep` and `less`.

The ring is filled while the interface comes up, before the simulation
clock starts, so those calls carry the set-up's own CPU time and the clock
starts again at 0 after them. A marker line says so at each end of the
set-up: without it the times seem to jump backwards.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

WIDTH = 80

SETUP = "# set-up before t=0: ifup fills the ring; times are the set-up's own CPU time"
START = "# t=0: the NIC starts receiving; times from here on are the simulation clock"


def event_line(e) -> str:
    """One event, wrapped to WIDTH columns (continuation lines indented under the call)."""
    cost = f"{e.cost_ns:5.0f}ns" if e.cost_ns else ""
    head = f"{e.t_ns / 1000:10.3f}us {e.ctx:<7} {cost:>7} "
    what = e.call + (f" {e.obj}" if e.obj else "") + (f"  {e.detail}" if e.detail else "")
    indent = " " * (len(head) + 2)        # under the call name, a little in
    return textwrap.fill(what, width=WIDTH, initial_indent=head, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False, drop_whitespace=True)


def render(events: Iterable, setup_seq: int) -> str:
    """The trace; events with seq <= setup_seq happened during set-up, before t=0."""
    out: list[str] = []
    in_setup = False
    for e in events:
        if e.seq <= setup_seq and not in_setup and not out:
            out.append(SETUP)
            in_setup = True
        elif e.seq > setup_seq and in_setup:
            out.append(START)
            in_setup = False
        out.append(event_line(e))
    return "\n".join(out)


def event_json(e, setup_seq: int) -> dict:
    """One event as `rxviz trace --json` prints it: the call and the transitions it caused."""
    return {
        "seq": e.seq, "t_ns": e.t_ns, "setup": e.seq <= setup_seq, "call": e.call, "ctx": e.ctx,
        "cost_ns": e.cost_ns, "category": e.category, "object": e.obj, "detail": e.detail,
        "transitions": [{"machine": t.machine, "object": t.obj, "from": t.src, "to": t.dst, "edge": t.call}
                        for t in e.transitions],
    }


def problems(title: str, items: Iterable) -> list[str]:
    """A titled list of checker reports (violations or warnings), wrapped to WIDTH."""
    lines = [title]
    for v in items:
        lines.append(textwrap.fill(f"{v.t_ns / 1000:10.3f}us  {v.name}: {v.message}", width=WIDTH,
                                   subsequent_indent=" " * 14, break_long_words=False,
                                   break_on_hyphens=False))
    return lines
