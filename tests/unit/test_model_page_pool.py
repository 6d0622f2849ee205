"""page_pool: pages mapped once, fragments, recycling, in-flight accounting (kernel-facts §1, §2.4)."""

from __future__ import annotations

import pytest

from models.dma import BIDIRECTIONAL, FROM_DEVICE
from models.page_pool import BIAS_MAX, PP_ALLOC_CACHE_REFILL
from models.scenario_checks import ScenarioError
from models.sim import Sim

STEADY = ("dma_map_page", "dma_unmap_page", "alloc_pages", "page_pool_dma_map", "put_page",
          "page_pool_return_netmem")


def run(params: dict, frames: int, **kw) -> Sim:
    sim = Sim({"strategy": "page-pool", **params}, **kw)
    sim.run_frames(frames)
    assert sim.processed == frames
    return sim


def live_frags(sim: Sim) -> int:
    """Fragments the pool has handed out and not had back: on the ring, in skbs, on the TX ring."""
    st = sim.stack
    n = sum(1 for b in sim.ring.bufs if b is not None)
    skbs = [*st.sock.sockq, *st.gro.rx_list, *st.reader.defer] + ([st.gro.held] if st.gro.held is not None else [])
    n += sum(1 for skb in skbs for b in skb.buffers() if b.kind == "pp")
    n += sum(1 for e in st.tx.ring if e.kind == "xdp")
    return n


def check_pool(sim: Sim) -> None:
    pool = sim.pool
    for page in pool.pages.values():
        assert page.pp_ref >= 0, f"page#{page.id} pp_ref_count went negative"
        assert page.outstanding() >= 0
    states = [p.state for p in pool.pages.values()]
    assert states.count("alloc-cache") == len(pool.cache)
    assert states.count("ptr_ring") == pool.ring_len()
    assert len(pool.pages) == pool.inflight() == pool.hold - pool.release
    assert sum(p.outstanding() for p in pool.pages.values()) == live_frags(sim)
    for page in pool.pages.values():
        if page.state in ("alloc-cache", "ptr_ring"):
            assert page.outstanding() == 0, "a page is recycled only when its last fragment comes back"
        assert page.map is not None and page.map.live, "a pool page stays mapped while the pool holds it"


# ---------------------------------------------------------------------------- mapping lifetime
@pytest.mark.parametrize("params", [{}, {"traffic": "udp"}, {"rate": 10 * 10**9}, {"page_order": 2}])
def test_pages_are_mapped_once_when_they_enter_the_pool(params):
    sim = run(params, 2500)
    c = sim.rec.counts
    assert c["dma_map_page"] == c["page_pool_dma_map"] == sim.pool.hold > 0
    # order 0: one alloc_pages_bulk_node() call per 64 pages; higher orders: one alloc_pages() each
    if sim.pool.order == 0:
        assert c["alloc_pages"] == 0 and c["alloc_pages_bulk_node"] * 64 == sim.pool.hold
    else:
        assert c["alloc_pages_bulk_node"] == 0 and c["alloc_pages"] == sim.pool.hold
    assert c["dma_unmap_page"] == c["page_pool_return_netmem"] == sim.pool.release
    assert all(m.size == sim.pool.page_bytes for m in sim.dma.live.values() if m.kind == "page")
    check_pool(sim)


@pytest.mark.parametrize("params", [{}, {"traffic": "udp"}, {"rate": 10 * 10**9},
                                    {"ram": 16 << 30, "dma_mask": 32}, {"iommu": "strict"}])
def test_steady_state_has_no_map_or_unmap(params):
    sim = run(params, 3000)
    keys = STEADY + ("swiotlb_tbl_map_single", "tcp_send_ack")
    before = {k: sim.rec.counts[k] for k in keys}
    sim.run_frames(5000)
    assert sim.processed == 8000
    delta = {k: sim.rec.counts[k] - before[k] for k in keys}
    assert {k: delta[k] for k in STEADY} == dict.fromkeys(STEADY, 0)
    if sim.swiotlb is not None and sim.dma.mask < sim.mem.max_addr:
        # the only slots taken in steady state are the TCP ACKs' (TX) mappings
        assert delta["swiotlb_tbl_map_single"] == delta["tcp_send_ack"] > 0
    check_pool(sim)


