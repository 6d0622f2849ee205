"""Building the skb around what the driver received (net/core/skbuff.c).

build_skb() / napi_build_skb() / slab_build_skb() wrap a received buffer in an
sk_buff from the slab or the per-CPU NAPI cache; an skb from
__netdev_alloc_skb() came with its buffer and only has its length set
(skb_put); atlantic's napi_alloc_skb() path copied the headers and attaches
the payload as frags (skb_add_rx_frag). A page_pool driver marks the skb for
recycling (skb_mark_for_recycle) so that its free goes back to the pool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .rx_buffer import Buf
    from .scenario import Scenario
    from .skb import SkbHeads
    from .skb_head import Head
    from .trace import Recorder

from .calls import CALL_ID as C
from .lifecycle import EDGE_ID as E
from .lifecycle import move
from .skb import Skb

SKB_PUT: Final = C["skb_put"]
SLAB_BUILD: Final = C["slab_build_skb"]
NAPI_BUILD: Final = C["napi_build_skb"]
BUILD: Final = C["build_skb"]
MARK: Final = C["skb_mark_for_recycle"]

E_BUILD_SKB: Final = E["build_skb"]
E_NAPI_BUILD: Final = E["napi_build_skb"]
E_SLAB_BUILD: Final = E["slab_build_skb"]
E_SKB_PUT: Final = E["skb_put"]
E_ADD_FRAG: Final = E["skb_add_rx_frag"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SkbBuild:
    """The driver's skb construction, as the scenario's skb_alloc says (build_skb or napi_build_skb)."""

    def __init__(self, sc: Scenario, rec: Recorder, heads: SkbHeads) -> None:
        self.rec = rec
        self.heads = heads
        self.napi_build = sc.skb_alloc == "napi_build_skb"

    def build(self, data: Buf, frags: list[Buf], length: int, in_napi: bool, pp: bool) -> Skb:  # noqa: C901 (older than the complexity rule)
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
        # `frags` is the skb's own: every caller hands over a list made for this frame (no copy)
        return Skb(heads._skb_ids, head, data, frags, length, rec.t)
