"""The ring, memory, page_pool and skb-cache views, each hosted alone, drawn from real Sims.

Every assertion compares the screen with the model it was given: the numbers
come from the Sim, not from constants written here.
"""

from __future__ import annotations

import functools

import pytest
from hosting import Host
from shipped import shipped_lesson

from models.sim import Sim
from viz.views import VIEW_CLASSES
from viz.views.base import ViewState
from viz.views.memory import MemoryView
from viz.views.pool import PoolView
from viz.views.ring import RingView
from viz.views.skbcache import ROWS, SkbCacheView

SIZES = [(80, 24), (160, 50), (20, 5)]


@functools.cache
def _run(lesson_id: str, variant: str, frames: int) -> tuple[Sim, dict[str, int]]:
    sim = Sim(shipped_lesson(lesson_id).params_for(variant), trace=400)
    sim.run_frames(max(0, frames - 1))
    prev = dict(sim.rec.counts)
    sim.run_frames(1 if frames else 0)
    return sim, prev


def state(lesson_id: str, variant: str, frames: int = 100) -> ViewState:
    """The model after `frames` frames; prev_counts are the counters one frame earlier."""
    sim, prev = _run(lesson_id, variant, frames)
    return ViewState(sim=sim, variant=variant, lesson=shipped_lesson(lesson_id), step=1, prev_counts=prev)


async def render(view_cls, st: ViewState, size=(80, 24), theme: str | None = None) -> tuple[str, str]:
    """(the view's lines as text, the screen as SVG)."""
    app = Host(view_cls)
    async with app.run_test(size=size) as pilot:
        if theme:
            app.theme = theme
        view = app.query_one(view_cls)
        view.state = st
        await pilot.pause()
        text = "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))
        svg = app.export_screenshot()
    return text, svg


def test_views_are_registered_under_their_keys():
    assert VIEW_CLASSES["ring"] is RingView
    assert VIEW_CLASSES["memory"] is MemoryView
    assert VIEW_CLASSES["pool"] is PoolView
    assert VIEW_CLASSES["skbcache"] is SkbCacheView


# ---------------------------------------------------------------------- ring
async def test_ring_header_grid_and_bounced_tail_buffer():
    st = state("ath11k-36bit-dma-mask", "before")
    ring = st.sim.ring
    text, svg = await render(RingView, st)
    assert (f"{ring.size} descriptors · {ring.device_owned} device-owned · head {ring.dev_idx} · "
            f"tail {ring.clean_idx} · dropped {st.sim.dropped}") in text
    assert "DDDDDDDD" in text and "F" in text
    assert f"tail {ring.clean_idx}▲" in text or f"▲tail {ring.clean_idx}" in text
    m = ring.buf(ring.clean_idx).map
    assert m.slot >= 0
    assert f"B bounced: SWIOTLB slot {m.slot}" in text
    assert f"dma {m.dma:#x}" in text
    assert "RX&#160;ring" in svg          # the border title, as the SVG spells a space


async def test_ring_after_the_patch_maps_directly():
    st = state("ath11k-36bit-dma-mask", "after")
    text, _ = await render(RingView, st)
    buf = st.sim.ring.buf(st.sim.ring.clean_idx)
    assert f"phys {buf.phys:#x} (Normal)" in text and "direct" in text
    assert "bounced" not in text


async def test_big_ring_shows_a_window_around_head_and_tail():
    st = state("atlantic-page-pool", "before", 1000)        # tail and head well into the ring
    ring = st.sim.ring
    text, _ = await render(RingView, st, (80, 24))
    assert ring.size == 2048
    assert "…" in text
    assert f"tail {ring.clean_idx}" in text and f"head {ring.dev_idx}" in text
    assert "iova 0x" in text


async def test_where_head_meets_tail_the_ring_says_full_or_nothing_to_clean():
    lesson = shipped_lesson("rx-basics")
    sim = Sim(lesson.params_for("gro"))
    st = ViewState(sim=sim, variant="gro", lesson=lesson, step=1)
    text, _ = await render(RingView, st, (80, 24))
    assert "· head = tail 0 · empty ·" in text and "▲head = tail 0 · empty" in text
    sim = Sim(lesson.params_for("gro"))
    while sim.ring.device_fill(1514, 1 << 50):          # the device writes every descriptor
        pass
    st = ViewState(sim=sim, variant="gro", lesson=lesson, step=1)
    text, _ = await render(RingView, st, (160, 50))
    assert f"{sim.ring.size} descriptors · 0 device-owned · head = tail 0 · full · dropped 0" in text
    assert "▲head = tail 0 · full" in text and "empty" not in text


