"""Freeing an skb: skb_release_data() gives each data area back, then the sk_buff goes.

Every part that drops or consumes an skb frees it here (net/core/skbuff.c):
the protocol delivery (a UDP datagram the full socket drops, a forwarded frame
the egress driver completed), GRO (the header of a merged segment), the
reader's frees, the driver's napi_consume_skb() and the teardown. A data area
goes back where the driver got it: the header napi_alloc_skb() copied to
(skb_free_frag), or the driver's RX buffers (kfree, page_pool, put_page). An
skb GRO chained keeps its members on the frag_list: kfree_skb_list() frees
them, to the slab, in bulk from v6.3. The sk_buff itself goes to the per-CPU
NAPI cache or the slab, as the caller says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .rx_buffer import Buf, RxBuffers
    from .skb import Skb, SkbHeads
    from .trace import Recorder

from .calls import CALL_ID as C
from .lifecycle import EDGE_ID as E
from .lifecycle import move

FREE_FRAG: Final = C["skb_free_frag"]
KFREE_LIST: Final = C["kfree_skb_list"]
E_RELEASE: Final = E["skb_release_data"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SkbFree:
    """kfree_skb() and its kin for the skbs the driver built (models/skb_build.py)."""

    def __init__(self, rec: Recorder, heads: SkbHeads, rx_buffers: RxBuffers) -> None:
        self.rec = rec
        self.heads = heads
        self.rx_buffers = rx_buffers  # where the RX data areas go back (the driver's RX strategy)

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
        data = skb.data
        if data.m is not None:
            move(rec, data.m, data, E_RELEASE)
        self.free_data(data, allow_direct)
        # A page frag is always a driver's RX buffer (never the header napi_alloc_skb() made): it
        # goes straight back to the RX strategy, one call a frag.
        free_buf = self.rx_buffers.free_buf
        for buf in skb.frags:
            m = buf.m
            if m is not None:
                move(rec, m, buf, E_RELEASE)
            free_buf(buf, allow_direct)
