"""Where a lifecycle machine's boxes and arrows go: a layered drawing that fits a given size.

Layers come from the machine's networkx graph (`models.lifecycle.graph`).
A depth-first walk from the initial state, in the order the edges are
listed, marks every edge back to a state still on the walk's path as a back
edge: the recycling loops, the NAPI poll loop, the return to `free`. Those
are drawn but not used for layering; the rest is a DAG whose longest-path
layering gives each state its layer. So a buffer's life reads in the order
the kernel moves it, and every loop is an arrow going back.

Arrangements are tried best first until one fits and every arrow and label
finds room (viz.views.machine.route): all layers in one row; one column,
top to bottom; two, then three rows of layers. If call names are what does
not fit, the machine's common prefix is dropped (`page_pool_`, `swiotlb_`)
and the arrangements are tried again. None → the view draws its compact
form. A drawing depends only on the machine, the size and the width kept
for counts, so it is computed once and cached; the state of the model only
changes how it is painted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, lru_cache

from models.read import MACHINES, graph

from .route import Grid, Label, Rect, Route

BOX_H = 3
BIG = 2                   # a big drawing's boxes are this much taller, and twice this wider
MIN_BOX_W = 10            # room for "×1 234" on the bottom border
# Prefixes a machine's call names may lose when the full names do not fit (never mid-word).
PREFIXES = {"pp_page": "page_pool_", "swiotlb_slot": "swiotlb_", "skb_head": "kmem_cache_"}


@dataclass(frozen=True)
class Group:
    """The edges from one state to another, drawn as one arrow (several calls: alternatives)."""
    src: str
    dst: str
    calls: tuple[str, ...]
    back: bool


@dataclass(frozen=True)
class Drawing:
    machine: str
    arrangement: str                    # "row", "column", "rows-2", "rows-3"
    width: int
    height: int
    boxes: dict[str, Rect]
    groups: tuple[Group, ...]
    routes: tuple[Route, ...]           # one per group, same order
    labels: tuple[Label, ...]           # one per group, same order
    loops: dict[str, tuple[tuple[str, ...], Label]]     # state -> (its self-loop calls, label place)
    prefix: str                         # dropped from call names ("" if none)
    grid: Grid = field(repr=False, compare=False)

    def short(self, call: str) -> str:
        return call[len(self.prefix):] if self.prefix and call.startswith(self.prefix) else call


@dataclass(frozen=True)
class Layers:
    layers: tuple[tuple[str, ...], ...]
    groups: tuple[Group, ...]
    loops: dict[str, tuple[str, ...]]


@cache
def layers(machine: str) -> Layers:  # noqa: C901 (older than the complexity rule)
    """States by layer, the edge groups (back edges marked) and the self-loops of a machine."""
    import networkx as nx

    g = graph(machine)
    _, initial, edges = MACHINES[machine]
    order = list(dict.fromkeys([initial] + [s for e in edges for s in (e[0], e[2])]))
    on_path: set[str] = set()
    seen: list[str] = []
    back: set[tuple[str, str]] = set()

    def walk(u: str) -> None:
        seen.append(u)
        on_path.add(u)
        for v in g.successors(u):           # insertion order: the order the edges are listed
            if v == u:
                continue
            if v in on_path:
                back.add((u, v))
            elif v not in seen:
                walk(v)
        on_path.discard(u)

    for s in order:
        if s not in seen:
            walk(s)
    dag: nx.DiGraph[str] = nx.DiGraph()
    dag.add_nodes_from(seen)
    dag.add_edges_from((u, v) for u, v in g.edges() if u != v and (u, v) not in back)
    rank: dict[str, int] = {}
    for v in nx.topological_sort(dag):
        rank[v] = max((rank[u] + 1 for u in dag.predecessors(v)), default=0)
    by_layer: dict[int, list[str]] = {}
    for s in seen:                          # within a layer: the order the walk found them
        by_layer.setdefault(rank[s], []).append(s)
    calls: dict[tuple[str, str], list[str]] = {}
    loops: dict[str, list[str]] = {}
    for src, call, dst in edges:
        if src == dst:
            loops.setdefault(src, []).append(call)
        else:
            calls.setdefault((src, dst), []).append(call)
    groups = tuple(Group(s, d, tuple(c), (s, d) in back) for (s, d), c in calls.items())
    return Layers(tuple(tuple(by_layer[i]) for i in sorted(by_layer)), groups,
                  {s: tuple(c) for s, c in loops.items()})


def box_width(state: str, big: bool = False) -> int:
    return max(MIN_BOX_W, len(state) + 4) + (2 * BIG if big else 0)


def name_width(calls: tuple[str, ...], prefix: str) -> int:
    """Cells kept for an arrow's name: its longest call, and " +N" when it has alternatives."""
    names = [c[len(prefix):] if prefix and c.startswith(prefix) else c for c in calls]
    return max(len(n) for n in names) + (3 if len(calls) > 1 else 0)


