"""The vocabulary: kernel calls the model emits, their contexts and cost categories.

Every event the simulation produces is one of these calls, spelled as the
kernel spells it, and the counters of `rxviz run --json` are keyed by the same
names. Lessons may only name calls from this list (`run: {until: ...}`,
checks), so a typo in a lesson is caught when it is loaded.
"""

from __future__ import annotations

from typing import Final

# Execution contexts, as the kernel would report them.
HARDIRQ: Final = "hardirq"
SOFTIRQ: Final = "softirq"      # NET_RX softirq: the NAPI poll
PROCESS: Final = "process"      # a socket reader, a workqueue, ifdown
DEVICE: Final = "device"        # the NIC or the bus; costs no CPU
CONTEXTS: Final = (HARDIRQ, SOFTIRQ, PROCESS, DEVICE)

# Cost categories for the per-frame CPU breakdown.
CATEGORIES: Final = ("irq", "driver", "alloc", "dma", "swiotlb", "iommu", "page_pool", "gro", "stack", "copy", "tx")

# call name -> (cost category, one-line meaning shown in the TUI and `rxviz trace`)
CALLS: Final[dict[str, tuple[str, str]]] = {
    # device and interrupt
    "rx_frame": ("driver", "the NIC writes a received frame into a descriptor's buffer"),
    "rx_missed_errors": ("driver", "the NIC found no free descriptor and dropped the frame: the host missed it "
                                   "(the driver reads the hardware's miss counter into rx_missed_errors)"),
    "rx_dropped": ("driver", "the driver had no replacement buffer: it drops the frame and gives the same buffer "
                             "back to the device (netdev stats rx_dropped)"),
    "irq": ("irq", "the RX interrupt fires; the handler masks it"),
    "napi_schedule": ("irq", "queue the NAPI instance on this CPU's poll list, raise NET_RX_SOFTIRQ"),
    "napi_poll": ("driver", "net_rx_action calls the driver's poll with the budget"),
    "tasklet_schedule": ("irq", "queue the driver's RX tasklet, raise TASKLET_SOFTIRQ"),
    "tasklet_action": ("driver", "the softirq runs the RX tasklet (ath_rx_tasklet): no NAPI, no GRO"),
    # The driver unmasks its RX interrupt itself, after napi_complete_done() (or at the end of its tasklet);
    # each driver with its own call. irq_unmask stands for a generic driver's.
    "irq_unmask": ("driver", "the driver unmasks its RX interrupt (a generic driver; real drivers have their own "
                             "call)"),
    "bgmac_chip_intrs_on": ("driver", "bgmac_poll(): napi_complete_done() done, the driver unmasks its interrupts"),
    "hw_atl_b0_hw_irq_enable": ("driver", "aq_vec_poll(): napi_complete_done() done, atlantic unmasks the vector's "
                                          "interrupt"),
    "enable_irq": ("driver", "ath11k_pcic_ext_grp_napi_poll(): napi_complete_done() done, the driver re-enables the "
                             "group's IRQs its handler disabled"),
    "ath9k_hw_resume_interrupts": ("driver", "the end of ath9k_tasklet(): the driver re-enables the interrupts "
                                             "ath_isr() turned off"),
    "ieee80211_rx": ("stack", "mac80211 RX from softirq without NAPI (a tasklet): no GRO"),
    "napi_complete_done": ("gro", "the poll did less than its budget: flush GRO and rx_list, clear NAPI_STATE_SCHED; "
                                  "the driver may unmask its interrupt when it returns true"),
    "ath10k_sdio_mbox_rx_fetch_bundle": ("driver", "the host reads an RX bundle from the SDIO mailbox in one CMD53 "
                                                   "(ath10k_sdio_readsb)"),
    "ath10k_sdio_write": ("tx", "the host writes a TX frame over SDIO in one CMD53 (the async write work)"),
    "ath10k_sdio_mbox_read_int_status": ("driver", "the host reads the mailbox's interrupt status registers (a "
                                                   "24-byte CMD53)"),
    "skb_put_data": ("copy", "copy each message of an RX bundle out of the bundle buffer into its skb"),
    # memory
    "alloc_pages": ("alloc", "take pages from the buddy allocator"),
    "alloc_pages_bulk_node": ("alloc", "page_pool's slow path: take 64 order-0 pages in one call"),
    "put_page": ("alloc", "drop a page reference; the last one frees it"),
    "page_ref_inc": ("driver", "take an extra page reference (page-flip reuse)"),
    "kmalloc": ("alloc", "allocate an RX data buffer from the slab (wrapped later with slab_build_skb)"),
    "kfree": ("alloc", "free a kmalloc'd RX data buffer"),
    "netdev_alloc_frag": ("alloc", "allocate an RX data buffer from the per-CPU page_frag cache"),
    "__netdev_alloc_skb": ("alloc", "allocate an skb with its data: a struct sk_buff and a page_frag data area"),
    "napi_alloc_skb": ("alloc", "allocate a small skb in NAPI for the copied headers; the buffer goes in as a frag"),
    "skb_free_frag": ("alloc", "give a page_frag data area back (page_frag_free)"),
    "kmem_cache_alloc": ("alloc", "allocate a struct sk_buff from skbuff_cache"),
    "kmem_cache_free": ("alloc", "free a struct sk_buff to skbuff_cache"),
    "kmem_cache_alloc_bulk": ("alloc", "refill the NAPI skb cache from the slab in bulk"),
    "kmem_cache_free_bulk": ("alloc", "flush heads from the full NAPI skb cache to the slab in bulk"),
    # DMA API
    "dma_map_single": ("dma", "map a kernel buffer for the device"),
    "dma_unmap_single": ("dma", "unmap it; the CPU owns the buffer again"),
    "dma_map_page": ("dma", "map a page for the device"),
    "dma_unmap_page": ("dma", "unmap a page"),
    "dma_sync_single_for_cpu": ("dma", "give a mapped buffer to the CPU for reading"),
    "dma_sync_single_for_device": ("dma", "give a mapped buffer back to the device"),
    "swiotlb_bounce": ("swiotlb", "copy between the original buffer and its SWIOTLB slots"),
    "swiotlb_tbl_map_single": ("swiotlb", "find free 2 KiB slots in the SWIOTLB pool"),
    "swiotlb_tbl_unmap_single": ("swiotlb", "release SWIOTLB slots"),
    "iommu_map": ("iommu", "allocate an IOVA and write the IOMMU page table"),
    "iommu_unmap": ("iommu", "clear the IOMMU page-table entries"),
    "iotlb_sync": ("iommu", "invalidate the IOTLB and wait (strict mode, every unmap)"),
    "fq_flush_iotlb": ("iommu", "lazy mode: the flush queue is full or its timer fired (fq_flush_timeout); one "
                                "IOTLB flush for all"),
    # page_pool
    "page_pool_create": ("page_pool", "create the pool (PP_FLAG_DMA_MAP: it maps pages itself)"),
    "page_pool_alloc_frag": ("page_pool", "carve a fragment from the pool's current page"),
    "page_pool_alloc_pages": ("page_pool", "take a whole page from the pool"),
    "page_pool_refill_alloc_cache": ("page_pool", "move up to 64 pages from the ptr_ring to the alloc cache"),
    "page_pool_dma_map": ("page_pool", "map a page as it enters the pool; it stays mapped"),
    # An skb's free reaches the pool through napi_pp_put_page() -> page_pool_put_full_netmem(..., false);
    # page_pool_recycle_direct() is the driver's own call (XDP_DROP), which no modelled driver makes.
    "page_pool_recycle_in_cache": ("page_pool", "the last fragment of a page freed in the pool's NAPI context "
                                                "(page_pool_napi_local): the page goes into the lockless alloc cache"),
    "page_pool_recycle_in_ring": ("page_pool", "the last fragment freed anywhere else: the page goes into the "
                                               "ptr_ring under its producer lock"),
    "page_pool_return_netmem": ("page_pool", "a page leaves the pool (ring full, or the pool destroyed): unmapped "
                                             "and given back to the page allocator"),
    "page_pool_destroy": ("page_pool", "driver is done with the pool; it waits for pages in flight"),
    "page_pool_release_retry": ("page_pool", "destroy retry (every second) while pages are still in flight"),
    "skb_mark_for_recycle": ("page_pool", "mark the skb so its pages go back to the pool when freed"),
    # skb
    "build_skb": ("alloc", "wrap the received buffer in an skb; head from the slab"),
    "slab_build_skb": ("alloc", "wrap a kmalloc'd buffer in an skb (head_frag = 0); head from the slab"),
    "skb_put": ("driver", "the skb already exists (allocated with its buffer): set the received length"),
    "napi_build_skb": ("alloc", "wrap the received buffer in an skb; head from the NAPI cache"),
    "napi_skb_cache_get": ("alloc", "pop a head from the per-CPU NAPI skb cache"),
    "napi_skb_cache_put": ("alloc", "push a freed head onto the per-CPU NAPI skb cache"),
    "napi_consume_skb": ("tx", "free a completed TX skb from NAPI: its head goes to the NAPI cache"),
    "dev_kfree_skb": ("tx", "free a completed TX skb: its head goes back to the slab"),
    "consume_skb": ("stack", "the socket is done with an skb: free it"),
    "napi_skb_free_stolen_head": ("gro", "GRO took the segment's data as a frag: its sk_buff goes to the NAPI cache"),
    "__napi_kfree_skb": ("gro", "GRO moved the segment's frags: its header and sk_buff go (NAPI cache)"),
    "kfree_skb_list": ("stack", "free a GRO skb's frag_list members: their sk_buffs to the slab"),
    "__kfree_skb": ("stack", "free an skb at once: its data, then the sk_buff to the slab"),
    "kfree_skb_napi_cache": ("stack", "free an skb with BHs off: the sk_buff into this CPU's NAPI cache (v6.10+)"),
    "skb_attempt_defer_free": ("stack", "the reader hands the skb back to the CPU that allocated it"),
    "skb_defer_free_flush": ("stack", "net_rx_action frees what other CPUs handed back: napi_consume_skb for each"),
    "gro_normal_list": ("stack", "hand napi->rx_list to netif_receive_skb_list_internal"),
    # delivery
    "napi_gro_receive": ("gro", "hand a frame to GRO: merge it into the flow's held skb or hold it"),
    "napi_gro_complete": ("gro", "a held chain is complete (full, or flushed): fix its headers, queue it on rx_list "
                                 "(gro_complete() since v6.15)"),
    "napi_gro_flush": ("gro", "complete the held GRO skbs and pass them up (napi_gro_flush() wraps gro_flush() since "
                              "v6.15)"),
    "netif_receive_skb": ("stack", "one skb enters the protocol stack (IP, then TCP/UDP)"),
    "ieee80211_rx_ni": ("stack", "mac80211 RX from process context: no NAPI, no GRO"),
    "ieee80211_rx_napi": ("stack", "mac80211 RX inside a NAPI poll: frames go to GRO"),
    "tcp_recvmsg": ("copy", "the reader copies the data to user space"),
    "udp_recvmsg": ("copy", "the reader copies one datagram to user space; skb_consume_udp() frees the skb"),
    "__consume_stateless_skb": ("stack", "UDP before v6.18: the reader frees the skb at once, its sk_buff to the "
                                         "slab"),
    "kfree_skb_reason": ("stack", "drop an skb: the UDP socket's receive buffer is full "
                                  "(SKB_DROP_REASON_SOCKET_RCVBUFF, counted in RcvbufErrors)"),
    "tcp_send_ack": ("tx", "TCP sends an ACK (tcp_send_ack -> __tcp_send_ack): __tcp_ack_snd_check() asks for "
                           "one per two full segments, or per GRO super-packet"),
    "dev_queue_xmit": ("tx", "queue a frame for transmission"),
    "ip_forward": ("stack", "route the frame out of another interface (forwarding only: a local datagram goes "
                            "to its socket)"),
    "xdp_do_tx": ("driver", "XDP_TX: send the frame back out of the same port"),
    "tx_complete": ("tx", "the NIC finished sending a TX descriptor"),
    # teardown
    "napi_disable": ("driver", "ifdown: stop the NAPI instance"),
    "tasklet_kill": ("driver", "ifdown: wait for the RX tasklet and stop it"),
    "ring_deinit": ("driver", "ifdown: free the buffers still on the rings"),
}

