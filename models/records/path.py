"""The RX path a frame takes up, stage by stage: which stage each kernel call belongs to, and which
stages a variant's scenario skips or replaces.

    NIC → ring → DMA → no IOMMU → no SWIOTLB → IRQ → [NAPI poll] → skb → GRO → stack → socket → free

Two tables and two rules live here: `STAGES` (the path, in order), `STAGE_OF`
(every kernel call of models.calls.CALLS and the stage it belongs to; a test
checks that none is missing), `path_facts(sim)` (what a variant's scenario
decides about its path) and `stages(facts)`, which says from those facts
which stages it skips (no IOMMU, no bounce, no GRO, a socket that is not
there because the frames are forwarded) and which it replaces (a tasklet or
a workqueue instead of a NAPI poll, an SDIO or USB bus instead of a ring).
It is the model's knowledge of its own path, so it lives with the model; the
RX path strip (viz.widgets.pathstrip) only draws the stages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .machine import PathFacts

# (key, long label, short label), in the order a received frame meets them.
STAGES = (
    ("nic", "NIC", "NIC"), ("ring", "ring", "ring"), ("dma", "DMA", "DMA"), ("iommu", "IOMMU", "IOMMU"),
    ("swiotlb", "SWIOTLB", "SWIOTLB"), ("irq", "IRQ", "IRQ"), ("napi", "NAPI poll", "NAPI"), ("skb", "skb", "skb"),
    ("gro", "GRO", "GRO"), ("stack", "stack", "stack"), ("socket", "socket", "sock"),
    ("free", "free/recycle", "free"),
)

# Every kernel call, by the stage of the path it is part of. Buffer allocation belongs to the
# ring (it refills it); giving memory back, recycling included, to free/recycle.
STAGE_OF: dict[str, str] = {
    **dict.fromkeys(("rx_frame", "rx_missed_errors", "rx_dropped", "tx_complete"), "nic"),
    **dict.fromkeys(("ath10k_sdio_mbox_rx_fetch_bundle", "ath10k_sdio_write", "ring_deinit", "kmalloc",
                     "netdev_alloc_frag", "__netdev_alloc_skb", "alloc_pages", "alloc_pages_bulk_node",
                     "page_pool_create", "page_pool_alloc_frag", "page_pool_alloc_pages",
                     "page_pool_refill_alloc_cache", "page_pool_dma_map"), "ring"),
    **dict.fromkeys(("dma_map_single", "dma_unmap_single", "dma_map_page", "dma_unmap_page",
                     "dma_sync_single_for_cpu", "dma_sync_single_for_device"), "dma"),
    **dict.fromkeys(("iommu_map", "iommu_unmap", "iotlb_sync", "fq_flush_iotlb"), "iommu"),
    **dict.fromkeys(("swiotlb_bounce", "swiotlb_tbl_map_single", "swiotlb_tbl_unmap_single"), "swiotlb"),
    **dict.fromkeys(("irq", "napi_schedule", "tasklet_schedule", "ath10k_sdio_mbox_read_int_status"), "irq"),
    **dict.fromkeys(("napi_poll", "napi_complete_done", "tasklet_action", "irq_unmask", "bgmac_chip_intrs_on",
                     "hw_atl_b0_hw_irq_enable", "enable_irq", "ath9k_hw_resume_interrupts", "napi_disable",
                     "tasklet_kill", "xdp_do_tx", "page_ref_inc"), "napi"),
    **dict.fromkeys(("build_skb", "slab_build_skb", "napi_build_skb", "skb_put", "napi_alloc_skb",
                     "napi_skb_cache_get", "kmem_cache_alloc", "kmem_cache_alloc_bulk", "skb_put_data",
                     "skb_mark_for_recycle"), "skb"),
    **dict.fromkeys(("napi_gro_receive", "napi_gro_complete", "napi_gro_flush", "napi_skb_free_stolen_head",
                     "__napi_kfree_skb", "ieee80211_rx_napi"), "gro"),
    **dict.fromkeys(("netif_receive_skb", "gro_normal_list", "ieee80211_rx", "ieee80211_rx_ni", "ip_forward",
                     "tcp_send_ack", "dev_queue_xmit"), "stack"),
    **dict.fromkeys(("tcp_recvmsg", "udp_recvmsg"), "socket"),
    **dict.fromkeys(("put_page", "kfree", "skb_free_frag", "kmem_cache_free", "kmem_cache_free_bulk",
                     "napi_skb_cache_put", "napi_consume_skb", "dev_kfree_skb", "consume_skb", "kfree_skb_list",
                     "__kfree_skb", "kfree_skb_napi_cache", "__consume_stateless_skb", "kfree_skb_reason",
                     "skb_attempt_defer_free", "skb_defer_free_flush",
                     "page_pool_recycle_in_cache", "page_pool_recycle_in_ring", "page_pool_return_netmem",
                     "page_pool_destroy", "page_pool_release_retry"), "free"),
}


@dataclass(frozen=True)
class Stage:
    key: str
    label: str          # what the strip writes (the replacement's name when `status` is "instead")
    short: str
    status: str         # "on", "skipped" or "instead"


def stages(facts: PathFacts) -> tuple[Stage, ...]:  # noqa: C901 (older than the complexity rule)
    """The path of one variant: each stage on, skipped (why, in its label) or replaced (by what)."""
    skip: dict[str, tuple[str, str]] = {}          # key -> (long, short) label of a skipped stage
    instead: dict[str, tuple[str, str]] = {}
    if facts.bus != "pcie":
        bus = facts.bus.upper()
        instead["ring"] = (f"{bus} bus", bus)
        skip["dma"] = ("no DMA mapping", "DMA")    # the driver copies out of bus transfers
        skip["iommu"] = ("no IOMMU", "IOMMU")
    if facts.iommu in ("off", "passthrough"):
        skip["iommu"] = ("no IOMMU", "IOMMU") if facts.iommu == "off" else ("IOMMU passthrough", "IOMMU")
    if not facts.bounce:
        skip["swiotlb"] = ("no SWIOTLB", "SWIOTLB")
    if facts.delivery != "napi":
        instead["napi"] = (facts.delivery, facts.delivery)     # whole: a cut name reads as another word
    elif not facts.polled:
        skip["napi"] = ("NAPI never polled", "NAPI")     # netif_napi_add() was never called
    if not facts.gro:
        skip["gro"] = ("no GRO", "GRO")
    if facts.xdp == "tx":
        for key in ("skb", "gro", "stack", "socket"):
            skip[key] = ("XDP_TX" if key == "skb" else f"no {key}", dict((k, s) for k, _, s in STAGES)[key])
    elif not facts.socket:
        instead["socket"] = ("ip_forward", "fwd")
    out: list[Stage] = []
    for key, long, short in STAGES:
        if key == "free":
            long, short = ("recycle", "recycle") if facts.page_pool else ("free", "free")
        if key in instead:
            out.append(Stage(key, *instead[key], "instead"))
        elif key in skip:
            out.append(Stage(key, *skip[key], "skipped"))
        else:
            out.append(Stage(key, long, short, "on"))
    return tuple(out)


def skipped(facts: PathFacts) -> set[str]:
    """The stages a variant skips or replaces."""
    return {s.key for s in stages(facts) if s.status != "on"}


def path_facts(sim: Any) -> PathFacts:
    """What the scenario of one variant decides about its RX path (read from the Sim's read attributes)."""
    prm = sim.params
    dma = sim.dma
    bounce = sim.swiotlb is not None and (prm["swiotlb"] == "force" or dma.untrusted
                                          or (sim.iommu is None and sim.mem.max_addr - 1 > dma.mask))
    return PathFacts(bus=sim.bus, iommu=sim.iommu_mode, bounce=bool(bounce), delivery=sim.delivery,
                     polled=sim.napi_polled, napi=sim.napi_api,
                     gro=bool(prm["gro"]) and sim.napi_api and sim.sc.traffic == "tcp",
                     page_pool=sim.pool is not None, xdp=prm["xdp"], socket=not sim.sc.forward)
