"""PagePoolFrag: fragments from a page_pool; the pool maps each page once.

The driver syncs each fragment for the CPU before reading it and for the
device when it posts it (ath9k, atlantic and bgmac after their patches).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

from .dma import BIDIRECTIONAL, FROM_DEVICE, UNMAP_PAGE
from .lifecycle import move
from .page_pool import PagePool
from .rx_buffer import PP_FRAG, Buf, FlipPage, Received
from .rx_strategy import (
    E_POST,
    E_RING_DEINIT,
    E_SYNC_CPU,
    FRAG_CARVED,
    FRAG_CPU_SYNCED,
    RxParts,
    Strategy,
)

if TYPE_CHECKING:  # pragma: no cover

    from .page_pool import Page
    from .ring import Ring
    from .scenario import Scenario


def _pp(buf: Buf) -> Page:
    """The page_pool page a fragment is carved from."""
    pg = buf.page
    assert pg is not None and not isinstance(pg, FlipPage)
    return pg


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PagePoolFrag(Strategy):
    name = "page-pool"

    def __init__(self, sc: Scenario, parts: RxParts, ring: Ring) -> None:
        super().__init__(sc, parts, ring)
        # page_pool_alloc_frag rounds to dma_get_cache_alignment(): the cache line on a
        # non-coherent CPU, 1 on x86.
        align = 1 if sc.cost.coherent else sc.cost.cacheline
        frag = sc.frag_size or self.size
        self.frag = (frag + align - 1) // align * align
        pp_dir = BIDIRECTIONAL if (self.dir == BIDIRECTIONAL or sc.xdp == "tx") else FROM_DEVICE
        self.status_in_buffer = self.dir == BIDIRECTIONAL     # the driver asked for it (ath9k EDMA)
        self.dir = pp_dir
        self.xdp_tx = sc.xdp == "tx"
        self.pool = PagePool(parts.rec, parts.costs, parts.dma, parts.mem, sc.page_order, sc.pool_size, pp_dir,
                             self.size, sync_dev=False, napi=sc.napi_polled)
        self.sync_cpu = "no-sync-for-cpu" not in self.faults
        self.sync_dir = self._sync_dir(self.dir)
        self.wrong_dir = "wrong-direction" in self.faults
        self.double_unmap = "double-unmap" in self.faults

    def fill(self, i: int) -> bool:
        pool = self.pool
        page = pool.alloc_frag(self.frag)
        if page is None:
            return False
        off = pool.frag_offset - self.frag
        self._ids += 1
        pm = page.map
        assert pm is not None          # the pool maps every page it holds
        buf = Buf(self._ids, page.phys + off, self.frag, PP_FRAG, FRAG_CARVED, "pp", page, off, pm)
        self.dma.sync_for_device(pm, off, self.size)
        move(self.rec, PP_FRAG, buf, E_POST)
        self.ring.post(i, buf)
        return True

    def receive(self, descs: list[int]) -> Received:
        bufs = []
        rec = self.rec
        ring = self.ring
        for i in descs:
            buf = ring.bufs[i]
            assert buf is not None and buf.map is not None
            if not self.sync_cpu:
                self.signals.fault_hit("no-sync-for-cpu")
            else:
                # EDMA-style status in the buffer head: the driver syncs the whole buffer to read it.
                self.dma.sync_for_cpu(buf.map, buf.offset, self.size if self.status_in_buffer else ring.lens[i],
                                      self.sync_dir)
                if self.wrong_dir:
                    self.signals.fault_hit("wrong-direction")
                move(rec, PP_FRAG, buf, E_SYNC_CPU)
            if buf.st != FRAG_CPU_SYNCED:       # the fragment stays `filled`: its machine has the bug's edges
                self.rec.violate("no-sync-for-cpu",
                                 f"CPU reads fragment buf#{buf.id} of page#{_pp(buf).id} without "
                                 f"dma_sync_single_for_cpu: it may see stale cache lines or bounce data",
                                 f"buf#{buf.id}")
            if self.double_unmap and buf.map.live:
                # The classic bug: the driver unmaps a page the pool mapped (PP_FLAG_DMA_MAP);
                # the pool unmaps it again when the page leaves.
                self.signals.fault_hit("double-unmap")
                self.dma.unmap(buf.map, self.pool.page_bytes, self.pool.dma_dir, UNMAP_PAGE)
            self.fill(i)
            bufs.append(buf)
        xdp_tx = self.xdp_tx
        if self.napi_alloc and not xdp_tx:
            return self.header_skb(bufs, ring.lens[descs[0]]), False
        return (bufs[0], bufs[1:]), xdp_tx

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        pg = buf.page          # _pp(), without the call: one free a frame comes here
        assert pg is not None and not isinstance(pg, FlipPage)
        self.pool.put_frag(pg, allow_direct)

    def deinit(self, i: int) -> None:
        buf = self.ring.bufs[i]
        assert buf is not None
        move(self.rec, PP_FRAG, buf, E_RING_DEINIT)
        self.pool.put_frag(_pp(buf), allow_direct=False)
        self.ring.bufs[i] = None

