"""Above the driver: skb construction, GRO, the protocol stack, TCP's ACKs, the reader.

- GRO (net/core/gro.c): one TCP flow is held per NAPI; each segment merges
  into the held skb until the next would reach GRO_LEGACY_MAX_SIZE (64 KiB),
  and everything held is completed at napi_complete_done(). The absorbed
  segment's head goes to the NAPI skb cache (napi_skb_free_stolen_head).
- TCP receive (__tcp_ack_snd_check): an ACK goes out at once when more than
  one full segment has arrived since the last one, otherwise a delayed ACK is
  armed (40 ms). Per-frame delivery gives one ACK per two segments; a GRO
  super-packet of 32 segments gets one.
- The reader copies data to user space (tcp_recvmsg) and frees the skb: its
  data goes back to the driver's allocator or the page_pool, its head to
  the slab.
- ACKs are transmitted: on PCIe an skb mapped TO_DEVICE on the TX ring and
  reclaimed in the next poll (dev_kfree_skb or napi_consume_skb); on SDIO a
  CMD53 write on the shared bus.
"""

from __future__ import annotations

from collections import deque

from .dma import TO_DEVICE
from .memory import Slab
from .rxpath import move

GRO_LEGACY_MAX_SIZE = 65536
ETH_HLEN = 14
DELACK_NS = 40_000_000
ACK_BYTES = 66
TX_LATENCY_NS = 2_000


class TxEntry:
    __slots__ = ("kind", "skb", "buf", "map", "t_done", "data")

    def __init__(self, kind: str, skb, buf, m, t_done: int, data: int) -> None:
        self.kind = kind
        self.skb = skb
        self.buf = buf
        self.map = m
        self.t_done = t_done
        self.data = data


