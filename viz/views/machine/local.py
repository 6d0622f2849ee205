"""The compact machine: the object's last move and what can come next, drawn as boxes and arrows.

Where the whole machine does not fit (80x24, a strip under the views, a
small grid cell) the picture keeps what the current call is about: the
state the object came from, the arrow it just took (the call's name over
it, the run's count under it) into its current state, lit, and the arrow
it will most likely take next (the one this run took most), to the state
it leads to. Three rows, one line of boxes:

    ╭────────╮ dma_unmap_single ┏━━━━━━━━━━━━┓ build_skb ╭────────╮
    │ filled │━━━━━━━━━━━━━━━━━▶┃  unmapped  ┃──────────▶│ in-skb │
    ╰────────╯      1 234       ┗━━━━━━━━━━━━┛   1 230   ╰────────╯

What does not fit is dropped in order: the next state's box, then the
machine's common call prefix (`page_pool_`), then the box the object came
from; the current state is always drawn. Cells carry the machine view's
roles ("box-lit", "line-was", ...), so both views style them alike: "-lit"
for the move the current call made, "-was" for one made a call ago.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models.read import MACHINES, MachineState

from .layout import PREFIXES

Row = list[tuple[str, str]]


@dataclass(frozen=True)
class Part:
    """One piece of the line: a box (a state) or an arrow (a call, with its count)."""
    kind: str           # "box", "arrow" or "loop" (an arrow from the next box's state to itself)
    text: str           # the state, or the call's name
    count: str = ""     # an arrow's count
    role: str = ""      # "-lit", "-was" or ""


def fmt(n: int | None) -> str:
    return "" if n is None else f"{n:,}".replace(",", " ")


def kept_back(ms: MachineState, calls: frozenset[str]) -> MachineState:
    """`ms` without the counts of `calls`, which a question still ahead asks about: their arrows are
    drawn as not counted (and drawn at all, since an arrow left out as never taken would answer too)."""
    if not calls or not any(call in calls for _, call, _ in ms.counts):
        return ms
    return replace(ms, counts={e: n for e, n in ms.counts.items() if e[1] not in calls})


def next_edge(ms: MachineState) -> tuple[str, str] | None:
    """(call, state) the object most likely takes next: the edge out of its state this run took most."""
    state = ms.state
    if state is None:
        return None
    out = [(c, d) for s, c, d in MACHINES[ms.machine][2] if s == state and d != s]
    if not out:
        return None
    return max(out, key=lambda e: ms.counts.get((state, e[0], e[1]), -1))


def parts(ms: MachineState, prefix: str = "", keep_src: bool = True, keep_next: bool = True) -> list[Part]:
    def short(call: str) -> str:
        return call[len(prefix):] if prefix and call.startswith(prefix) else call

    out: list[Part] = []
    last = ms.last
    fresh = "-lit" if last is not None and ms.age == 0 else "-was" if last is not None and ms.age == 1 else ""
    if last is not None and last.src == last.dst:          # a self-loop: an arrow back into its own box
        out.append(Part("loop", short(last.call), fmt(ms.counts.get(last.edge)), fresh))
    elif last is not None and keep_src:
        out.append(Part("box", last.src))
        out.append(Part("arrow", short(last.call), fmt(ms.counts.get(last.edge)), fresh))
    out.append(Part("box", ms.state or "?", "", "-lit"))
    nxt = next_edge(ms) if keep_next else None
    if nxt is not None:
        call, dst = nxt
        out.append(Part("arrow", short(call), fmt(ms.counts.get((ms.state or "", call, dst)))))
        out.append(Part("box", dst))
    return out


def _width(p: Part) -> int:
    if p.kind == "box":
        return len(p.text) + 4
    return max(len(p.text), len(p.count)) + 3


def fitting(ms: MachineState, width: int) -> list[Part]:
    """The richest line of parts that fits `width` (the current state alone at worst)."""
    prefix = PREFIXES.get(ms.machine, "")
    for p, src, nxt in (("", True, True), (prefix, True, True), (prefix, True, False), (prefix, False, False)):
        got = parts(ms, p, src, nxt)
        if sum(_width(x) for x in got) <= width:
            return got
    return parts(ms, prefix, False, False)


def draw(ms: MachineState, width: int) -> list[Row]:
    """Three rows of (glyph, role) cells, centred in `width`."""
    line = fitting(ms, width)
    rows: list[Row] = [[], [], []]
    for p in line:
        w = _width(p)
        if p.kind == "box":
            lit = p.role == "-lit"
            tl, tr, bl, br, h, v = ("┏", "┓", "┗", "┛", "━", "┃") if lit else ("╭", "╮", "╰", "╯", "─", "│")
            role = "box" + p.role
            rows[0] += [(c, role) for c in tl + h * (w - 2) + tr]
            label = f" {p.text} ".center(w - 2) if lit else p.text.center(w - 2)
            rows[1] += [(v, role)] + [(c, "state" + p.role if c != " " or lit else "") for c in label] + [(v, role)]
            rows[2] += [(c, role) for c in bl + h * (w - 2) + br]
        else:
            heavy = p.role == "-lit"
            rows[0] += [(c, "name" + p.role if c != " " else "") for c in p.text.center(w)]
            shaft = ("━" if heavy else "─") * (w - 1)
            if p.kind == "loop":          # "↻" where the arrow starts: the call took it from this state again
                shaft = "↻" + shaft[1:]
            rows[1] += [(c, "line" + p.role) for c in shaft] + [("▶", "head" + p.role)]
            rows[2] += [(c, "count" + p.role if c != " " else "") for c in p.count.center(w)]
    pad = max(0, (width - len(rows[0])) // 2)
    return [[(" ", "")] * pad + r for r in rows]


def plain(rows: list[Row]) -> list[str]:
    return ["".join(ch for ch, _ in r).rstrip() for r in rows]
