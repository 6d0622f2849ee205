"""The lifecycle state machine of the variant's RX buffer, drawn from the edges the model enforces.

Each state is a row, followed by its outgoing edges: the kernel call that
moves an object along it, how many times that call has run, and where it
leads. The edge list is `models.lifecycle.MACHINES`, the same list the model
checks every transition against, so the picture cannot drift from the rules.
The object the driver touches next (the buffer at the ring's clean_idx, the
page the pool is carving, the NAPI instance, the GRO flow) has its state lit,
and the edges out of it (what can happen to it next) are highlighted.

Which machine: the one the variant's RX strategy uses; `machine` overrides it.
"""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.reactive import reactive

from models.calls import CALLS
from models.lifecycle import MACHINES

from . import register
from .base import ModelView

_BY_STRATEGY = {"per-frame": "rx_buffer", "page-flip": "flip_page", "page-pool": "pp_frag"}


def _order(machine: str) -> list[str]:
    """States in the order an object meets them: depth-first along the edges, in list order."""
    _, initial, edges = MACHINES[machine]
    seen: list[str] = []
    todo = [initial]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.append(state)
        todo += [dst for src, _, dst in reversed(edges) if src == state and dst not in seen]
    return seen + [s for e in edges for s in (e[0], e[2]) if s not in seen]


@register
class GraphView(ModelView):
    KEY = "graph"
    TITLE = "Lifecycle"

    COMPONENT_CLASSES = {"graphview--lit", "graphview--next", "graphview--muted", "graphview--label",
                         "graphview--count"}
    DEFAULT_CSS = """
    GraphView > .graphview--lit { color: $accent; text-style: bold reverse; }
    GraphView > .graphview--next { color: $text-accent; text-style: bold; }
    GraphView > .graphview--muted { color: $text-muted; }
    GraphView > .graphview--label { text-style: bold; }
    GraphView > .graphview--count { color: $text-muted; text-style: italic; }
    """

    machine: reactive[str | None] = reactive(None)
    """A name from models.lifecycle.MACHINES, or None to follow the variant's strategy."""


    # -- Line API -----------------------------------------------------------------
    def watch_machine(self, machine: str | None) -> None:
        self.redraw()

    # -- what to draw -----------------------------------------------------------------
    def chosen(self) -> str:
        """The machine drawn: the override, or the one the variant's RX strategy uses."""
        if self.machine in MACHINES:
            return self.machine
        sim = self.state.sim
        if sim.bus != "pcie":        # SDIO/USB: no ring; the lesson is about NAPI and GRO
            return "gro_flow" if sim.stack.gro and sim.napi_api else "napi"
        return _BY_STRATEGY.get(sim.strategy.name, "rx_buffer")

    def _current(self, machine: str) -> tuple[str | None, str]:
        """(state of the object the driver touches next, what that object is)."""
        sim = self.state.sim
        if machine == "napi":
            return sim.napi_state, ""
        if machine == "gro_flow":
            held = sim.stack.held
            return ("held", f"{held.segs} segment(s) held") if held else ("empty", "")
        if machine == "pp_page":
            page = sim.pool.frag_page if sim.pool else None
            return (page.state, f"page#{page.id}, the pool's frag_page") if page else (None, "")
        if machine in ("rx_buffer", "pp_frag", "flip_page") and sim.bus == "pcie":
            buf = sim.ring.descs[sim.ring.clean_idx].buf
            where = f"at clean_idx {sim.ring.clean_idx}"
            if buf is None:
                return None, ""
            if machine == "flip_page" and buf.page is not None and getattr(buf.page, "machine", "") == machine:
                return buf.page.state, f"page#{buf.page.id} {where}"
            if buf.machine == machine:
                return buf.state, f"buf#{buf.id} {where}"
        return None, ""

    def _population(self, machine: str) -> Counter:
        """How many objects sit in each state (the ring's buffers, or the pool's pages)."""
        sim = self.state.sim
        if machine == "pp_page" and sim.pool is not None:
            return Counter(p.state for p in sim.pool.pages.values())
        if sim.bus != "pcie" or machine not in ("rx_buffer", "pp_frag", "flip_page"):
            return Counter()
        bufs = [d.buf for d in sim.ring.descs if d.buf is not None]
        if machine == "flip_page":
            pages = {id(b.page): b.page for b in bufs if b.page is not None}
            return Counter(p.state for p in pages.values() if getattr(p, "machine", "") == machine)
        return Counter(b.state for b in bufs if b.machine == machine)

    # -- content ------------------------------------------------------------------
    def build_lines(self, width: int, height: int) -> list[Text]:
        if self.state is None:
            return [self._text(("no model yet", "muted"))]
        machine = self.chosen()
        title, initial, edges = MACHINES[machine]
        lit, what = self._current(machine)
        pop = self._population(machine)
        counts = self.state.sim.rec.counts
        states = _order(machine)
        rank = {s: i for i, s in enumerate(states)}
        sw = max(len(s) for s in states)
        pw = max((len(f"×{n:,}") for n in pop.values()), default=0)
        call_w = max(len(c) for _, c, _ in edges)
        # Edges beside their state when they fit, else on their own lines under it.
        inline = 2 + sw + 1 + pw + 2 + call_w + 9 + sw <= width
        body: list[Text] = []
        lit_row = 0
        for state in states:
            on = state == lit
            if on:
                lit_row = len(body)
            head = self._text(("▶ " if on else "  ", "next" if on else ""), (state, "lit" if on else "label"),
                              " " * (sw - len(state)))
            if pw:
                n = pop.get(state, 0)
                head.append(" " + (f"×{n:,}" if n else "").ljust(pw), self._s("count"))
            indent = " " * len(head.plain)
            out = [(c, d) for s, c, d in edges if s == state]
            if not inline or not out:
                body.append(head)
            for k, (call, dst) in enumerate(out):
                if inline:
                    line = head if k == 0 else self._text(indent)
                    line.append(" ─")
                else:
                    line = self._text("    ")
                kernel = call in CALLS
                line.append(call, self._s(("next" if on else "label") if kernel else "muted"))
                if kernel:
                    line.append(f" {counts.get(call, 0):,}")
                line.append(" ↺ " if rank.get(dst, 0) <= rank[state] else " → ", self._s("muted"))
                line.append(dst, self._s("next") if on else None)
                body.append(line)
        top = [self._text((title, "label"))]
        if what:
            where = self._text(("  ▶ ", "next"), (what, "muted"))
            if len(title) + len(what) + 4 <= width:
                top[0].append_text(where)
            else:
                top.append(where)
        legend = [self._text(("n calls so far · ↺ back · grey: no kernel call" + (" · ×N in state" if pw else "")
                              if width >= 64 else "n calls · ↺ back · grey: no kernel call", "muted"))]
        return top + self._window(body, lit_row, max(1, height - len(top) - 1)) + legend

    def _window(self, body: list[Text], lit_row: int, room: int) -> list[Text]:
        """At a small height, the part of the graph around the lit state, with what is cut off."""
        if len(body) <= room:
            return body
        if room < 3:
            return body[lit_row:lit_row + room]
        start = max(0, min(len(body) - room, lit_row - room // 3))
        shown = body[start:start + room]
        if start > 0:
            shown[0] = self._text((f"  ↑ {start + 1} more", "muted"))
        below = len(body) - (start + room)
        if below > 0:
            shown[-1] = self._text((f"  ↓ {below + 1} more", "muted"))
        return shown
