"""Arrows between boxes on a character grid: an orthogonal router and a label placer.

The machine view places its boxes first (viz.views.machine.layout), then
routes every edge here, one at a time, with A* over the free cells: a step
costs 1, a bend 3, crossing another arrow at right angles 10, running
next to a box or another arrow a little more, and a cell on the wrong side
of the boxes more again (forward arrows keep to one side, arrows going back
to the other), so arrows keep apart, bend rarely and cross little. An edge
into a state that already has an arrow coming in may join that arrow (a T),
which turns four returns to `free` into one bus instead of four parallel
lines. Each edge's label is placed right after its route, on free cells
beside a straight run near its source, so later arrows go around earlier
labels and no label ever covers a line; the layout retries an arrow whose
label finds no room (joined only, then alone).

The grid knows nothing of styles: it records, per cell, which box, arrow
or label owns it, and the view paints from that.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

N, E, S, W = 1, 2, 4, 8                      # the sides a line cell connects
STEP = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}
BACK = {N: S, S: N, E: W, W: E}
Cell = tuple[int, int]
# What Grid.checkpoint keeps and Grid.restore puts back: the grid's drawn state.
Saved = tuple[Any, ...]
HEAD = {N: "▲", E: "▶", S: "▼", W: "◀"}      # an arrowhead pointing that way
_BITS = (N, E, S, W)                          # direction index -> side bit
_DIR = {b: i for i, b in enumerate(_BITS)}
_DX, _DY = (0, 1, 0, -1), (-1, 0, 1, 0)
BEND, CROSS, NEAR_BOX, NEAR_LINE, LEAN, ARRIVE, WEIGHT = 3, 10, 3, 2, 4, 6, 1


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int

    def ports(self) -> Iterator[tuple[tuple[int, int], int]]:
        """(border cell, outward side) of every non-corner border cell."""
        for i in range(self.x + 1, self.x + self.w - 1):
            yield (i, self.y), N
            yield (i, self.y + self.h - 1), S
        for j in range(self.y + 1, self.y + self.h - 1):
            yield (self.x, j), W
            yield (self.x + self.w - 1, j), E


@dataclass(frozen=True)
class Route:
    """One arrow: from a port on its source box to an arrowhead at (or a join onto) its target."""
    src: str
    dst: str
    port: tuple[int, int]                     # the source box's border cell the line leaves from
    cells: tuple[tuple[int, int], ...]        # the line, first cell outside the source to the last
    head: tuple[int, int, str] | None         # arrowhead cell and glyph (None: joins another arrow)
    join: tuple[int, int] | None              # the other arrow's cell this one ends on


@dataclass(frozen=True)
class Label:
    """Where an edge's text goes: `name` at (x, y); `count` at its own place (same line or under the arrow)."""
    x: int
    y: int
    width: int                                # cells reserved for the name
    cx: int                                   # where the count starts
    cy: int
    cwidth: int                               # cells reserved for the count
    align: str = "left"                       # how shorter text sits in the cells: left, right


