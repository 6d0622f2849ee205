"""Property tests over random scenarios: no violations, no illegal transitions, exact accounting.

Each example is a small PCIe scenario (at most 400 frames) run in a few chunks and then torn
down. Between chunks: counters and time never go backwards, nothing is unmapped more often
than it was mapped, and the live DMA state (mappings, SWIOTLB slots, IOMMU pages) is exactly
what the counters say. After teardown everything is returned.
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from models.nic import NICS
from models.params import check
from models.params import full as full_params
from models.sim import Sim

GiB = 1 << 30
ZERO = {"live_mappings": 0, "swiotlb_used_slots": 0, "pool_inflight": 0, "skb_heads_in_use": 0,
        "tx_pending": 0, "socket_queue": 0, "iommu_mapped_pages": 0, "rx_buffers_in_use": 0}
PAIRS = (("dma_unmap_single", "dma_map_single"), ("dma_unmap_page", "dma_map_page"),
         ("iommu_unmap", "iommu_map"), ("swiotlb_tbl_unmap_single", "swiotlb_tbl_map_single"),
         ("page_pool_return_netmem", "page_pool_dma_map"), ("kfree", "kmalloc"))


@st.composite
def scenarios(draw):
    strategy = draw(st.sampled_from(["per-frame", "page-flip", "page-pool"]))
    platform = draw(st.sampled_from(["x86-generic", "x86-generic", "mips74kc-bcm4716", "x86-strix-halo-tb"]))
    nic = NICS[platform]
    # page-flip slices are a fixed 2 KiB (AQ_CFG_RX_FRAME_MAX): jumbo frames need other strategies
    jumbo = strategy != "page-flip" and nic.mtu_max >= 9000
    mtu = draw(st.sampled_from([1500, 9000])) if jumbo else 1500
    page_order = draw(st.integers(0, 3))
    if strategy == "page-pool" and mtu == 9000:
        page_order = max(page_order, 2)          # a 9 KiB fragment needs a 16 KiB page
    traffic = draw(st.sampled_from(["tcp", "udp"]))
    p = {
        "bus": "pcie",
        "strategy": strategy,
        "ram": draw(st.sampled_from([1, 2, 4, 8, 16, 80])) * GiB,
        "dma_mask": draw(st.sampled_from([32, 36, 64])),
        "iommu": draw(st.sampled_from(["off", "lazy", "strict"])),
        "untrusted": draw(st.booleans()),
        "ring_size": draw(st.integers(nic.ring_min, min(nic.ring_max, 512)).map(
            lambda n: max(nic.ring_min, n - n % nic.ring_step))),
        "budget": draw(st.integers(8, 64)),
        "gro": draw(st.booleans()),
        "traffic": traffic,
        "rate": draw(st.sampled_from([50 * 10**6, 10**9, 10 * 10**9])),
        "mtu": mtu,
        "rx_buf_size": 2048 if mtu == 1500 else 9216,
        "page_order": page_order,
        "skb_alloc": draw(st.sampled_from(["build_skb", "napi_build_skb"])),
        "tx_free": draw(st.sampled_from(["dev_kfree_skb", "napi_consume_skb"])),
        "dma_dir": draw(st.sampled_from(["from_device", "bidirectional"])),
        "forward": draw(st.booleans()),
        "rx_usecs": draw(st.sampled_from([0, 0, 20_000])),
        "platform": platform,
    }
    if strategy == "page-pool":
        # XDP_TX with TCP would reflect the sender's segments and never ACK them
        p["xdp"] = draw(st.sampled_from(["off", "pass", "tx"] if traffic == "udp" else ["off", "pass"]))
    frames = draw(st.integers(1, 400))
    chunks = draw(st.integers(1, 4))
    assume(not check(full_params(p)))       # only scenarios the kernel and the NIC allow
    return p, frames, chunks


def live_state_matches_counters(sim: Sim) -> None:
    c = sim.rec.counts
    live = list(sim.dma.live.values())
    mapped = c["dma_map_single"] + c["dma_map_page"] - c["dma_unmap_single"] - c["dma_unmap_page"]
    assert len(live) == mapped
    if sim.swiotlb is not None:
        assert sim.swiotlb.used_slots == sum(sim.swiotlb.slots_for(m.bsize) for m in live if m.bounced)
        assert sim.swiotlb.used_slots <= sim.swiotlb.nslabs
    else:
        assert not any(m.bounced for m in live)
    if sim.iommu is not None:
        assert sim.iommu.mapped_pages == sum(m.pages for m in live)
        assert c["iommu_map"] - c["iommu_unmap"] == len(live)
    else:
        assert c["iommu_map"] == 0
    for m in live:
        if not m.bounced and sim.iommu is None:
            assert m.dma + m.size - 1 <= sim.dma.mask, "a direct mapping beyond the streaming mask"
    if sim.pool is not None:
        pool = sim.pool
        assert pool.inflight() == len(pool.pages) >= 0
        assert all(pg.pp_ref >= 0 for pg in pool.pages.values())
        assert c["page_pool_dma_map"] == pool.hold and c["page_pool_return_netmem"] == pool.release
    assert sim.heads.in_use >= 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_random_scenarios_are_clean_and_fully_accounted(case):
    params, frames, chunks = case
    sim = Sim(params)
    prev_counts = dict(sim.rec.counts)
    prev_now = sim.engine.now
    prev_bounce = sim.rec.bounce_bytes
    sizes = [frames // chunks] * chunks
    sizes[-1] += frames - sum(sizes)
    for n in sizes:
        sim.run_frames(n)
        counts = sim.rec.counts
        assert all(counts[k] >= prev_counts.get(k, 0) for k in counts), "a counter went backwards"
        assert sim.engine.now >= prev_now, "time went backwards"
        assert sim.rec.bounce_bytes >= prev_bounce
        for undo, do in PAIRS:
            assert counts[undo] <= counts[do], f"{undo} > {do}"
        assert sim.processed <= frames
        assert sim.rec.violations == [], sim.rec.violations[:3]
        live_state_matches_counters(sim)
        prev_counts, prev_now, prev_bounce = dict(counts), sim.engine.now, sim.rec.bounce_bytes
    sim.teardown()
    assert sim.rec.violations == [], sim.rec.violations[:3]
    assert sim.accounting() == ZERO
    assert sim.engine.now >= prev_now
    assert all(sim.rec.counts[k] >= prev_counts.get(k, 0) for k in sim.rec.counts)
    c = sim.rec.counts
    assert c["dma_unmap_single"] == c["dma_map_single"]
    assert c["dma_unmap_page"] == c["dma_map_page"]
    assert c["iommu_unmap"] == c["iommu_map"]
    assert c["swiotlb_tbl_unmap_single"] == c["swiotlb_tbl_map_single"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_random_scenarios_are_deterministic(case):
    params, frames, chunks = case
    a, b = Sim(params), Sim(params)
    a.run_frames(frames)
    for _ in range(chunks):
        b.run_frames(frames // chunks)
    b.run_frames(frames - (frames // chunks) * chunks)
    assert a.processed == b.processed
    assert a.engine.now == b.engine.now
    assert a.rec.counts == b.rec.counts
    assert a.rec.bounce_bytes == b.rec.bounce_bytes
