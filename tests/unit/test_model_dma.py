"""The DMA API model: per-frame map/unmap counts, SWIOTLB bouncing, masks, zones and the IOMMU.

Every expected number below is derived from the kernel behaviour the model
claims to follow (kernel-facts §2-§4, §11), not read back from a run:
  - per-frame RX maps one replacement per frame after filling the ring;
  - SWIOTLB copies the whole mapping in at map (every direction) and back at
    unmap (DMA_FROM_DEVICE), nothing for the TO_DEVICE unmap;
  - a buffer bounces only when it ends above the streaming mask;
  - strict IOMMU invalidates on every unmap, lazy frees IOVAs 256 at a time
    or on the 10 ms flush-queue timer; untrusted devices are forced strict and
    bounce sub-page buffers only.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import pytest
from shipped import shipped_lesson

from models import dma as dma_mod
from models.iommu import FQ_SIZE, IOVA_GRANULE, Iommu
from models.memory import PAGE_SIZE, FOUR_GiB, GiB, MiB, PhysMem
from models.sim import Sim
from models.swiotlb import IO_TLB_SEGSIZE, IO_TLB_SIZE, Swiotlb

SIXTY_FOUR_GiB = 64 * GiB
ACK_BYTES = 66          # the ACK the model transmits (Ethernet + IPv4 + TCP with timestamps)


class SeenMap(NamedTuple):
    """A mapping as the event log shows it: what was mapped, the bus address the device got."""
    id: int
    phys: int
    size: int
    dma: int
    bounced: bool


_collect: list[SeenMap] | None = None


def run(params: dict, frames: int, **kw) -> Sim:
    collect = _collect
    if collect is not None:
        kw.setdefault("trace", 1 << 24)
    sim = Sim(params, **kw)
    sim.run_frames(frames)
    assert sim.processed == frames, "the scenario must deliver every frame it is asked for"
    if collect is not None:
        collect.extend(maps_seen(sim))
    return sim


def maps_seen(sim: Sim) -> list[SeenMap]:
    """Every mapping of a traced run, read from its events (and the live table for those not unmapped).

    Read from the trace, not by wrapping DmaApi.map: in the compiled build the model's calls
    to its own methods cannot be intercepted from Python, and the trace is what both builds share.
    """
    mapped: dict[int, tuple[int, int]] = {}
    dma: dict[int, int] = {}
    bounced: set[int] = set()
    for ev in sim.rec.events or ():
        if not ev.obj.startswith("map#"):
            continue
        mid = int(ev.obj[4:])
        if ev.call in ("dma_map_single", "dma_map_page"):
            phys, size = re.match(r"phys (0x[0-9a-f]+) len (\d+)", ev.detail).groups()
            mapped[mid] = (int(phys, 16), int(size))
        elif ev.call in ("dma_unmap_single", "dma_unmap_page"):
            dma.setdefault(mid, int(re.match(r"dma (0x[0-9a-f]+)", ev.detail).group(1), 16))
        elif ev.call == "swiotlb_tbl_map_single" and "none" not in ev.detail:
            bounced.add(mid)
    for mid, m in sim.dma.live.items():
        dma[mid] = m.dma
    return [SeenMap(mid, phys, size, dma[mid], mid in bounced) for mid, (phys, size) in mapped.items() if mid in dma]


@pytest.fixture
def recorded_maps():
    """Every mapping the DMA API hands out in the next run(), including those already unmapped and the ring fill."""
    global _collect
    maps: list[SeenMap] = []
    _collect = maps
    yield maps
    _collect = None


# ---------------------------------------------------------------------------- per-frame counts
@pytest.mark.parametrize("rx_alloc,call", [("frag", "netdev_alloc_frag"), ("skb", "__netdev_alloc_skb"),
                                           ("kmalloc", "kmalloc")])
@pytest.mark.parametrize("ring_size,frames", [(64, 300), (256, 1000), (512, 776)])
def test_per_frame_maps_ring_plus_n_and_unmaps_n(ring_size, frames, rx_alloc, call):
    # UDP forwarded: no TCP ACKs, so every dma_map_single is an RX buffer.
    sim = run({"traffic": "udp", "forward": True, "ring_size": ring_size, "rx_alloc": rx_alloc}, frames)
    c = sim.rec.counts
    assert c["dma_map_single"] == ring_size + frames
    assert c["dma_unmap_single"] == frames
    assert c[call] == ring_size + frames
    # the skb around each frame: built on arrival, or allocated with the buffer at refill
    builder = {"frag": "build_skb", "skb": "skb_put", "kmalloc": "slab_build_skb"}[rx_alloc]
    assert c[builder] == frames
    assert c["kmem_cache_alloc"] == frames + (ring_size if rx_alloc == "skb" else 0)
    assert c["dma_map_page"] == c["dma_unmap_page"] == 0
    assert c["tcp_send_ack"] == 0
    assert len(sim.dma.live) == ring_size          # exactly one mapping per posted descriptor
    assert sim.rec.violations == []


def test_per_frame_counts_include_the_tcp_ack_tx_mappings():
    n, ring = 1500, 256
    sim = run({"ring_size": ring}, n)
    c = sim.rec.counts
    acks = c["tcp_send_ack"]
    assert acks > 0
    # every ACK is one skb mapped TO_DEVICE on the TX ring
    assert c["dev_queue_xmit"] == acks
    pending = [e for e in sim.stack.tx.ring if e.kind == "skb"]
    assert c["dma_map_single"] == ring + n + acks
    # each reclaimed TX descriptor unmaps its ACK; the pending ones are still mapped
    assert c["tx_complete"] == acks - len(pending)
    assert c["dma_unmap_single"] == n + acks - len(pending)
    assert len(sim.dma.live) == ring + len(pending)
    tx_maps = [m for m in sim.dma.live.values() if m.dir == dma_mod.TO_DEVICE]
    assert len(tx_maps) == len(pending) and all(m.size == ACK_BYTES for m in tx_maps)


def test_per_frame_delayed_ack_is_one_per_two_segments_without_gro():
    sim = run({"gro": False}, 2000)
    st = sim.stack
    # GRO off still batches: gro_normal_one() holds up to gro_normal_batch - 1 skbs on rx_list
    assert st.sock.delivered + st.gro.rx_count == 2000 and st.gro.rx_count < 8
    assert sim.rec.counts["tcp_send_ack"] == st.sock.delivered // 2


# ---------------------------------------------------------------------------- SWIOTLB
@pytest.mark.parametrize("rx_buf_size", [2048, 1536])
def test_32bit_mask_with_16GiB_bounces_every_rx_buffer_twice(rx_buf_size):
    ring, n = 256, 1200
    sim = run({"ram": 16 << 30, "dma_mask": 32, "traffic": "udp", "rx_buf_size": rx_buf_size}, n)
    c = sim.rec.counts
    # one copy per initial ring fill, then per frame: in at the replacement's map, out at the unmap
    assert c["swiotlb_bounce"] == ring + 2 * n
    assert sim.rec.bounce_bytes == c["swiotlb_bounce"] * rx_buf_size
    assert sim.rec.counters()["swiotlb_bounce_bytes"] == sim.rec.bounce_bytes
    assert c["swiotlb_tbl_map_single"] == ring + n
    assert c["swiotlb_tbl_unmap_single"] == n
    assert sim.swiotlb.used_slots == ring * sim.swiotlb.slots_for(rx_buf_size)
    for m in sim.dma.live.values():
        assert m.bounced
        assert m.phys >= FOUR_GiB                 # the buffer itself is in ZONE_NORMAL
        assert m.dma < FOUR_GiB                   # the device sees the low-memory bounce slot
        assert m.dma + m.size - 1 <= sim.dma.mask


def test_swiotlb_steady_state_is_exactly_two_copies_per_frame():
    sim = run({"ram": 16 << 30, "dma_mask": 32, "traffic": "udp"}, 500)
    before, bytes_before = sim.rec.counts["swiotlb_bounce"], sim.rec.bounce_bytes
    sim.run_frames(700)
    assert sim.rec.counts["swiotlb_bounce"] - before == 2 * 700
    assert sim.rec.bounce_bytes - bytes_before == 2 * 700 * 2048


@pytest.mark.parametrize("frames", [1, 7, 300])
def test_swiotlb_keeps_its_latest_copy_as_the_trace_shows_it(frames):
    # What the memory view draws, read from the model, not from the event's text.
    sim = Sim({"ram": 16 << 30, "dma_mask": 32}, trace=100_000)
    sim.run_frames(frames)
    ev = next(e for e in reversed(sim.rec.events) if e.call == "swiotlb_bounce")
    last = sim.swiotlb.last
    assert ev.detail == f"{last.nbytes} bytes {'back to the original' if last.back else 'to bounce buffer'}"
    m = next(e for e in sim.rec.events if e.obj == ev.obj and e.call == "dma_map_single")
    assert f"phys {last.phys:#x}" in m.detail
    assert sim.swiotlb.base <= last.slot_addr < sim.swiotlb.base + sim.swiotlb.size


def test_swiotlb_tcp_acks_bounce_once_at_map_and_never_at_unmap():
    ring, n = 256, 1000
    sim = run({"ram": 16 << 30, "dma_mask": 32}, n)
    c = sim.rec.counts
    acks = c["tcp_send_ack"]
    assert acks > 0
    # the ACK data (kmalloc above 4 GiB) is copied into the bounce buffer at map (TO_DEVICE);
    # its unmap copies nothing back
    assert c["swiotlb_bounce"] == ring + 2 * n + acks
    assert sim.rec.bounce_bytes == (ring + 2 * n) * 2048 + acks * ACK_BYTES


@pytest.mark.parametrize("params", [
    {"ram": 2 << 30, "dma_mask": 32},                # all RAM below 4 GiB
    {"ram": 8 << 30, "dma_mask": 36},                # all RAM below 64 GiB
    {"ram": 16 << 30, "dma_mask": 64},
])
def test_no_bounce_when_every_buffer_is_below_the_mask(params, recorded_maps):
    sim = run({**params, "traffic": "udp"}, 800)
    c = sim.rec.counts
    assert c["swiotlb_bounce"] == 0 and sim.rec.bounce_bytes == 0
    assert c["swiotlb_tbl_map_single"] == 0
    assert recorded_maps and not any(m.bounced for m in recorded_maps)
    assert all(m.dma == m.phys for m in recorded_maps)     # dma-direct: bus address == physical
    if params["ram"] > 4 << 30:
        # the buffers do sit above 4 GiB: it is the mask, not luck, that keeps them direct
        assert all(m.phys >= FOUR_GiB for m in recorded_maps)


def test_2GiB_machine_has_no_swiotlb_at_all():
    sim = Sim({"ram": 2 << 30, "dma_mask": 32})
    assert sim.swiotlb is None       # x86 pci_swiotlb_detect(): only when RAM reaches above 4 GiB


def test_36bit_mask_with_80GiB_fresh_boot_maps_in_place(recorded_maps):
    # v5.10+: boot frees pages to the tail of the free lists, so the first RX buffers come
    # from the bottom of ZONE_NORMAL, just above 4 GiB: far below what 36 bits reach.
    sim = run({"ram": 80 << 30, "dma_mask": 36, "traffic": "udp"}, 600)
    assert recorded_maps and not any(m.bounced for m in recorded_maps)
    assert all(FOUR_GiB <= m.phys < FOUR_GiB + GiB for m in recorded_maps)
    assert sim.rec.counts["swiotlb_tbl_map_single"] == 0


def test_36bit_mask_with_80GiB_top_down_placement_bounces_above_64GiB(recorded_maps):
    # Kernels before v5.10 put boot pages at the head of the free lists: allocations come
    # from the top of ZONE_NORMAL, which on 80 GiB is above 64 GiB: those buffers bounce.
    sim = run({"ram": 80 << 30, "dma_mask": 36, "traffic": "udp", "page_placement": "top-down"}, 600)
    bounced = [m for m in recorded_maps if m.bounced]
    direct = [m for m in recorded_maps if not m.bounced]
    assert bounced
    for m in bounced:
        assert m.phys + m.size - 1 > (1 << 36) - 1
        assert m.dma < FOUR_GiB                    # the SWIOTLB pool is in low memory
    for m in direct:
        assert m.phys + m.size - 1 <= (1 << 36) - 1
    assert sim.rec.counts["swiotlb_tbl_map_single"] == len(bounced)
    assert sim.rec.violations == []


def test_swiotlb_pool_is_reserved_at_the_top_of_low_memory():
    sim = Sim({"ram": 8 << 30, "dma_mask": 32})
    assert sim.swiotlb is not None
    # memblock_alloc_low() allocates top-down: the 64 MiB pool ends where low RAM ends
    assert sim.swiotlb.base + sim.swiotlb.size == 3 * GiB
    assert sim.mem.zone_of(sim.swiotlb.base) == "DMA32"
    # and the buddy allocator never hands those pages out
    dma32 = next(z for z in sim.mem.zones if z.name == "DMA32")
    assert dma32.avail_end == sim.swiotlb.base


def test_coherent_ring_follows_the_coherent_mask():
    low = Sim({"ram": 16 << 30, "coherent_mask": 32})
    high = Sim({"ram": 16 << 30, "coherent_mask": 64})
    assert low.ring_phys < FOUR_GiB                # ZONE_DMA32 for a 32-bit coherent mask
    assert high.ring_phys >= FOUR_GiB
    # ath11k: streaming mask 36 and coherent mask 32 are kept apart
    split = Sim({"ram": 16 << 30, "dma_mask": 36, "coherent_mask": 32})
    assert split.ring_phys < FOUR_GiB and split.dma.mask == (1 << 36) - 1


# ---------------------------------------------------------------------------- memory and zones
def test_physmem_layout_remaps_ram_above_the_pci_hole():
    mem = PhysMem(8 << 30)
    zones = {z.name: (z.start, z.end) for z in mem.zones}
    assert zones["DMA"] == (0, 16 * MiB)
    assert zones["DMA32"] == (16 * MiB, 3 * GiB)
    assert zones["Normal"] == (4 * GiB, 9 * GiB)
    assert mem.max_addr == 9 * GiB
    small = PhysMem(2 << 30)
    assert [z.name for z in small.zones] == ["DMA", "DMA32"] and small.max_addr == 2 * GiB


@pytest.mark.parametrize("lesson", ["ath9k-page-pool", "bgmac-napi-skb-cache"])
def test_a_32_bit_board_has_one_zone_normal_from_address_0(lesson):
    # 32-bit PowerPC and MIPS have no ZONE_DMA32 (and these boards no ZONE_DMA): their paging_init()
    # sizes ZONE_NORMAL only, and the kernel image sits at its bottom, below every buffer.
    sim = Sim(shipped_lesson(lesson).params_for("before"))
    sim.run_frames(50)
    assert [(z.name, z.start) for z in sim.mem.zones] == [("Normal", 0)]
    assert all(16 * MiB <= m.phys < sim.mem.max_addr and sim.mem.zone_of(m.phys) == "Normal"
               for m in sim.dma.live.values())


def test_page_allocator_prefers_the_highest_zone_and_honours_limits():
    mem = PhysMem(8 << 30)
    a = mem.alloc(0)
    assert mem.zone_of(a) == "Normal" and a >= FOUR_GiB
    b = mem.alloc(0, limit=FOUR_GiB)
    assert mem.zone_of(b) == "DMA32" and b < FOUR_GiB
    big = mem.alloc(3)
    assert big % (PAGE_SIZE << 3) == 0           # naturally aligned
    assert mem.allocated_pages == 1 + 1 + 8
    mem.free(a, 0)
    assert mem.alloc(0) == a                     # LIFO reuse of a freed block
    assert mem.allocated_pages == 10


# ---------------------------------------------------------------------------- SWIOTLB slots
def test_swiotlb_slot_rules():
    sw = Swiotlb(base=1 << 30, size=2 * IO_TLB_SEGSIZE * IO_TLB_SIZE)
    assert sw.nslabs == 256 and IO_TLB_SIZE == 2048
    assert sw.slots_for(1) == 1 and sw.slots_for(2048) == 1 and sw.slots_for(2049) == 2
    assert sw.find(IO_TLB_SIZE * IO_TLB_SEGSIZE + 1) == -1      # larger than one segment
    # fill 125 single slots, then ask for a 3-slot page-sized run: it must not cross slot 128
    for i in range(125):
        assert sw.find(1500) == i
    s = sw.find(6000)
    assert s % 2 == 0, "mappings of a page or more are page aligned"
    assert s // IO_TLB_SEGSIZE == (s + 2) // IO_TLB_SEGSIZE, "a run never crosses a 128-slot segment"
    assert sw.used_slots == 125 + 3 and sw.hiwater == 128
    sw.release(s, 6000)
    sw.release(0, 1500)
    assert sw.used_slots == 124 and sw.hiwater == 128
    assert sw.addr(5) == (1 << 30) + 5 * 2048


def test_swiotlb_reports_full():
    sw = Swiotlb(base=0, size=4 * IO_TLB_SIZE)
    assert [sw.find(2048) for _ in range(4)] == [0, 1, 2, 3]
    assert sw.find(2048) == -1
    sw.release(2, 2048)
    assert sw.find(2048) == 2


def test_swiotlb_full_is_a_kernel_warning_not_a_violation():
    # 1 MiB pool = 512 slots, 1024 descriptors of one slot each: the fill runs out
    sim = Sim({"ram": 16 << 30, "dma_mask": 32, "swiotlb_size": 1 << 20, "ring_size": 1024, "traffic": "udp"})
    assert sim.swiotlb.used_slots == sim.swiotlb.nslabs == 512
    assert sim.ring.device_owned == 512
    assert sim.rec.warnings and sim.rec.warnings[0].name == "swiotlb-full"
    assert "swiotlb buffer is full (sz: 2048 bytes), total 512 (slots), used 512 (slots)" in sim.rec.warnings[0].message
    assert sim.rec.violations == []


# ---------------------------------------------------------------------------- IOMMU unit
def test_iommu_iova_allocation_and_rcache():
    io = Iommu(strict=True)
    dma, pages = io.map(0x1234_5800, 2048)
    assert pages == 1 and dma & (IOVA_GRANULE - 1) == 0x800     # the offset within the page is kept
    assert dma < FOUR_GiB                                      # IOVAs below 4 GiB first
    dma2, pages2 = io.map(0x2000_0F00, 512)                    # crosses into a second page
    assert pages2 == 2
    assert io.mapped_pages == 3
    assert io.unmap(dma, pages) is False                       # strict: nothing queued
    dma3, _ = io.map(0x5000_0000, 100)
    assert dma3 & ~(IOVA_GRANULE - 1) == dma & ~(IOVA_GRANULE - 1)   # the freed IOVA is reused


def test_strict_iommu_syncs_the_iotlb_on_every_unmap():
    sim = run({"iommu": "strict", "traffic": "udp"}, 1000)
    c = sim.rec.counts
    assert c["iommu_map"] == c["dma_map_single"] == 256 + 1000
    assert c["iommu_unmap"] == c["dma_unmap_single"] == 1000
    assert c["iotlb_sync"] == c["iommu_unmap"]
    assert c["fq_flush_iotlb"] == 0
    assert sim.iommu.mapped_pages == len(sim.dma.live) == 256
    assert all(m.dma < FOUR_GiB for m in sim.dma.live.values())


@pytest.mark.parametrize("rate,frames", [(10**9, 600), (10 * 10**9, 3000)])
def test_lazy_iommu_flushes_once_per_full_queue(rate, frames):
    # the whole run is shorter than the 10 ms flush-queue timeout: only full queues flush
    sim = run({"iommu": "lazy", "traffic": "udp", "rate": rate}, frames, trace=1_000_000)
    assert sim.now_ns < 10_000_000
    c = sim.rec.counts
    assert c["iotlb_sync"] == 0
    assert c["iommu_unmap"] == frames
    # floor(unmaps/256); for these counts the same as the kernel's floor((unmaps-1)/255)
    assert c["fq_flush_iotlb"] == frames // FQ_SIZE == (frames - 1) // (FQ_SIZE - 1)
    freed = [int(re.search(r"(\d+) IOVAs freed", e.detail).group(1))
             for e in sim.rec.events if e.call == "fq_flush_iotlb"]
    assert sum(freed) + len(sim.iommu.fq) == frames
    assert len(set(freed)) == 1 and freed[0] in (FQ_SIZE - 1, FQ_SIZE)


def test_lazy_iommu_full_queue_is_255_entries():
    sim = run({"iommu": "lazy", "traffic": "udp"}, 600, trace=1_000_000)
    freed = [int(re.search(r"(\d+) IOVAs freed", e.detail).group(1))
             for e in sim.rec.events if e.call == "fq_flush_iotlb"]
    assert freed == [255, 255]
    assert len(sim.iommu.fq) == 600 - 2 * 255


def test_lazy_iommu_timer_fires_every_10ms_under_load():
    sim = run({"iommu": "lazy", "traffic": "udp"}, 2000, trace=1_000_000)   # 24.6 ms of traffic
    timer = [e for e in sim.rec.events if e.call == "fq_flush_iotlb" and e.detail.startswith("timer")]
    assert len(timer) >= 2


def test_lazy_iommu_timer_flushes_at_low_rate():
    # 20 Mbit/s: one frame per 615 us, so about 16 unmaps per 10 ms timeout
    sim = run({"iommu": "lazy", "traffic": "udp", "rate": 20 * 10**6}, 1500, trace=1_000_000)
    c = sim.rec.counts
    flushes = [e for e in sim.rec.events if e.call == "fq_flush_iotlb"]
    assert len(flushes) == c["fq_flush_iotlb"] > 0
    freed = [int(re.search(r"(\d+) IOVAs freed", e.detail).group(1)) for e in flushes]
    # every IOVA an unmap queued is freed by exactly one flush, or is still queued
    assert sum(freed) + len(sim.iommu.fq) == c["iommu_unmap"]
    assert all(e.detail.startswith("timer") for e in flushes)
    assert all(0 < f < FQ_SIZE for f in freed)
    # a timer flush needs 10 ms since the first unmap it covers: no more than one per 10 ms
    # of simulated time, and the traffic is continuous, so not many fewer either
    elapsed_ms = sim.now_ns / 1e6
    assert len(flushes) <= elapsed_ms / 10
    assert len(flushes) >= elapsed_ms / 11 - 1
    assert c["iotlb_sync"] == 0


def test_untrusted_device_is_strict_and_bounces_every_sub_page_rx_buffer():
    ring, n = 256, 1000
    sim = run({"iommu": "lazy", "untrusted": True, "traffic": "udp"}, n)
    assert sim.iommu_mode == "strict"
    c = sim.rec.counts
    assert c["iotlb_sync"] == c["iommu_unmap"] == n
    assert c["fq_flush_iotlb"] == 0
    # 2 KiB buffers are not granule aligned in size: every one is bounced
    assert c["swiotlb_tbl_map_single"] == c["dma_map_single"] == ring + n
    assert c["swiotlb_bounce"] == ring + 2 * n
    assert all(m.bounced for m in sim.dma.live.values())


@pytest.mark.parametrize("page_order", [0, 1])
def test_untrusted_page_pool_whole_pages_are_not_bounced(page_order):
    sim = run({"iommu": "strict", "untrusted": True, "traffic": "udp", "strategy": "page-pool",
               "page_order": page_order}, 1500)
    c = sim.rec.counts
    assert c["swiotlb_bounce"] == 0 and c["swiotlb_tbl_map_single"] == 0
    assert c["iommu_map"] == c["dma_map_page"] == c["page_pool_dma_map"] > 0
    assert sim.iommu.mapped_pages == c["dma_map_page"] << page_order


def test_untrusted_passthrough_is_refused_and_forced_strict():
    sim = Sim({"iommu": "passthrough", "untrusted": True})
    assert sim.iommu_mode == "strict" and sim.iommu is not None and sim.iommu.strict


@pytest.mark.parametrize("ram", [2 << 30, 16 << 30])
def test_untrusted_device_without_an_iommu_is_plain_dma_direct(ram, recorded_maps):
    # iommu=off: there is no DMA domain to force strict, and dev_use_swiotlb() is a dma-iommu
    # test: an external-facing device is mapped like any other.
    n = 400
    sim = run({"ram": ram, "iommu": "off", "untrusted": True, "traffic": "udp", "forward": True}, n)
    c = sim.rec.counts
    assert sim.iommu is None and sim.iommu_mode == "off"
    assert c["iommu_map"] == c["iommu_unmap"] == c["iotlb_sync"] == 0
    assert c["swiotlb_bounce"] == 0 and c["swiotlb_tbl_map_single"] == 0
    assert all(m.dma == m.phys for m in recorded_maps)
    if ram <= 3 << 30:
        assert sim.swiotlb is None      # x86 enables SWIOTLB only when RAM reaches above 4 GiB


def test_iommu_hides_the_32bit_mask_problem():
    # translated DMA: IOVAs are below 4 GiB, so a 32-bit device on a 16 GiB machine does not bounce
    sim = run({"ram": 16 << 30, "dma_mask": 32, "iommu": "lazy", "traffic": "udp"}, 500)
    assert sim.rec.counts["swiotlb_bounce"] == 0
    assert all(m.dma <= (1 << 32) - 1 for m in sim.dma.live.values())


# ---------------------------------------------------------------------------- the checker
def test_checker_reports_double_unmap_wrong_size_and_direction():
    sim = Sim({"traffic": "udp"})
    d = sim.dma
    m = d.map(0x1_0000_0000, 2048, dma_mod.FROM_DEVICE)
    d.cpu_read(m, "a buffer the device owns")
    d.unmap(m, 1024, dma_mod.TO_DEVICE)
    d.unmap(m, 2048, dma_mod.FROM_DEVICE)
    names = [v.name for v in sim.rec.violations]
    assert names == ["no-sync-for-cpu", "wrong-size", "wrong-direction", "double-unmap"]     # check_unmap()'s order
    # the kernel's own words (kernel/dma/debug.c, check_unmap)
    assert sim.rec.violations[1].message == (
        "DMA-API: device driver frees DMA memory with different size [device address=0x0000000100000000] "
        "[map size=2048 bytes] [unmap size=1024 bytes]")
    assert sim.rec.violations[2].message == (
        "DMA-API: device driver frees DMA memory with different direction [device address=0x0000000100000000] "
        "[size=1024 bytes] [mapped with DMA_FROM_DEVICE] [unmapped with DMA_TO_DEVICE]")
    assert sim.rec.violations[3].message == (
        "DMA-API: device driver tries to free DMA memory it has not allocated "
        "[device address=0x0000000100000000] [size=2048 bytes]")


def test_swiotlb_copies_back_at_unmap_by_the_direction_the_unmap_is_called_with():
    """swiotlb_tbl_unmap_single(): FROM_DEVICE and BIDIRECTIONAL copy the slot back, TO_DEVICE does not."""
    for mapped, unmapped, back in ((dma_mod.FROM_DEVICE, dma_mod.FROM_DEVICE, True),
                                   (dma_mod.BIDIRECTIONAL, dma_mod.BIDIRECTIONAL, True),
                                   (dma_mod.FROM_DEVICE, dma_mod.TO_DEVICE, False)):
        sim = Sim({"traffic": "udp", "swiotlb": "force"})
        m = sim.dma.map(0x1_0000_0000, 2048, mapped)
        before = sim.rec.cnt[dma_mod.C["swiotlb_bounce"]]
        sim.dma.unmap(m, 2048, unmapped)
        assert (sim.rec.cnt[dma_mod.C["swiotlb_bounce"]] > before) is back, (mapped, unmapped)


def test_checker_accepts_a_synced_read():
    sim = Sim({"traffic": "udp"})
    d = sim.dma
    m = d.map(0x1_0000_0000, 2048, dma_mod.FROM_DEVICE)
    d.sync_for_cpu(m, 0, 1514, dma_mod.FROM_DEVICE)
    d.cpu_read(m, "a synced buffer")
    d.sync_for_device(m, 0, 2048)
    d.unmap(m, 2048, dma_mod.FROM_DEVICE)
    d.cpu_read(m, "an unmapped buffer")
    assert sim.rec.violations == []


def test_tx_mapping_failure_drops_the_ack_instead_of_crashing():
    # 512 descriptors of 2 KiB page_pool frags pin 256 pages = 512 slots: the whole 1 MiB pool
    sim = Sim({"ram": 16 << 30, "dma_mask": 32, "swiotlb_size": 1 << 20, "strategy": "page-pool",
               "ring_size": 512})
    sim.run_frames(200)
    assert any(w.name == "swiotlb-full" for w in sim.rec.warnings)
    assert sim.rec.violations == []


def test_untrusted_bounce_buffers_never_share_an_iommu_page():
    sim = run({"iommu": "strict", "untrusted": True, "traffic": "udp"}, 300)
    bounced = [m for m in sim.dma.live.values() if m.bounced]
    pages = [sim.swiotlb.addr(m.slot) >> 12 for m in bounced]
    assert len(set(pages)) == len(pages), "the device could read another buffer through its IOMMU page"
    assert sim.swiotlb.used_slots == 2 * len(bounced)      # a 4 KiB granule = two 2 KiB slots each