@lru_cache(maxsize=256)
def draw(machine: str, width: int, height: int, count_w: int = 5,
         keep: frozenset[tuple[str, str]] | None = None, big: bool = False) -> Drawing | None:
    """The best drawing of `machine` in width x height cells, or None when nothing fits.

    `keep`: draw only the arrows between these (src, dst) pairs. The boxes
    stay where the whole machine puts them, so arrows appear and disappear
    without the boxes moving. `big`: taller, wider boxes and more room
    between them (a small machine on a large screen, read from the back of
    a room).
    """
    lay = layers(machine)
    groups = tuple(g for g in lay.groups if keep is None or (g.src, g.dst) in keep)
    for prefix in dict.fromkeys(("", PREFIXES.get(machine, ""))):
        n = len(lay.layers)
        tries = [("row", 1), ("column", 2), ("column", 1)] + [(f"rows-{k}", k) for k in (2, 3) if k < n]
        for name, k in tries:
            got = _attempt(machine, lay, groups, name, k, width, height, count_w, prefix, big)
            if got is not None:
                return got
    return None


def crossings(d: Drawing) -> int:
    """Cells where two arrows cross: what makes a drawing hard to read."""
    return sum(1 for sides in d.grid.line.values() if sides == 15)


def _bands(lay: Layers, k: int) -> list[list[int]]:
    """Layer indices cut into k consecutive bands of about equal width."""
    widths = [max(box_width(s) for s in layer) + 12 for layer in lay.layers]
    bands: list[list[int]] = [[]]
    total, acc = sum(widths), 0
    for i, w in enumerate(widths):
        if acc + w / 2 > total * len(bands) / k and len(bands) < k and bands[-1]:
            bands.append([])
        bands[-1].append(i)
        acc += w
    return bands


