"""Above the driver: skb construction, GRO, batched delivery, the protocol stack, TCP's ACKs, the reader.

- Building: build_skb() / napi_build_skb() / slab_build_skb() wrap a received
  buffer; an skb from __netdev_alloc_skb() only has its length set
  (skb_put); atlantic's napi_alloc_skb() path copies the headers and
  attaches the buffer as a frag.
- GRO (models/gro.py) builds the held chain; a completed GRO skb, and with GRO
  off every skb, is queued by gro_normal_one() on napi->rx_list and handed to
  the stack by gro_normal_list() once gro_normal_batch (8) segments wait, and
  at napi_complete_done() or the end of a full poll.
- TCP receive (__tcp_ack_snd_check): an ACK goes out at once when more than
  one full segment has arrived since the last one, otherwise a delayed ACK is
  armed (40 ms).
- The reader copies data to user space (tcp_recvmsg) and frees the skb with
  skb_attempt_defer_free() (v5.19+): back to the CPU that allocated it, which
  frees it in its next net_rx_action with napi_consume_skb(); on the same
  CPU at once, to the NAPI cache from v6.10 (kfree_skb_napi_cache) and to the
  slab before.
- A local UDP datagram goes to its socket (udp_rcv -> __udp_enqueue_schedule_skb,
  dropped when the receive buffer, net.core.rmem_default, is full) and the
  reader takes it with udp_recvmsg; skb_consume_udp() frees it the way TCP
  does from v6.18, at once to the slab (__consume_stateless_skb) before.
  Only forwarded frames go to ip_forward. Freeing releases the data (the driver's allocator, or
  page_pool), the frag_list members (to the slab, in bulk from v6.3) and the
  sk_buff.
- ACKs are transmitted: on PCIe an skb mapped TO_DEVICE on the TX ring and
  reclaimed in the next poll (dev_kfree_skb or napi_consume_skb); on SDIO a
  CMD53 write on the shared bus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .dma import DmaApi, Mapping
    from .host_signals import HostSignals
    from .kernel import Kernel
    from .link import Link
    from .memory import PhysMem
    from .rx_buffer import Buf, RxBuffers
    from .scenario import Scenario
    from .skb import SkbHeads
    from .skb_head import Head
    from .trace import Recorder
    from .wire import Wire

from collections import deque

from .calls import CALL_ID as C
from .dma import TO_DEVICE, UNMAP_SINGLE
from .gro import Gro
from .lifecycle import EDGE_ID as E
from .lifecycle import MACHINE, Tracked, move
from .memory import Slab
from .scenario import Costs
from .skb import Skb

ETH_HLEN: Final = 14
DELACK_PS: Final = 40_000_000 * 1000
UDP_RMEM: Final = 212992              # net.core.rmem_default: a UDP socket's sk_rcvbuf, in truesize bytes
SKB_OVERHEAD: Final = 256             # SKB_DATA_ALIGN(sizeof(struct sk_buff)) on 64-bit, in each skb's truesize
ACK_BYTES: Final = 66
TX_LATENCY_PS: Final = 2_000 * 1000

SKB_PUT: Final = C["skb_put"]
SLAB_BUILD: Final = C["slab_build_skb"]
NAPI_BUILD: Final = C["napi_build_skb"]
BUILD: Final = C["build_skb"]
MARK: Final = C["skb_mark_for_recycle"]
RX_NAPI: Final = C["ieee80211_rx_napi"]
RX_TASKLET: Final = C["ieee80211_rx"]
RX_NI: Final = C["ieee80211_rx_ni"]
GRO_RECEIVE: Final = C["napi_gro_receive"]
GRO_COMPLETE: Final = C["napi_gro_complete"]
GRO_FLUSH: Final = C["napi_gro_flush"]
NORMAL_LIST: Final = C["gro_normal_list"]
RECEIVE_SKB: Final = C["netif_receive_skb"]
FORWARD: Final = C["ip_forward"]
FREE_FRAG: Final = C["skb_free_frag"]
RECVMSG: Final = C["tcp_recvmsg"]
UDP_RECVMSG: Final = C["udp_recvmsg"]
UDP_STATELESS: Final = C["__consume_stateless_skb"]
DROP_RCVBUF: Final = C["kfree_skb_reason"]
DEFER: Final = C["skb_attempt_defer_free"]
NAPI_CACHE_FREE: Final = C["kfree_skb_napi_cache"]
KFREE_SKB: Final = C["__kfree_skb"]
DEFER_FLUSH: Final = C["skb_defer_free_flush"]
NAPI_CONSUME: Final = C["napi_consume_skb"]
TCP_ACK: Final = C["tcp_send_ack"]
XMIT: Final = C["dev_queue_xmit"]
CONSUME: Final = C["consume_skb"]
XDP_TX: Final = C["xdp_do_tx"]
TX_COMPLETE: Final = C["tx_complete"]
DEV_KFREE: Final = C["dev_kfree_skb"]
KFREE_LIST: Final = C["kfree_skb_list"]

E_BUILD_SKB: Final = E["build_skb"]
E_NAPI_BUILD: Final = E["napi_build_skb"]
E_SLAB_BUILD: Final = E["slab_build_skb"]
E_SKB_PUT: Final = E["skb_put"]
E_ADD_FRAG: Final = E["skb_add_rx_frag"]
E_DELIVER: Final = E["netif_receive_skb"]
E_RELEASE: Final = E["skb_release_data"]
E_XDP_TX: Final = E["xdp_do_tx"]
E_TX_COMPLETE: Final = E["tx_complete"]
E_RING_DEINIT: Final = E["ring_deinit"]
TXBUF: Final = MACHINE["tx_buffer"]
E_XMIT: Final = E["dev_queue_xmit"]
E_MAP: Final = E["dma_map_single"]
E_POST: Final = E["post"]
E_UNMAP: Final = E["dma_unmap_single"]
E_NAPI_CONSUME: Final = E["napi_consume_skb"]
E_DEV_KFREE: Final = E["dev_kfree_skb"]
E_CONSUME: Final = E["consume_skb"]
E_SDIO_WRITE: Final = E["ath10k_sdio_write"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class TxEntry:
    """One TX descriptor in use: an ACK (its sk_buff, data and mapping) or an XDP_TX frame (a fragment)."""
    __slots__ = ("kind", "skb", "buf", "map", "t_done", "data", "obj")

    def __init__(self, kind: str, skb: Head | None, buf: Buf | None, m: Mapping | None, t_done: int, data: int,
                 obj: Tracked | None = None) -> None:
        self.kind = kind
        self.skb = skb
        self.buf = buf
        self.map = m
        self.t_done = t_done
        self.data = data
        self.obj = obj            # the ACK's tx_buffer object

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.kind, self.skb, self.buf, self.map, self.t_done, self.data, self.obj)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.kind, self.skb, self.buf, self.map, self.t_done, self.data, self.obj = state


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Stack:
    def __init__(self, sc: Scenario, rec: Recorder, costs: Costs, kernel: Kernel, mem: PhysMem, heads: SkbHeads,
                 dma: DmaApi, wire: Wire, link: Link, rx_buffers: RxBuffers, signals: HostSignals) -> None:
        self.signals = signals
        self.rec = rec
        self.cost: Costs = costs
        self.dma = dma
        self.wire = wire
        self.link = link              # where TCP's ACKs go out
        self.rx_buffers = rx_buffers  # where the RX data areas go back (the driver's RX strategy)
        # How the driver hands frames up (the scenario's delivery): through GRO (napi_gro_receive),
        # from a tasklet or a work; a napi_struct never added (netif_napi_add) has no GRO lists.
        self.napi_api = sc.napi_api
        self.tasklet = sc.delivery == "tasklet"
        self.napi_added = sc.napi_added
        self.tcp = sc.traffic == "tcp"
        self.forward = sc.forward
        self.gro_on = sc.gro
        self.heads = heads
        self.gro = Gro(self, heads, kernel, wire.hdrs)
        self.batch = sc.gro_normal_batch
        self.rx_list: list[Skb] = []       # napi->rx_list: skbs gro_normal_one() queued
        self.rx_count = 0             # segments on it (counted in segments since v5.11)
        self.napi_build = sc.skb_alloc == "napi_build_skb"
        self.tx_napi_consume = sc.tx_free == "napi_consume_skb"
        self.wifi = sc.wifi
        self.jiffy = 10**12 // sc.cost.hz
        self.unacked = 0
        self.acks = 0                 # ACKs sent (their tx_buffer objects are ack#1, ack#2, ...)
        self.rcv_level = 0
        self.sockq: deque[Skb] = deque()
        self.sock_mem = 0             # UDP: the queued skbs' truesize, charged against sk_rcvbuf
        self.egress: list[Skb] = []   # forwarded skbs on the egress NIC's TX ring, not yet completed
        self.egress_batch = sc.egress_tx_batch
        self.udp_drops = 0
        self.defer: list[Skb] = []         # this CPU's skb defer list (skb_attempt_defer_free)
        self.delack_t = -1
        self.ack_slab = Slab(mem, 512)
        self.tx: deque[TxEntry] = deque()
        self.delivered = 0            # segments handed to the socket (or forwarded, or reflected)
        self.read_segs = 0
        self.gro_warned = False
        self.copy_gbs = self.cost.copy_user_gbs
        self.mss = wire.mss
        k = kernel
        # what skb_attempt_defer_free() does with the reader's skbs, by kernel version
        self.defer_free = k.defer_free and not sc.cost.reader_same_cpu
        self.defer_max = k.defer_max
        self.free_to_napi_cache = k.defer_free and k.same_cpu_free_to_napi_cache and sc.cost.reader_same_cpu
        # skb_consume_udp(): through skb_attempt_defer_free() as TCP from v6.18, __consume_stateless_skb() before
        self.udp_defers = k.udp_defer_free

    @property
    def held(self) -> Skb | None:
        return self.gro.held

    # -- building the skb --------------------------------------------------------------
    def build(self, data: Buf, frags: list[Buf], length: int, in_napi: bool, pp: bool) -> Skb:
        """Wrap what the driver received in an skb, the way its driver does."""
        rec = self.rec
        heads = self.heads
        head: Head | None
        if data.kind == "hdr":
            head, edge = data.head, E_ADD_FRAG                  # made by header_skb(): frags attached
            data.head = None
        elif data.head is not None:
            head, edge = data.head, E_SKB_PUT                   # __netdev_alloc_skb: the skb came with it
            data.head = None
            rec.call(SKB_PUT, 0, "head#%s|buf#%s: %s bytes", head.id, data.id, length)
        else:
            if data.kind == "kmalloc":
                head, cid, edge = heads.alloc_slab(), SLAB_BUILD, E_SLAB_BUILD
            elif self.napi_build and in_napi:
                head, cid, edge = heads.alloc_napi(), NAPI_BUILD, E_NAPI_BUILD
            else:
                head, cid, edge = heads.alloc_slab(), BUILD, E_BUILD_SKB
            rec.cnt[cid] += 1
            rec.t += rec.unit[cid]
            if rec.tracing:
                rec.emit(cid, rec.unit[cid], "buf#%s|head#%s from the %s", (data.id, head.id,
                         "NAPI cache" if cid == NAPI_BUILD else "slab"))
        if data.m is not None:
            move(rec, data.m, data, edge)
        for buf in frags:
            if buf.m is not None:
                move(rec, buf.m, buf, E_ADD_FRAG)
        assert head is not None
        if pp:
            rec.cnt[MARK] += 1
            if rec.tracing:
                rec.emit(MARK, 0, "head#%s", (head.id,))
        heads._skb_ids += 1
        return Skb(heads._skb_ids, head, data, frags[:], length, rec.t)

    def rx(self, skb: Skb, in_napi: bool) -> None:
        """Hand one skb up: mac80211 for Wi-Fi, then GRO, or straight to the stack."""
        rec = self.rec
        if self.wifi:
            if self.napi_api:
                call = RX_NAPI
            else:
                call = RX_TASKLET if self.tasklet else RX_NI
            rec.call(call, -1, "skb#%s", skb.id)
        if self.napi_api:
            self.napi_gro_receive(skb, in_napi)
        else:
            self.netif_receive_skb(skb)

    # -- GRO -----------------------------------------------------------------------------
    def napi_gro_receive(self, skb: Skb, in_napi: bool) -> None:
        rec = self.rec
        rec.cnt[GRO_RECEIVE] += 1
        rec.t += rec.unit[GRO_RECEIVE]
        if rec.tracing:
            held = self.gro.held
            rec.emit(GRO_RECEIVE, rec.unit[GRO_RECEIVE], "skb#%s|%s segment(s) of the flow held before it",
                     (skb.id, held.segs if held else 0))
        if not self.napi_added:
            # The napi_struct was never set up: its GRO lists are zeroed memory, and walking one
            # (gro_list_prepare) dereferences NULL. The RX worker dies with the skb in hand.
            rec.warn("rx-outside-softirq", "WARNING in ieee80211_rx_napi(): WARN_ON_ONCE(softirq_count() == 0)",
                     f"skb#{skb.id}")
            rec.violate("napi-not-added",
                        "BUG: kernel NULL pointer dereference in gro_list_prepare(): napi_gro_receive() on a "
                        "napi_struct netif_napi_add() never initialised; the RX worker dies", f"skb#{skb.id}")
            self.signals.rx_oops()
            return
        if not in_napi and not self.gro_warned:
            self.gro_warned = True
            rec.violate("gro-outside-napi",
                        "napi_gro_receive() called from process context: GRO state belongs to the NAPI poll, is "
                        "unlocked outside it, and nothing flushes what it holds", f"skb#{skb.id}")
        if not self.gro_on or not self.tcp:
            self.gro_normal_one(skb)      # GRO_NORMAL: queued alone (netif_elide_gro, or not TCP)
            return
        self.gro.receive(skb, in_napi)

    def gro_complete(self, skb: Skb) -> None:
        """napi_gro_complete(): the finished chain goes onto rx_list like any other skb."""
        self.rec.call(GRO_COMPLETE, 0, "skb#%s|%s segment(s), %s bytes, %s frags, %s on frag_list",
                      skb.id, skb.segs, skb.len, len(skb.frags), len(skb.frag_list))
        self.gro_normal_one(skb)

    def gro_flush(self, old_only: bool = False) -> None:
        held = self.gro.held
        if held is None:
            return
        if old_only and self.rec.t - held.t_rx < self.jiffy:
            return
        self.rec.call(GRO_FLUSH, 0, "skb#%s|%s segment(s), %s bytes", held.id, held.segs, held.len)
        self.gro.flush()
        self.gro_complete(held)

    def gro_normal_one(self, skb: Skb) -> None:
        """Queue on napi->rx_list; at gro_normal_batch segments the list goes up."""
        self.rx_list.append(skb)
        self.rx_count += skb.segs
        if self.rx_count >= self.batch:
            self.gro_normal_list()

    def gro_normal_list(self) -> None:
        """netif_receive_skb_list_internal() for what rx_list holds."""
        if not self.rx_list:
            return
        batch, self.rx_list, self.rx_count = self.rx_list, [], 0
        self.rec.call(NORMAL_LIST, -1, "|%s skb(s) to netif_receive_skb_list_internal", len(batch))
        for skb in batch:
            self.netif_receive_skb(skb)

    # -- the protocol stack ----------------------------------------------------------------
    def netif_receive_skb(self, skb: Skb) -> None:
        rec = self.rec
        # Per skb: the protocol headers once (what GRO saves); per segment: the work every
        # segment's data needs whichever way it arrives (accounting, queueing, checksums).
        cost = self.cost.stack_skb + skb.segs * self.cost.stack_seg
        rec.cnt[RECEIVE_SKB] += 1
        rec.extra[RECEIVE_SKB] += cost
        rec.t += cost
        if rec.tracing:
            rec.emit(RECEIVE_SKB, cost, "skb#%s|len %s segs %s", (skb.id, skb.len, skb.segs))
        for buf in (skb.buffers() if skb.frag_list else (skb.data, *skb.frags)):
            m = buf.m
            if m is not None:
                move(rec, m, buf, E_DELIVER)
        if not self.forward and not self.tcp:
            self.udp_enqueue(skb)
            return
        self.delivered += skb.segs
        if self.forward:
            rec.call(FORWARD, -1, "skb#%s", skb.id)
            # Out of the egress NIC: its driver frees the skb at TX completion, a batch at a time
            # (path_rest_ns has that driver's cost), outside this RX's context.
            self.egress.append(skb)
            if len(self.egress) >= self.egress_batch:
                self.egress_tx_complete()
            if self.tcp:
                # Routed TCP: the receiver behind us reads and ACKs; its ACKs open the window.
                self.rcv_level += skb.segs
                self.wire.on_read(skb.segs)
                self.wire.on_ack(rec.t, self.rcv_level)
                self.signals.device_wake()
            return
        self.sockq.append(skb)
        self.unacked += skb.segs
        self.rcv_level += skb.segs
        if self.unacked >= 2:
            self.send_ack()
        elif self.delack_t < 0:
            self.delack_t = rec.t + DELACK_PS
            self.signals.arm_delack(self.delack_t)
        self.signals.wake_reader()

    def egress_tx_complete(self) -> None:
        """The egress driver's TX completion: one pass over its ring frees every forwarded skb sent
        (dev_kfree_skb each, in its own poll: not the pool's NAPI, so pages go to the ptr_ring)."""
        batch, self.egress = self.egress, []
        rec = self.rec
        for skb in batch:
            rec.call(DEV_KFREE, 0, "skb#%s|forwarded: the egress driver's TX completion frees it", skb.id)
            self.free_skb(skb, head="slab", allow_direct=False)

    def udp_enqueue(self, skb: Skb) -> None:
        """__udp_enqueue_schedule_skb(): onto the socket's queue, or dropped when sk_rcvbuf is full."""
        size = self.truesize(skb)
        if self.sock_mem + size > UDP_RMEM:
            self.udp_drops += 1
            self.rec.call(DROP_RCVBUF, 0, "skb#%s|SKB_DROP_REASON_SOCKET_RCVBUFF", skb.id)
            self.free_skb(skb, head="slab", allow_direct=False)
            return
        self.sock_mem += size
        self.delivered += skb.segs
        self.sockq.append(skb)
        self.signals.wake_reader()

    @staticmethod
    def truesize(skb: Skb) -> int:
        """skb->truesize, near enough: the data areas it holds and its sk_buff."""
        return sum(b.size for b in skb.buffers()) + SKB_OVERHEAD * (1 + len(skb.frag_list))

    # -- freeing -----------------------------------------------------------------------
    def free_data(self, buf: Buf, allow_direct: bool) -> None:
        """One data area back to where it came from (skb_free_frag, kfree, page_pool, put_page)."""
        if buf.kind == "hdr":
            rec = self.rec
            rec.cnt[FREE_FRAG] += 1
            rec.t += rec.unit[FREE_FRAG]
            if rec.tracing:
                rec.emit(FREE_FRAG, rec.unit[FREE_FRAG], "napi_alloc_skb header", ())
            return
        self.rx_buffers.free_buf(buf, allow_direct)

    def free_skb(self, skb: Skb, head: str, allow_direct: bool) -> None:
        """skb_release_data() then the sk_buff: head is "napi" (NAPI cache) or "slab"."""
        heads = self.heads
        self._release_data(skb, allow_direct)
        if skb.frag_list:                       # kfree_skb_list_reason()
            self.rec.call(KFREE_LIST, 0, "skb#%s|%s frag_list member(s)", skb.id, len(skb.frag_list))
            for m in skb.frag_list:
                self._release_data(m, allow_direct)
                heads.free_list_member(m.head)
            heads.flush_list_free()
        heads.free(skb.head, in_napi=head == "napi")

    def _release_data(self, skb: Skb, allow_direct: bool) -> None:
        rec = self.rec
        free_data = self.free_data
        for buf in (skb.data, *skb.frags):
            m = buf.m
            if m is not None:
                move(rec, m, buf, E_RELEASE)
            free_data(buf, allow_direct)

    def read_one(self) -> bool:
        """The application reads one skb (tcp_recvmsg) and frees it. False when the queue is empty."""
        if not self.sockq:
            return False
        skb = self.sockq.popleft()
        nbytes = skb.segs * self.mss
        rec = self.rec
        cost = self.cost.recv + Costs.copy(nbytes, self.copy_gbs)
        call = RECVMSG if self.tcp else UDP_RECVMSG
        rec.cnt[call] += 1
        rec.extra[call] += cost
        rec.t += cost
        if rec.tracing:
            rec.emit(call, cost, "skb#%s|%s bytes", (skb.id, nbytes))
        if not self.tcp:
            self.sock_mem -= self.truesize(skb)
        if self.tcp or self.udp_defers:
            self.reader_free(skb)
        else:                                   # skb_consume_udp() before v6.18
            rec.call(UDP_STATELESS, 0, "skb#%s", skb.id)
            self.free_skb(skb, head="slab", allow_direct=False)
        self.read_segs += skb.segs
        self.wire.on_read(skb.segs)
        self.signals.device_wake()
        return True

    def reader_free(self, skb: Skb) -> None:
        """tcp_eat_recv_skb() (or skb_consume_udp()) -> skb_attempt_defer_free(), as the kernel version does it."""
        rec = self.rec
        defer = self.defer
        if self.defer_free and len(defer) < self.defer_max:
            # Back to the CPU that allocated it: freed in its next net_rx_action.
            defer.append(skb)
            rec.cnt[DEFER] += 1
            rec.t += rec.unit[DEFER]
            if rec.tracing:
                rec.emit(DEFER, rec.unit[DEFER], "skb#%s|%s on the RX CPU's defer list", (skb.id, len(defer)))
            if len(defer) == self.defer_max >> 1:
                self.signals.kick_defer()       # the IPI that raises NET_RX_SOFTIRQ over there
            return
        if self.free_to_napi_cache:
            # kfree_skb_napi_cache(): BHs off, the sk_buff into this CPU's NAPI cache.
            rec.call(NAPI_CACHE_FREE, 0, "skb#%s", skb.id)
            self.free_skb(skb, head="napi", allow_direct=self.signals.pp_direct_ok())
            return
        rec.call(KFREE_SKB, 0, "skb#%s", skb.id)
        self.free_skb(skb, head="slab", allow_direct=False)

    def defer_flush(self) -> int:
        """skb_defer_free_flush(): on the RX CPU in softirq, napi_consume_skb(skb, 1) for each."""
        batch, self.defer = self.defer, []
        if not batch:
            return 0
        rec = self.rec
        rec.call(DEFER_FLUSH, -1, "|%s skb(s) the reader freed", len(batch))
        direct = self.signals.pp_direct_ok()
        free_skb = self.free_skb
        cnt = rec.cnt
        for skb in batch:
            cnt[NAPI_CONSUME] += 1
            if rec.tracing:
                rec.emit(NAPI_CONSUME, 0, "skb#%s", (skb.id,))
            free_skb(skb, "napi", direct)
        return len(batch)

    # -- ACKs and TX -------------------------------------------------------------------
    def send_ack(self) -> None:
        if self.signals.queue_stopped():      # ifdown stopped the TX queue first: nothing is sent
            self.unacked = 0
            return
        rec = self.rec
        self.unacked = 0
        self.delack_t = -1
        rec.call(TCP_ACK, -1, "|acks %s segments", self.rcv_level)
        self.wire.on_ack(rec.t, self.rcv_level)
        head = self.heads.alloc_skb()          # alloc_skb() in __tcp_send_ack()
        data = self.ack_slab.alloc()
        rec.call(XMIT, -1, "head#%s|%s bytes", head.id, ACK_BYTES)
        self.acks += 1
        tx = Tracked(TXBUF, f"ack#{self.acks}")
        tx.go(rec, E_XMIT)
        self.link.xmit(tx, head, data, ACK_BYTES)
        self.signals.device_wake()

    def tx_posted(self, tx: Tracked, head: Head, data: int, m: Mapping) -> None:
        """The ACK is mapped and on the TX ring; the device is done with it TX_LATENCY later."""
        tx.go(self.rec, E_MAP)
        tx.go(self.rec, E_POST)
        self.tx.append(TxEntry("skb", head, None, m, self.rec.t + TX_LATENCY_PS, data, tx))

    def tx_dropped(self, tx: Tracked, head: Head, data: int) -> None:
        """dma_mapping_error() on the ACK: the driver drops the frame."""
        tx.go(self.rec, E_DEV_KFREE)
        self.heads.free(head, in_napi=False)
        self.ack_slab.free(data)

    def ack_written(self, obj: tuple[Tracked, Head, int]) -> None:
        """SDIO/USB: the ACK left over the bus; the skb is freed."""
        tx, head, data = obj
        tx.go(self.rec, E_SDIO_WRITE)
        self.rec.call(CONSUME, 0, "head#%s", head.id)
        tx.go(self.rec, E_CONSUME)
        self.heads.free(head, in_napi=False)
        self.ack_slab.free(data)

    def xdp_tx(self, buf: Buf, length: int) -> None:
        rec = self.rec
        rec.call(XDP_TX, -1, "buf#%s", buf.id)
        assert buf.map is not None
        self.dma.sync_for_device(buf.map, buf.offset, length)
        assert buf.m is not None            # an XDP_TX frame is a page_pool fragment
        move(rec, buf.m, buf, E_XDP_TX)
        self.tx.append(TxEntry("xdp", None, buf, None, rec.t + TX_LATENCY_PS, 0))
        self.delivered += 1

    def tx_clean(self, budget: int, now: float, everything: bool = False) -> int:
        """Reclaim completed TX descriptors (in the poll, or at ring deinit)."""
        done = 0
        tx = self.tx
        while tx and done < budget and (everything or tx[0].t_done <= now):
            e = tx.popleft()
            done += 1
            self.rec.call(TX_COMPLETE, -1, "%s", e.kind)
            if e.buf is not None:           # an XDP_TX frame: a page_pool fragment
                assert e.buf.m is not None
                move(self.rec, e.buf.m, e.buf, E_TX_COMPLETE if not everything else E_RING_DEINIT)
                self.rx_buffers.free_buf(e.buf, not everything)     # xdp_return_frame_rx_napi in the poll
                continue
            tx_obj, head = e.obj, e.skb
            assert tx_obj is not None and head is not None and e.map is not None
            tx_obj.go(self.rec, E_TX_COMPLETE)
            self.dma.unmap(e.map, ACK_BYTES, TO_DEVICE, UNMAP_SINGLE)
            tx_obj.go(self.rec, E_UNMAP)
            in_napi = self.tx_napi_consume and not everything
            self.rec.call(NAPI_CONSUME if in_napi else DEV_KFREE, 0, "head#%s", head.id)
            tx_obj.go(self.rec, E_NAPI_CONSUME if in_napi else E_DEV_KFREE)
            self.heads.free(head, in_napi=in_napi)
            self.ack_slab.free(e.data)
        return done
