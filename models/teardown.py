"""After ifdown: the audit of what is still held (the ifdown itself is Sim.teardown).

The order of ifdown follows a driver's stop path: napi_disable(), freeze the hardware,
reclaim the TX ring, free the RX ring's buffers, destroy the page_pool. A
driver whose TX reclaim is one budgeted pass (atlantic before its patch 1)
strands whatever lies past the budget or past the frozen hardware head; a
stranded XDP_TX frame holds a page_pool fragment, so the pool's delayed
release retries every second and warns after 60 s ("stalled pool shutdown").

Then the audit CONFIG_DMA_API_DEBUG does when the driver is unbound from the
device (dma_debug_device_change() on BUS_NOTIFY_UNBOUND_DRIVER; the model
audits at ifdown, where a driver that unmaps at ifdown is done with them):
every mapping unmapped, every bounce slot released, every skb head and RX
buffer returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .dma import dir_name

if TYPE_CHECKING:  # pragma: no cover
    from .dma import DmaApi
    from .page_pool import PagePool
    from .rx_buffer import RxBuffers
    from .skb import SkbHeads
    from .stack import Stack


def audit(acc: dict[str, int], dma: DmaApi, pool: PagePool | None, budgeted: bool, phys: bool) -> None:
    """dma_debug_device_change() at BUS_NOTIFY_UNBOUND_DRIVER: mappings still live are leaks (the
    pool's in-flight pages aside, which its delayed release still waits for). `phys`: the kernel
    records dma_map_single()/dma_map_page() through debug_dma_map_phys() (6.18 on), so an entry
    reads "mapped as phy" where older kernels said "single"."""
    pool_pages = acc["pool_inflight"]
    leaked = acc["live_mappings"] - pool_pages
    if leaked > 0:
        # the count, then one leaked entry
        held = {id(p.map) for p in pool.pages.values()} if pool is not None else set()
        m = next((m for m in reversed(dma.live.values()) if id(m) not in held), None)
        entry = ("" if m is None else
                 f" One of leaked entries details: [device address={m.dma:#018x}] [size={m.size} bytes] "
                 f"[mapped with {dir_name(m.dir)}] [mapped as {'phy' if phys else 'single'}]")
        dma.debug_error("leak-at-teardown",
                        f"DMA-API: device driver has pending DMA allocations while released from device "
                        f"[count={leaked}]{entry}"
                        + (" (TX buffers stranded by a budgeted ring deinit)" if budgeted else ""))


def accounting(dma: DmaApi, pool: PagePool | None, heads: SkbHeads, stack: Stack,
               rx_buffers: RxBuffers) -> dict[str, int]:
    """What is still held. After a clean teardown every entry but the caches is zero."""
    acc = {
        "live_mappings": len(dma.live),
        "swiotlb_used_slots": dma.swiotlb.used_slots if dma.swiotlb else 0,
        # A driver's pool it never destroyed is not waited for: its mapped pages are leaks.
        "pool_inflight": pool.inflight() if pool and (pool.destroyed or not pool.driver_owned) else 0,
        "skb_heads_in_use": heads.in_use,
        "tx_pending": len(stack.tx.ring),
        "socket_queue": len(stack.sock.sockq),
        "iommu_mapped_pages": dma.iommu.mapped_pages if dma.iommu else 0,
    }
    slab = getattr(rx_buffers, "slab", None)
    acc["rx_buffers_in_use"] = slab.in_use if slab is not None else 0
    return acc
