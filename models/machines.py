"""The lifecycles' edge lists: data only, the one place a machine's states and kernel calls are written.

models.lifecycle turns them into the integer tables the model moves objects with and into the
graphs `rxviz graph` exports; models.trace sizes its per-edge counters from NTRANSITIONS. Both
import this module, so the recorder and the machines do not import each other.
"""

from __future__ import annotations

from typing import Final

# machine -> (title, initial state, edges)
MACHINES: Final[dict[str, tuple[str, str, list[tuple[str, str, str]]]]] = {
    "rx_buffer": ("RX buffer mapped per frame", "free", [
        ("free", "netdev_alloc_frag", "allocated"),
        ("free", "__netdev_alloc_skb", "allocated"),
        ("free", "kmalloc", "allocated"),
        ("allocated", "dma_map_single", "mapped"),
        ("allocated", "skb_free_frag", "free"),
        ("allocated", "kfree", "free"),
        ("mapped", "post", "device-owned"),
        ("device-owned", "rx_frame", "filled"),
        ("filled", "dma_sync_single_for_cpu", "cpu-synced"),
        ("filled", "dma_unmap_single", "unmapped"),
        ("cpu-synced", "dma_unmap_single", "unmapped"),
        ("unmapped", "build_skb", "in-skb"),
        ("unmapped", "napi_build_skb", "in-skb"),
        ("unmapped", "slab_build_skb", "in-skb"),
        ("unmapped", "skb_put", "in-skb"),
        # the missing-unmap bug: wrapped while still mapped (the DMA API checker reports the leak)
        ("cpu-synced", "build_skb", "in-skb"),
        ("cpu-synced", "napi_build_skb", "in-skb"),
        ("cpu-synced", "skb_put", "in-skb"),
        ("in-skb", "netif_receive_skb", "in-stack"),
        ("in-stack", "skb_release_data", "free"),
        ("in-skb", "skb_release_data", "free"),
        ("device-owned", "ring_deinit", "unmapped"),
        ("filled", "ring_deinit", "unmapped"),
        # no replacement could be allocated or mapped: the frame is dropped and the same
        # buffer goes back to the device (ath9k's requeue_drop_frag, bgmac's poisoned slot)
        ("filled", "rx_dropped", "device-owned"),
        ("cpu-synced", "rx_dropped", "device-owned"),
        ("unmapped", "kfree", "free"),
        ("unmapped", "skb_free_frag", "free"),
    ]),
    "pp_page": ("page_pool page", "buddy", [
        ("buddy", "alloc_pages", "allocated"),
        ("allocated", "page_pool_dma_map", "mapped"),
        ("mapped", "page_pool_alloc_frag", "carving"),
        ("mapped", "page_pool_recycle_in_cache", "alloc-cache"),
        ("carving", "page_pool_alloc_frag", "carving"),
        ("carving", "page_pool_drain_frag", "in-flight"),
        ("carving", "page_pool_recycle_in_cache", "alloc-cache"),
        ("carving", "page_pool_recycle_in_ring", "ptr_ring"),
        ("in-flight", "page_pool_recycle_in_cache", "alloc-cache"),
        ("in-flight", "page_pool_recycle_in_ring", "ptr_ring"),
        ("in-flight", "page_pool_return_netmem", "released"),
        ("carving", "page_pool_return_netmem", "released"),
        ("ptr_ring", "page_pool_refill_alloc_cache", "alloc-cache"),
        ("alloc-cache", "page_pool_alloc_frag", "carving"),
        ("alloc-cache", "page_pool_return_netmem", "released"),
        ("ptr_ring", "page_pool_return_netmem", "released"),
        ("mapped", "page_pool_return_netmem", "released"),
        ("released", "put_page", "buddy"),
    ]),
    "pp_frag": ("page_pool fragment", "carved", [
        ("carved", "post", "device-owned"),
        ("device-owned", "rx_frame", "filled"),
        ("filled", "dma_sync_single_for_cpu", "cpu-synced"),
        ("cpu-synced", "build_skb", "in-skb"),
        ("cpu-synced", "napi_build_skb", "in-skb"),
        ("cpu-synced", "skb_add_rx_frag", "in-skb"),
        # the no-sync bug: read and wrapped without dma_sync_single_for_cpu (the checker reports it)
        ("filled", "build_skb", "in-skb"),
        ("filled", "napi_build_skb", "in-skb"),
        ("filled", "skb_add_rx_frag", "in-skb"),
        ("cpu-synced", "xdp_do_tx", "tx-posted"),
        ("filled", "xdp_do_tx", "tx-posted"),          # the no-sync bug with an XDP_TX program
        ("tx-posted", "tx_complete", "returned"),
        ("tx-posted", "ring_deinit", "returned"),
        ("in-skb", "netif_receive_skb", "in-stack"),
        ("in-stack", "skb_release_data", "returned"),
        ("in-skb", "skb_release_data", "returned"),
        ("device-owned", "ring_deinit", "returned"),
        ("filled", "ring_deinit", "returned"),
    ]),
    "flip_page": ("page-flip RX page (atlantic before page_pool)", "buddy", [
        ("buddy", "alloc_pages", "allocated"),
        ("allocated", "dma_map_page", "mapped"),
        ("mapped", "post", "device-owned"),
        ("device-owned", "rx_frame", "filled"),
        ("filled", "dma_sync_single_for_cpu", "shared"),
        ("shared", "page_ref_inc", "shared"),
        ("shared", "post", "device-owned"),
        ("shared", "dma_unmap_page", "unmapped"),
        ("device-owned", "ring_deinit", "unmapped"),
        ("filled", "ring_deinit", "unmapped"),
        ("unmapped", "put_page", "buddy"),
    ]),
    "swiotlb_slot": ("SWIOTLB bounce slots (one mapping's run)", "free", [
        ("free", "swiotlb_tbl_map_single", "mapped"),
        ("mapped", "swiotlb_bounce", "mapped"),
        ("mapped", "swiotlb_tbl_unmap_single", "free"),
    ]),
    "iova": ("IOMMU mapping (an IOVA range)", "free", [
        ("free", "iommu_map", "mapped"),
        ("mapped", "iommu_unmap", "unmapped"),
        ("unmapped", "iotlb_sync", "free"),             # strict: invalidated before unmap returns
        ("unmapped", "fq_flush_iotlb", "free"),      # lazy: freed with the whole flush queue
    ]),
    "tx_buffer": ("TX buffer (a TCP ACK on its way out)", "free", [
        ("free", "dev_queue_xmit", "queued"),
        ("queued", "dma_map_single", "mapped"),
        ("queued", "dev_kfree_skb", "free"),            # dma_mapping_error(): dropped
        ("mapped", "post", "device-owned"),
        ("device-owned", "tx_complete", "sent"),
        ("sent", "dma_unmap_single", "unmapped"),
        ("unmapped", "napi_consume_skb", "free"),
        ("unmapped", "dev_kfree_skb", "free"),
        ("queued", "ath10k_sdio_write", "written"),            # SDIO/USB: one CMD53 on the shared bus
        ("written", "consume_skb", "free"),
    ]),
    "skb_head": ("sk_buff head: slab or NAPI cache", "slab", [
        ("slab", "kmem_cache_alloc", "in-use"),
        ("slab", "kmem_cache_alloc_bulk", "napi-cache"),
        ("napi-cache", "napi_skb_cache_get", "in-use"),
        ("in-use", "napi_skb_cache_put", "napi-cache"),
        ("in-use", "kmem_cache_free", "slab"),
        ("napi-cache", "kmem_cache_free_bulk", "slab"),
        ("in-use", "kfree_skb_list", "bulk-free"),
        ("bulk-free", "kmem_cache_free_bulk", "slab"),
    ]),
    "napi": ("NAPI instance", "idle", [
        ("idle", "napi_schedule", "scheduled"),
        ("scheduled", "napi_poll", "polling"),
        ("polling", "napi_complete_done", "idle"),
        ("polling", "repoll", "scheduled"),
        ("idle", "napi_disable", "disabled"),
        ("scheduled", "napi_disable", "disabled"),
        ("polling", "napi_disable", "disabled"),      # it waits for the poll in progress to end
    ]),
    "tasklet": ("RX tasklet (a driver without NAPI)", "idle", [
        ("idle", "tasklet_schedule", "scheduled"),
        ("scheduled", "tasklet_action", "running"),
        ("running", "tasklet_done", "idle"),          # the tasklet returns (the driver unmasked its IRQ)
        ("idle", "tasklet_kill", "disabled"),
        ("scheduled", "tasklet_kill", "disabled"),
        ("running", "tasklet_kill", "disabled"),
    ]),
    "gro_flow": ("GRO hold per flow", "empty", [
        ("empty", "napi_gro_receive", "held"),
        ("held", "napi_gro_receive", "held"),
        ("held", "napi_gro_complete", "held"),          # the chain is full: it goes up, the segment starts anew
        ("held", "napi_gro_flush", "empty"),
    ]),
}

# How many edges the machines have in all: Recorder.moves has one counter per edge,
# numbered in this table's order (lifecycle.TRANSITION_EDGES).
NTRANSITIONS: Final[int] = sum(len(edges) for _, _, edges in MACHINES.values())
