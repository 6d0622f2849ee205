"""GRO (net/core/gro.c): one held chain per TCP flow, built as skb_gro_receive() builds it.

The held skb `p` collects the flow's segments until the next would make it
reach GRO_LEGACY_MAX_SIZE (64 KiB, counted from the network header). Each
new segment goes into the *last* skb of the chain (NAPI_GRO_CB(p)->last):

  - its payload already in page frags (napi_alloc_skb + frags: the linear part
    holds only the headers): the frags move to `last`, and the segment's
    sk_buff and header are freed (NAPI_GRO_FREE);
  - its linear data a page fragment (skb->head_frag: build_skb,
    napi_build_skb, __netdev_alloc_skb): the data itself becomes a frag of
    `last` and only the sk_buff is freed (NAPI_GRO_FREE_STOLEN_HEAD);
  - `last` has no room (MAX_SKB_FRAGS, 17), or the data is kmalloc'd
    (slab_build_skb: head_frag = 0): the segment is chained on p's frag_list,
    keeps its sk_buff, and becomes the new `last`.

Freed shells go to the NAPI skb cache (napi_skb_free_stolen_head,
__napi_kfree_skb) from v5.12, to the slab before. At MTU 1500 with stolen
heads a 45-segment super-packet keeps 3 sk_buffs (p and two chained
containers) and frees 42.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .kernel import Kernel
    from .skb import Skb, SkbHeads
    from .stack import Stack

from .calls import CALL_ID as C
from .lifecycle import EDGE_ID as E
from .lifecycle import MACHINE, Stateful, move

GRO_LEGACY_MAX_SIZE: Final = 65536
MAX_SKB_FRAGS: Final = 17
ETH_HLEN: Final = 14
NAPI_KFREE: Final = C["__napi_kfree_skb"]
KFREE: Final = C["__kfree_skb"]
STOLEN: Final = C["napi_skb_free_stolen_head"]
FLOW: Final = MACHINE["gro_flow"]
EMPTY = FLOW.sid["empty"]
E_RECEIVE: Final = E["napi_gro_receive"]
E_COMPLETE: Final = E["napi_gro_complete"]
E_FLUSH: Final = E["napi_gro_flush"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Gro(Stateful):
    """The GRO state of one NAPI instance: at most one held flow (the model has one flow).

    The flow is an object of the gro_flow machine (`st`), labelled "flow".
    """
    label = "flow"

    def __init__(self, stack: Stack, heads: SkbHeads, kernel: Kernel, hdrs: int) -> None:
        self.stack = stack
        self.rec = stack.rec
        self.heads = heads
        self.stolen_to_cache = kernel.stolen_heads_to_napi_cache
        self.held: Skb | None = None
        self.hdrs = hdrs          # IP + TCP headers of each segment
        self.st = EMPTY

    @property
    def state(self) -> str:
        return FLOW.states[self.st]

    def tag(self) -> str:
        return self.label

    def receive(self, skb: Skb, in_napi: bool) -> None:
        """dev_gro_receive() -> tcp_gro_receive() -> skb_gro_receive() for one TCP segment."""
        rec = self.rec
        move(rec, FLOW, self, E_RECEIVE)
        held = self.held
        if held is None:
            self.held = skb
            return
        payload = skb.len - ETH_HLEN - self.hdrs
        # p->len counts from the network header: the Ethernet header was pulled.
        if held.len - ETH_HLEN + payload >= GRO_LEGACY_MAX_SIZE:
            self.held = skb                # -E2BIG: complete the chain, the segment starts a new one
            self.stack.gro_complete(held)
            move(rec, FLOW, self, E_COMPLETE)
            return
        lp = held.last or held
        stolen = self.stolen_to_cache and in_napi
        data = skb.data
        if data.kind == "hdr":
            # The linear part is the copied headers only: the payload frags move to lp.
            if len(lp.frags) + len(skb.frags) <= MAX_SKB_FRAGS:
                lp.frags.extend(skb.frags)
                # NAPI_GRO_FREE: the header and the shell go
                cid = NAPI_KFREE if stolen else KFREE
                rec.cnt[cid] += 1
                if rec.tracing:
                    rec.emit(cid, 0, "skb#%s|frags moved into skb#%s", (skb.id, lp.id))
                self.stack.free_data(data, in_napi)
                self.heads.free(skb.head, stolen)
                held.len += payload
                held.segs += 1
                if lp is not held:
                    lp.len += payload
                return
        elif data.kind != "kmalloc":          # head_frag: the head is a page fragment GRO can steal
            if len(lp.frags) + 1 + len(skb.frags) <= MAX_SKB_FRAGS:
                lp.frags.append(data)                                # the head page becomes a frag
                lp.frags.extend(skb.frags)
                # NAPI_GRO_FREE_STOLEN_HEAD: only the shell goes
                rec.cnt[STOLEN] += 1
                if rec.tracing:
                    rec.emit(STOLEN, 0, "skb#%s|data now frag %s of skb#%s, shell to the %s",
                             (skb.id, len(lp.frags), lp.id, "NAPI cache" if stolen else "slab"))
                self.heads.free(skb.head, stolen)
                held.len += payload
                held.segs += 1
                if lp is not held:
                    lp.len += payload
                return
        # merge: chained on the frag_list, keeping its sk_buff; it becomes the new last
        held.frag_list.append(skb)
        held.last = skb
        self._grow(held, held, payload)

    @staticmethod
    def _grow(held: Skb, lp: Skb, payload: int) -> None:
        held.len += payload
        held.segs += 1
        if lp is not held:
            lp.len += payload

    def flush(self) -> Skb | None:
        """napi_gro_flush(): hand back the held chain (or None)."""
        held, self.held = self.held, None
        if held is not None:
            move(self.rec, FLOW, self, E_FLUSH)
        return held