async def test_sdio_shows_firmware_and_host_queues():
    st = state("ath10k-sdio-napi", "after")
    text, _ = await render(RingView, st, (160, 50))
    assert "no descriptor ring" in text
    assert f"{len(st.sim.fw_q)} in firmware (fw_q)" in text
    assert f"{len(st.sim.rx_ind)} read, for NAPI (rx_ind)" in text


# ---------------------------------------------------------------------- memory
async def test_memory_before_marks_the_4GiB_line_and_bounced_buffers():
    st = state("ath11k-36bit-dma-mask", "before")
    sim = st.sim
    text, _ = await render(MemoryView, st)
    assert "4 GiB = dma_mask 32 limit" in text
    bounced = sum(1 for m in sim.dma.live.values() if m.slot >= 0)
    assert f"BBB {bounced}" in text
    sw = sim.swiotlb
    assert f"{sw.used_slots}/{sw.nslabs} slots" in text and f"hiwater {sw.hiwater}" in text
    line = next(ln for ln in text.splitlines() if ln.startswith("bounce: buf "))
    slot = int(line.split("slot ")[1].split()[0], 16)
    assert sw.base <= slot < sw.base + sw.size


async def test_memory_after_puts_the_64GiB_limit_above_ram():
    st = state("ath11k-36bit-dma-mask", "after")
    text, _ = await render(MemoryView, st, (160, 50))
    assert "dma_mask 36 → 64 GiB, above all RAM" in text
    assert f"ddd {len(st.sim.dma.live)}" in text
    assert "bounce: none" in text


async def test_memory_with_an_iommu_and_the_64GiB_line_inside_ram():
    st = state("atlantic-page-pool", "after", 200)
    text, _ = await render(MemoryView, st, (160, 50))
    assert "64 GiB ─" in text
    assert f"IOMMU strict · {st.sim.iommu.mapped_pages} pages mapped" in text


async def test_a_short_memory_view_keeps_the_map_and_drops_summaries():
    st = state("ath11k-36bit-dma-mask", "before")
    text, _ = await render(MemoryView, st, (80, 8))      # 6 rows inside the border
    lines = text.splitlines()
    assert lines[0].startswith("RAM 8 GiB · dma_mask 32 → 4 GiB")
    assert any("4 GiB = dma_mask 32 limit" in ln for ln in lines)
    assert any("│Normal" in ln and "BBB" in ln for ln in lines)
    assert not any("B bounced  d direct" in ln for ln in lines)     # the legend went first


def _row_labels(text: str) -> list[str]:
    return [ln.split("│")[0].strip() for ln in text.splitlines() if ln.count("│") >= 2]


@pytest.mark.parametrize("lesson_id,variant,frames,size", [
    ("ath11k-36bit-dma-mask", "before", 100, (160, 50)), ("ath11k-36bit-dma-mask", "before", 100, (60, 30)),
    ("atlantic-page-pool", "after", 200, (160, 50)), ("ath9k-page-pool", "after", 300, (80, 24))])
async def test_memory_rows_are_labelled_at_round_addresses(lesson_id, variant, frames, size):
    text, _ = await render(MemoryView, state(lesson_id, variant, frames), size)
    labels = [lb for lb in _row_labels(text) if lb]
    assert len(labels) >= 4
    for lb in labels:              # 0, whole MiB, or GiB on a 256 MiB multiple: never 12.7G or 226M
        if lb.endswith("G"):
            assert (float(lb[:-1]) * 4).is_integer(), lb
        elif lb != "0":
            assert lb.endswith("M") and int(lb[:-1]) % 4 == 0, lb


async def test_memory_says_1_page_mapped_in_the_singular():
    sim = Sim(shipped_lesson("atlantic-page-pool").params_for("after-no-fix"), trace=400)
    sim.run_frames(1)
    sim.teardown()
    assert sim.iommu.mapped_pages == 1
    text, _ = await render(MemoryView, ViewState(sim=sim, variant="after-no-fix"), (160, 50))
    assert "· 1 page mapped" in text and "1 pages" not in text


