"""sk_buffs: the struct sk_buff from the skbuff_cache slab or the per-CPU NAPI skb cache, and what it holds.

The sk_buff ("head" here, as the NAPI cache calls it) is the metadata; the
data it points at is separate: the linear data area (an RX buffer, a
page_pool fragment, or the small header napi_alloc_skb() made), page frags
attached after it, and, for a GRO super-packet, other skbs chained on its
frag_list.

`build_skb()` takes the sk_buff from the slab with kmem_cache_alloc;
`napi_build_skb()` and `napi_alloc_skb()` pop it from the NAPI cache, which
refills NAPI_SKB_CACHE_BULK at a time with kmem_cache_alloc_bulk when
empty. Heads freed in NAPI context (napi_consume_skb, GRO's merged shells,
deferred frees) are pushed onto the cache; when it is full, a batch goes back
with one kmem_cache_free_bulk. frag_list members are freed to the slab by
kfree_skb_list_reason(), in bulk from v6.3. The sizes follow the kernel
version (64/16/32 up to v6.18, 128/32/32 from v6.19) unless set.
"""

from __future__ import annotations

from . import lifecycle

_SKB = lifecycle.TRANSITIONS["skb_head"]
KFREE_SKB_BULK_SIZE = 16      # net/core/skbuff.c: frag_list members freed 16 at a time


class Head:
    __slots__ = ("id", "state")

    def __init__(self, id: int) -> None:
        self.id = id
        self.state = "slab"


class Skb:
    """An skb on its way up: its sk_buff, linear data, page frags and (GRO) frag_list members."""
    __slots__ = ("id", "head", "data", "frags", "frag_list", "last", "len", "segs", "t_rx")

    def __init__(self, id: int, head: Head, data, frags: list, length: int, t: int) -> None:
        self.id = id
        self.head = head
        self.data = data           # the linear data area (a Buf)
        self.frags = frags         # page frags (Bufs), skb_shinfo(skb)->frags
        self.frag_list: list[Skb] = []
        self.last: Skb = self      # NAPI_GRO_CB(p)->last: where the next segment's data goes
        self.len = length
        self.segs = 1
        self.t_rx = t

    def buffers(self):
        """Every data area this skb holds, its frag_list members' included."""
        yield self.data
        yield from self.frags
        for m in self.frag_list:
            yield from m.buffers()


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
        self._bulk_free: list[Head] = []   # frag_list members waiting for kmem_cache_free_bulk

    def _from_slab(self) -> Head:
        if self.slab:
            return self.slab.pop()
        self._ids += 1
        return Head(self._ids)

    def alloc_slab(self) -> Head:
        """kmem_cache_alloc(skbuff_cache): what build_skb, __netdev_alloc_skb and the TCP stack do."""
        h = self._from_slab()
        self.rec.call("kmem_cache_alloc", self.p.kmem_cache_alloc_ns, "head#%s", h.id)
        _move(h, "kmem_cache_alloc")
        self.in_use += 1
        return h

    def alloc_napi(self, via: str = "napi_build_skb") -> Head:
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
        rec.call("napi_skb_cache_get", self.p.napi_cache_ns, "head#%s|%s left (%s)", h.id, len(self.cache), via)
        _move(h, "napi_skb_cache_get")
        self.in_use += 1
        return h

    def free(self, h: Head, in_napi: bool) -> None:
        """Free a head: to the NAPI cache inside NAPI (or with BHs off), else to the slab."""
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

    def free_list_member(self, h: Head) -> None:
        """kfree_skb_list_reason(): a frag_list member's sk_buff, batched for kmem_cache_free_bulk."""
        if not self.sim.kernel.frag_list_bulk_free:
            self.free(h, in_napi=False)
            return
        self.in_use -= 1
        _move(h, "kfree_skb_list")
        self._bulk_free.append(h)
        if len(self._bulk_free) == KFREE_SKB_BULK_SIZE:
            self.flush_list_free()

    def flush_list_free(self) -> None:
        """The end of kfree_skb_list_reason(): what is batched goes back in one kmem_cache_free_bulk."""
        batch = self._bulk_free
        if not batch:
            return
        self.rec.call("kmem_cache_free_bulk", len(batch) * self.p.kmem_cache_bulk_ns,
                      "|%s frag_list skbs back to the slab", len(batch))
        for h in batch:
            _move(h, "kmem_cache_free_bulk")
            self.slab.append(h)
        self._bulk_free = []

    def new_skb(self, head: Head, data, frags: list, length: int, t: int) -> Skb:
        self._skb_ids += 1
        return Skb(self._skb_ids, head, data, frags, length, t)
