"""Exercise rx-refill: a per-frame RX path (lesson rx-basics).

Write the RX side of a simple PCIe NIC driver. Each of the ring's descriptors
holds one data area from netdev_alloc_frag(), mapped with dma_map_single() for
DMA_FROM_DEVICE. When the device has written a frame into one:

  1. allocate and map a replacement first (if that fails, drop the frame and
     post the same buffer again: netdev_rx_dropped());
  2. dma_unmap_single() the filled buffer: from now on the CPU may read it;
  3. post the replacement on the descriptor;
  4. build an skb around the filled buffer (build_skb, skb_put) and hand it
     to GRO (napi_gro_receive).

The NAPI poll takes at most `budget` frames; when it took fewer it calls
napi_complete_done() and, if that returns true, unmasks the interrupt
(driver_irq_enable). stop() gives back every buffer still on the ring.

Check it with `rxviz exercise check DIR`. The API: `python -m pydoc models.driver`.
"""

from models.driver import *  # noqa: F403

RX_BUF_SIZE = 2048            # what the device may write into one buffer


class Driver(NetDriver):
    def probe(self, dev):
        return dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64))

    def open(self):
        n = self.rx_ring.size
        self.bufs = [None] * n         # the data area on each descriptor
        self.dma = [0] * n             # and its bus address
        # NET_SKB_PAD of headroom, the data, then room for skb_shared_info (build_skb needs it)
        self.alloc_size = SKB_DATA_ALIGN(NET_SKB_PAD() + RX_BUF_SIZE) + SKB_SHINFO_SIZE
        # TODO: post a mapped buffer on every descriptor (stop at the first that fails):
        #       self.rx_ring.post(i, buf, addr, RX_BUF_SIZE)

    def alloc_mapped(self):
        """A data area mapped for the device: (buf, addr), or (None, 0)."""
        # TODO: netdev_alloc_frag(self.alloc_size), then dma_map_single(self.dev, buf, RX_BUF_SIZE,
        #       DMA_FROM_DEVICE, offset=NET_SKB_PAD()); check dma_mapping_error() (free the buffer if so)
        return None, 0

    def rx_frame(self, napi, i, length):
        """Descriptor i holds a frame of `length` bytes."""
        # TODO: steps 1-4 of the docstring above

    def tx_complete(self, napi, budget):
        """Given: reclaim the TX descriptors the device has sent (TCP's ACKs go out on the TX ring)."""
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
        # TODO: while work_done < budget, take the next frame (self.rx_ring.next_rx(napi) gives (i, length)
        #       or None) and handle it with self.rx_frame(); then complete NAPI if you did less than budget
        return work_done

    def stop(self):
        # TODO: unmap and free (skb_free_frag) every buffer still on a descriptor
        pass
