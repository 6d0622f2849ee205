"""Exercise dma-masks: a streaming mask and a coherent mask (lesson ath11k-36bit-dma-mask).

The WCN6855 can address 36 bits for its RX buffers, but the driver sets one
32-bit mask for everything: on this 8 GiB machine most buffers sit above
4 GiB and dma_map_single() bounces each through SWIOTLB (a copy per frame).
A 36-bit mask for the coherent memory, though, crashes the firmware (the
commit blames an unexplained hardware limit), so its rings, which come from
dma_alloc_coherent(), must stay below 4 GiB.

Fix probe(). Check it with `rxviz exercise check DIR`.
"""

from models.driver import *  # noqa: F403

RX_BUF_SIZE = 2176            # DP_RX_BUFFER_SIZE + DP_RX_BUFFER_ALIGN_SIZE (2048 + 128), as ath11k allocates


class Driver(NetDriver):
    def probe(self, dev):
        # TODO: the device can address 36 bits for streaming DMA (dma_set_mask), but its firmware needs its
        #       rings (coherent memory) below 4 GiB (dma_set_coherent_mask). Today both are 32 bits:
        return dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32))

    def open(self):
        n = self.rx_ring.size
        self.skbs, self.dma = [None] * n, [0] * n
        for i in range(n):
            skb, addr = self.alloc_mapped()
            if skb is None:
                break
            self.post(i, skb, addr)

    def alloc_mapped(self):
        skb = netdev_alloc_skb(self.dev, RX_BUF_SIZE)
        addr = dma_map_single(self.dev, skb, RX_BUF_SIZE, DMA_FROM_DEVICE)
        if dma_mapping_error(self.dev, addr):
            dev_kfree_skb_any(skb)
            return None, 0
        return skb, addr

    def post(self, i, skb, addr):
        self.skbs[i], self.dma[i] = skb, addr
        self.rx_ring.post(i, skb, addr, RX_BUF_SIZE)

    def rx_frame(self, napi, i, length):
        old, old_dma = self.skbs[i], self.dma[i]
        skb, addr = self.alloc_mapped()
        if skb is None:
            netdev_rx_dropped(self.dev, old)
            self.rx_ring.post(i, old, old_dma, RX_BUF_SIZE)
            return
        dma_unmap_single(self.dev, old_dma, RX_BUF_SIZE, DMA_FROM_DEVICE)
        self.post(i, skb, addr)
        skb_put(old, length)
        ieee80211_rx_napi(napi, old)      # mac80211, then GRO

    def tx_complete(self, napi, budget):
        done = 0
        while done < budget:
            tx = self.tx_ring.next_completed(napi)
            if tx is None:
                break
            dma_unmap_single(self.dev, tx.dma, tx.len, DMA_TO_DEVICE)
            dev_kfree_skb_any(tx.skb)
            done += 1

    def poll(self, napi, budget):
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
        for i, skb in enumerate(self.skbs):
            if skb is not None:
                dma_unmap_single(self.dev, self.dma[i], RX_BUF_SIZE, DMA_FROM_DEVICE)
                dev_kfree_skb_any(skb)
                self.skbs[i] = None
