"""sk_buffs: the struct sk_buff from the skbuff_cache slab or the per-CPU NAPI skb cache, and what it holds.

The sk_buff ("head" here, as the NAPI cache calls it) is the metadata; the
data it points at is separate: the linear data area (an RX buffer, a
page_pool fragment, or the small header napi_alloc_skb() made), page frags
attached after it, and, for a GRO super-packet, other skbs chained on its
frag_list.

`build_skb()` takes the sk_buff from the slab with kmem_cache_alloc;
`napi_build_skb()` and `napi_alloc_skb()` pop it from the NAPI cache, which
refills NAPI_SKB_CACHE_BULK at a time with kmem_cache_alloc_bulk when
empty. From v6.19 `__alloc_skb()` (TCP's ACKs) pops it too, outside hard
IRQ, but never refills it: an empty cache sends it to the slab. Heads freed
in NAPI context (napi_consume_skb, GRO's merged shells, deferred frees) are
pushed onto the cache; when it is full, a batch goes back with one
kmem_cache_free_bulk. frag_list members are freed to the slab by
kfree_skb_list_reason(), in bulk from v6.3. The sizes follow the kernel
version (64/16/32 up to v6.18, 128/32/32 from v6.19) unless set.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .kernel import Kernel
    from .rx_buffer import Buf
    from .scenario import Costs
    from .trace import Recorder

from .calls import CALL_ID as C
from .lifecycle import EDGE_ID as E
from .lifecycle import MACHINE, move
from .skb_head import Head

KFREE_SKB_BULK_SIZE: Final = 16      # net/core/skbuff.c: frag_list members freed 16 at a time

M: Final = MACHINE["skb_head"]
E_ALLOC: Final = E["kmem_cache_alloc"]
E_ALLOC_BULK: Final = E["kmem_cache_alloc_bulk"]
E_GET: Final = E["napi_skb_cache_get"]
E_PUT: Final = E["napi_skb_cache_put"]
E_FREE: Final = E["kmem_cache_free"]
E_FREE_BULK: Final = E["kmem_cache_free_bulk"]
E_LIST: Final = E["kfree_skb_list"]
KMEM_ALLOC: Final = C["kmem_cache_alloc"]
KMEM_FREE: Final = C["kmem_cache_free"]
ALLOC_BULK: Final = C["kmem_cache_alloc_bulk"]
FREE_BULK: Final = C["kmem_cache_free_bulk"]
CACHE_GET: Final = C["napi_skb_cache_get"]
CACHE_PUT: Final = C["napi_skb_cache_put"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Skb:
    """An skb on its way up: its sk_buff, linear data, page frags and (GRO) frag_list members."""
    __slots__ = ("id", "head", "data", "frags", "frag_list", "last", "len", "segs", "t_rx")

    def __init__(self, id: int, head: Head, data: Buf, frags: list[Buf], length: int, t: int) -> None:
        self.id = id
        self.head = head
        self.data = data           # the linear data area (a Buf)
        self.frags = frags         # page frags (Bufs), skb_shinfo(skb)->frags
        self.frag_list: list[Skb] = []
        # NAPI_GRO_CB(p)->last, where the next segment's data goes; None while it is this skb
        # itself, so that an skb is no reference cycle and is freed as soon as it is let go.
        self.last: Skb | None = None
        self.len = length
        self.segs = 1
        self.t_rx = t

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.id, self.head, self.data, self.frags, self.frag_list, self.last, self.len, self.segs, self.t_rx)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.id, self.head, self.data, self.frags, self.frag_list, self.last, self.len, self.segs, self.t_rx = state

    def buffers(self) -> Iterator[Buf]:
        """Every data area this skb holds, its frag_list members' included."""
        yield self.data
        yield from self.frags
        for m in self.frag_list:
            yield from m.buffers()


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SkbHeads:
    def __init__(self, rec: Recorder, costs: Costs, kernel: Kernel, size: int, bulk: int, free_n: int) -> None:
        self.rec = rec
        self.cost = costs
        self.frag_list_bulk_free = kernel.frag_list_bulk_free
        self.size = size
        self.bulk = bulk
        self.free_n = free_n
        self.cache: list[Head] = []
        self.slab: list[Head] = []       # freed heads, reused LIFO as SLUB would
        self._ids = 0
        self._skb_ids = 0
        self.in_use = 0
        self._bulk_free: list[Head] = []   # frag_list members waiting for kmem_cache_free_bulk
        self.from_cache = kernel.alloc_skb_from_napi_cache    # __alloc_skb() may pop the cache (v6.19)

    def _from_slab(self) -> Head:
        if self.slab:
            return self.slab.pop()
        self._ids += 1
        return Head(self._ids)

    def alloc_slab(self) -> Head:
        """kmem_cache_alloc(skbuff_cache): what build_skb, __netdev_alloc_skb and the TCP stack do."""
        rec = self.rec
        if self.slab:
            h = self.slab.pop()
        else:
            self._ids += 1
            h = Head(self._ids)
        rec.cnt[KMEM_ALLOC] += 1
        rec.t += rec.unit[KMEM_ALLOC]
        if rec.tracing:
            rec.emit(KMEM_ALLOC, rec.unit[KMEM_ALLOC], "head#%s", (h.id,))
        move(rec, M, h, E_ALLOC)
        self.in_use += 1
        return h

    def alloc_skb(self) -> Head:
        """__alloc_skb() for a non-fclone skb (TCP's ACKs): from v6.19 this CPU's NAPI cache when it holds
        a head (napi_skb_cache_get(false): no refill), else the slab (kmem_cache_alloc_node)."""
        if not self.from_cache or not self.cache:
            return self.alloc_slab()
        rec = self.rec
        h = self.cache.pop()
        rec.cnt[CACHE_GET] += 1
        rec.t += rec.unit[CACHE_GET]
        if rec.tracing:
            rec.emit(CACHE_GET, rec.unit[CACHE_GET], "head#%s|%s left (__alloc_skb)", (h.id, len(self.cache)))
        move(rec, M, h, E_GET)
        self.in_use += 1
        return h

    def alloc_napi(self, via: str = "napi_build_skb") -> Head:
        """napi_skb_cache_get(): pop the per-CPU cache, refilling in bulk when empty."""
        rec = self.rec
        cache = self.cache
        if not cache:
            n = self.bulk
            rec.call(ALLOC_BULK, n * self.cost.kmem_cache_bulk, "|%s heads", n)
            for _ in range(n):
                h = self._from_slab()
                move(rec, M, h, E_ALLOC_BULK)
                cache.append(h)
        h = cache.pop()
        rec.cnt[CACHE_GET] += 1
        rec.t += rec.unit[CACHE_GET]
        if rec.tracing:
            rec.emit(CACHE_GET, rec.unit[CACHE_GET], "head#%s|%s left (%s)", (h.id, len(cache), via))
        move(rec, M, h, E_GET)
        self.in_use += 1
        return h

    def free(self, h: Head, in_napi: bool) -> None:
        """Free a head: to the NAPI cache inside NAPI (or with BHs off), else to the slab."""
        rec = self.rec
        self.in_use -= 1
        if not in_napi:
            rec.cnt[KMEM_FREE] += 1
            rec.t += rec.unit[KMEM_FREE]
            if rec.tracing:
                rec.emit(KMEM_FREE, rec.unit[KMEM_FREE], "head#%s", (h.id,))
            move(rec, M, h, E_FREE)
            self.slab.append(h)
            return
        cache = self.cache
        cache.append(h)
        rec.cnt[CACHE_PUT] += 1
        rec.t += rec.unit[CACHE_PUT]
        if rec.tracing:
            rec.emit(CACHE_PUT, rec.unit[CACHE_PUT], "head#%s|%s cached", (h.id, len(cache)))
        move(rec, M, h, E_PUT)
        if len(cache) >= self.size:
            n = self.free_n
            rec.call(FREE_BULK, n * self.cost.kmem_cache_bulk, "|%s heads back to the slab", n)
            for _ in range(n):
                x = cache.pop()
                move(rec, M, x, E_FREE_BULK)
                self.slab.append(x)

    def free_list_member(self, h: Head) -> None:
        """kfree_skb_list_reason(): a frag_list member's sk_buff, batched for kmem_cache_free_bulk."""
        if not self.frag_list_bulk_free:
            self.free(h, in_napi=False)
            return
        self.in_use -= 1
        move(self.rec, M, h, E_LIST)
        self._bulk_free.append(h)
        if len(self._bulk_free) == KFREE_SKB_BULK_SIZE:
            self.flush_list_free()

    def flush_list_free(self) -> None:
        """The end of kfree_skb_list_reason(): what is batched goes back in one kmem_cache_free_bulk."""
        batch = self._bulk_free
        if not batch:
            return
        self.rec.call(FREE_BULK, len(batch) * self.cost.kmem_cache_bulk, "|%s frag_list skbs back to the slab",
                      len(batch))
        for h in batch:
            move(self.rec, M, h, E_FREE_BULK)
            self.slab.append(h)
        self._bulk_free = []