# ---------------------------------------------------------------------- page_pool
async def test_pool_shows_fill_bars_pages_and_pp_ref_counts():
    st = state("ath9k-page-pool", "after", 300)
    pool = st.sim.pool
    text, _ = await render(PoolView, st, (160, 50))
    assert f"▏ {len(pool.cache)}/128" in text and f"▏ {pool.ring_len()}/{pool.ring_cap}" in text
    assert f"inflight {pool.inflight()}" in text
    page = pool.frag_page
    assert f"page#{page.id} +{pool.frag_offset}/{pool.page_bytes} · pp_ref_count {page.outstanding()}" in text
    per = pool.page_bytes // st.sim.strategy.frag
    assert "F" + "■" * per in text            # a page with every fragment out


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_pool_shows_every_page_pool_statistic_the_kernel_keeps_even_at_zero(size):
    st = state("ath9k-page-pool", "after", 300)
    stats = st.sim.pool.stats
    text, _ = await render(PoolView, st, size)
    for name in ("alloc_refill", "alloc_waive", "recycle_ring", "recycle_released_refcnt"):
        head, _, short = name.partition("_")
        assert f"{short} {stats[name]:,}" in text, name
    assert stats["alloc_waive"] == 0 and stats["recycle_released_refcnt"] == 0
    assert text.index("waive") < text.index("recycle:") < text.index("released_refcnt")


async def test_pool_page_flip_shows_slices_and_page_refs():
    st = state("atlantic-page-pool", "before", 200)
    text, _ = await render(PoolView, st)
    buf = st.sim.ring.buf(st.sim.ring.clean_idx)
    assert "page flip, no page_pool" in text
    assert f"p#{buf.page.id:<5}+{buf.offset:<5}{buf.page.refs}" in text


async def test_a_short_pool_view_keeps_a_row_of_pages_and_counts_exactly_the_rest():
    import re
    st = state("atlantic-page-pool", "after", 200)
    text, _ = await render(PoolView, st, (80, 11))      # 9 rows: the pages before the statistics
    n = len(st.sim.pool.pages)
    assert f"{n} pages: F" in text and "alloc:" not in text          # the statistics gave way
    cells = len(re.findall(r"[FCARM][■·□]", text.split("inflight")[1]))
    more = int(re.search(r"… (\d+) more", text)[1])
    assert cells >= 1 and cells + more == n
    text, _ = await render(PoolView, st, (80, 6))       # not one row of pages: no count of unshown pages
    assert "more" not in text and "too short to list the pages" in text


async def test_pool_after_teardown_says_what_is_left_in_the_singular():
    sim = Sim(shipped_lesson("atlantic-page-pool").params_for("after-no-fix"), trace=400)
    sim.run_frames(1)
    sim.teardown()
    assert len(sim.pool.pages) == 1
    text, _ = await render(PoolView, ViewState(sim=sim, variant="after-no-fix"), (160, 50))
    assert "pool destroyed, 1 page still out: F 1" in text and "1 pages" not in text


async def test_pool_destroyed_and_empty_says_so():
    sim = Sim(shipped_lesson("ath9k-page-pool").params_for("after"), trace=400)
    sim.run_frames(50)
    sim.teardown()
    assert not sim.pool.pages and sim.pool.destroyed
    text, _ = await render(PoolView, ViewState(sim=sim, variant="after"), (80, 24))
    assert "pool destroyed, every page released" in text and "0 pages" not in text


async def test_pool_absent_says_which_strategy():
    text, _ = await render(PoolView, state("ath11k-36bit-dma-mask", "before"))
    assert "no page_pool in this variant (strategy: per-frame)" in text


# ---------------------------------------------------------------------- skb cache
async def test_skbcache_fill_thresholds_and_deltas():
    st = state("bgmac-napi-skb-cache", "after", 300)
    heads, counts = st.sim.heads, st.sim.rec.counts
    text, _ = await render(SkbCacheView, st)
    assert f"{len(heads.cache)}/{heads.size} · in use {heads.in_use}" in text
    assert f"▲{heads.bulk}" in text and f"▲{heads.size - heads.free_n}" in text
    row = next(ln for ln in text.splitlines() if "napi_build_skb " in ln and "│" in ln)
    right = row.split("│")[1].split()
    assert right == ["napi_build_skb", f"+{st.sim.rec.counts['napi_build_skb'] - st.prev_counts['napi_build_skb']}",
                     str(counts["napi_build_skb"])]


async def test_skbcache_before_uses_the_slab_each_frame():
    st = state("bgmac-napi-skb-cache", "before", 300)
    text, _ = await render(SkbCacheView, st, (52, 24))
    row = next(ln for ln in text.splitlines() if ln.startswith("build_skb "))
    assert row.split()[1] == "+1"
    assert "slab traffic:" in text


