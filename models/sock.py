"""The receiving socket's state, shared by the parts of the stack that touch it.

One socket receives the lesson's traffic: what struct sock and struct tcp_sock
hold for its receive side, reduced to what the model needs. The protocol
delivery (models/netif_receive.py) queues on it and counts what TCP has not
ACKed yet; TCP's ACK TX (models/tx.py) clears that when an ACK goes out; the
reader (models/reader.py) takes from it. Each of them is built with this one
object, so none of them reaches into another part for it.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .skb import Skb

UDP_RMEM: Final = 212992              # net.core.rmem_default: a UDP socket's sk_rcvbuf, in truesize bytes
SKB_OVERHEAD: Final = 256             # SKB_DATA_ALIGN(sizeof(struct sk_buff)) on 64-bit, in each skb's truesize


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Sock:
    """sk_receive_queue, sk_rmem_alloc and the receive side of TCP's ACK state, in segments."""

    def __init__(self) -> None:
        self.sockq: deque[Skb] = deque()   # sk_receive_queue
        self.sock_mem = 0             # UDP: the queued skbs' truesize, charged against sk_rcvbuf (sk_rmem_alloc)
        self.unacked = 0              # segments received since the last ACK (what __tcp_ack_snd_check weighs)
        self.rcv_level = 0            # segments received in all (rcv_nxt, counted in segments): what an ACK acks
        self.delack_t = -1            # the delayed-ACK timer's expiry (icsk_ack.timeout), -1 when not armed
        self.delivered = 0            # segments handed to the socket (or forwarded, or reflected by XDP_TX)
        self.read_segs = 0            # segments the application has read


def truesize(skb: Skb) -> int:
    """skb->truesize, near enough: the data areas it holds and its sk_buff."""
    return _data_bytes(skb) + SKB_OVERHEAD * (1 + len(skb.frag_list))


def _data_bytes(skb: Skb) -> int:
    """The sizes of every data area skb.buffers() yields, summed by loops (no generator per skb)."""
    n = skb.data.size
    for b in skb.frags:
        n += b.size
    for member in skb.frag_list:
        n += _data_bytes(member)
    return n