class Grid:
    """The canvas the router works on: boxes, line cells (with their sides), arrowheads and labels."""

    def __init__(self, width: int, height: int) -> None:
        self.w, self.h = width, height
        self.box: dict[tuple[int, int], str] = {}          # cell -> state whose box covers it
        self.rects: dict[str, Rect] = {}
        self.line: dict[tuple[int, int], int] = {}         # cell -> sides it connects
        self.owner: dict[tuple[int, int], set[int]] = {}   # line cell -> indices of routes through it
        self.dst_of: list[str] = []                        # route index -> its target state
        self.heads: dict[tuple[int, int], int] = {}        # arrowhead cell -> route index
        self.ports: dict[tuple[int, int], int] = {}        # box border cell -> route index leaving there
        self.text: dict[tuple[int, int], tuple[int, str]] = {}   # label cell -> (route index, "name"|"count")
        self.halo: set[tuple[int, int]] = set()            # blanks either side of a label: no line there
        self.near = [[0] * width for _ in range(height)]   # extra cost of a cell (boxes, lines close by)

    # -- boxes -----------------------------------------------------------------------------
    def add_box(self, state: str, r: Rect) -> None:
        self.rects[state] = r
        for y in range(r.y, r.y + r.h):
            for x in range(r.x, r.x + r.w):
                self.box[(x, y)] = state
        self._bump(r.x - 1, r.y - 1, r.x + r.w, r.y + r.h, NEAR_BOX)

    def _bump(self, x0: int, y0: int, x1: int, y1: int, cost: int) -> None:
        for y in range(max(0, y0), min(self.h, y1 + 1)):
            row = self.near[y]
            for x in range(max(0, x0), min(self.w, x1 + 1)):
                row[x] += cost

    def free(self, x: int, y: int) -> bool:
        """Nothing is drawn here: no box, line, arrowhead or label."""
        c = (x, y)
        return (0 <= x < self.w and 0 <= y < self.h and c not in self.box and c not in self.line
                and c not in self.heads and c not in self.text)

    def checkpoint(self) -> Saved:
        return (dict(self.line), {c: set(v) for c, v in self.owner.items()}, list(self.dst_of), dict(self.heads),
                dict(self.ports), dict(self.text), set(self.halo), [list(r) for r in self.near])

    def restore(self, saved: Saved) -> None:
        (self.line, self.owner, self.dst_of, self.heads, self.ports, self.text, self.halo,
         self.near) = saved

    # -- routing ---------------------------------------------------------------------------
    def route(self, src: str, dst: str, join: str = "may", lean: tuple[int, int, int] | None = None) -> Route | None:  # noqa: C901 (older than the complexity rule)
        """The cheapest arrow from box src to box dst, or onto an arrow already going into dst.

        `join`: "may" (whichever is cheaper), "must" (only onto such an arrow),
        "never" (only into the box).

        `lean` = (axis, side, at): a cell on the other side of x (axis 0) or
        y (axis 1) = at costs LEAN more, so forward arrows keep to one side of
        the boxes and arrows going back to the other, and cross less. A* over
        (cell, direction) on flat arrays, the heuristic weighted a little: the
        grids are small, but a machine is routed once per size and must not
        hold up the first paint.
        """
        a, b = self.rects[src], self.rects[dst]
        W, H = self.w, self.h
        cm = self._costs(lean)
        goal: dict[int, int] = {}                   # arrowhead cell -> the direction it must be entered in
        for (bx, by), side in (b.ports() if join != "must" else ()):
            ox, oy = bx + STEP[side][0], by + STEP[side][1]
            if 0 <= ox < W and 0 <= oy < H and cm[oy * W + ox] >= 0:
                goal[oy * W + ox] = _DIR[BACK[side]]
        joinable: dict[int, int] = {}               # line cell -> parity of the moves that may join it (E/W: 1)
        if join != "never":
            for (x, y), idx in self.owner.items():
                sides = self.line[(x, y)]
                if sides in (N | S, E | W) and all(self.dst_of[i] == dst for i in idx) and (x, y) not in self.heads:
                    joinable[y * W + x] = 1 if sides == N | S else 0
        # A state that already has an arrow coming in is reached more cheaply through that arrow.
        arrive = ARRIVE if joinable else 0
        tx0, ty0, tx1, ty1 = b.x - 1, b.y - 1, b.x + b.w, b.y + b.h
        INF = 1 << 30
        best = [INF] * (4 * W * H)
        came: dict[int, tuple[int, list[int] | None]] = {}
        heap: list[tuple[int, int, int, int]] = []
        for (bx, by), side in a.ports():
            if (bx, by) in self.ports:
                continue
            ox, oy = bx + STEP[side][0], by + STEP[side][1]
            if not (0 <= ox < W and 0 <= oy < H) or cm[oy * W + ox] < 0:
                continue
            # A line leaves from the middle of a side if it can, and never right beside another.
            off = abs(bx - (a.x + a.w // 2)) if side in (N, S) else abs(by - (a.y + a.h // 2))
            crowd = sum(4 for n in ((bx - STEP[side][1], by - STEP[side][0]),
                                    (bx + STEP[side][1], by + STEP[side][0])) if n in self.ports)
            g = 1 + cm[oy * W + ox] + off // 2 + crowd
            d = _DIR[side]
            st = (oy * W + ox) * 4 + d
            if g < best[st]:
                best[st] = g
                came[st] = (by * W + bx, None)
                h = max(tx0 - ox, 0, ox - tx1) + max(ty0 - oy, 0, oy - ty1)
                heapq.heappush(heap, (g + WEIGHT * h, g, oy * W + ox, d))
        finish: tuple[int, int, int, int] | None = None      # (cost, cell, direction, joined cell or -1)
        while heap:
            f, g, i, d = heapq.heappop(heap)
            if finish is not None and f >= finish[0]:
                break
            if g > best[i * 4 + d]:
                continue
            if goal.get(i) == d and (finish is None or g + arrive < finish[0]):
                finish = (g + arrive, i, d, -1)
            x, y = i % W, i // W
            for nd in range(4):
                if nd == (d + 2) % 4:
                    continue
                dx, dy = _DX[nd], _DY[nd]
                nx, ny = x + dx, y + dy
                if not (0 <= nx < W and 0 <= ny < H):
                    continue
                n = ny * W + nx
                if nd == d and joinable.get(n) == nd % 2:
                    if finish is None or g < finish[0]:
                        finish = (g, i, d, n)
                    continue
                step = 1 + (BEND if nd != d else 0)
                hops = [n]
                cross = -2 if nd % 2 else -3              # E/W crosses a vertical line, N/S a horizontal one
                cn = cm[n]
                while cn == cross:                        # straight over a perpendicular line, never onto it
                    nx, ny = nx + dx, ny + dy
                    if not (0 <= nx < W and 0 <= ny < H):
                        cn = -1
                        break
                    n = ny * W + nx
                    hops.append(n)
                    step += 1 + CROSS
                    cn = cm[n]
                if cn < 0:
                    continue
                ng = g + step + cn
                st = n * 4 + nd
                if ng < best[st]:
                    best[st] = ng
                    came[st] = (i * 4 + d, hops)
                    h = max(tx0 - nx, 0, nx - tx1) + max(ty0 - ny, 0, ny - ty1)
                    heapq.heappush(heap, (ng + WEIGHT * h, ng, n, nd))
        if finish is None:
            return None
        _, i, d, joined = finish
        cells = [i]
        st = i * 4 + d
        while True:
            prev, back = came[st]
            if back is None:
                port = prev
                break
            cells[-1:] = list(reversed(back))
            cells.append(prev // 4)
            st = prev
        cells.reverse()
        xy = [(c % W, c // W) for c in cells]
        bit = _BITS[d]
        if joined < 0:
            return self._commit(src, dst, (port % W, port // W), xy, bit, head=(*xy[-1], HEAD[bit]))
        return self._commit(src, dst, (port % W, port // W), xy, bit, join=(joined % W, joined // W))

    def _costs(self, lean: tuple[int, int, int] | None) -> list[int]:  # noqa: C901 (older than the complexity rule)
        """Per cell: -1 blocked, -2 a vertical line, -3 a horizontal one (crossable), else its extra cost."""
        W = self.w
        cm = [v for row in self.near for v in row]
        if lean is not None:
            axis, side, at = lean
            for y in range(self.h):
                base = y * W
                if axis == 1:
                    if (y - at) * side < 0:
                        for x in range(W):
                            cm[base + x] += LEAN
                else:
                    for x in (range(0, min(W, at)) if side > 0 else range(max(0, at + 1), W)):
                        cm[base + x] += LEAN
        for group in (self.box, self.heads, self.text, self.halo):
            for (x, y) in group:
                if 0 <= x < W and 0 <= y < self.h:
                    cm[y * W + x] = -1
        for (x, y), sides in self.line.items():
            cm[y * W + x] = -2 if sides == N | S else -3 if sides == E | W else -1
        return cm

    def _commit(self, src: str, dst: str, port: Cell, cells: list[Cell], d: int,
                head: tuple[int, int, str] | None = None, join: Cell | None = None) -> Route:
        idx = len(self.dst_of)
        self.dst_of.append(dst)
        path = [port] + cells + [join or self._into(cells[-1], d)]
        for i in range(1, len(path) - 1):
            c = path[i]
            sides = _side(c, path[i - 1]) | _side(c, path[i + 1])
            if head and i == len(path) - 2:
                self.heads[c] = idx
                continue
            self.line[c] = self.line.get(c, 0) | sides
            self.owner.setdefault(c, set()).add(idx)
            self._bump(c[0] - 1, c[1] - 1, c[0] + 1, c[1] + 1, NEAR_LINE)
        if join:
            self.line[join] |= _side(join, cells[-1])
            self.owner[join].add(idx)
        self.ports[port] = idx
        return Route(src, dst, port, tuple(cells), head, join)

    @staticmethod
    def _into(c: tuple[int, int], d: int) -> tuple[int, int]:
        dx, dy = STEP[d]
        return (c[0] + dx, c[1] + dy)

    # -- labels ----------------------------------------------------------------------------
    def place_label(self, idx: int, route: Route, name_w: int, count_w: int) -> Label | None:
        """Free cells for an edge's name and count beside its line, as near its source as possible.

        Tried along each straight run of the line: name above and count below
        a horizontal run (the look of a labelled arrow between two boxes), both
        on one line above or below it, or beside a vertical run. A label keeps
        one blank cell from anything else on its row.
        """
        best = None
        line = route.cells + ((route.head[:2],) if route.head else ())
        runs = _runs(line)
        if route.join:                  # beside the junction, on the arrow it joins
            runs.append([route.join])
        for rank, run in enumerate(runs):
            places = []
            if run[0][1] == run[-1][1]:
                places += _h_places(run, name_w, count_w, split=len(runs) == 1 and route.head is not None)
            if run[0][0] == run[-1][0]:
                places += _v_places(run, name_w, count_w)
            for lab, cost in places:
                cost += rank * 4
                if (best is None or cost < best[1]) and self._fits(lab):
                    best = (lab, cost)
        if best is None:
            return None
        lab = best[0]
        self._take(lab.x, lab.y, lab.width, idx, "name")
        self._take(lab.cx, lab.cy, lab.cwidth, idx, "count")
        return lab

    def _take(self, x: int, y: int, width: int, idx: int, what: str) -> None:
        if not width:
            return
        for i in range(width):
            self.text[(x + i, y)] = (idx, what)
        self.halo.update(((x - 1, y), (x + width, y)))

    def _fits(self, lab: Label) -> bool:
        spans = [(lab.x, lab.y, lab.width)] + ([(lab.cx, lab.cy, lab.cwidth)] if lab.cwidth else [])
        return all(self.span_free(sx, y, w) for sx, y, w in spans)

    def span_free(self, x: int, y: int, width: int) -> bool:
        """`width` free cells at (x, y), with a blank (or the grid's edge) on either side."""
        if not all(self.free(x + i, y) for i in range(width)):
            return False
        return all(not (0 <= cx < self.w) or self.free(cx, y) for cx in (x - 1, x + width))

    def reserve(self, x: int, y: int, width: int, idx: int = -1) -> bool:
        """Take `width` free cells at (x, y) for text not tied to an arrow (a self-loop's label)."""
        if not self.span_free(x, y, width):
            return False
        self._take(x, y, width, idx, "name")
        return True


def _side(c: tuple[int, int], other: tuple[int, int]) -> int:
    dx, dy = other[0] - c[0], other[1] - c[1]
    return {(0, -1): N, (1, 0): E, (0, 1): S, (-1, 0): W}[(dx, dy)]


def _runs(cells: tuple[tuple[int, int], ...]) -> list[list[tuple[int, int]]]:
    """The line cut into straight runs, from the source on (a bend cell ends one run and starts the next)."""
    runs: list[list[tuple[int, int]]] = []
    cur = [cells[0]]
    for c in cells[1:]:
        if len(cur) == 1 or (cur[0][1] == cur[1][1] == c[1]) or (cur[0][0] == cur[1][0] == c[0]):
            cur.append(c)
        else:
            runs.append(cur)
            cur = [cur[-1], c]
    runs.append(cur)
    return runs


def _h_places(run: list[Cell], name_w: int, count_w: int, split: bool) -> list[tuple[Label, int]]:
    """Label positions along a horizontal run, with their costs.

    `split` (a straight arrow from box to box): the name centred over the
    arrow and the count under it, which is how such an arrow reads best.
    """
    xs = sorted(c[0] for c in run)
    y = run[0][1]
    x0, x1 = xs[0], xs[-1]
    mid = (x0 + x1 + 1) // 2
    src_x = run[0][0]
    out = []
    w = max(name_w, count_w)
    for lx in range(x0 - 1, x1 + 3 - w) if split else ():
        nx, cx = lx + (w - name_w) // 2, lx + (w - count_w) // 2
        out.append((Label(nx, y - 1, name_w, cx, y + 1, count_w), abs(lx + w // 2 - mid)))
    w = name_w + 1 + count_w
    for lx in range(x0 - 1, x1 + 3 - w):
        near = min(abs(lx - src_x), abs(lx + w - 1 - src_x))
        out.append((Label(lx, y - 1, name_w, lx + name_w + 1, y - 1, count_w), 2 + near // 2))
        out.append((Label(lx, y + 1, name_w, lx + name_w + 1, y + 1, count_w), 3 + near // 2))
    return out


def _v_places(run: list[Cell], name_w: int, count_w: int) -> list[tuple[Label, int]]:
    """Label positions beside a vertical run: right of it first, then left."""
    ys = sorted(c[1] for c in run)
    x = run[0][0]
    w = name_w + 1 + count_w
    src_y = run[0][1]                   # next to where the run comes from the source
    out = []
    for y in ys:
        near = abs(y - src_y) // 2
        out.append((Label(x + 2, y, name_w, x + 3 + name_w, y, count_w), 4 + near))
        out.append((Label(x - 1 - w, y, name_w, x - w + name_w, y, count_w, "right"), 6 + near))
    return out
