"""bgmac-napi-skb-cache, reference: bgmac after the posted patch "net: bgmac: use the NAPI
skb cache" (napi_build_skb on RX, napi_consume_skb at TX completion).

The per-frame RX path of rx-basics, with the sk_buff of each received frame taken
from this CPU's NAPI skb cache (napi_build_skb) and each sent skb given back to
it at TX completion (napi_consume_skb with the poll's budget).
"""

from typing import Final

# the kernel's names this driver uses (a learner's file may take them all: from models.driver import *)
from models.driver import (
    DMA_BIT_MASK,
    DMA_FROM_DEVICE,
    DMA_TO_DEVICE,
    NET_SKB_PAD,
    SKB_DATA_ALIGN,
    SKB_SHINFO_SIZE,
    Device,
    Napi,
    NetDriver,
    dma_map_single,
    dma_mapping_error,
    dma_set_mask_and_coherent,
    dma_unmap_single,
    driver_irq_enable,
    napi_build_skb,
    napi_complete_done,
    napi_consume_skb,
    napi_gro_receive,
    netdev_alloc_frag,
    netdev_rx_dropped,
    skb_free_frag,
    skb_put,
)

RX_BUF_SIZE: Final = 1566     # BGMAC_RX_BUF_SIZE: 30-byte RX header + 1536-byte frame (752e5fcc2e77)


class Driver(NetDriver):
    # The driver's private state, as its struct would hold it (struct bgmac_slot_info):
    bufs: list[object | None]         # void *: the data area on each RX descriptor
    dma: list[int]                    # dma_addr_t: its bus address
    alloc_size: int                   # the page_frag allocation, skb_shared_info included

    def probe(self, dev: Device) -> int:
        return dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32))

    def open(self) -> None:
        n = self.rx_ring.size
        self.bufs, self.dma = [None] * n, [0] * n
        self.alloc_size = SKB_DATA_ALIGN(NET_SKB_PAD() + RX_BUF_SIZE) + SKB_SHINFO_SIZE
        for i in range(n):
            buf, addr = self.alloc_mapped()
            if buf is None:
                break
            self.post(i, buf, addr)

    def alloc_mapped(self) -> tuple[object | None, int]:
        buf = netdev_alloc_frag(self.alloc_size)
        addr = dma_map_single(self.dev, buf, RX_BUF_SIZE, DMA_FROM_DEVICE, offset=NET_SKB_PAD())
        if dma_mapping_error(self.dev, addr):
            skb_free_frag(buf)
            return None, 0
        return buf, addr

    def post(self, i: int, buf: object, addr: int) -> None:
        self.bufs[i], self.dma[i] = buf, addr
        self.rx_ring.post(i, buf, addr, RX_BUF_SIZE)

    def rx_frame(self, napi: Napi, i: int, length: int) -> None:
        old, old_dma = self.bufs[i], self.dma[i]
        buf, addr = self.alloc_mapped()
        if buf is None:
            netdev_rx_dropped(self.dev, old)
            self.rx_ring.post(i, old, old_dma, RX_BUF_SIZE)
            return
        dma_unmap_single(self.dev, old_dma, RX_BUF_SIZE, DMA_FROM_DEVICE)
        self.post(i, buf, addr)
        skb = napi_build_skb(old, self.alloc_size)      # the sk_buff from the NAPI cache
        skb_put(skb, length)
        napi_gro_receive(napi, skb)

    def tx_complete(self, napi: Napi, budget: int) -> None:
        done = 0
        while done < budget:
            tx = self.tx_ring.next_completed(napi)
            if tx is None:
                break
            dma_unmap_single(self.dev, tx.dma, tx.len, DMA_TO_DEVICE)
            napi_consume_skb(tx.skb, budget)              # back to the NAPI cache
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
        for i, buf in enumerate(self.bufs):
            if buf is not None:
                dma_unmap_single(self.dev, self.dma[i], RX_BUF_SIZE, DMA_FROM_DEVICE)
                skb_free_frag(buf)
                self.bufs[i] = None
