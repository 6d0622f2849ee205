"""A machine drawing as rows of (glyph, role) cells: box-drawing characters, no styles yet.

The view says what is lit (the current state, the edge just taken) and
what each arrow's label reads; this module picks the glyphs: rounded light
boxes and lines, heavy ones for what is lit (so it stands out without
colour too), arrowheads, and the labels written into the cells the layout
kept for them. Roles name what a cell is; the view maps them to styles.

Roles: "box", "state" (a box's name), "pop" (objects in the state, on the
bottom border), "line", "head", "name", "count", "loop" (a self-loop's
label), "" (blank). A role ending in "-lit" is the current state or the
edge just taken; "-idle" is an arrow this run never took.
"""

from __future__ import annotations

from dataclasses import dataclass

from .layout import Drawing
from .route import E, N, Rect, S, W

LIGHT = {N | S: "│", E | W: "─", N | E: "╰", N | W: "╯", S | E: "╭", S | W: "╮", N | E | W: "┴",
         S | E | W: "┬", N | S | E: "├", N | S | W: "┤", N | S | E | W: "┼", N: "╵", S: "╷", E: "╶", W: "╴"}
HEAVY = {N | S: "┃", E | W: "━", N | E: "┗", N | W: "┛", S | E: "┏", S | W: "┓", N | E | W: "┻",
         S | E | W: "┳", N | S | E: "┣", N | S | W: "┫", N | S | E | W: "╋", N: "╹", S: "╻", E: "╺", W: "╸"}
BOX_LIGHT = ("╭", "╮", "╰", "╯", "─", "│")
BOX_HEAVY = ("┏", "┓", "┗", "┛", "━", "┃")
PORT = {N: (N | E | W), S: (S | E | W), W: (N | S | W), E: (N | S | E)}   # a line leaving a box side


@dataclass(frozen=True)
class Ink:
    """What to write besides the geometry: per arrow its name and count, per state its population."""
    names: tuple[str, ...]                # one per group ("" writes nothing)
    counts: tuple[str, ...]               # one per group
    idle: frozenset[int] = frozenset()    # groups this run never took
    lit_state: str | None = None
    lit_group: int | None = None
    population: tuple[tuple[str, str], ...] = ()     # (state, "×12")
    loops: tuple[tuple[str, str], ...] = ()          # (state, "↻ page_ref_inc 12")
    lit_loop: str | None = None           # the state whose self-loop was just taken
    was_group: int | None = None          # the arrow taken one call ago (drawn dim: "-was")


def paint(d: Drawing, ink: Ink) -> list[list[tuple[str, str]]]:  # noqa: C901 (older than the complexity rule)
    rows = [[(" ", "")] * d.width for _ in range(d.height)]
    g = d.grid

    def put(x: int, y: int, ch: str, role: str) -> None:
        if 0 <= y < d.height and 0 <= x < d.width:
            rows[y][x] = (ch, role)

    def write(x: int, y: int, text: str, role: str) -> None:
        for i, ch in enumerate(text):
            put(x + i, y, ch, role)

    def arrow_role(groups: set[int]) -> str:
        if ink.lit_group in groups:
            return "line-lit"
        if ink.was_group is not None and ink.was_group in groups:
            return "line-was"
        return "line-idle" if groups and groups <= ink.idle else "line"

    for c, sides in g.line.items():
        owners = g.owner.get(c, set())
        heavy = owners == {ink.lit_group}
        put(c[0], c[1], (HEAVY if heavy else LIGHT)[sides], arrow_role(owners))
    for (x, y), idx in g.heads.items():
        head = next(r.head for r in d.routes if r.head and r.head[:2] == (x, y))
        put(x, y, head[2], arrow_role({idx}).replace("line", "head"))
    pops = dict(ink.population)
    for s, r in d.boxes.items():
        lit = s == ink.lit_state
        tl, tr, bl, br, h, v = BOX_HEAVY if lit else BOX_LIGHT
        role = "box-lit" if lit else "box"
        write(r.x, r.y, tl + h * (r.w - 2) + tr, role)
        write(r.x, r.y + r.h - 1, bl + h * (r.w - 2) + br, role)
        for y in range(r.y + 1, r.y + r.h - 1):
            put(r.x, y, v, role)
            put(r.x + r.w - 1, y, v, role)
            write(r.x + 1, y, " " * (r.w - 2), "")
        label = f" {s} " if lit else s           # the lit name as a block that fills the box
        write(r.x + (r.w - len(label)) // 2, r.y + r.h // 2, label, "state-lit" if lit else "state")
    for route in d.routes:
        px, py = route.port
        first = route.cells[0]
        side = {(0, -1): N, (0, 1): S, (-1, 0): W, (1, 0): E}[(first[0] - px, first[1] - py)]
        lit_box = d.grid.box.get(route.port) == ink.lit_state
        put(px, py, (HEAVY if lit_box else LIGHT)[PORT[side]], "box-lit" if lit_box else "box")
    for s, r in d.boxes.items():
        pop = pops.get(s, "")
        if pop:
            _population(rows, r, pop, "pop-lit" if s == ink.lit_state else "pop", g.ports)
    for i, lab in enumerate(d.labels):
        name, count = ink.names[i], ink.counts[i]
        role = "-lit" if i == ink.lit_group else "-was" if i == ink.was_group else "-idle" if i in ink.idle else ""
        if lab.cy == lab.y and lab.cx == lab.x + lab.width + 1:        # one line: "name count"
            room = lab.width + 1 + lab.cwidth
            text = f"{name} {count}".strip()[:room]
            x = lab.x + (room - len(text) if lab.align == "right" else 0)
            write(x, lab.y, text, "name" + role)
            if count and len(text) > len(name):
                write(x + len(name) + 1, lab.y, text[len(name) + 1:], "count" + role)
        else:                                                           # name over the arrow, count under
            write(lab.x + (lab.width - len(name)) // 2, lab.y, name[: lab.width], "name" + role)
            write(lab.cx + (lab.cwidth - len(count)) // 2, lab.cy, count[: lab.cwidth], "count" + role)
    texts = dict(ink.loops)
    for s, (_, lab) in d.loops.items():
        text = texts.get(s, "")[: lab.width]
        write(lab.x + (lab.width - len(text)) // 2, lab.y, text, "loop-lit" if s == ink.lit_loop else "loop")
    return rows


def _population(rows: list[list[tuple[str, str]]], r: Rect, pop: str, role: str,
                ports: dict[tuple[int, int], int]) -> None:
    """'×12' on the bottom border, on the longest stretch no arrow leaves from (left out if none fits)."""
    y = r.y + r.h - 1
    best: tuple[int, int] = (0, 0)
    start = r.x + 1
    for x in range(r.x + 1, r.x + r.w):
        if x == r.x + r.w - 1 or (x, y) in ports:
            if x - start > best[1] - best[0]:
                best = (start, x)
            start = x + 1
    a, b = best
    if b - a >= len(pop) + 2:
        x0 = a + (b - a - len(pop)) // 2
        for i, ch in enumerate(pop):
            rows[y][x0 + i] = (ch, role)


def plain(rows: list[list[tuple[str, str]]]) -> list[str]:
    """The painted rows as text (tests, debugging)."""
    return ["".join(ch for ch, _ in row).rstrip() for row in rows]
