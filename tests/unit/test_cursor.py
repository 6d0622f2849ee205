"""models.cursor: the call a variant is at and the one before, and the cells of the model they touched.

Checked against the model itself: the events its trace buffer holds, the
ring's descriptors, the live mappings and the pool's pages.
"""

from __future__ import annotations

import functools

import pytest
from shipped import shipped_lesson

from models.cursor import Cursor, cursor_of, touch_of
from models.sim import Sim


@functools.cache
def sim_of(lesson: str, variant: str, frames: int) -> Sim:
    sim = Sim(shipped_lesson(lesson).params_for(variant), trace=400)
    sim.run_frames(frames)
    return sim


def test_now_and_before_are_the_last_two_events():
    sim = sim_of("rx-basics", "gro", 3)
    cur = cursor_of(sim)
    last, prev = sim.rec.recent(2)[-1], sim.rec.recent(2)[0]
    assert (cur.now.seq, cur.now.call, cur.now.obj) == (last.seq, last.call, last.obj)
    assert cur.before.seq == prev.seq
    assert [(m.machine, m.obj, m.src, m.dst, m.edge) for m in cur.now.moves] == \
        [(t.machine, t.obj, t.src, t.dst, t.call) for t in last.transitions]
    assert cursor_of(sim) is cur                             # cached until the model moves


def test_a_moved_buffer_lights_the_descriptor_that_holds_it():
    sim = sim_of("rx-basics", "gro", 40)
    ring = sim.ring
    for ev in reversed(list(sim.rec.events)):
        bufs = [t.obj for t in ev.transitions if t.machine == "rx_buffer"]
        on_ring = {f"buf#{ring.buf(i).id}": i for i in range(ring.size) if ring.buf(i) is not None}
        if bufs and bufs[0] in on_ring:
            t = touch_of(sim, ev)
            assert on_ring[bufs[0]] in t.descs and int(bufs[0][4:]) in t.bufs
            buf = ring.buf(on_ring[bufs[0]])
            assert buf.phys in t.phys and buf.map.id in t.maps
            return
    pytest.fail("no event moved a buffer still on the ring")


def test_a_bounce_names_its_slot_and_mapping():
    sim = sim_of("ath11k-36bit-dma-mask", "before", 2)
    ev = next(e for e in reversed(list(sim.rec.events)) if e.call == "swiotlb_tbl_map_single")
    t = touch_of(sim, ev)
    mid = int(ev.obj.split("#")[1])
    assert t.maps == {mid}
    if mid in sim.dma.live:                                  # still mapped: its slot and its data
        m = sim.dma.live[mid]
        assert m.slot in t.slots and m.phys in t.phys


def test_a_pool_call_names_its_page():
    sim = sim_of("ath9k-page-pool", "after", 60)
    ev = next(e for e in reversed(list(sim.rec.events)) if e.call == "page_pool_alloc_frag")
    t = touch_of(sim, ev)
    pid = int(ev.obj.split("#")[1].split("+")[0])
    assert pid in t.pages
    if pid in sim.pool.pages:
        assert sim.pool.pages[pid].phys in t.phys


def test_levels_say_this_call_the_one_before_or_neither():
    sim = sim_of("rx-basics", "gro", 3)
    cur = cursor_of(sim)
    assert cur.now.heads and cur.level("heads", next(iter(cur.now.heads))) == 2
    assert Cursor(None, cur.now).level("heads", next(iter(cur.now.heads))) == 1
    assert cur.level("descs", 10_000) == 0


def test_a_model_that_has_made_no_call_yet_has_no_cursor():
    sim = Sim(shipped_lesson("ath10k-sdio-napi").params_for("before"), trace=400)
    assert cursor_of(sim) == Cursor(None, None)
