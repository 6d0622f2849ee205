"""atlantic-page-pool, reference: atlantic after the posted series "net: atlantic: convert
RX path to page_pool" (patch 2, the RX fragments).

Each descriptor holds a 2 KiB fragment of a page_pool page. The pool maps each
page once (PP_FLAG_DMA_MAP) and keeps it mapped while it recycles; the driver
only syncs: the fragment for the device when it posts it, and the bytes the
device wrote for the CPU before it reads them. The headers go into a small skb
(napi_alloc_skb) and the fragment is attached as its frag; the skb is marked
for recycling, so freeing it returns the fragment to the pool.
"""

from __future__ import annotations  # the struct fields below name types only the checker imports

from typing import TYPE_CHECKING, Final

# the kernel's names this driver uses (a learner's file may take them all: from models.driver import *)
from models.driver import (
    DMA_BIT_MASK,
    DMA_FROM_DEVICE,
    DMA_TO_DEVICE,
    PP_FLAG_DMA_MAP,
    Device,
    Napi,
    NetDriver,
    PagePoolParams,
    dev_kfree_skb_any,
    dma_set_mask_and_coherent,
    dma_sync_single_range_for_cpu,
    dma_sync_single_range_for_device,
    dma_unmap_single,
    driver_irq_enable,
    napi_alloc_skb,
    napi_complete_done,
    napi_gro_receive,
    page_pool_create,
    page_pool_destroy,
    page_pool_dev_alloc_frag,
    page_pool_get_dma_addr,
    page_pool_put_full_page,
    skb_add_rx_frag,
    skb_mark_for_recycle,
)

if TYPE_CHECKING:
    from models.page_pool import Page, PagePool  # struct page, struct page_pool

RX_BUF_SIZE: Final = 2048     # AQ_CFG_RX_FRAME_MAX
AQ_CFG_RX_HDR_SIZE: Final = 256


class Driver(NetDriver):
    # The driver's private state, as its struct would hold it (struct aq_ring_buff_s):
    pages: list[Page | None]          # struct page *: the page_pool page each descriptor's fragment is in
    offs: list[int]                   # the fragment's offset in it
    pool: PagePool                    # struct page_pool *

    def probe(self, dev: Device) -> int:
        return dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64))

    def open(self) -> None:
        n = self.rx_ring.size
        self.pages, self.offs = [None] * n, [0] * n
        self.pool = page_pool_create(PagePoolParams(flags=PP_FLAG_DMA_MAP, order=0, pool_size=1024,
                                                    dev=self.dev, napi=self.napi, dma_dir=DMA_FROM_DEVICE,
                                                    max_len=RX_BUF_SIZE))
        for i in range(n):
            if not self.refill(i):
                break

    def refill(self, i: int) -> bool:
        page, off = page_pool_dev_alloc_frag(self.pool, RX_BUF_SIZE)
        if page is None:
            self.pages[i] = None
            return False
        addr = page_pool_get_dma_addr(page)
        dma_sync_single_range_for_device(self.dev, addr, off, RX_BUF_SIZE, DMA_FROM_DEVICE)
        self.pages[i], self.offs[i] = page, off
        self.rx_ring.post(i, page, addr + off, RX_BUF_SIZE)
        return True

    def rx_frame(self, napi: Napi, i: int, length: int) -> None:
        page, off = self.pages[i], self.offs[i]
        assert page is not None           # the device wrote into it, so it was posted (a BUG_ON in C)
        dma_sync_single_range_for_cpu(self.dev, page_pool_get_dma_addr(page), off, length, DMA_FROM_DEVICE)
        self.refill(i)
        skb = napi_alloc_skb(napi, AQ_CFG_RX_HDR_SIZE)     # the headers are copied in here
        skb_add_rx_frag(skb, 0, page, off, length, RX_BUF_SIZE)
        skb_mark_for_recycle(skb)
        napi_gro_receive(napi, skb)

    def tx_complete(self, napi: Napi, budget: int) -> None:
        done = 0
        while done < budget:
            tx = self.tx_ring.next_completed(napi)
            if tx is None:
                break
            dma_unmap_single(self.dev, tx.dma, tx.len, DMA_TO_DEVICE)
            dev_kfree_skb_any(tx.skb)
            done += 1

    def poll(self, napi: Napi, budget: int) -> int:
        self.tx_complete(napi, budget)
        work_done = 0
        while work_done < budget:
            got = self.rx_ring.next_rx(napi)
            if got is None:
                break
            i, length = got
            self.rx_frame(napi, i, length)
            work_done += 1
        if work_done < budget and napi_complete_done(napi, work_done):
            driver_irq_enable(napi)
        return work_done

    def stop(self) -> None:
        for i, page in enumerate(self.pages):
            if page is not None:
                page_pool_put_full_page(self.pool, page, False)
                self.pages[i] = None
        page_pool_destroy(self.pool)