# Counters every `rxviz run --json` reports, present even when zero.
COUNTERS: Final = (
    "dma_map_single", "dma_unmap_single", "dma_map_page", "dma_unmap_page",
    "dma_sync_single_for_cpu", "dma_sync_single_for_device",
    "swiotlb_bounce", "swiotlb_bounce_bytes", "iommu_map", "iommu_unmap", "iotlb_sync",
    "alloc_pages", "put_page", "page_pool_alloc_frag", "page_pool_recycle_in_cache",
    "page_pool_recycle_in_ring", "page_pool_return_netmem", "build_skb", "napi_build_skb",
    "napi_consume_skb", "kmem_cache_alloc", "kmem_cache_free_bulk", "napi_gro_receive",
    "netif_receive_skb", "tcp_send_ack", "rx_dropped", "rx_missed_errors",
)

METRICS: Final = (
    "throughput_mbps", "cpu_percent", "sim_time_s", "frames_delivered", "frames_dropped",
    "cpu_ns_per_frame", "app_ns_per_frame", "acks_per_segment", "segments_per_skb", "bus_percent",
    "app_cpu_percent", "frames_processed", "swiotlb_share", "cpu_percent_outside_swiotlb",
)

# The faults of `--inject`: each breaks one rule of the DMA API (or of teardown) on purpose.
FAULTS: Final[dict[str, str]] = {
    "no-sync-for-cpu": "the driver reads a received buffer without dma_sync_single_for_cpu (or unmapping it) first",
    "double-unmap": "the driver unmaps an RX buffer twice (with page_pool: unmaps a page the pool mapped itself)",
    "wrong-direction": "the driver syncs or unmaps with a different DMA direction than it mapped with",
    "mask-violation": "the device is handed addresses beyond its streaming DMA mask, with no bounce",
    "leak-at-teardown": "ifdown cleans the TX ring in one budgeted pass and strands mapped buffers",
    "dma-beyond-mapping": "the driver maps half of each RX buffer but tells the device the whole size",
    "missing-unmap": "the driver syncs each received buffer for the CPU but never unmaps it: its mapping (and any "
                     "SWIOTLB slots) is never released",
}

