"""Protocol delivery: netif_receive_skb() up through IP to the socket, or out again.

- netif_receive_skb() -> ip_rcv() -> tcp_v4_rcv(): the segment is queued on
  the socket and TCP decides its ACK (__tcp_ack_snd_check): at once when more
  than one full segment has arrived since the last ACK, otherwise a delayed
  ACK is armed (40 ms).
- udp_rcv() -> __udp_enqueue_schedule_skb(): a datagram goes onto the
  socket's queue, or is dropped when the receive buffer (net.core.rmem_default)
  is full.
- ip_forward(): a routed frame leaves through the egress NIC, whose driver
  frees it at its own TX completion, a batch at a time.

The cost is per skb (the protocol headers once, what GRO saves) plus per
segment (the work every segment's data needs whichever way it arrives).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .host_signals import HostSignals
    from .scenario import Costs, Scenario
    from .skb import Skb
    from .skb_free import SkbFree
    from .sock import Sock
    from .trace import Recorder
    from .tx import Tx
    from .wire import Wire

from .calls import CALL_ID as C
from .lifecycle import EDGE_ID as E
from .lifecycle import move
from .sock import UDP_RMEM, truesize

DELACK_PS: Final = 40_000_000 * 1000

RECEIVE_SKB: Final = C["netif_receive_skb"]
FORWARD: Final = C["ip_forward"]
DROP_RCVBUF: Final = C["kfree_skb_reason"]
DEV_KFREE: Final = C["dev_kfree_skb"]
E_DELIVER: Final = E["netif_receive_skb"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class NetifReceive:
    """The stack above the driver and GRO, for the scenario's traffic (TCP or UDP, local or forwarded)."""

    def __init__(self, sc: Scenario, rec: Recorder, costs: Costs, wire: Wire, sock: Sock, free: SkbFree,
                 tx: Tx, signals: HostSignals) -> None:
        self.rec = rec
        self.cost: Costs = costs
        self.wire = wire
        self.sock = sock
        self.free = free
        self.tx = tx                  # TCP's ACKs go out through it
        self.signals = signals
        self.tcp = sc.traffic == "tcp"
        self.forward = sc.forward
        self.egress: list[Skb] = []   # forwarded skbs on the egress NIC's TX ring, not yet completed
        self.egress_batch = sc.egress_tx_batch
        self.udp_drops = 0

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
        sk = self.sock
        sk.delivered += skb.segs
        if self.forward:
            rec.call(FORWARD, -1, "skb#%s", skb.id)
            # Out of the egress NIC: its driver frees the skb at TX completion, a batch at a time
            # (path_rest_ns has that driver's cost), outside this RX's context.
            self.egress.append(skb)
            if len(self.egress) >= self.egress_batch:
                self.egress_tx_complete()
            if self.tcp:
                # Routed TCP: the receiver behind us reads and ACKs; its ACKs open the window.
                sk.rcv_level += skb.segs
                self.wire.on_read(skb.segs)
                self.wire.on_ack(rec.t, sk.rcv_level)
                self.signals.device_wake()
            return
        sk.sockq.append(skb)
        sk.unacked += skb.segs
        sk.rcv_level += skb.segs
        if sk.unacked >= 2:
            self.tx.send_ack()
        elif sk.delack_t < 0:
            sk.delack_t = rec.t + DELACK_PS
            self.signals.arm_delack(sk.delack_t)
        self.signals.wake_reader()

    def egress_tx_complete(self) -> None:
        """The egress driver's TX completion: one pass over its ring frees every forwarded skb sent
        (dev_kfree_skb each, in its own poll: not the pool's NAPI, so pages go to the ptr_ring)."""
        batch, self.egress = self.egress, []
        rec = self.rec
        for skb in batch:
            rec.call(DEV_KFREE, 0, "skb#%s|forwarded: the egress driver's TX completion frees it", skb.id)
            self.free.free_skb(skb, head="slab", allow_direct=False)

    def udp_enqueue(self, skb: Skb) -> None:
        """__udp_enqueue_schedule_skb(): onto the socket's queue, or dropped when sk_rcvbuf is full."""
        size = truesize(skb)
        sk = self.sock
        if sk.sock_mem + size > UDP_RMEM:
            self.udp_drops += 1
            self.rec.call(DROP_RCVBUF, 0, "skb#%s|SKB_DROP_REASON_SOCKET_RCVBUFF", skb.id)
            self.free.free_skb(skb, head="slab", allow_direct=False)
            return
        sk.sock_mem += size
        sk.delivered += skb.segs
        sk.sockq.append(skb)
        self.signals.wake_reader()
