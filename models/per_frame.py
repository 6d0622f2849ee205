"""PerFrame: a buffer allocated and dma_map_single()d for every frame (ath9k, bgmac, ath11k before their patches).

The replacement is allocated and mapped first, then the filled one is
unmapped. Where the buffer comes from is `rx_alloc`, and it decides how the
frame becomes an skb:
    frag     netdev_alloc_frag() (a page fragment), wrapped with build_skb()
             or napi_build_skb() when the frame arrives (bgmac);
    skb      __netdev_alloc_skb(): the sk_buff exists from the refill, the
             frame only needs its length set (ath9k, ath11k);
    kmalloc  kmalloc(), wrapped with slab_build_skb() (head_frag = 0, so GRO
             cannot steal the head).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

from .calls import CALL_ID as C
from .dma import BIDIRECTIONAL, MAP_SINGLE, TO_DEVICE, UNMAP_SINGLE
from .lifecycle import EDGE_ID as E
from .lifecycle import move
from .memory import Slab
from .rx_buffer import RX_BUFFER, Buf, Received
from .rx_strategy import (
    E_MAP_SINGLE,
    E_POST,
    E_RING_DEINIT,
    E_RX_DROPPED,
    E_SYNC_CPU,
    E_UNMAP_SINGLE,
    RX_DROPPED,
    RX_FREE,
    SHINFO,
    RxParts,
    Strategy,
)

if TYPE_CHECKING:  # pragma: no cover

    from .ring import Ring
    from .scenario import Scenario


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PerFrame(Strategy):
    name = "per-frame"
    ALLOC = {"frag": "netdev_alloc_frag", "skb": "__netdev_alloc_skb", "kmalloc": "kmalloc"}
    FREE = {"frag": "skb_free_frag", "skb": "skb_free_frag", "kmalloc": "kfree"}

    def __init__(self, sc: Scenario, parts: RxParts, ring: Ring) -> None:
        super().__init__(sc, parts, ring)
        self.kind = sc.rx_alloc
        self.alloc_call, self.free_call = C[self.ALLOC[self.kind]], C[self.FREE[self.kind]]
        self.alloc_edge, self.free_edge = E[self.ALLOC[self.kind]], E[self.FREE[self.kind]]
        # The fault: map half of what the descriptor tells the device it may write.
        self.short_map = "dma-beyond-mapping" in self.faults
        self.map_size = self.size // 2 if self.short_map else self.size
        # netdev_alloc_frag() and __netdev_alloc_skb() take NET_SKB_PAD of headroom in front of the
        # data and room for skb_shared_info behind it; the driver maps only the data area between
        # them (bgmac: buf + BGMAC_RX_BUF_OFFSET; skb->data after skb_reserve(NET_SKB_PAD)).
        self.headroom = max(32, sc.cost.cacheline) if self.kind != "kmalloc" else 0     # NET_SKB_PAD
        align = sc.cost.cacheline
        alloc = (self.headroom + self.size + align - 1) // align * align + SHINFO if self.headroom else self.size
        self.slab = Slab(parts.mem, alloc)
        # what the allocation call is given: netdev_alloc_frag(fragsz) the whole fragment (bgmac:
        # BGMAC_RX_ALLOC_SIZE, shared info included), __netdev_alloc_skb(dev, len) and kmalloc(size) the length
        self.asked = alloc if self.kind == "frag" else self.size
        self.status_in_buffer = self.dir == BIDIRECTIONAL
        self.no_sync = "no-sync-for-cpu" in self.faults
        self.missing_unmap = "missing-unmap" in self.faults
        self.double_unmap = "double-unmap" in self.faults
        self.wrong_dir = "wrong-direction" in self.faults
        self.unmap_dir = TO_DEVICE if self.wrong_dir else self.dir
        self.ring_post = ring.post

    def _alloc_mapped(self) -> Buf | None:
        rec = self.rec
        phys = self.slab.alloc()
        self._ids += 1
        buf = Buf(self._ids, phys, self.size, RX_BUFFER, RX_FREE, self.kind)
        if self.kind == "skb":
            buf.head = self.heads.alloc_slab()    # the sk_buff comes with the buffer
        cid = self.alloc_call
        rec.cnt[cid] += 1
        rec.t += rec.unit[cid]
        if rec.tracing:
            rec.emit(cid, rec.unit[cid], "buf#%s|%s bytes at %#x", (buf.id, self.asked, phys))
        move(rec, RX_BUFFER, buf, self.alloc_edge)
        m = self.dma.map(phys + self.headroom, self.map_size, self.dir, MAP_SINGLE)
        if m is None:
            self._free_data(buf)
            return None
        if self.short_map:
            self.signals.fault_hit("dma-beyond-mapping")
        buf.map = m
        move(rec, RX_BUFFER, buf, E_MAP_SINGLE)
        return buf

    def fill(self, i: int) -> bool:
        buf = self._alloc_mapped()
        if buf is None:
            return False
        self._post(i, buf)
        return True

    def receive(self, descs: list[int]) -> Received:
        i = descs[0]
        dma, rec = self.dma, self.rec
        old = self.ring.bufs[i]
        assert old is not None and old.map is not None      # a posted per-frame buffer is mapped
        om = old.map
        if self.no_sync:
            self.signals.fault_hit("no-sync-for-cpu")
            dma.cpu_read(om, "the RX status in buf#%s", old.id)
        elif self.status_in_buffer:
            # EDMA chips write the RX status into the buffer head: sync the whole buffer, then read it.
            dma.sync_for_cpu(om, 0, self.size)
            move(rec, RX_BUFFER, old, E_SYNC_CPU)
        new = self._alloc_mapped()
        if new is None:
            # No replacement: drop the frame and give the old buffer back to the device.
            if old.state == "cpu-synced":
                dma.sync_for_device(om, 0, self.size)
            rec.call(RX_DROPPED, 0, "buf#%s|no replacement buffer: the frame is dropped", old.id)
            move(rec, RX_BUFFER, old, E_RX_DROPPED)
            self.ring.post(i, old)
            return None, False
        if self.missing_unmap:
            # The bug: the data is synced for the CPU and used, the mapping is never given back.
            self.signals.fault_hit("missing-unmap")
            if old.state != "cpu-synced":
                dma.sync_for_cpu(om, 0, self.ring.lens[i], self.dir)
                move(rec, RX_BUFFER, old, E_SYNC_CPU)
            om.cpu_owned = True
            self._post(i, new)
            return (old, []), False
        dma.unmap(om, self.map_size, self.unmap_dir, UNMAP_SINGLE)
        if self.wrong_dir:
            self.signals.fault_hit("wrong-direction")
        if self.double_unmap:
            self.signals.fault_hit("double-unmap")
            dma.unmap(om, self.map_size, self.unmap_dir, UNMAP_SINGLE)
        move(rec, RX_BUFFER, old, E_UNMAP_SINGLE)
        # the CPU reads the frame now: an unmapped buffer is the CPU's (no check to make)
        move(rec, RX_BUFFER, new, E_POST)
        self.ring_post(i, new)
        return (old, []), False

    def _free_data(self, buf: Buf) -> None:
        """A buffer that never became an skb goes back (a failed map, ifdown)."""
        self.rec.call(self.free_call, -1, "buf#%s", buf.id)
        move(self.rec, RX_BUFFER, buf, self.free_edge)
        self.slab.free(buf.phys)
        if buf.head is not None and buf.state != "in-skb":
            self.heads.free(buf.head, in_napi=False)
            buf.head = None

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        rec = self.rec
        cid = self.free_call
        rec.cnt[cid] += 1
        rec.t += rec.unit[cid]
        if rec.tracing:
            rec.emit(cid, rec.unit[cid], "buf#%s", (buf.id,))
        self.slab.free(buf.phys)

    def deinit(self, i: int) -> None:
        buf = self.ring.bufs[i]
        assert buf is not None and buf.map is not None
        self.dma.unmap(buf.map, self.map_size, self.dir, UNMAP_SINGLE)
        move(self.rec, RX_BUFFER, buf, E_RING_DEINIT)
        self._free_data(buf)
        self.ring.bufs[i] = None

