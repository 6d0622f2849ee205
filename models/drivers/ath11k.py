"""ath11k-36bit-dma-mask, reference: ath11k after commit dbd73acb22d8 "wifi: ath11k: enable 36 bit mask for stream DMA"
(its RX path reduced to one ring).

The streaming mask says which bus addresses a dma_map_single() may return: with
36 bits, buffers anywhere in this machine's 8 GiB are mapped directly, none
bounced through SWIOTLB. The coherent mask is kept at 32 bits: the commit says
the firmware crashes when the coherent mask is 36-bit too (a hardware limit it
does not explain), so the rings from dma_alloc_coherent() stay below 4 GiB. RX
buffers come with their sk_buff (ath11k's dev_alloc_skb(), i.e. netdev_alloc_skb
without a netdev).
"""

from __future__ import annotations  # the struct fields below name types only the checker imports

from typing import TYPE_CHECKING, Final

# the kernel's names this driver uses (a learner's file may take them all: from models.driver import *)
from models.driver import (
    DMA_BIT_MASK,
    DMA_FROM_DEVICE,
    DMA_TO_DEVICE,
    Device,
    Napi,
    NetDriver,
    dev_kfree_skb_any,
    dma_map_single,
    dma_mapping_error,
    dma_set_coherent_mask,
    dma_set_mask,
    dma_unmap_single,
    driver_irq_enable,
    ieee80211_rx_napi,
    napi_complete_done,
    netdev_alloc_skb,
    netdev_rx_dropped,
    skb_put,
)

if TYPE_CHECKING:
    from models.skb import Skb  # struct sk_buff

RX_BUF_SIZE: Final = 2176     # DP_RX_BUFFER_SIZE + DP_RX_BUFFER_ALIGN_SIZE (2048 + 128), as ath11k allocates


class Driver(NetDriver):
    # The driver's private state, as its struct would hold it (struct ath11k_dp's RX ring):
    skbs: list[Skb | None]            # struct sk_buff *: the buffer on each RX descriptor
    dma: list[int]                    # dma_addr_t: its bus address

    def probe(self, dev: Device) -> int:
        rc = dma_set_mask(dev, DMA_BIT_MASK(36))           # streaming: 36 bits
        if rc:
            return rc
        return dma_set_coherent_mask(dev, DMA_BIT_MASK(32))  # coherent: the firmware needs 32

    def open(self) -> None:
        n = self.rx_ring.size
        self.skbs, self.dma = [None] * n, [0] * n
        for i in range(n):
            skb, addr = self.alloc_mapped()
            if skb is None:
                break
            self.post(i, skb, addr)

    def alloc_mapped(self) -> tuple[Skb | None, int]:
        skb = netdev_alloc_skb(self.dev, RX_BUF_SIZE)
        addr = dma_map_single(self.dev, skb, RX_BUF_SIZE, DMA_FROM_DEVICE)
        if dma_mapping_error(self.dev, addr):
            dev_kfree_skb_any(skb)
            return None, 0
        return skb, addr

    def post(self, i: int, skb: Skb, addr: int) -> None:
        self.skbs[i], self.dma[i] = skb, addr
        self.rx_ring.post(i, skb, addr, RX_BUF_SIZE)

    def rx_frame(self, napi: Napi, i: int, length: int) -> None:
        old, old_dma = self.skbs[i], self.dma[i]
        assert old is not None            # the device wrote into it, so it was posted (a BUG_ON in C)
        skb, addr = self.alloc_mapped()
        if skb is None:
            netdev_rx_dropped(self.dev, old)
            self.rx_ring.post(i, old, old_dma, RX_BUF_SIZE)
            return
        dma_unmap_single(self.dev, old_dma, RX_BUF_SIZE, DMA_FROM_DEVICE)
        self.post(i, skb, addr)
        skb_put(old, length)
        ieee80211_rx_napi(napi, old)      # mac80211, then GRO

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
        for i, skb in enumerate(self.skbs):
            if skb is not None:
                dma_unmap_single(self.dev, self.dma[i], RX_BUF_SIZE, DMA_FROM_DEVICE)
                dev_kfree_skb_any(skb)
                self.skbs[i] = None