def _attempt(machine: str, lay: Layers, groups: tuple[Group, ...], arrangement: str, k: int, width: int,  # noqa: C901 (older than the complexity rule)
             height: int, count_w: int, prefix: str, big: bool = False) -> Drawing | None:
    place = _place_column if arrangement == "column" else _place_rows
    boxes = place(lay, k, prefix, count_w, big)
    if boxes is None:
        return None
    core_w = max(r.x + r.w for r in boxes.values())
    core_h = max(r.y + r.h for r in boxes.values())
    if core_w > width or core_h > height:
        return None
    # Room around the boxes for arrows that go round; what stays unused is cut off afterwards.
    loop_w = max((2 + name_width(c, prefix) + 1 + count_w for c in lay.loops.values()), default=0)
    label_w = max((name_width(g.calls, prefix) + 1 + count_w for g in groups), default=0)
    want_x = max(3 + 2 * len(groups) + (label_w if arrangement == "column" else 0), loop_w // 2)
    mx = min((width - core_w) // 2, want_x)
    my = min((height - core_h) // 2, 2 + len(groups))
    grid = Grid(min(width, core_w + mx + want_x), min(height, core_h + my + 2 + len(groups)))
    for s, r in boxes.items():
        grid.add_box(s, Rect(r.x + mx, r.y + my, r.w, r.h))
    loops = {}
    for s, calls in lay.loops.items():
        r = grid.rects[s]
        w = 2 + name_width(calls, prefix) + 1 + count_w
        lab = _loop_label(grid, r, w, beside=arrangement == "column")
        if lab is None:
            return None
        loops[s] = (calls, lab)
    order = sorted(range(len(groups)), key=lambda i: _priority(lay, groups, i))
    # Forward arrows that skip layers keep right of (or over) the boxes, arrows back keep left (or under).
    if arrangement == "column":
        axis, at, ahead = 0, mx + core_w // 2, 1         # forward: x > at
    else:
        axis, at, ahead = 1, my + (BOX_H + (BIG if big else 0)) // 2, -1     # forward: y < at
    routes: list[Route | None] = [None] * len(groups)
    labels: list[Label | None] = [None] * len(groups)
    for i in order:
        g = groups[i]
        saved = grid.checkpoint()
        # A name that finds no room: join an arrow going the same way instead, or else go alone.
        for join in ("may", "must", "never"):
            route = grid.route(g.src, g.dst, join, (axis, -ahead if g.back else ahead, at))
            if route is None:          # "must" and "never" only narrow "may": no route at all
                return None
            lab = grid.place_label(len(grid.dst_of) - 1, route, name_width(g.calls, prefix), count_w)
            if lab is not None:
                break
            grid.restore(saved)
            saved = grid.checkpoint()
        else:
            return None
        routes[i], labels[i] = route, lab
    return _cropped(machine, arrangement, grid, lay, groups, tuple(r for r in routes if r is not None),
                    tuple(lab for lab in labels if lab is not None), loops, prefix)


def _loop_label(grid: Grid, r: Rect, w: int, beside: bool) -> Label | None:
    """A self-loop is written next to its box ("↻ call n"): beside it in a column, over or under it in a row.

    (In a column the rows over and under a box carry the arrows in and out.)
    """
    mid = r.y + r.h // 2
    spots = [(r.x + r.w + 2, mid), (r.x - 2 - w, mid)] if beside else []
    spots += [(max(0, min(grid.w - w, r.x + (r.w - w) // 2)), y) for y in (r.y - 1, r.y + r.h)]
    for x, y in spots:
        if grid.reserve(x, y, w):
            return Label(x, y, w, x, y, 0)
    return None


def _priority(lay: Layers, groups: tuple[Group, ...], i: int) -> tuple[int, int | str, int, int]:
    """Route order: arrows to the next layer first, then longer forward ones, then the loops back.

    Back arrows into one state go longest first, so the shorter ones can join
    the first one's line on the way (one bus instead of parallel lines).
    """
    rank = {s: j for j, layer in enumerate(lay.layers) for s in layer}
    g = groups[i]
    span = abs(rank[g.dst] - rank[g.src])
    if g.back:
        return (2, g.dst, -span, i)
    return (0 if span == 1 else 1, span, rank[g.src], i)


def _gaps(lay: Layers, prefix: str, count_w: int) -> list[int]:
    """Columns between layer i and i+1: room for the names of the arrows between them."""
    rank = {s: j for j, layer in enumerate(lay.layers) for s in layer}
    gaps = [6] * max(0, len(lay.layers) - 1)
    for g in lay.groups:
        i, j = rank[g.src], rank[g.dst]
        if j == i + 1:
            gaps[i] = max(gaps[i], max(name_width(g.calls, prefix), count_w) + 4)
    return gaps


def _place_rows(lay: Layers, k: int, prefix: str, count_w: int, big: bool = False) -> dict[str, Rect] | None:
    """Layers left to right, in k rows (bands); the states of a layer stacked in their column."""
    gaps = [g + (2 * BIG if big else 0) for g in _gaps(lay, prefix, count_w)]
    box_h = BOX_H + (BIG if big else 0)
    boxes: dict[str, Rect] = {}
    y = 0
    for band in _bands(lay, k):
        x = 0
        tallest = 0
        for i in band:
            layer = lay.layers[i]
            col = max(box_width(s, big) for s in layer)
            for slot, s in enumerate(layer):
                w = box_width(s, big)
                boxes[s] = Rect(x + (col - w) // 2, y + slot * (box_h + 3), w, box_h)
            tallest = max(tallest, len(layer) * (box_h + 3) - 3)
            x += col + (gaps[i] if i < len(gaps) and i != band[-1] else 0)
        y += tallest + 6                   # room for the arrows between rows and their names
    return boxes


def _place_column(lay: Layers, k: int, prefix: str, count_w: int, big: bool = False) -> dict[str, Rect] | None:
    """Layers top to bottom, `k` rows apart; the states of a layer side by side, centred on one axis."""
    rows = [[(s, box_width(s, big)) for s in layer] for layer in lay.layers]
    box_h = BOX_H + (BIG if big else 0)
    k += 1 if big else 0
    widest = max(sum(w for _, w in row) + 6 * (len(row) - 1) for row in rows)
    boxes: dict[str, Rect] = {}
    y = 0
    for row in rows:
        total = sum(w for _, w in row) + 6 * (len(row) - 1)
        x = (widest - total) // 2
        for s, w in row:
            boxes[s] = Rect(x + (max(w for _, w in row) - w) // 2 if len(row) == 1 else x, y, w, box_h)
            x += w + 6
        y += box_h + k
    return boxes


def _cropped(machine: str, arrangement: str, grid: Grid, lay: Layers, groups: tuple[Group, ...],
             routes: tuple[Route, ...], labels: tuple[Label, ...],
             loops: dict[str, tuple[tuple[str, ...], Label]], prefix: str) -> Drawing:
    """The drawing moved to (0, 0) and cut to what it uses."""
    used = list(grid.box) + list(grid.line) + list(grid.heads) + list(grid.text)
    x0, y0 = min(c[0] for c in used), min(c[1] for c in used)
    x1, y1 = max(c[0] for c in used), max(c[1] for c in used)
    out = Grid(x1 - x0 + 1, y1 - y0 + 1)

    def mv(c: tuple[int, int]) -> tuple[int, int]:
        return (c[0] - x0, c[1] - y0)

    for s, r in grid.rects.items():
        out.rects[s] = Rect(r.x - x0, r.y - y0, r.w, r.h)
        for c in [c for c, b in grid.box.items() if b == s]:
            out.box[mv(c)] = s
    out.line = {mv(c): v for c, v in grid.line.items()}
    out.owner = {mv(c): set(v) for c, v in grid.owner.items()}
    out.heads = {mv(c): v for c, v in grid.heads.items()}
    out.ports = {mv(c): v for c, v in grid.ports.items()}
    out.text = {mv(c): v for c, v in grid.text.items()}
    # The grid numbers arrows in routing order; the drawing keeps them in group order.
    routed = sorted(range(len(routes)), key=lambda i: _priority(lay, groups, i))
    out.dst_of = [g.dst for g in groups]
    out.owner = {c: {routed[i] for i in v} for c, v in out.owner.items()}
    out.heads = {c: routed[v] for c, v in out.heads.items()}
    out.ports = {c: routed[v] for c, v in out.ports.items()}
    out.text = {c: ((routed[v[0]] if v[0] >= 0 else -1), v[1]) for c, v in out.text.items()}

    def mr(r: Route) -> Route:
        return Route(r.src, r.dst, mv(r.port), tuple(mv(c) for c in r.cells),
                     (r.head[0] - x0, r.head[1] - y0, r.head[2]) if r.head else None,
                     mv(r.join) if r.join else None)

    def ml(lab: Label) -> Label:
        return Label(lab.x - x0, lab.y - y0, lab.width, lab.cx - x0, lab.cy - y0, lab.cwidth, lab.align)

    return Drawing(machine, arrangement, out.w, out.h, dict(out.rects), groups,
                   tuple(mr(r) for r in routes), tuple(ml(lab) for lab in labels),
                   {s: (c, ml(lab)) for s, (c, lab) in loops.items()}, prefix, out)
