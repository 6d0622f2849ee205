"""Platform profiles: what each operation costs on a given machine, and why.

Every value carries its source or its reasoning. Values marked "estimate" are
engineering estimates from the CPU's clock and the kind of work the kernel
function does (a SLUB fast-path allocation is a few dozen instructions; a
memcpy of cold memory runs at DRAM speed); they are not measurements of the
machines in the patches. Where a lesson needs a number nobody published, it
fits *one* of these to the patch's *before* figure and says so (the lesson's
`fitted:` section); the *after* figure is then a prediction.

All costs are in nanoseconds of CPU time unless the name says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Final

# field name -> (doc, parser)
COST_DOC: Final[dict[str, str]] = {
    "cpu_mhz": "CPU clock in MHz (for the record; costs below are already in ns)",
    "coherent": "DMA is cache-coherent (x86: yes; many embedded SoCs: no)",
    "cacheline": "cache-line size in bytes (non-coherent cache maintenance works per line)",
    "cache_line_op_ns": "invalidate or write back one cache line (non-coherent DMA only)",
    "memcpy_gbs": "memcpy bandwidth for cold buffers, GB/s",
    "swiotlb_copy_gbs": "effective rate of a SWIOTLB bounce (the copy between a buffer and its slots, with the "
                        "cache misses on both sides), GB/s; 0 means memcpy_gbs",
    "copy_user_gbs": "copy-to-user bandwidth for tcp_recvmsg, GB/s",
    "hardirq_ns": "interrupt entry, handler and exit",
    "napi_poll_ns": "net_rx_action and the driver's poll set-up, per poll",
    "driver_rx_ns": "driver work per RX descriptor (read status, write the refill)",
    "driver_tx_ns": "driver work per TX descriptor (post or reclaim)",
    "kmalloc_ns": "allocate an RX data buffer (slab or page_frag fast path)",
    "kfree_ns": "free an RX data buffer",
    "kmem_cache_alloc_ns": "allocate a struct sk_buff from skbuff_cache (SLUB fast path)",
    "kmem_cache_free_ns": "free a struct sk_buff to skbuff_cache",
    "kmem_cache_bulk_ns": "per object, kmem_cache_alloc_bulk / kmem_cache_free_bulk",
    "napi_cache_ns": "push or pop the per-CPU NAPI skb cache",
    "build_skb_ns": "initialise an sk_buff around a buffer (__build_skb_around)",
    "alloc_pages_ns": "buddy allocator, order-0 from the per-CPU lists",
    "alloc_pages_bulk_ns": "per page, alloc_pages_bulk_node (page_pool's order-0 slow path)",
    "put_page_ns": "drop the last reference and free a page",
    "dma_map_ns": "dma-direct map or unmap bookkeeping (no copy, no IOMMU)",
    "dma_sync_ns": "a dma_sync_* call with nothing to copy",
    "swiotlb_find_ns": "swiotlb_tbl_map_single: search an area for free slots under its lock",
    "swiotlb_release_ns": "swiotlb_release_slots under the area lock",
    "iommu_map_ns": "IOVA allocation plus IOMMU page-table write (iommu_map)",
    "iommu_unmap_ns": "IOMMU page-table clear and IOVA free (iommu_unmap)",
    "iotlb_sync_ns": "strict mode: IOTLB invalidation and wait for completion, per unmap",
    "iotlb_flush_all_ns": "lazy mode: one flush of the whole IOTLB for a full flush queue",
    "pp_fast_ns": "page_pool alloc-cache pop or direct recycle push",
    "pp_ring_ns": "page_pool ptr_ring produce or consume (spinlock)",
    "gro_ns": "dev_gro_receive per segment: flow lookup and merge",
    "stack_skb_ns": "netif_receive_skb: IP and TCP/UDP receive, per skb",
    "stack_seg_ns": "per segment of a delivered skb, the protocol and socket work stack_skb_ns does not cover; "
                    "where a lesson fits it, everything else a segment costs that the model does not itemise",
    "mac80211_ns": "mac80211 RX handlers per frame (Wi-Fi drivers only)",
    "path_rest_ns": "routed frames (forward=true): everything else a frame costs after the receive path, per "
                    "frame: ip_forward, netfilter and NAT, the qdisc, the egress driver's xmit and TX completion, "
                    "and the cache misses of all of it (the model does not itemise that path)",
    "tcp_ack_ns": "build and send one TCP ACK (tcp_send_ack, qdisc, driver xmit)",
    "recv_ns": "one tcp_recvmsg call, excluding the copy",
    "link_bps": "line rate of the receive path in bit/s (air rate for Wi-Fi)",
    "rtt_ns": "round-trip time between the sender and this host",
    "sdio_bps": "SDIO data rate in bit/s while a CMD53 moves data",
    "sdio_xfer_ns": "fixed cost of one SDIO CMD53 transfer (the host's request, DMA and completion)",
    "sdio_duty": "share of the time the SDIO bus moves data; the rest it waits (interrupt latency, copies, "
                 "the firmware refilling its mailbox)",
    "hz": "kernel tick rate (GRO flushes packets older than one jiffy when the budget runs out)",
    "reader_same_cpu": "the socket reader runs on the RX CPU (single-core SoCs) instead of another core",
    "zone_dma32": "the architecture has ZONE_DMA and ZONE_DMA32 below 4 GiB (x86-64); else its low RAM is "
                  "one ZONE_NORMAL (32-bit PowerPC and MIPS)",
}


@dataclass(frozen=True)
class Platform:
    name: str
    title: str
    cpu_mhz: int = 3000
    coherent: bool = True
    cacheline: int = 64
    cache_line_op_ns: float = 0.0
    memcpy_gbs: float = 8.0
    swiotlb_copy_gbs: float = 0.0
    copy_user_gbs: float = 10.0
    hardirq_ns: float = 400.0
    napi_poll_ns: float = 300.0
    driver_rx_ns: float = 60.0
    driver_tx_ns: float = 60.0
    kmalloc_ns: float = 60.0
    kfree_ns: float = 50.0
    kmem_cache_alloc_ns: float = 40.0
    kmem_cache_free_ns: float = 40.0
    kmem_cache_bulk_ns: float = 12.0
    napi_cache_ns: float = 5.0
    build_skb_ns: float = 50.0
    alloc_pages_ns: float = 150.0
    alloc_pages_bulk_ns: float = 60.0
    put_page_ns: float = 100.0
    dma_map_ns: float = 25.0
    dma_sync_ns: float = 10.0
    swiotlb_find_ns: float = 150.0
    swiotlb_release_ns: float = 80.0
    iommu_map_ns: float = 300.0
    iommu_unmap_ns: float = 250.0
    iotlb_sync_ns: float = 2000.0
    iotlb_flush_all_ns: float = 3000.0
    pp_fast_ns: float = 15.0
    pp_ring_ns: float = 40.0
    gro_ns: float = 80.0
    stack_skb_ns: float = 700.0
    stack_seg_ns: float = 80.0
    mac80211_ns: float = 0.0
    path_rest_ns: float = 1500.0
    tcp_ack_ns: float = 600.0
    recv_ns: float = 300.0
    link_bps: int = 10 * 10**9
    rtt_ns: int = 50_000
    sdio_bps: int = 730 * 10**6
    sdio_xfer_ns: float = 23_000.0
    sdio_duty: float = 1.0
    hz: int = 1000
    reader_same_cpu: bool = False
    zone_dma32: bool = True
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def with_overrides(self, values: dict[str, Any]) -> Platform:
        known = {f.name for f in fields(self)} - {"name", "title", "sources"}
        return replace(self, **{k: v for k, v in values.items() if k in known})

    def source(self, name: str) -> str:
        return self.sources.get(name, "x86-generic estimate (see models/platform.py)")


def _generic_sources() -> dict[str, str]:
    return {
        "cpu_mhz": "a 3 GHz x86-64 core",
        "memcpy_gbs": "estimate: single-core copy of cache-cold buffers on DDR4/DDR5 runs at 6-12 GB/s",
        "kmem_cache_alloc_ns": "estimate: SLUB fast path is a this_cpu_cmpxchg on the per-CPU freelist, ~100 cycles",
        "alloc_pages_bulk_ns": "estimate: the bulk allocator takes each page off the per-CPU list under one lock "
                               "and IRQ save, about 40% of a single order-0 allocation",
        "iotlb_sync_ns": "estimate: VT-d/AMD-Vi queued invalidation plus completion wait is of the order of "
                         "microseconds",
        "link_bps": "10GbE",
        "hz": "CONFIG_HZ=1000, the usual x86 desktop setting",
    }


PROFILES: Final[dict[str, Platform]] = {}


def _add(p: Platform) -> None:
    PROFILES[p.name] = p


_add(Platform("x86-generic", "generic 3 GHz x86-64 with a 10GbE NIC", sources=_generic_sources()))

_add(Platform(
    "x86-wcn6855", "x86-64 laptop with a WCN6855 Wi-Fi 6E card (ath11k, PCIe)",
    link_bps=1_200_000_000, rtt_ns=3_000_000, mac80211_ns=900.0, stack_skb_ns=900.0,
    sources={**_generic_sources(),
             "link_bps": "estimate: TCP goodput of a 2x2 HE80 link, ~1.2 Gbit/s",
             "rtt_ns": "estimate: Wi-Fi round trip with aggregation, a few ms",
             "mac80211_ns": "estimate: mac80211 RX handlers, reorder and 802.11->802.3 per frame"}))

_add(Platform(
    "ppc464-apm82181", "Meraki MX60: AMCC APM82181 (PowerPC 464, 800 MHz), AR9300 ath9k on PCIe",
    cpu_mhz=800, coherent=False, cacheline=32, cache_line_op_ns=6.0,
    memcpy_gbs=0.8, copy_user_gbs=0.8,
    hardirq_ns=3000.0, napi_poll_ns=1500.0, driver_rx_ns=900.0, driver_tx_ns=600.0,
    kmalloc_ns=1200.0, kfree_ns=700.0, kmem_cache_alloc_ns=400.0, kmem_cache_free_ns=350.0,
    kmem_cache_bulk_ns=120.0, napi_cache_ns=40.0, build_skb_ns=400.0,
    alloc_pages_ns=1500.0, alloc_pages_bulk_ns=600.0, put_page_ns=900.0, dma_map_ns=250.0, dma_sync_ns=120.0,
    pp_fast_ns=120.0, pp_ring_ns=350.0, gro_ns=500.0,
    stack_skb_ns=3000.0, stack_seg_ns=400.0, mac80211_ns=9000.0, path_rest_ns=40000.0,
    tcp_ack_ns=4000.0, recv_ns=2000.0, link_bps=300_000_000, rtt_ns=2_000_000, hz=250,
    reader_same_cpu=True, zone_dma32=False,
    sources={
        "cpu_mhz": "APM82181 datasheet: PowerPC 464 at up to 800 MHz; the MX60 runs it at 800 MHz",
        "coherent": "PowerPC 44x has no hardware DMA coherency: the DMA API does cache maintenance",
        "cacheline": "PowerPC 464: 32-byte L1 cache lines",
        "cache_line_op_ns": "estimate: dcbi/dcbf per line, ~5 cycles at 800 MHz",
        "memcpy_gbs": "estimate: DDR2 on a 32-bit embedded PowerPC copies at under 1 GB/s",
        "kmalloc_ns": "estimate: __netdev_alloc_skb-sized kmalloc + page_frag on an 800 MHz in-order core, "
                      "~1000 cycles",
        "kmem_cache_alloc_ns": "estimate: SLUB fast path with irq save/restore on 32-bit PowerPC, ~300 cycles",
        "dma_map_ns": "estimate: dma-direct bookkeeping plus the function-call path on an in-order core",
        "mac80211_ns": "estimate: mac80211 RX handlers per frame on an 800 MHz core",
        "path_rest_ns": "estimate, counted per function on an in-order 800 MHz core with 32 KiB L1 caches, in "
                        "cycles a frame: the bridge the Wi-Fi interface sits in (br_handle_frame) 1,500-3,000; "
                        "ip_forward, the route lookup and ip_output 2,000-4,000; conntrack and NAT "
                        "(nf_conntrack_in, nf_nat_ipv4_fn) and the firewall's chains 6,000-15,000; the qdisc "
                        "(fq_codel) 1,500-3,000; the EMAC's xmit with its non-coherent dma_map_single and its TX "
                        "completion 2,500-5,000; cache misses of a path whose code does not fit the L1 and whose "
                        "conntrack, route and qdisc data is cold each frame 5,000-17,000. In all 19,000-47,000 "
                        "cycles, 24-60 us; the profile takes the middle, the ath9k lesson fits it",
        "hz": "CONFIG_HZ=250 (OpenWrt default)",
        "reader_same_cpu": "single-core SoC",
        "zone_dma32": "32-bit Book-E PowerPC has neither ZONE_DMA nor ZONE_DMA32: paging_init() "
                      "(arch/powerpc/mm/mem.c) sizes ZONE_NORMAL (and ZONE_HIGHMEM) only",
    }))

_add(Platform(
    "mips74kc-bcm4716", "Asus RT-N16: Broadcom BCM4716 (MIPS 74Kc, 480 MHz), bgmac Ethernet",
    cpu_mhz=480, coherent=False, cacheline=32, cache_line_op_ns=8.0,
    memcpy_gbs=0.4, copy_user_gbs=0.35,
    hardirq_ns=4000.0, napi_poll_ns=2500.0, driver_rx_ns=1500.0, driver_tx_ns=1000.0,
    kmalloc_ns=1800.0, kfree_ns=1200.0, kmem_cache_alloc_ns=1000.0, kmem_cache_free_ns=900.0,
    kmem_cache_bulk_ns=250.0, napi_cache_ns=60.0, build_skb_ns=700.0,
    alloc_pages_ns=2500.0, alloc_pages_bulk_ns=1000.0, put_page_ns=1500.0, dma_map_ns=400.0, dma_sync_ns=200.0,
    pp_fast_ns=200.0, pp_ring_ns=600.0, gro_ns=1200.0,
    stack_skb_ns=9000.0, stack_seg_ns=1500.0, path_rest_ns=30000.0,
    tcp_ack_ns=7000.0, recv_ns=3000.0, link_bps=1_000_000_000, rtt_ns=300_000, hz=100,
    reader_same_cpu=True, zone_dma32=False,
    sources={
        "cpu_mhz": "BCM4716 datasheet: MIPS 74Kc at 480 MHz (the patch's test board)",
        "coherent": "MIPS 74Kc on BCM47xx is not DMA-coherent",
        "cacheline": "MIPS 74Kc: 32-byte D-cache lines",
        "cache_line_op_ns": "estimate: one CACHE instruction per line, ~4 cycles at 480 MHz",
        "memcpy_gbs": "estimate: DDR2 on a 32-bit MIPS SoC, ~400 MB/s",
        "kmem_cache_alloc_ns": "estimate: SLUB fast path on 32-bit MIPS (no cmpxchg-double: irq save/restore), "
                               "~500 cycles",
        "kmem_cache_bulk_ns": "estimate: a bulk alloc/free moves a freelist per slab, ~120 cycles per object",
        "napi_cache_ns": "estimate: array push/pop on the per-CPU NAPI cache, ~30 cycles",
        "stack_seg_ns": "estimate: TCP's own work per merged segment, ~700 cycles; the bgmac lesson fits it as "
                        "everything else a segment costs on this board (the software checksum: bgmac hands frames "
                        "up CHECKSUM_NONE; the reader on the same core; cache misses)",
        "link_bps": "1000BASE-T",
        "hz": "CONFIG_HZ=100 on this OpenWrt target",
        "reader_same_cpu": "single-core SoC: iperf3 shares the CPU with the RX softirq",
        "zone_dma32": "32-bit MIPS has no ZONE_DMA32 (64-bit only) and BCM47xx selects no ZONE_DMA: "
                      "paging_init() (arch/mips/mm/init.c) sizes ZONE_NORMAL (and ZONE_HIGHMEM)",
    }))

_add(Platform(
    "x86-strix-halo-tb", "AMD Strix Halo laptop, QNAP QNA-T310G1S (AQC100) on Thunderbolt behind the AMD IOMMU",
    cpu_mhz=5100, memcpy_gbs=12.0, copy_user_gbs=14.0,
    hardirq_ns=300.0, napi_poll_ns=200.0, driver_rx_ns=40.0, driver_tx_ns=40.0,
    kmalloc_ns=40.0, kfree_ns=35.0, kmem_cache_alloc_ns=25.0, kmem_cache_free_ns=25.0,
    kmem_cache_bulk_ns=8.0, napi_cache_ns=3.0, build_skb_ns=35.0, alloc_pages_ns=100.0, alloc_pages_bulk_ns=40.0,
    put_page_ns=70.0, dma_map_ns=15.0, dma_sync_ns=8.0, iommu_map_ns=250.0, iommu_unmap_ns=200.0,
    pp_fast_ns=10.0, pp_ring_ns=30.0, gro_ns=60.0, stack_skb_ns=600.0, stack_seg_ns=60.0,
    tcp_ack_ns=500.0, recv_ns=250.0, link_bps=10 * 10**9, rtt_ns=60_000,
    sources={
        "cpu_mhz": "Zen 5 cores boost to about 5.1 GHz",
        "iommu_map_ns": "estimate: IOVA rcache hit plus a 4-level page-table write",
        "iotlb_sync_ns": "fitted in the atlantic lesson (strict invalidation with completion wait on AMD-Vi)",
        "link_bps": "10GBASE-T (AQC100), tunnelled over Thunderbolt",
        "stack_skb_ns": "estimate: IPv6 + TCP receive per skb on a 5 GHz core",
    }))

_add(Platform(
    "arm-qca6174-sdio", "ARM host with a QCA6174 on SDIO (ath10k_sdio)",
    cpu_mhz=1800, memcpy_gbs=3.0, copy_user_gbs=3.0, hardirq_ns=1500.0, napi_poll_ns=800.0,
    driver_rx_ns=400.0, kmalloc_ns=300.0, kmem_cache_alloc_ns=150.0, build_skb_ns=150.0,
    gro_ns=300.0, stack_skb_ns=3000.0, stack_seg_ns=300.0, mac80211_ns=2500.0,
    tcp_ack_ns=2500.0, recv_ns=1000.0, link_bps=600_000_000, rtt_ns=3_000_000,
    sources={
        "sdio_bps": "a linear fit of the QCA6174 SDIO transfer table in Wen Gong's RX-bundle patch (256 B in "
                    "28 us to 57,344 B in 660 us): about 730 Mbit/s while data moves. Only SDR104 (200 MHz x 4 "
                    "bits = 800 Mbit/s raw) carries that: SDR50 and DDR50 stop at 400",
        "sdio_xfer_ns": "the same fit: about 23 us per CMD53 (17 to 26 us), nearly all host software per request",
        "sdio_duty": "fitted in the ath10k lesson to the before figure",
        "link_bps": "estimate: a 2x2 VHT80 MCS9 link with 64-subframe A-MPDUs carries about 550-650 Mbit/s of "
                    "TCP payload over the air, above what the SDIO bus delivers",
        "rtt_ns": "estimate: Wi-Fi round trip with aggregation, a few ms",
    }))


def make_platform(values: dict[str, Any]) -> Platform:
    """The named profile with any cost parameters the scenario sets."""
    base = PROFILES[values.get("platform") or "x86-generic"]
    return base.with_overrides({k: v for k, v in values.items() if v is not None})