class Stack:
    def __init__(self, sim) -> None:
        self.sim = sim
        self.rec = sim.rec
        self.p = sim.platform
        prm = sim.params
        self.tcp = prm["traffic"] == "tcp"
        self.forward = prm["forward"]
        self.gro = prm["gro"]
        self.napi_build = prm["skb_alloc"] == "napi_build_skb"
        self.tx_napi_consume = prm["tx_free"] == "napi_consume_skb"
        self.wifi = self.p.mac80211_ns > 0
        self.held = None
        self.gro_state = "empty"
        self.unacked = 0
        self.rcv_level = 0
        self.sockq: deque = deque()
        self.delack_t = -1
        self.ack_slab = Slab(sim.mem, 512)
        self.tx: deque[TxEntry] = deque()
        self.delivered = 0            # segments handed to the socket (or forwarded, or reflected)
        self.read_segs = 0
        self.gro_warned = False
        self.copy_ns_per_byte = 1.0 / self.p.copy_user_gbs

    # -- building the skb --------------------------------------------------------------
    def build(self, buf, length: int, in_napi: bool, pp: bool):
        rec = self.rec
        heads = self.sim.heads
        if self.napi_build and in_napi:
            head = heads.alloc_napi()
            rec.call("napi_build_skb", self.p.build_skb_ns, "buf#%s|head#%s from the NAPI cache", buf.id, head.id)
            move(buf, "napi_build_skb") if buf.machine else None
        else:
            head = heads.alloc_slab()
            rec.call("build_skb", self.p.build_skb_ns, "buf#%s|head#%s from the slab", buf.id, head.id)
            move(buf, "build_skb") if buf.machine else None
        if pp:
            rec.call("skb_mark_for_recycle", 0.0, "head#%s", head.id)
        return heads.new_skb(head, buf, length, int(rec.t))

    def rx(self, skb, in_napi: bool) -> None:
        """Hand one skb up: mac80211 for Wi-Fi, then GRO or straight to the stack."""
        rec = self.rec
        if self.wifi:
            sim = self.sim
            if sim.napi_api:
                call = "ieee80211_rx_napi"
            else:
                call = "ieee80211_rx" if sim.delivery == "tasklet" else "ieee80211_rx_ni"
            rec.call(call, self.p.mac80211_ns, "skb#%s", skb.id)
        if self.gro and self.sim.napi_api:
            self.gro_receive(skb, in_napi)
        else:
            self.netif_receive_skb(skb)

    # -- GRO -----------------------------------------------------------------------------
    def gro_receive(self, skb, in_napi: bool) -> None:
        rec = self.rec
        rec.call("napi_gro_receive", self.p.gro_ns, "skb#%s|%s segment(s) of the flow held before it", skb.id,
                 self.held.segs if self.held else 0)
        if not in_napi and not self.gro_warned:
            self.gro_warned = True
            rec.violate("gro-outside-napi",
                        "napi_gro_receive() called from process context on a napi_struct that is never "
                        "polled: GRO state is unlocked and nothing flushes what it holds", f"skb#{skb.id}")
        if not self.tcp:
            self.netif_receive_skb(skb)
            return
        held = self.held
        if held is None:
            self.held = skb
            self.gro_state = "held"
            return
        # skb_gro_receive(): p->len counts from the network header; the new segment adds
        # its TCP payload (ETH_HLEN and the 52 bytes of IP/TCP headers are not merged).
        payload = skb.len - ETH_HLEN - 52
        if held.len - ETH_HLEN + payload >= GRO_LEGACY_MAX_SIZE:
            self.held = skb
            self.netif_receive_skb(held)
            return
        held.bufs.extend(skb.bufs)
        held.len += payload
        held.segs += 1
        # napi_skb_free_stolen_head(): the absorbed skb's head goes to the NAPI cache
        self.sim.heads.free(skb.head, in_napi=in_napi)

    def gro_flush(self, old_only: bool = False) -> None:
        held = self.held
        if held is None:
            return
        if old_only and self.rec.t - held.t_rx < 1_000_000_000 / self.p.hz:
            return
        self.rec.call("napi_gro_flush", 0.0, "skb#%s|%s segment(s), %s bytes", held.id, held.segs, held.len)
        self.held = None
        self.gro_state = "empty"
        self.netif_receive_skb(held)

    # -- the protocol stack ----------------------------------------------------------------
    def netif_receive_skb(self, skb) -> None:
        rec = self.rec
        # Per skb: the protocol headers once (what GRO saves); per segment: the work every
        # segment's data needs whichever way it arrives (accounting, queueing, checksums).
        rec.call("netif_receive_skb", self.p.stack_skb_ns + skb.segs * self.p.stack_seg_ns,
                 "skb#%s|len %s segs %s", skb.id, skb.len, skb.segs)
        for buf in skb.bufs:
            if buf.machine:
                move(buf, "deliver")
        self.delivered += skb.segs
        if self.forward or not self.tcp:
            rec.call("ip_forward", self.p.forward_ns, "skb#%s", skb.id)
            self.free_skb(skb, head_in_napi=False, pp_direct=False)
            if self.tcp:
                # Routed TCP: the receiver behind us reads and ACKs; its ACKs open the window.
                self.rcv_level += skb.segs
                self.sim.wire.on_read(skb.segs)
                self.sim.wire.on_ack(rec.t, self.rcv_level)
                self.sim.device_wake()
            return
        self.sockq.append(skb)
        self.unacked += skb.segs
        self.rcv_level += skb.segs
        if self.unacked >= 2:
            self.send_ack()
        elif self.delack_t < 0:
            self.delack_t = int(rec.t) + DELACK_NS
            self.sim.engine.at(self.delack_t, self.sim.delack_timer, None)
        self.sim.wake_reader()

    def free_skb(self, skb, head_in_napi: bool, pp_direct: bool) -> None:
        strategy = self.sim.strategy
        for buf in skb.bufs:
            if buf.machine:
                move(buf, "consume_skb")
            strategy.free_data(buf, pp_direct)
        self.sim.heads.free(skb.head, in_napi=head_in_napi)

    def read_one(self) -> bool:
        """The application reads one skb (tcp_recvmsg) and frees it. False when the queue is empty."""
        if not self.sockq:
            return False
        skb = self.sockq.popleft()
        nbytes = skb.segs * self.sim.wire.mss
        self.rec.call("tcp_recvmsg", self.p.recv_ns + nbytes * self.copy_ns_per_byte, "skb#%s|%s bytes", skb.id, nbytes)
        self.rec.call("consume_skb", 0.0, "skb#%s", skb.id)
        self.free_skb(skb, head_in_napi=False, pp_direct=False)
        self.read_segs += skb.segs
        self.sim.wire.on_read(skb.segs)
        self.sim.device_wake()
        return True

    # -- ACKs and TX -------------------------------------------------------------------
    def send_ack(self) -> None:
        if self.sim.torn_down:      # ifdown stopped the TX queue first: nothing is sent
            self.unacked = 0
            return
        rec = self.rec
        self.unacked = 0
        self.delack_t = -1
        rec.call("tcp_ack", self.p.tcp_ack_ns, "|acks %s segments", self.rcv_level)
        self.sim.wire.on_ack(rec.t, self.rcv_level)
        head = self.sim.heads.alloc_slab()
        data = self.ack_slab.alloc()
        rec.call("dev_queue_xmit", self.p.driver_tx_ns, "head#%s|%s bytes", head.id, ACK_BYTES)
        if self.sim.bus != "pcie":
            self.sim.bus_write(ACK_BYTES, (head, data))
        else:
            m = self.sim.dma.map(data, ACK_BYTES, TO_DEVICE, "dma_map_single")
            if m is None:           # dma_mapping_error(): the driver drops the frame
                self.sim.heads.free(head, in_napi=False)
                self.ack_slab.free(data)
            else:
                self.tx.append(TxEntry("skb", head, None, m, int(rec.t) + TX_LATENCY_NS, data))
        self.sim.device_wake()

    def ack_written(self, obj) -> None:
        """SDIO/USB: the ACK left over the bus; the skb is freed."""
        head, data = obj
        self.rec.call("consume_skb", 0.0, "head#%s", head.id)
        self.sim.heads.free(head, in_napi=False)
        self.ack_slab.free(data)

    def xdp_tx(self, buf, length: int) -> None:
        rec = self.rec
        rec.call("xdp_do_tx", self.p.driver_tx_ns, "buf#%s", buf.id)
        self.sim.dma.sync_for_device(buf.map, buf.offset, length)
        move(buf, "xdp_do_tx")
        self.tx.append(TxEntry("xdp", None, buf, None, int(rec.t) + TX_LATENCY_NS, 0))
        self.delivered += 1

    def tx_clean(self, budget: int, now: float, everything: bool = False) -> int:
        """Reclaim completed TX descriptors (in the poll, or at ring deinit)."""
        done = 0
        tx = self.tx
        while tx and done < budget and (everything or tx[0].t_done <= now):
            e = tx.popleft()
            done += 1
            self.rec.call("tx_complete", self.p.driver_tx_ns, "%s", e.kind)
            if e.kind == "xdp":
                move(e.buf, "tx_complete" if not everything else "ring_deinit")
                self.sim.strategy.free_data(e.buf, not everything)
                continue
            self.sim.dma.unmap(e.map, ACK_BYTES, TO_DEVICE, "dma_unmap_single")
            in_napi = self.tx_napi_consume and not everything
            self.rec.call("napi_consume_skb" if in_napi else "dev_kfree_skb", 0.0, "head#%s", e.skb.id)
            self.sim.heads.free(e.skb, in_napi=in_napi)
            self.ack_slab.free(e.data)
        return done
