"""The followed object's lifecycle machine, drawn: boxes, arrows, the state and the edge just taken lit.

Everything it shows comes from the machine records (`ViewState.read.rx()`,
models/records/machine.py): which machine, the object in it, its state, the transition that
brought it there, and per-edge counts. The drawing is a layered layout
(viz.views.machine.layout) painted with box-drawing characters
(viz.views.machine.paint); what is lit is drawn heavy as well as in the accent colour,
so it reads on a projector and without colour.

When the whole machine does not draw cleanly (pp_page has 17 arrows), the
arrows this run never took are left out and named in a footnote; the boxes
stay where the whole machine puts them. When nothing fits (80x24, a small
grid cell) a compact drawing says the same (viz.views.machine.local): boxes
and arrows for the move just made and the likely next one, then every call
that can come next.

The object is the one the current call moved (the cursor), or the one
followed with `o`. Its arrow is lit only for the call that took it; a call
later it is drawn dim, and after that only its state stays lit, with "N
calls ago" in the header.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive

from models.read import MACHINES, MachineState, RxData

from .. import register
from ..base import ModelView, Part, wrap_phrases
from . import local
from .layout import Drawing, Group, crossings, draw, layers
from .local import Row
from .paint import Ink, paint

MAX_CROSSINGS = 2         # more and the arrows this run never took are left out
# (machine, width, height, count width, arrows taken) -> the drawing and the arrows it leaves out
Key = tuple[str, int, int, int, frozenset[tuple[str, str]]]
Chosen = tuple[Drawing, list[Group]]
_CHOSEN: dict[Key, Chosen | None] = {}


def _warm() -> None:
    for machine in MACHINES:
        layers(machine)


def _choose(key: Key) -> Chosen | None:
    """The drawing for `key`: the whole machine when it draws cleanly (bigger boxes if there is room to
    spare), else only the arrows the run took; None when nothing fits. Kept in _CHOSEN."""
    machine, width, height, cw, taken = key
    got: Chosen | None = None
    full = draw(machine, width, height, cw)
    if full is not None and crossings(full) <= MAX_CROSSINGS:
        got = full, []
        if full.width * 3 <= width * 2 and full.height * 2 <= height:
            big = draw(machine, width, height, cw, None, True)
            if big is not None and crossings(big) <= MAX_CROSSINGS:
                got = big, []
    else:
        left_out = [g for g in layers(machine).groups if (g.src, g.dst) not in taken]
        some = draw(machine, width, height - 1, cw, taken) if left_out else None
        got = (some, left_out) if some is not None else (full, []) if full is not None else None
    if len(_CHOSEN) > 256:
        _CHOSEN.clear()
    _CHOSEN[key] = got
    return got


def fmt_count(n: int | None) -> str:
    return "" if n is None else f"{n:,}"


def fmt_t(ns: int) -> str:
    return f"{ns / 1000:,.3f} µs"


@register
class MachineView(ModelView):
    KEY = "machine"
    TITLE = "Machine"
    READS = ("hidden_counts",)      # the moves a question ahead keeps back (the strip too)
    FILLS_DECK = True          # as the active view on a wide screen it takes the whole deck

    COMPONENT_CLASSES = {f"machineview--{n}" for n in (
        "box", "box-lit", "state", "state-lit", "pop", "pop-lit", "line", "line-lit", "line-idle", "head",
        "head-lit", "head-idle", "name", "name-lit", "name-idle", "count", "count-lit", "count-idle", "loop",
        "loop-lit", "title", "muted", "lit", "prev", "line-was", "head-was", "name-was", "count-was")}
    COMPONENT_PREFIX = "machineview"
    DEFAULT_CSS = """
    MachineView > .machineview--box { color: $foreground; }
    MachineView > .machineview--box-lit { color: $text-accent; text-style: bold; }
    MachineView > .machineview--state { color: $foreground; text-style: bold; }
    MachineView > .machineview--state-lit { color: $accent; text-style: bold reverse; }
    MachineView > .machineview--pop { color: $foreground-muted; }
    MachineView > .machineview--pop-lit { color: $text-accent; }
    MachineView > .machineview--line { color: $text-secondary; }
    MachineView > .machineview--line-lit { color: $text-accent; text-style: bold; }
    MachineView > .machineview--line-idle { color: $foreground-muted; text-style: dim; }
    MachineView > .machineview--head { color: $text-secondary; text-style: bold; }
    MachineView > .machineview--head-lit { color: $text-accent; text-style: bold; }
    MachineView > .machineview--head-idle { color: $foreground-muted; text-style: dim; }
    MachineView > .machineview--name { color: $foreground; }
    MachineView > .machineview--name-lit { color: $text-accent; text-style: bold; }
    MachineView > .machineview--name-idle { color: $foreground-muted; }
    MachineView > .machineview--count { color: $foreground-muted; text-style: italic; }
    MachineView > .machineview--count-lit { color: $text-accent; text-style: italic; }
    MachineView > .machineview--count-idle { color: $foreground-muted; text-style: italic dim; }
    MachineView > .machineview--loop { color: $foreground; }
    MachineView > .machineview--loop-lit { color: $text-accent; text-style: bold; }
    MachineView > .machineview--title { text-style: bold; }
    MachineView > .machineview--muted { color: $foreground-muted; }
    MachineView > .machineview--lit { color: $accent; text-style: bold reverse; }
    MachineView > .machineview--prev { color: $text-accent; text-style: underline; }
    MachineView > .machineview--line-was { color: $text-accent; text-style: dim; }
    MachineView > .machineview--head-was { color: $text-accent; text-style: dim; }
    MachineView > .machineview--name-was { color: $text-accent; text-style: dim underline; }
    MachineView > .machineview--count-was { color: $foreground-muted; text-style: italic dim; }
    """

    PREPARE = False         # its drawing may still be laid out by a worker, which then redraws it

    machine: reactive[str | None] = reactive(None)
    """A key of models.lifecycle.MACHINES, or None for the followed object's machine."""

    def watch_machine(self, machine: str | None) -> None:
        self.redraw()

    def on_mount(self) -> None:
        super().on_mount()
        # Layering imports networkx (~150 ms): done in the background at start-up, not on the first Tab.
        self.run_worker(_warm, thread=True, group="machine-layout", exit_on_error=False)

    def data(self) -> RxData:
        st = self.st
        return st.read.rx(st.follow, self.machine if self.machine in MACHINES else None, st.earlier)

    # -- content ----------------------------------------------------------------------
    def build_lines(self, width: int, height: int) -> list[Text]:
        ms = local.kept_back(self.data().machine, self.st.hidden_counts)
        top = self._header(ms, width)
        room = height - len(top) - 1
        picked = self.drawing(ms, width, room - 1)
        if picked is None:
            body = self._compact(ms, width, max(1, room))
            return top + body + [Text()] * max(0, room - len(body)) + [self._legend(ms, width, "", False)]
        d, left_out = picked
        body = self._paint(d, ms, width)
        legend = self._legend(ms, width, d.prefix, True)
        note = self._footnote(ms, d, left_out, width) if left_out else []
        pad = max(0, (room - len(note) - len(body)) // 2)
        return top + [Text()] * pad + body + note + [Text()] * max(0, room - pad - len(body) - len(note)) + [legend]

    def drawing(self, ms: MachineState, width: int, height: int) -> Chosen | None:
        """The drawing to show and the arrows it leaves out (never taken this run); None: use the compact form.

        A drawing not computed yet for this size is computed by a worker
        thread (a layout takes up to a few hundred ms, and a terminal being
        resized asks for one at every size on the way), and the view shows
        its compact form until it lands. A view not mounted computes at once.
        """
        if width < 20 or height < 5:
            return None
        cw = max(3, max((len(fmt_count(n)) for n in ms.counts.values()), default=3))
        taken = {(s, d) for (s, c, d) in MACHINES[ms.machine][2] if ms.counts.get((s, c, d), 1) != 0}
        if ms.last is not None:
            taken.add((ms.last.src, ms.last.dst))
        key: Key = (ms.machine, width, height, cw, frozenset(taken))
        if key in _CHOSEN:
            return _CHOSEN[key]
        if not self.is_mounted:
            return _choose(key)
        self._want = key
        if not self._busy:
            self._busy = True
            # After this paint: started now, the worker would hold the GIL while the compact form paints.
            self.call_after_refresh(self.run_worker, self._lay_out, thread=True, group="machine-layout",
                                    exit_on_error=False)
        return None

    _want: Key | None = None
    _busy = False

    def _lay_out(self) -> None:
        """Worker: compute the drawing last asked for (sizes asked for on the way are skipped)."""
        while True:
            key = self._want
            if key is not None and key not in _CHOSEN:
                _choose(key)
                continue
            self._busy = False
            if self._want is None or self._want in _CHOSEN:
                break
            self._busy = True
        try:
            self.app.call_from_thread(self.redraw)
        except RuntimeError:            # the app is closing
            pass

    def _header(self, ms: MachineState, width: int) -> list[Text]:
        """The machine and its object; the edge just taken, its call in full (the drawing may shorten it).

        Each line drops what matters least until it fits, rather than being cut.
        """
        title = MACHINES[ms.machine][0]
        if len(title) > width and " (" in title:         # "page-flip RX page (atlantic before page_pool)"
            title = title.split(" (")[0]
        line = self._text((title, "title"))
        if ms.obj:
            for what in (f"  ▶ {ms.obj}" + (f" {ms.where}" if ms.where else ""), f"  ▶ {ms.obj}"):
                if line.cell_len + len(what) <= width:
                    line.append(what, self._s("muted"))
                    break
        last = ms.last
        forms: list[tuple[Part, ...]]
        if last is not None and ms.age == 0:
            call = ms.call or last.call
            via: Part = (f" ({last.call})", "muted") if call != last.call else ""
            forms = [(("this call ", "muted"), (call, "name-lit"), f": {last.src} → ", (f" {last.dst} ", "lit"), via,
                      (f"  at {fmt_t(last.t_ns)}", "muted"))]
            forms.append(forms[0][:5])
            forms.append(forms[0][1:4])
            forms.append(((call, "name-lit"), " → ", (f" {last.dst} ", "lit")))
            just = next((t for t in (self._text(*f) for f in forms) if t.cell_len <= width), self._text(*forms[-1]))
        elif last is not None:
            ago = f"{ms.age} call{'s' if ms.age != 1 else ''} ago"
            forms = [((f"{ms.call} moves nothing · {ago}: ", "muted"), (last.call, "name-was"),
                      f" {last.src} → ", (f" {last.dst} ", "lit")),
                     ((f"{ago}: ", "muted"), (last.call, "name-was"), f" {last.src} → ", (f" {last.dst} ", "lit")),
                     ((f"{ago}: ", "muted"), (last.call, "name-was"), " → ", (f" {last.dst} ", "lit"))]
            just = next((t for t in (self._text(*f) for f in forms) if t.cell_len <= width), self._text(*forms[-1]))
        elif ms.state:
            just = self._text(("now ", "muted"), (ms.state, "lit"),
                              ("  (how it got there is before the recorded calls)", "muted"))
        else:
            just = self._text(("no object of this machine to follow yet", "muted"))
        return [line, just]

    def _legend(self, ms: MachineState, width: int, prefix: str, drawn: bool) -> Text:
        """What the marks mean, as much of it as fits (whole phrases only)."""
        counts = "n transitions this run" if ms.exact else "n ≈ calls this run"
        short = "n transitions" if ms.exact else "n ≈ calls"
        head = ["━ just taken"] if drawn else []
        tail = (["dim: never taken"] if drawn else []) + (["×N in the state"] if ms.population and drawn else [])
        if prefix:
            tail.insert(0, f"{prefix}… shortened")
        if drawn and self._more:
            tail.insert(0, "+N: other calls on that arrow")
        for parts in (head + [counts] + tail, head + [counts] + tail[:1], head + [counts], head + [short], [short]):
            text = " · ".join(parts)
            if len(text) <= width:
                return self._text((text, "muted"))
        return self._text((short, "muted"))

    def _footnote(self, ms: MachineState, d: Drawing, left_out: list[Group], width: int) -> list[Text]:
        """One line naming the arrows left out (it ends in "…" when they do not all fit)."""
        names = ", ".join(sorted({d.short(c) for g in left_out for c in g.calls}))
        return [self._text((f"not taken this run, not drawn: {names}", "muted"))]

    _more = False           # the last painted drawing has an arrow named "call +N"

    def _ink(self, d: Drawing, ms: MachineState) -> Ink:
        self._more = False
        names, counts, idle = [], [], set()
        lit = was = None
        last = ms.last if ms.age <= 1 else None       # older than a call ago: nothing is lit but the state
        for i, g in enumerate(d.groups):
            ns = [ms.counts.get((g.src, c, g.dst)) for c in g.calls]
            used = [c for c, n in zip(g.calls, ns, strict=True) if n != 0]
            if last is not None and (last.src, last.dst) == (g.src, g.dst):
                if ms.age == 0:
                    lit = i
                else:
                    was = i
                shown = last.call
            else:       # the call this run takes most (a counted one before a named step)
                shown = max(used, key=lambda c: ms.counts.get((g.src, c, g.dst), -1)) if used else g.calls[0]
            more = len(used) - 1 if shown in used else len(used)
            name = d.short(shown) + (f" +{more}" if more > 0 else "")
            self._more = self._more or more > 0
            # a call of the arrow not counted: not known
            total = None if None in ns else sum(n for n in ns if n is not None)
            names.append(name)
            counts.append(fmt_count(total))
            if all(n == 0 for n in ns):
                idle.add(i)
        loops = []
        lit_loop = None
        for s, (calls, _) in d.loops.items():
            n = sum(ms.counts.get((s, c, s), 0) for c in calls)
            known = all((s, c, s) in ms.counts for c in calls)
            loops.append((s, f"↻ {d.short(calls[0])} {fmt_count(n) if known else ''}".rstrip()))
            if last is not None and ms.age == 0 and last.src == last.dst == s:
                lit_loop = s
        pop = tuple((s, f"×{fmt_count(n)}") for s, n in ms.population.items() if n)
        return Ink(tuple(names), tuple(counts), frozenset(idle), ms.state, lit, pop, tuple(loops), lit_loop, was)

    def _paint(self, d: Drawing, ms: MachineState, width: int) -> list[Text]:
        rows = paint(d, self._ink(d, ms))
        left = [(" ", "")] * max(0, (width - d.width) // 2)
        return self._rows([left + row for row in rows])

    def _rows(self, rows: list[Row]) -> list[Text]:
        """Rows of (glyph, role) cells as lines, one style run per role."""
        out = []
        for row in rows:
            line = Text(no_wrap=True, end="")
            run, role = "", None
            for ch, r in row + [("", "\0")]:
                if r != role and run:
                    line.append(run, self._s(role) if role else None)
                    run = ""
                role = r
                run += ch
            out.append(line)
        return out

    def _compact(self, ms: MachineState, width: int, room: int) -> list[Text]:
        """Boxes and arrows where the whole machine does not fit (viz.views.machine.local): the move the
        object made and its likely next one; under them, everything that can happen next from its state."""
        if ms.state is None:
            return []
        lines = self._rows(local.draw(ms, width)) if room >= 3 else []
        nxt = [(c, d) for s, c, d in MACHINES[ms.machine][2] if s == ms.state]
        if nxt and len(lines) < room:
            items = []
            for c, d in nxt:
                n = ms.counts.get((ms.state, c, d))
                item = self._text((c, "name" if n != 0 else "name-idle"))
                if n is not None:
                    item.append(f" {fmt_count(n)}", self._s("count"))
                item.append(f" → {d}", self._s("muted"))
                items.append(item)
            head = self._text(("next: ", "muted"))
            head.append_text(items[0])
            lines += wrap_phrases([head] + items[1:], width, room - len(lines), sep=" · ")
        return lines
