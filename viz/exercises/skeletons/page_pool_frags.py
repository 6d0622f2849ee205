"""Exercise page-pool-frags: an RX path on page_pool fragments (lesson atlantic-page-pool).

atlantic's posted series ("convert RX path to page_pool") moves its RX buffers
to page_pool. Each descriptor holds a
2 KiB fragment of a pool page. With PP_FLAG_DMA_MAP the pool maps each page
once, when it enters the pool, and keeps it mapped while it recycles: the
driver never maps or unmaps a pool page. It syncs instead:

  - before posting a fragment, for the device:
      dma_sync_single_range_for_device(dev, page_pool_get_dma_addr(page), off, RX_BUF_SIZE, DMA_FROM_DEVICE)
  - before reading a frame, for the CPU, the `length` bytes the device wrote:
      dma_sync_single_range_for_cpu(dev, page_pool_get_dma_addr(page), off, length, DMA_FROM_DEVICE)

The headers go into a small skb (napi_alloc_skb(napi, AQ_CFG_RX_HDR_SIZE)),
the fragment is attached with skb_add_rx_frag(skb, 0, page, off, length,
RX_BUF_SIZE), and skb_mark_for_recycle() makes the skb's free return it to
the pool. stop() puts back every fragment still on the ring
(page_pool_put_full_page(pool, page, False)) and destroys the pool.

Check it with `rxviz exercise check DIR`.
"""

from models.driver import *  # noqa: F403

RX_BUF_SIZE = 2048            # AQ_CFG_RX_FRAME_MAX
AQ_CFG_RX_HDR_SIZE = 256


class Driver(NetDriver):
    def probe(self, dev):
        return dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64))

    def open(self):
        n = self.rx_ring.size
        self.pages, self.offs = [None] * n, [0] * n
        # TODO: self.pool = page_pool_create(PagePoolParams(flags=..., order=0, pool_size=1024, dev=self.dev,
        #       napi=self.napi, dma_dir=DMA_FROM_DEVICE, max_len=RX_BUF_SIZE))
        self.pool = None
        for i in range(n):
            if not self.refill(i):
                break

    def refill(self, i):
        """Post a fresh fragment on descriptor i; False when the pool has none."""
        # TODO: page, off = page_pool_dev_alloc_frag(self.pool, RX_BUF_SIZE); sync it for the device;
        #       remember it; self.rx_ring.post(i, page, page_pool_get_dma_addr(page) + off, RX_BUF_SIZE)
        return False

    def rx_frame(self, napi, i, length):
        # TODO: sync for the CPU, refill descriptor i, build the header skb, attach the fragment, mark it
        #       for recycling, napi_gro_receive()
        pass

    def tx_complete(self, napi, budget):
        """Given: reclaim the TX descriptors the device has sent."""
        done = 0
        while done < budget:
            tx = self.tx_ring.next_completed(napi)
            if tx is None:
                break
            dma_unmap_single(self.dev, tx.dma, tx.len, DMA_TO_DEVICE)
            dev_kfree_skb_any(tx.skb)
            done += 1

    def poll(self, napi, budget):
        """Given: the NAPI poll of rx-refill."""
        self.tx_complete(napi, budget)
        work_done = 0
        while work_done < budget:
            got = self.rx_ring.next_rx(napi)
            if got is None:
                break
            self.rx_frame(napi, *got)
            work_done += 1
        if work_done < budget and napi_complete_done(napi, work_done):
            driver_irq_enable(napi)
        return work_done

    def stop(self):
        # TODO: page_pool_put_full_page() every fragment still on a descriptor, then page_pool_destroy()
        pass