@pytest.mark.parametrize("variant", ["before", "after"])
@pytest.mark.parametrize("size", [(46, 17), (46, 14), (80, 12), (40, 30)])
async def test_skbcache_tables_fit_and_never_leave_a_bare_header(variant, size):
    st = state("bgmac-napi-skb-cache", variant, 300)
    text, _ = await render(SkbCacheView, st, size)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    calls = {c for pair in ROWS for c in pair}
    shown = [part.split()[0] for ln in lines for part in ln.split("│") if part.split() and part.split()[0] in calls]
    for i, ln in enumerate(lines):           # a call row under every header
        if ln.endswith("total"):
            assert lines[i + 1].split()[0] in calls, text
    note = next((ln for ln in lines if "not shown" in ln), None)
    if len(shown) < len(calls):              # what does not fit is counted, not dropped
        assert note is not None and f"… {len(calls) - len(shown)} more call" in note, text
    else:
        assert note is None
    assert lines[-1].startswith("█ cached")


# ---------------------------------------------------------------------- every size, every kind of model
CASES = [("ath11k-36bit-dma-mask", "before", 100), ("atlantic-page-pool", "before", 200),
         ("atlantic-page-pool", "after", 200), ("ath9k-page-pool", "after", 300),
         ("ath10k-sdio-napi", "before", 50), ("rx-basics", "gro", 0)]


@pytest.mark.parametrize("view_cls", [RingView, MemoryView, PoolView, SkbCacheView])
@pytest.mark.parametrize("size", SIZES)
async def test_every_size_draws_without_error(view_cls, size):
    # One app per view and size with each kind of model handed down in turn, as the player does:
    # starting an app costs more than the drawing under test.
    app = Host(view_cls)
    async with app.run_test(size=size) as pilot:
        view = app.query_one(view_cls)
        for lesson_id, variant, frames in CASES:
            view.state = state(lesson_id, variant, frames)
            await pilot.pause()
            text = "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))
            assert text.strip(), (lesson_id, variant)
            assert all(len(line) <= size[0] for line in text.splitlines()), (lesson_id, variant)
            assert app.export_screenshot()


@pytest.mark.parametrize("view_cls", [RingView, MemoryView, PoolView, SkbCacheView])
async def test_after_teardown_and_in_another_theme(view_cls):
    sim = Sim(shipped_lesson("atlantic-page-pool").params_for("after"), trace=400)
    sim.run_frames(50)
    sim.teardown()
    st = ViewState(sim=sim, variant="after", prev_counts=dict(sim.rec.counts))
    text, _ = await render(view_cls, st, (80, 24), theme="textual-light")
    assert text.strip()


async def test_no_state_yet():
    app = Host(RingView)
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        assert "no model yet" in app.query_one(RingView).render_line(0).text


import viz.views.all  # noqa: E402,F401  (registers every view, not only the four imported above)


@pytest.mark.parametrize("view_cls", list(VIEW_CLASSES.values()), ids=list(VIEW_CLASSES))
async def test_every_cell_has_the_views_background(view_cls):
    """No cell falls back to the terminal's default colours (a line without styled parts once did)."""
    lesson = "ath10k-sdio-napi" if view_cls.KEY == "bus" else "rx-basics"
    variant = "napi" if lesson == "ath10k-sdio-napi" else "gro"
    variants = shipped_lesson(lesson).variants
    st = state(lesson, variant if variant in variants else next(iter(variants)))
    app = Host(view_cls)
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(view_cls)
        view.state = st
        await pilot.pause()
        base = view.rich_style.bgcolor
        lit = view._s("now").bgcolor if "now" in {c.rsplit("--", 1)[-1] for c in view.COMPONENT_CLASSES} else None
        for y in range(view.size.height):
            for seg in view.render_line(y):
                # the view's own background, or the lit background of what the current call changed
                assert seg.style is not None and seg.style.bgcolor in (base, lit) and seg.style.bgcolor, \
                    (y, seg.text)


async def test_pool_shows_the_kernels_page_pool_statistics():
    st = state("atlantic-page-pool", "after", 2000)
    text, _ = await render(PoolView, st, (80, 24))
    s = st.sim.pool.stats
    assert f"alloc: fast {s['alloc_fast']:,}" in text
    assert f"recycle: cached {s['recycle_cached']:,} · ring {s['recycle_ring']:,}" in text
