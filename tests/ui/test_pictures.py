"""Snapshots of the pictures the cursor lights, each view alone, stopped right after one kernel call.

- the memory map with a SWIOTLB copy drawn as an arrow between the buffer's
  row and its slot's: into the slot at map time, back at unmap;
- the page_pool view with the current call's page lit and the line that says
  what happened to it: a fragment carved, a page recycled, a page mapped fresh;
- the machine strip: the object the call moved, its move as boxes and arrows.

Two sizes each: what the view gets at 80x24, and a larger one. After an
intended change, look at the new SVGs (as PNGs: rsvg-convert) before
`pytest tests/ui/test_pictures.py --snapshot-update`.
"""

from __future__ import annotations

import functools

import pytest
from hosting import Host
from shipped import shipped_lesson

from models.sim import Sim
from models.trace import Halt
from viz.screenshot import portable
from viz.views.base import ViewState
from viz.views.machine.strip import MachineStrip
from viz.views.memory import MemoryView
from viz.views.pool import PoolView

SIZES = [(78, 12), (120, 30)]


@functools.cache
def stopped_after(lesson: str, variant: str, frames: int, call: str, nth: int = 1) -> Sim:
    """`variant` right after the nth `call` of its first `frames` frames (after the set-up)."""
    params = shipped_lesson(lesson).params_for(variant)
    probe = Sim(params, trace=50_000)
    probe.run_frames(frames)
    seq = [e.seq for e in probe.rec.events if e.call == call and e.seq > probe.setup_seq][nth - 1]
    sim = Sim(params, trace=400)
    sim.rec.halt_at = seq + 1
    try:
        sim.run_frames(frames)
    except Halt as h:
        h.undo(sim.rec)
    sim.rec.halt_at = 1 << 62
    assert sim.rec.recent(1)[-1].seq == seq and sim.rec.recent(1)[-1].call == call
    return sim


async def shoot(view_cls, sim: Sim, lesson: str, variant: str, snapshot) -> None:
    st = ViewState(sim=sim, variant=variant, lesson=shipped_lesson(lesson), step=1)
    app = Host(view_cls)
    app.animation_level = "none"
    async with app.run_test(size=SIZES[0]) as pilot:
        app.query_one(view_cls).state = st
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert portable(app.export_screenshot(title="rxviz")) == snapshot(name=f"{size[0]}x{size[1]}")


@pytest.mark.parametrize("nth,way", [(1, "into-the-slot"), (2, "back-to-the-buffer")])
async def test_memory_map_draws_the_bounce(nth, way, svg_snapshot):
    # ath11k before: the first frame's buffer is bounced in at refill, then its slot copied back at unmap
    sim = stopped_after("ath11k-36bit-dma-mask", "before", 2, "swiotlb_bounce", nth)
    assert sim.swiotlb.last.back == (way == "back-to-the-buffer")
    await shoot(MemoryView, sim, "ath11k-36bit-dma-mask", "before", svg_snapshot)


@pytest.mark.parametrize("call", ["page_pool_alloc_frag", "page_pool_recycle_in_ring", "page_pool_dma_map"])
async def test_pool_lights_the_page_the_call_carved_recycled_or_mapped(call, svg_snapshot):
    sim = stopped_after("ath9k-page-pool", "after", 120, call)
    await shoot(PoolView, sim, "ath9k-page-pool", "after", svg_snapshot)


async def test_machine_strip_draws_the_calls_move(svg_snapshot):
    sim = stopped_after("rx-basics", "gro", 2, "dma_map_single")
    await shoot(MachineStrip, sim, "rx-basics", "gro", svg_snapshot)
