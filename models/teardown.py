"""ifdown: stop the queue, free what is on the rings, destroy the pool, audit.

The order follows a driver's stop path: napi_disable(), freeze the hardware,
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

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # pragma: no cover
    from .sim import Sim

from .calls import CALL_ID as C
from .dma import dir_name
from .lifecycle import EDGE_ID as E
from .page_pool import DEFER_TIME_PS
from .trace import PS

NAPI_DISABLE: Final = C["napi_disable"]
TASKLET_KILL: Final = C["tasklet_kill"]
RING_DEINIT: Final = C["ring_deinit"]
CONSUME: Final = C["consume_skb"]


def teardown(self: Sim, wait_ns: int = 61 * 1_000_000_000) -> None:
    """Stop the queue, free what the rings and queues hold, destroy the pool, wait, audit."""
    if self.torn_down:
        return
    rec = self.rec
    # Metrics describe the traffic, not the minute spent waiting for the pool afterwards.
    self.final_metrics = self.metrics()
    self.torn_down = True
    # after whatever the CPU was doing: a poll stopped between two frames has its clock at rec.t
    rec.begin("process", max(self.engine.now, self.cpu_free, rec.t))
    self.dev_running = False
    self.irq_on = False
    # Between two poll units the poll is abandoned, so every state ends disabled.
    if self.delivery == "tasklet":
        rec.call(TASKLET_KILL, 0, "rx tasklet")
        self.tasklet.go(rec, E["tasklet_kill"])
    else:
        rec.call(NAPI_DISABLE, 0, "napi")
        self.napi.go(rec, E["napi_disable"])
    st = self.stack
    st.gro_flush()
    budgeted = self.sc.tx_clean == "budgeted" or "leak-at-teardown" in self.faults
    rec.call(RING_DEINIT, 0, "tx|%s", "one budgeted pass" if budgeted else "free every buffer")
    if budgeted:
        st.tx_clean(self.budget, rec.t)
        if st.tx and self.sc.tx_clean != "budgeted" and "leak-at-teardown" in self.faults:
            self.fault_hit("leak-at-teardown")      # the fault stranded what a full clean would free
    else:
        st.tx_clean(1 << 30, rec.t, everything=True)
    self.link.deinit()                  # the RX ring's buffers, or what the SDIO RX work still holds
    st.gro_normal_list()                # what napi_disable() left on rx_list goes up first
    st.egress_tx_complete()             # the egress NIC sends and completes the forwarded frames it holds
    while st.sockq:                     # the socket is closed: unread skbs are freed
        skb = st.sockq.popleft()
        rec.call(CONSUME, 0, "skb#%s|socket closed", skb.id)
        st.free_skb(skb, head="slab", allow_direct=False)
    st.defer_flush()                    # the RX CPU's last net_rx_action takes the deferred frees
    pool = self.pool
    if pool is not None:
        if not pool.driver_owned:
            pool.destroy()
        if pool.destroyed and pool.inflight() > 0:      # page_pool_release_retry() runs only after destroy
            self.engine.at(rec.t + DEFER_TIME_PS, _retry, self)
    self.cpu_free = rec.t
    self.engine.run_until(rec.t + wait_ns * PS)
    _audit(self, budgeted)


def _retry(self: Sim) -> None:
    rec = self.rec
    rec.begin("process", self.engine.now)
    assert self.pool is not None
    if self.pool.release_retry(self.engine.now):
        self.engine.at(self.engine.now + DEFER_TIME_PS, _retry, self)


def _audit(self: Sim, budgeted: bool) -> None:
    acc = self.accounting()
    pool_pages = acc["pool_inflight"]
    leaked = acc["live_mappings"] - pool_pages
    if leaked > 0:
        # dma_debug_device_change() at BUS_NOTIFY_UNBOUND_DRIVER: the count, then one leaked entry
        pool = {id(p.map) for p in self.pool.pages.values()} if self.pool is not None else set()
        m = next((m for m in reversed(self.dma.live.values()) if id(m) not in pool), None)
        entry = ("" if m is None else
                 f" One of leaked entries details: [device address={m.dma:#018x}] [size={m.size} bytes] "
                 f"[mapped with {dir_name(m.dir)}] [mapped as single]")
        self.dma.debug_error("leak-at-teardown",
                             f"DMA-API: device driver has pending DMA allocations while released from device "
                             f"[count={leaked}]{entry}"
                             + (" (TX buffers stranded by a budgeted ring deinit)" if budgeted else ""))


def accounting(self: Sim) -> dict[str, int]:
    """What is still held. After a clean teardown every entry but the caches is zero."""
    acc = {
        "live_mappings": len(self.dma.live),
        "swiotlb_used_slots": self.swiotlb.used_slots if self.swiotlb else 0,
        # A driver's pool it never destroyed is not waited for: its mapped pages are leaks.
        "pool_inflight": self.pool.inflight() if self.pool and (self.pool.destroyed or not self.pool.driver_owned)
        else 0,
        "skb_heads_in_use": self.heads.in_use,
        "tx_pending": len(self.stack.tx),
        "socket_queue": len(self.stack.sockq),
        "iommu_mapped_pages": self.iommu.mapped_pages if self.iommu else 0,
    }
    slab = getattr(self.strategy, "slab", None)
    acc["rx_buffers_in_use"] = slab.in_use if slab is not None else 0
    return acc
