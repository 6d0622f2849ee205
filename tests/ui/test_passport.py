"""The passport: the followed object's identity, addresses, owner and history, as the data gives them."""

from __future__ import annotations

import pytest
from hosting import Host
from records import from_sim
from shipped import shipped_lesson

from models.sim import Sim
from viz.views import VIEW_CLASSES
from viz.views.base import ViewState
from viz.views.machine.passport import PassportView, history_line


def state(lesson: str, variant: str, frames: int = 150, follow: str = "ring") -> ViewState:
    """The variant after `frames`, following (o) a buffer on the ring, the cleaned one's neighbour,
    or the page the pool carves (`follow="page"`)."""
    sim = Sim(shipped_lesson(lesson).params_for(variant), trace=400)
    sim.run_frames(frames)
    if follow == "page":
        obj = f"page#{sim.pool.frag_page.id}"
    else:
        obj = f"buf#{sim.ring.buf((sim.ring.clean_idx + sim.ring.size - 1) % sim.ring.size).id}"
    return ViewState(sim=sim, variant=variant, lesson=shipped_lesson(lesson), step=1, follow=obj)


async def render(st: ViewState, size: tuple[int, int]) -> str:
    app = Host(PassportView)
    async with app.run_test(size=size) as pilot:
        view = app.query_one(PassportView)
        view.state = st
        await pilot.pause()
        return "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))


def test_registered_as_a_view():
    assert VIEW_CLASSES["passport"] is PassportView


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_identity_addresses_and_history_in_kernel_words(size):
    st = state("rx-basics", "gro")
    p = from_sim(st.sim, st.follow).passport
    text = await render(st, size)
    assert text.startswith(f"{p.obj} · {p.kind}")
    assert f"phys {p.phys:#x}" in text and f"DMA {p.dma:#x}" in text
    assert f"owner {p.owner}" in text and f"state  {p.state} " in text
    last = p.history[-1]
    assert f"▶ {history_line(last, size[0] - 6)}" in text
    assert f"{last.call}: {last.src} → {last.dst}" in text


async def test_a_bounced_buffer_shows_its_slot():
    st = state("ath11k-36bit-dma-mask", "before", 40)
    p = from_sim(st.sim, st.follow).passport
    assert p.bounce_slot is not None and p.bounce_phys == st.sim.swiotlb.addr(p.bounce_slot)
    text = await render(st, (160, 50))
    assert f"SWIOTLB slot {p.bounce_slot} at {p.bounce_phys:#x}" in text


async def test_a_page_pool_page_shows_its_refcount():
    st = state("ath9k-page-pool", "after", follow="page")
    p = from_sim(st.sim, st.follow).passport
    text = await render(st, (160, 50))
    assert p.machine == "pp_page" and f"pp_ref_count {dict(p.refs)['pp_ref_count']}" in text


def test_history_line_reads_as_the_issue_asks():
    from models.read import Transition
    t = Transition(7, 12_345, "dma_map_single", "rx_buffer", "buf#1", "allocated", "mapped")
    assert history_line(t) == "dma_map_single: allocated → mapped at 12.345 µs"
    assert history_line(t, 40) == "dma_map_single: allocated → mapped"