# What each fault makes the checker report (most are named after it).
FAULT_SHOWS: Final[dict[str, str]] = {**{f: f for f in FAULTS}, "missing-unmap": "leak-at-teardown"}

# What the checker can report (Violation.name). The faults of `--inject` are named after the
# violation each one provokes (FAULT_SHOWS: missing-unmap shows as leak-at-teardown).
VIOLATIONS: Final = {
    "no-sync-for-cpu": "the CPU read a buffer the device still owned (no sync for the CPU, no unmap)",
    "double-unmap": "a mapping was unmapped twice",
    "wrong-direction": "a mapping was unmapped or synced with another direction than it was mapped with",
    "wrong-size": "a mapping was unmapped with another size than it was mapped with",
    "mask-violation": "a bus address beyond what the device can drive",
    "leak-at-teardown": "buffers still held after ifdown: DMA mappings still live when the driver lets go of the "
                        "device (CONFIG_DMA_API_DEBUG reports them at driver unbind), or a stalled page_pool "
                        "shutdown",
    "gro-outside-napi": "napi_gro_receive() outside the poll of its NAPI instance",
    "napi-not-added": "napi_gro_receive() on a napi_struct netif_napi_add() never set up: a NULL pointer oops",
    "page-refcount-underflow": "a page_pool fragment put back twice",
    "dma-beyond-mapping": "the device wrote past the end of a mapping (an IOMMU would fault; without one, memory "
                          "is corrupted)",
    "sync-beyond-mapping": "a dma_sync_* call reached past the end of its mapping",
    "sync-unmapped": "a dma_sync_* call on a mapping already unmapped (dma-debug: the driver syncs DMA memory it "
                     "has not allocated)",
    "illegal-transition": "an object moved along an edge its lifecycle does not have (a bug in the model)",
}

# Views a lesson step may focus (the TUI draws each from the model).
VIEWS: Final = ("ring", "memory", "pool", "skbcache", "napi", "bus", "counters", "log", "code", "machine", "passport")

# Integer ids for the hot path: counters and costs live in lists indexed by these.
CALL_NAMES: Final[tuple[str, ...]] = tuple(CALLS)
CALL_ID: Final[dict[str, int]] = {name: i for i, name in enumerate(CALL_NAMES)}
CATEGORY_OF: Final[tuple[str, ...]] = tuple(CALLS[name][0] for name in CALL_NAMES)
NCALLS: Final = len(CALL_NAMES)
