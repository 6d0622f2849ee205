"""skb heads: the skbuff_cache slab versus the per-CPU NAPI skb cache.

The "head" is the struct sk_buff itself; the data it points at is a separate
buffer (an RX buffer, a page_pool fragment). `build_skb()` takes the head from
the slab with kmem_cache_alloc; `napi_build_skb()` pops it from the NAPI
cache, which refills NAPI_SKB_CACHE_BULK heads at a time with
kmem_cache_alloc_bulk when empty. Heads freed inside NAPI (napi_consume_skb,
GRO's stolen heads) are pushed onto the cache; when it is full,
NAPI_SKB_CACHE_HALF (32) go back with one kmem_cache_free_bulk.
`napi_consume_skb(skb, 0)` means "not in NAPI" and frees to the slab.

Sizes are parameters (napi_skb_cache_size/bulk/free): 64/16/32 up to v6.18,
128/32/32 from v6.19 (Jason Xing's series).
"""

from __future__ import annotations

from . import lifecycle

_SKB = lifecycle.TRANSITIONS["skb_head"]


class Head:
    __slots__ = ("id", "state")

    def __init__(self, id: int) -> None:
        self.id = id
        self.state = "slab"


class Skb:
    __slots__ = ("id", "head", "bufs", "len", "segs", "t_rx")

    def __init__(self, id: int, head: Head, buf, length: int, t: int) -> None:
        self.id = id
        self.head = head
        self.bufs = [buf]          # data areas: the first buffer plus frags merged by GRO
        self.len = length
        self.segs = 1
        self.t_rx = t


def _move(head: Head, call: str) -> None:
    try:
        head.state = _SKB[(head.state, call)]
    except KeyError:
        raise lifecycle.IllegalTransition(f"skb_head: no edge {head.state} --{call}--> for head#{head.id}") from None


class SkbHeads:
    def __init__(self, sim, size: int, bulk: int, free_n: int) -> None:
        self.sim = sim
        self.rec = sim.rec
        self.p = sim.platform
        self.size = size
        self.bulk = bulk
        self.free_n = free_n
        self.cache: list[Head] = []
        self.slab: list[Head] = []       # freed heads, reused LIFO as SLUB would
        self._ids = 0
        self._skb_ids = 0
        self.in_use = 0

    def _from_slab(self) -> Head:
        if self.slab:
            return self.slab.pop()
        self._ids += 1
        return Head(self._ids)

    def alloc_slab(self) -> Head:
        """kmem_cache_alloc(skbuff_cache): what build_skb and the TCP stack do."""
        h = self._from_slab()
        self.rec.call("kmem_cache_alloc", self.p.kmem_cache_alloc_ns, "head#%s", h.id)
        _move(h, "kmem_cache_alloc")
        self.in_use += 1
        return h

    def alloc_napi(self) -> Head:
        """napi_skb_cache_get(): pop the per-CPU cache, refilling in bulk when empty."""
        rec = self.rec
        if not self.cache:
            n = self.bulk
            rec.call("kmem_cache_alloc_bulk", n * self.p.kmem_cache_bulk_ns, "|%s heads", n)
            for _ in range(n):
                h = self._from_slab()
                _move(h, "kmem_cache_alloc_bulk")
                self.cache.append(h)
        h = self.cache.pop()
        rec.call("napi_skb_cache_get", self.p.napi_cache_ns, "head#%s|%s left", h.id, len(self.cache))
        _move(h, "napi_skb_cache_get")
        self.in_use += 1
        return h

    def free(self, h: Head, in_napi: bool) -> None:
        """Free a head: to the NAPI cache inside NAPI, else to the slab."""
        rec = self.rec
        self.in_use -= 1
        if not in_napi:
            rec.call("kmem_cache_free", self.p.kmem_cache_free_ns, "head#%s", h.id)
            _move(h, "kmem_cache_free")
            self.slab.append(h)
            return
        _move(h, "napi_skb_cache_put")
        self.cache.append(h)
        rec.call("napi_skb_cache_put", self.p.napi_cache_ns, "head#%s|%s cached", h.id, len(self.cache))
        if len(self.cache) >= self.size:
            n = self.free_n
            rec.call("kmem_cache_free_bulk", n * self.p.kmem_cache_bulk_ns, "|%s heads back to the slab", n)
            for _ in range(n):
                x = self.cache.pop()
                _move(x, "kmem_cache_free_bulk")
                self.slab.append(x)

    def new_skb(self, head: Head, buf, length: int, t: int) -> Skb:
        self._skb_ids += 1
        return Skb(self._skb_ids, head, buf, length, t)