def test_order0_slow_path_allocates_in_bulk_of_64():
    # 100 descriptors of 2 KiB frags need 50 pages: one bulk of 64, 14 left in the alloc cache
    sim = Sim({"strategy": "page-pool", "ring_size": 96})
    assert sim.rec.counts["alloc_pages_bulk_node"] == 1 and sim.pool.hold == PP_ALLOC_CACHE_REFILL == 64
    assert len(sim.pool.cache) == 64 - 48
    big = Sim({"strategy": "page-pool", "ring_size": 256})
    assert big.rec.counts["alloc_pages_bulk_node"] == 2 and big.pool.hold == 128


def test_higher_order_slow_path_allocates_one_page_at_a_time():
    # order 1: 4 frags of 2 KiB per 8 KiB page, 256 descriptors -> exactly 64 pages, none spare
    sim = Sim({"strategy": "page-pool", "page_order": 1, "ring_size": 256})
    assert sim.rec.counts["alloc_pages"] == 64
    assert sim.pool.cache == []


# ---------------------------------------------------------------------------- fragments
@pytest.mark.parametrize("platform,order,rx_buf_size,frag", [
    ("x86-generic", 0, 2048, 2048), ("x86-generic", 0, 1536, 1536), ("x86-generic", 1, 2048, 2048),
    ("x86-generic", 2, 1024, 1024), ("x86-generic", 3, 1500, 1500),
    # page_pool_alloc_frag rounds to dma_get_cache_alignment(): 1 on x86, the cache line
    # (32 bytes) on a non-coherent MIPS or PowerPC
    ("mips74kc-bcm4716", 0, 1500, 1504), ("ppc464-apm82181", 3, 1500, 1504),
])
def test_fragments_per_page(platform, order, rx_buf_size, frag):
    sim = run({"platform": platform, "page_order": order, "rx_buf_size": rx_buf_size, "traffic": "udp"},
              1500, trace=1_000_000)
    page_bytes = 4096 << order
    per_page = page_bytes // frag
    assert sim.strategy.frag == frag
    # a 1514-byte frame larger than one fragment spans several descriptors, each refilled
    per_frame = -(-1514 // frag)
    assert sim.rec.counts["page_pool_alloc_frag"] == sim.ring.size + 1500 * per_frame
    sessions: list[list[int]] = []
    last = None
    for e in sim.rec.events:
        if e.call != "page_pool_alloc_frag":
            continue
        pid, off = e.obj.split("+")
        off = int(off)
        if off == 0 or pid != last:
            sessions.append([])
        sessions[-1].append(off)
        last = pid
    for offs in sessions[:-1]:                # the last page may still be being carved
        assert offs == [k * frag for k in range(per_page)]
    assert len(sessions[-1]) <= per_page


def test_fragment_never_larger_than_its_page():
    # A fragment bigger than the page is refused before anything runs, naming the limit.
    with pytest.raises(ScenarioError, match="does not fit an order-0 page .4096 bytes.: page_pool_alloc_frag"):
        Sim({"strategy": "page-pool", "rx_buf_size": 9216, "page_order": 0})
    sim = Sim({"strategy": "page-pool", "rx_buf_size": 3000, "page_order": 0})
    bufs = [b for b in sim.ring.bufs if b is not None]
    assert bufs and all(b.offset + b.size <= sim.pool.page_bytes for b in bufs)


def test_pp_ref_count_never_negative_and_matches_outstanding_frags():
    sim = Sim({"strategy": "page-pool", "rate": 10 * 10**9, "page_order": 1})
    for _ in range(30):
        sim.run_frames(97)
        check_pool(sim)
        if sim.pool.frag_page is not None:
            assert sim.pool.frag_page.state == "carving"
            assert sim.pool.frag_page.pp_ref > BIAS_MAX // 2      # still biased until drained


# ---------------------------------------------------------------------------- recycling
@pytest.mark.parametrize("kernel,direct", [("5.15", False), ("6.1", False), ("6.12", True)])
def test_where_the_readers_frees_recycle_depends_on_the_kernel(kernel, direct):
    # The TCP reader runs on another CPU. Before v5.19 it frees the skb there, outside any NAPI:
    # the page goes to the ptr_ring. From v5.19 skb_attempt_defer_free() hands it back to the RX
    # CPU, whose net_rx_action frees it before the next poll; from v6.5 that free may use the
    # lockless cache, because the pool's NAPI is on this CPU's poll list (page_pool_napi_local).
    sim = run({"kernel": kernel}, 3000)
    c = sim.rec.counts
    deferred = c["skb_attempt_defer_free"]
    assert (deferred > 0) == (kernel != "5.15")
    if direct:
        assert c["page_pool_recycle_in_cache"] > 0 and c["page_pool_recycle_in_ring"] == 0
    else:
        assert c["page_pool_recycle_in_ring"] > 0 and c["page_pool_recycle_in_cache"] == 0
        assert c["page_pool_refill_alloc_cache"] > 0            # the alloc side pulls them back
    st = sim.pool.stats
    assert st["recycle_cached"] == c["page_pool_recycle_in_cache"]
    assert st["recycle_ring"] == c["page_pool_recycle_in_ring"]
    # every recycle returns one whole page: 2 frags of 2 KiB each per 4 KiB page
    freed_frags = c["page_pool_alloc_frag"] - live_frags(sim)
    returned = c["page_pool_recycle_in_ring"] + c["page_pool_recycle_in_cache"] + c["page_pool_return_netmem"]
    pages_in_flight_partly = sum(1 for p in sim.pool.pages.values()
                                 if p.state == "in-flight" and p.outstanding() == 1)
    drained_and_reused = st["recycle_cached"] - c["page_pool_recycle_in_cache"]
    assert freed_frags == 2 * (returned + drained_and_reused) + pages_in_flight_partly


def test_xdp_tx_completion_in_napi_recycles_directly():
    sim = run({"xdp": "tx", "traffic": "udp"}, 3000)
    c = sim.rec.counts
    assert sim.pool.dma_dir == BIDIRECTIONAL              # XDP_TX sends the page back out
    assert c["xdp_do_tx"] == 3000
    assert c["page_pool_recycle_in_cache"] > 0
    assert c["page_pool_recycle_in_ring"] == 0
    assert c["netif_receive_skb"] == 0
    check_pool(sim)


def test_full_ptr_ring_releases_the_page():
    # v6.1: frees come back to the RX CPU but never into the lockless cache, so they all go
    # through the ptr_ring, and a 16-entry ring overflows
    sim = run({"pool_size": 16, "kernel": "6.1"}, 3000)
    c = sim.rec.counts
    assert sim.pool.ring_cap == 16
    assert c["page_pool_return_netmem"] > 0
    assert c["dma_unmap_page"] == c["put_page"] == c["page_pool_return_netmem"]
    assert sim.pool.ring_len() <= 16
    check_pool(sim)


def test_default_ptr_ring_is_1024():
    assert Sim({"strategy": "page-pool", "pool_size": 0}).pool.ring_cap == 1024
    assert Sim({"strategy": "page-pool"}).pool.dma_dir == FROM_DEVICE


def test_driver_syncs_each_fragment_for_cpu_and_device():
    ring, n = 256, 2000
    sim = run({"traffic": "udp"}, n)
    c = sim.rec.counts
    assert c["dma_sync_single_for_cpu"] == n
    assert c["dma_sync_single_for_device"] == ring + n     # each post; the pool itself does not sync


# ---------------------------------------------------------------------------- with SWIOTLB
def test_page_pool_with_swiotlb_copies_pages_once_and_frames_once():
    n = 2000
    sim = run({"ram": 16 << 30, "dma_mask": 32, "traffic": "udp"}, n)
    c = sim.rec.counts
    pages = c["page_pool_dma_map"]
    # the map-time copy ignores DMA_ATTR_SKIP_CPU_SYNC (whole page); then one sync_for_cpu
    # copy of the received length per frame; recycling FROM_DEVICE copies nothing
    assert c["swiotlb_bounce"] == pages + n
    assert sim.rec.bounce_bytes == pages * 4096 + n * 1514
    # the pool pins two 2 KiB slots per page for as long as it holds the page
    assert sim.swiotlb.used_slots == 2 * sim.pool.inflight()
    before = c["swiotlb_bounce"]
    sim.teardown()
    assert sim.rec.counts["swiotlb_bounce"] == before     # release unmaps with SKIP_CPU_SYNC
    assert sim.swiotlb.used_slots == 0


# ---------------------------------------------------------------------------- teardown
@pytest.mark.parametrize("params", [{}, {"traffic": "udp"}, {"xdp": "tx", "traffic": "udp"},
                                    {"rate": 10 * 10**9, "page_order": 3}, {"pool_size": 16}])
def test_inflight_is_zero_after_teardown(params):
    sim = run(params, 1777)
    assert sim.pool.inflight() > 0
    sim.teardown()
    pool = sim.pool
    assert pool.destroyed
    assert pool.inflight() == 0 and pool.hold == pool.release and pool.pages == {}
    c = sim.rec.counts
    assert c["dma_unmap_page"] == c["dma_map_page"]
    assert c["page_pool_destroy"] == 1
    assert c["page_pool_release_retry"] == 0
    assert sim.accounting()["live_mappings"] == 0
    assert sim.rec.violations == []


# ---------------------------------------------------------------------------- page_pool statistics
def _stats_after_fill(ring: int) -> tuple[Sim, dict]:
    sim = Sim({"strategy": "page-pool", "ring_size": ring, "traffic": "udp"})
    return sim, dict(sim.pool.stats)


def test_stats_of_the_ring_fill_count_pages_not_fragments():
    # 64 descriptors of 2 KiB fragments: 32 order-0 pages. The first allocation finds the cache
    # and the ptr_ring empty (alloc_empty), takes the slow path once (alloc_slow: one bulk of 64,
    # the last returned), and the next 31 pages come from the cache (alloc_fast). Fragments
    # carved from a page that still has room count nothing.
    _, st = _stats_after_fill(64)
    assert st == {**dict.fromkeys(st, 0), "alloc_empty": 1, "alloc_slow": 1, "alloc_fast": 31}


def test_stats_of_a_second_bulk_and_of_high_order_pages():
    _, st = _stats_after_fill(256)                 # 128 pages: two bulk refills
    assert st["alloc_slow"] == 2 and st["alloc_empty"] == 2 and st["alloc_fast"] == 126
    sim = Sim({"strategy": "page-pool", "ring_size": 64, "page_order": 1, "traffic": "udp"})
    # order 1: 4 frags per 8 KiB page, 16 pages, each from its own alloc_pages (slow_high_order)
    assert sim.pool.stats["alloc_slow_high_order"] == 16 and sim.pool.stats["alloc_slow"] == 0
    assert sim.pool.stats["alloc_empty"] == 16


def test_stats_of_recycling_by_hand():
    sim, _ = _stats_after_fill(64)
    pool = sim.pool
    pages = list(dict.fromkeys(b.page for b in sim.ring.bufs))
    first = pages[0]
    assert first.state == "in-flight" and first.outstanding() == 2     # drained: both frags out
    pool.put_frag(first, allow_direct=True)
    assert pool.stats["recycle_cached"] == 0                          # one fragment still out
    pool.put_frag(first, allow_direct=True)
    assert pool.stats["recycle_cached"] == 1 and first.state == "alloc-cache"
    # fill the alloc cache to PP_ALLOC_CACHE_SIZE (128), then one more direct put
    while len(pool.cache) < 128:
        pool.cache.append(pool.cache[-1])
    second = pages[1]
    pool.put_frag(second, allow_direct=True)
    pool.put_frag(second, allow_direct=True)
    assert pool.stats["recycle_cache_full"] == 1 and pool.stats["recycle_ring"] == 1   # then the ring
    assert second.state == "ptr_ring"
    # a put from outside NAPI goes straight to the ring
    third = pages[2]
    pool.put_frag(third, allow_direct=False)
    pool.put_frag(third, allow_direct=False)
    assert pool.stats["recycle_ring"] == 2 and pool.stats["recycle_cache_full"] == 1
    # a full ptr_ring: the page leaves the pool (recycle_ring_full) and is unmapped
    pool.ring_cap = pool.ring_len()
    fourth = pages[3]
    released = pool.release
    pool.put_frag(fourth, allow_direct=False)
    pool.put_frag(fourth, allow_direct=False)
    assert pool.stats["recycle_ring_full"] == 1 and pool.release == released + 1
    assert not fourth.map.live
    # a refill from the ptr_ring counts once however many pages it moves
    pool.cache.clear()
    before = pool.stats["alloc_refill"]
    page = pool._get_page()
    assert page is not None and pool.stats["alloc_refill"] == before + 1


def test_stats_in_run_json_use_the_kernel_names():
    from models.page_pool import STATS
    from models.runner import run_params
    r = run_params("x", {"strategy": "page-pool"}, 2000)
    assert list(r.page_pool_stats) == list(STATS)
    assert r.page_pool_stats["alloc_fast"] > 0
    plain = run_params("y", {}, 500)
    assert plain.page_pool_stats is None


def test_every_statistic_by_hand_through_one_sequence():
    """Each of the eleven counters of struct page_pool_stats, against a sequence counted by hand."""
    sim, st = _stats_after_fill(64)        # 64 descriptors: 32 order-0 pages of two 2 KiB fragments
    pool = sim.pool
    want = {**dict.fromkeys(st, 0), "alloc_empty": 1, "alloc_slow": 1, "alloc_fast": 31}
    assert st == want
    assert len(pool.cache) == 32                                   # the bulk of 64 less the 32 used
    pages = list(dict.fromkeys(b.page for b in sim.ring.bufs))
    # 1. both fragments of the first page come back in NAPI context: into the alloc cache
    pool.put_frag(pages[0], allow_direct=True)
    pool.put_frag(pages[0], allow_direct=True)
    want["recycle_cached"] += 1
    assert pool.stats == want
    # 2. the next fragment: the full frag page is drained with both fragments out, so a new page
    #    is popped from the alloc cache
    page_b = pool.alloc_frag(2048)
    want["alloc_fast"] += 1
    assert pool.stats == want and page_b is not pages[-1]
    # 3. the frag page's fragments all come back before it is drained: page_pool_alloc_frag reuses
    #    it at once and counts it as recycled into the cache and allocated from it
    pool.put_frag(page_b, allow_direct=False)                      # still carving: no recycle
    again = pool.alloc_frag(2048)
    off = pool.frag_offset - 2048                                  # page_pool_alloc_frag()'s *offset
    assert again is page_b and off == 2048 and pool.stats == want  # a fragment of a page with room: nothing
    pool.put_frag(page_b, allow_direct=False)
    reused = pool.alloc_frag(2048)
    assert reused is page_b and pool.frag_offset - 2048 == 0
    want["recycle_cached"] += 1
    want["alloc_fast"] += 1
    assert pool.stats == want
    # 4. a page freed outside NAPI goes to the ptr_ring; a refill takes it back (one refill)
    pool.put_frag(pages[1], allow_direct=False)
    pool.put_frag(pages[1], allow_direct=False)
    want["recycle_ring"] += 1
    assert pool.stats == want
    pool.cache.clear()
    assert pool._get_page() is pages[1]
    want["alloc_refill"] += 1
    assert pool.stats == want
    # 5. cache and ring both empty: alloc_empty, then one bulk slow-path call (alloc_slow)
    assert pool._get_page() is not None
    want["alloc_empty"] += 1
    want["alloc_slow"] += 1
    assert pool.stats == want
    # one NUMA node and pages only the pool references: never a waive, never a refcnt release
    assert pool.stats["alloc_waive"] == 0 and pool.stats["recycle_released_refcnt"] == 0


@pytest.mark.parametrize("params", [
    {},                                                                 # NAPI: direct recycling
    {"traffic": "udp", "forward": True, "pool_size": 64},               # frees elsewhere: ring, ring full
    {"page_order": 1, "traffic": "udp"},
])
def test_waive_and_released_refcnt_stay_zero_in_long_runs(params):
    from models.runner import run_params
    st = run_params("x", {"strategy": "page-pool", **params}, 6000).page_pool_stats
    assert st["alloc_waive"] == 0 and st["recycle_released_refcnt"] == 0
    assert st["recycle_cached"] + st["recycle_ring"] > 0 and st["alloc_fast"] + st["alloc_refill"] > 0


def test_run_json_gives_every_variant_page_pool_stats_null_without_a_pool():
    import json

    from shipped import shipped_lesson

    from models.page_pool import STATS
    from models.runner import run_lesson
    out = json.loads(json.dumps(run_lesson(shipped_lesson("ath9k-page-pool"), frames=300, sensitivity=False)))
    before, after = out["variants"]["before"], out["variants"]["after"]
    assert "page_pool_stats" in before and before["page_pool_stats"] is None     # null, not missing
    assert list(after["page_pool_stats"]) == list(STATS)
