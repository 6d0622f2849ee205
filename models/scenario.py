"""The scenario: lesson + `--set`, parsed and checked once, as one typed, frozen object.

Everything that decides a run is here: the machine, the device, the driver,
the kernel, the traffic, and the platform costs (the profile with any
overrides), already converted to the model's integer time unit. The model
never reads a string-keyed parameter dict; `Scenario.build()` is the only
place parameters are merged, defaulted and checked.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

from . import params as P
from .kernel import Kernel, parse_version
from .memory import copy_ps
from .platform import Platform, make_platform
from .scenario_checks import ScenarioError

PS: Final = 1000     # the model's clock ticks in picoseconds


def ps(ns: float) -> int:
    """Nanoseconds (as the platform profiles give them) to the model's integer picoseconds."""
    return int(round(ns * PS))


@dataclass(frozen=True, slots=True)
class Costs:
    """The platform's costs in picoseconds, and the per-byte rates as ps per byte."""
    hardirq: int
    napi_poll: int
    driver_rx: int
    driver_tx: int
    kmalloc: int
    kfree: int
    kmem_cache_alloc: int
    kmem_cache_free: int
    kmem_cache_bulk: int
    napi_cache: int
    build_skb: int
    alloc_pages: int
    alloc_pages_bulk: int
    put_page: int
    dma_map: int
    dma_sync: int
    swiotlb_find: int
    swiotlb_release: int
    iommu_map: int
    iommu_unmap: int
    iotlb_sync: int
    iotlb_flush_all: int
    pp_fast: int
    pp_ring: int
    gro: int
    stack_skb: int
    stack_seg: int
    mac80211: int
    path_rest: int
    tcp_send_ack: int
    recv: int
    cache_line_op: int
    sdio_xfer: int
    memcpy_gbs: float
    swiotlb_gbs: float
    copy_user_gbs: float

    @staticmethod
    def of(p: Platform) -> Costs:
        return Costs(
            ps(p.hardirq_ns), ps(p.napi_poll_ns), ps(p.driver_rx_ns), ps(p.driver_tx_ns), ps(p.kmalloc_ns),
            ps(p.kfree_ns), ps(p.kmem_cache_alloc_ns), ps(p.kmem_cache_free_ns), ps(p.kmem_cache_bulk_ns),
            ps(p.napi_cache_ns), ps(p.build_skb_ns), ps(p.alloc_pages_ns), ps(p.alloc_pages_bulk_ns),
            ps(p.put_page_ns), ps(p.dma_map_ns), ps(p.dma_sync_ns), ps(p.swiotlb_find_ns),
            ps(p.swiotlb_release_ns), ps(p.iommu_map_ns), ps(p.iommu_unmap_ns), ps(p.iotlb_sync_ns),
            ps(p.iotlb_flush_all_ns), ps(p.pp_fast_ns), ps(p.pp_ring_ns), ps(p.gro_ns), ps(p.stack_skb_ns),
            ps(p.stack_seg_ns), ps(p.mac80211_ns), ps(p.path_rest_ns), ps(p.tcp_ack_ns), ps(p.recv_ns),
            ps(p.cache_line_op_ns), ps(p.sdio_xfer_ns), p.memcpy_gbs, p.swiotlb_copy_gbs or p.memcpy_gbs,
            p.copy_user_gbs)

    @staticmethod
    def copy(nbytes: int, gbs: float) -> int:
        """A copy of nbytes at gbs GB/s, in ps (one rounding per copy, so sums are exact)."""
        return copy_ps(nbytes, gbs)


@dataclass(frozen=True, slots=True)
class Scenario:
    """Every parameter of `models.params`, parsed, defaulted and checked."""
    platform: str
    ram: int
    page_placement: str
    iommu: str
    untrusted: bool
    swiotlb: str
    swiotlb_size: int
    bus: str
    dma_mask: int
    coherent_mask: int
    ring_size: int
    mtu: int
    rx_usecs: int
    bundle: int
    strategy: str
    rx_alloc: str
    rx_build: str
    rx_buf_size: int
    dma_dir: str
    page_order: int
    frag_size: int
    pool_size: int
    skb_alloc: str
    tx_free: str
    tx_clean: str
    xdp: str
    delivery: str
    napi_added: bool
    tasklet_budget: int
    mac80211_rx: str
    kernel: str
    budget: int
    gro: bool
    gro_normal_batch: int
    napi_skb_cache_size: int | None
    napi_skb_cache_bulk: int | None
    napi_skb_cache_free: int | None
    dma_debug_all_errors: bool
    dma_debug_num_errors: int
    traffic: str
    ip: str
    rate: int
    window: int
    forward: bool
    egress_tx_batch: int
    cost: Platform             # the profile with the scenario's cost overrides

    @staticmethod
    def build(values: dict[str, Any] | None = None) -> Scenario:
        """Defaults, then `values` (already parsed, as lessons and --set give them); checked."""
        prm = P.full(values)
        problems = P.check(prm)
        if problems:
            raise ScenarioError(problems)
        own = {f.name for f in fields(Scenario)} - {"cost"}
        return Scenario(cost=make_platform(prm), **{k: prm[k] for k in own})

    def as_dict(self) -> dict[str, Any]:
        """The flat parameter dict (for JSON, views and the sandbox): every parameter by name."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "cost"}
        for name in P.PARAMS:
            if name not in out:
                out[name] = getattr(self.cost, name)
        return out

    @property
    def kernel_version(self) -> Kernel:
        return Kernel(parse_version(self.kernel))

    @property
    def pcie(self) -> bool:
        return self.bus == "pcie"

    @property
    def wifi(self) -> bool:
        return self.cost.mac80211_ns > 0

    @property
    def napi_polled(self) -> bool:
        """The driver's bottom half is a NAPI poll it added (netif_napi_add: napi->dev set)."""
        return self.delivery == "napi" and self.napi_added

    @property
    def napi_api(self) -> bool:
        """Frames are handed to napi_gro_receive() (GRO's entry point): under NAPI, or from
        mac80211's ieee80211_rx_napi() even when the driver's NAPI was never added."""
        if self.wifi:
            return self.mac80211_rx == "ieee80211_rx_napi" or self.napi_polled
        return self.napi_polled


def unit_costs(c: Costs) -> dict[str, int]:
    """Each kernel call's constant CPU cost in ps; calls not named cost nothing or say what they cost."""
    per = {
        "irq": c.hardirq, "napi_poll": c.napi_poll, "tasklet_action": c.napi_poll,
        "kmalloc": c.kmalloc, "netdev_alloc_frag": c.kmalloc, "__netdev_alloc_skb": c.kmalloc,
        "kfree": c.kfree, "skb_free_frag": c.kfree,
        "kmem_cache_alloc": c.kmem_cache_alloc, "kmem_cache_free": c.kmem_cache_free,
        "napi_skb_cache_get": c.napi_cache, "napi_skb_cache_put": c.napi_cache,
        "build_skb": c.build_skb, "napi_build_skb": c.build_skb, "slab_build_skb": c.build_skb,
        "dma_map_single": c.dma_map, "dma_unmap_single": c.dma_map, "dma_map_page": c.dma_map,
        "dma_unmap_page": c.dma_map,
        "dma_sync_single_for_cpu": c.dma_sync, "dma_sync_single_for_device": c.dma_sync,
        "swiotlb_tbl_map_single": c.swiotlb_find, "swiotlb_tbl_unmap_single": c.swiotlb_release,
        "iommu_map": c.iommu_map, "iommu_unmap": c.iommu_unmap, "iotlb_sync": c.iotlb_sync,
        "fq_flush_iotlb": c.iotlb_flush_all,
        "page_pool_alloc_frag": c.pp_fast, "page_pool_recycle_in_cache": c.pp_fast,
        "page_pool_recycle_in_ring": c.pp_ring,
        "napi_gro_receive": c.gro, "gro_normal_list": 4 * c.napi_cache,
        "ieee80211_rx": c.mac80211, "ieee80211_rx_napi": c.mac80211, "ieee80211_rx_ni": c.mac80211,
        "tcp_send_ack": c.tcp_send_ack, "dev_queue_xmit": c.driver_tx, "xdp_do_tx": c.driver_tx,
        "tx_complete": c.driver_tx,
        # ip_forward() stands for the whole routed path after it (path_rest_ns): netfilter, the qdisc,
        # the egress driver's xmit and its TX completion are not itemised
        "ip_forward": c.path_rest,
        "skb_attempt_defer_free": c.pp_ring, "skb_defer_free_flush": c.pp_ring,
        "alloc_pages": c.alloc_pages,
    }
    return per
