"""page_pool (net/core/page_pool.c): pages mapped once, split into fragments, recycled.

- A page is DMA-mapped when it enters the pool (PP_FLAG_DMA_MAP) and stays
  mapped until it leaves; recycling costs no map or unmap.
- Fragments: the pool carves its current page; the page's pp_ref_count is set
  to a large bias at once and each fragment handed out bumps a local
  frag_users, settled in one step when the page is full
  (page_pool_drain_frag). Only the last fragment's put recycles the page.
- Where a page goes back (an skb's free: napi_pp_put_page() ->
  page_pool_put_full_netmem(..., false)): into the lockless alloc cache (128,
  page_pool_recycle_in_cache) when the free may recycle directly (the owning
  NAPI's context, page_pool_napi_local), otherwise into the ptr_ring (default
  1024, page_pool_recycle_in_ring) under its producer lock; if the ring is
  full it leaves the pool (page_pool_return_netmem): unmapped and returned to
  the page allocator. page_pool_recycle_direct() is a driver's own call
  (XDP_DROP); no modelled driver makes it.
- Allocation: pop the alloc cache; else refill up to 64 from the ptr_ring;
  else the slow path allocates 64 order-0 pages in bulk (one for higher
  orders) and maps each.
- Statistics (struct page_pool_stats) are counted where the kernel counts
  them: per page, per refill, per slow-path call. Two of them exist here
  only to be reported, always 0:
  - alloc_waive: page_pool_refill_alloc_cache() stops at the first page of
    the ptr_ring whose NUMA node is not the pool's preferred one
    (netmem_is_pref_nid), returns it to the page allocator
    (page_pool_return_netmem) and counts `waive`. The model has one NUMA
    node, so every page is local and none is waived.
  - recycle_released_refcnt: __page_pool_put_page() recycles a page only
    when __page_pool_page_can_be_recycled() holds (page_ref_count == 1 and
    not pfmemalloc); otherwise it counts `released_refcnt` and returns the
    page to the page allocator. Here the pool's pages are referenced by
    nothing but the pool (pp_ref_count tracks the fragments; no driver takes
    a page reference of its own) and never come from the pfmemalloc
    reserves, so page_ref_count is always 1 when a page comes back.
- Destroy: the pool waits for pages in flight (hold - release), retrying
  every second; after 60 s it warns "stalled pool shutdown".

Simplification: page_pool_scrub's unmap of pages still held by skbs at
destroy (6.15+) is not modelled: pages in flight keep their mapping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import i64, mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .dma import DmaApi, Mapping
    from .memory import PhysMem
    from .scenario import Costs
    from .trace import Recorder

from .calls import CALL_ID as C
from .dma import BIDIRECTIONAL, MAP_PAGE, UNMAP_PAGE
from .lifecycle import EDGE_ID as E
from .lifecycle import MACHINE, Stateful, move

PP_ALLOC_CACHE_SIZE: Final = 128
PP_ALLOC_CACHE_REFILL: Final = 64
# LONG_MAX / 2 on 64-bit. Beyond a compiled short int (62 bits and a sign): the page's counts
# that hold it are native int64 fields (i64), or every fragment would do arithmetic on boxed ints.
BIAS_MAX: Final[i64] = 1 << 62
DEFER_TIME_PS: Final = 1_000_000_000 * 1000
DEFER_WARN_INTERVAL_PS: Final = 60 * DEFER_TIME_PS

# struct page_pool_alloc_stats and page_pool_recycle_stats, in the order
# `ynl --family netdev --dump page-pool-stats-get` prints them (with "-" for "_").
STATS: Final = ("alloc_fast", "alloc_slow", "alloc_slow_high_order", "alloc_empty", "alloc_refill",
         "alloc_waive", "recycle_cached", "recycle_cache_full", "recycle_ring",
         "recycle_ring_full", "recycle_released_refcnt")

M: Final = MACHINE["pp_page"]
S: Final = M.sid
E_ALLOC_PAGES: Final = E["alloc_pages"]
E_DMA_MAP: Final = E["page_pool_dma_map"]
E_ALLOC_FRAG: Final = E["page_pool_alloc_frag"]
E_DIRECT: Final = E["page_pool_recycle_in_cache"]
E_RING: Final = E["page_pool_recycle_in_ring"]
E_RELEASE: Final = E["page_pool_return_netmem"]
E_REFILL: Final = E["page_pool_refill_alloc_cache"]
E_PUT_PAGE: Final = E["put_page"]
E_FRAGS_OUT: Final = E["page_pool_drain_frag"]

ALLOC_FRAG: Final = C["page_pool_alloc_frag"]
IN_CACHE: Final = C["page_pool_recycle_in_cache"]
IN_RING: Final = C[
    "page_pool_recycle_in_ring"]
RELEASE: Final = C["page_pool_return_netmem"]
PUT_PAGE: Final = C["put_page"]
REFILL: Final = C["page_pool_refill_alloc_cache"]
PP_DMA_MAP: Final = C["page_pool_dma_map"]
ALLOC_PAGES: Final = C["alloc_pages"]
ALLOC_BULK: Final = C["alloc_pages_bulk_node"]
CREATE: Final = C["page_pool_create"]
DESTROY: Final = C["page_pool_destroy"]
RETRY: Final = C["page_pool_release_retry"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Page(Stateful):
    __slots__ = ("id", "phys", "order", "map", "pp_ref", "frag_users", "pp")

    def __init__(self, id: int, phys: int, order: int) -> None:
        self.id = id
        self.phys = phys
        self.order = order
        self.map: Mapping | None = None   # set as it enters the pool; a pool page is always mapped
        self.pp_ref: i64 = 0
        self.st = 0            # "buddy"
        self.frag_users: i64 = 0
        self.pp: PagePool | None = None   # struct page's pp: the pool that holds it (set as it enters)

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.id, self.phys, self.order, self.map, self.pp_ref, self.st, self.frag_users, self.pp)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.id, self.phys, self.order, self.map, self.pp_ref, self.st, self.frag_users, self.pp = state

    @property
    def state(self) -> str:
        return M.states[self.st]

    def tag(self) -> str:
        return f"page#{self.id}"

    def outstanding(self) -> int:
        """Fragments of this page still out (what pp_ref_count means once drained).

        While the page is carved its count carries the bias page_pool_fragment_netmem() set; it is
        tested by value, not by state: a step stopped inside page_pool_alloc_frag() sees the bias set
        on a page the call has not yet moved to "carving"."""
        if self.pp_ref > BIAS_MAX // 2:
            return self.pp_ref - (BIAS_MAX - self.frag_users)
        return self.pp_ref


def mapping(page: Page) -> Mapping:
    """The DMA mapping of a page the pool holds (it maps every page as it enters)."""
    m = page.map
    assert m is not None
    return m


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PagePool:
    # Slotted: with its statistics it has more attributes than an instance dict shares keys for
    # (30 in CPython 3.11), past which every attribute read in the pure-Python model is a dict lookup.
    __slots__ = ("id", "rec", "cost", "dma", "mem", "order", "page_bytes", "ring_cap", "dma_dir", "max_len",
                 "sync_dev", "napi", "cache", "ring", "ring_head", "frag_page", "frag_offset", "hold", "release",
                 "pages", "alloc_fast", "alloc_slow", "alloc_slow_high_order", "alloc_empty", "alloc_refill",
                 "alloc_waive", "recycle_cached", "recycle_cache_full", "recycle_ring", "recycle_ring_full",
                 "recycle_released_refcnt", "_ids", "destroyed", "driver_owned", "destroy_t", "last_warn_t")

    def __init__(self, rec: Recorder, costs: Costs, dma: DmaApi, mem: PhysMem, order: int, pool_size: int,
                 dma_dir: str, max_len: int, sync_dev: bool, napi: bool = True) -> None:
        self.id = 1                  # one pool per simulated queue; ids are per simulation
        self.rec = rec
        self.cost = costs
        self.dma = dma               # pp->p.dev: the pool maps its pages itself (PP_FLAG_DMA_MAP)
        self.mem = mem
        self.order = order
        self.page_bytes = 4096 << order
        self.ring_cap = min(pool_size or 1024, 16384)
        self.dma_dir = dma_dir
        self.max_len = max_len
        self.sync_dev = sync_dev
        self.napi = napi             # pp_params.napi is set: frees in its poll may recycle directly
        self.cache: list[Page] = []
        self.ring: list[Page] = []            # ptr_ring (FIFO: consumed from the front)
        self.ring_head = 0
        self.frag_page: Page | None = None
        self.frag_offset = 0
        self.hold = 0
        self.release = 0
        self.pages: dict[int, Page] = {}      # every page the pool holds or has in flight
        # struct page_pool_stats as native counters (no dict lookup per page); `stats` reads them by name
        self.alloc_fast = 0
        self.alloc_slow = 0
        self.alloc_slow_high_order = 0
        self.alloc_empty = 0
        self.alloc_refill = 0
        self.alloc_waive = 0          # always 0: one NUMA node (see the module's docstring)
        self.recycle_cached = 0
        self.recycle_cache_full = 0
        self.recycle_ring = 0
        self.recycle_ring_full = 0
        self.recycle_released_refcnt = 0    # always 0: page_ref_count is 1 when a page comes back
        self._ids = 0
        self.destroyed = False
        # Created by a driver of the API (models/driver): the driver destroys it in its stop(), or
        # never (a leak the unbind audit reports); ifdown does not destroy it for the driver.
        self.driver_owned = False
        self.destroy_t = -1
        self.last_warn_t = -1
        self.rec.call(CREATE, 0, "pool#%s|order %s, ptr_ring %s, %s", self.id, order, self.ring_cap, dma_dir)

    # -- accounting --------------------------------------------------------------
    @property
    def stats(self) -> dict[str, int]:
        """struct page_pool_stats by the kernel's names (STATS order), read from the counters."""
        return {"alloc_fast": self.alloc_fast, "alloc_slow": self.alloc_slow,
                "alloc_slow_high_order": self.alloc_slow_high_order, "alloc_empty": self.alloc_empty,
                "alloc_refill": self.alloc_refill, "alloc_waive": self.alloc_waive,
                "recycle_cached": self.recycle_cached, "recycle_cache_full": self.recycle_cache_full,
                "recycle_ring": self.recycle_ring, "recycle_ring_full": self.recycle_ring_full,
                "recycle_released_refcnt": self.recycle_released_refcnt}

    def inflight(self) -> int:
        return self.hold - self.release

    def ring_len(self) -> int:
        return len(self.ring) - self.ring_head

    # -- getting a page ------------------------------------------------------------
    def _new_page(self, phys: int) -> Page | None:
        """Map one fresh page and account it as held (page_pool_dma_map + set_pp_info)."""
        rec = self.rec
        self._ids += 1
        page = Page(self._ids, phys, self.order)
        move(self.rec, M, page, E_ALLOC_PAGES)
        m = self.dma.map(phys, self.page_bytes, self.dma_dir, MAP_PAGE, skip_cpu_sync=True)
        if m is None:            # SWIOTLB full or no IOVA: the page goes straight back
            rec.call(PUT_PAGE, self.cost.put_page, "page#%s|mapping failed", page.id)
            self.mem.free(phys, self.order)
            return None
        page.map = m
        page.pp = self
        rec.call(PP_DMA_MAP, 0, "page#%s|dma %#x", page.id, m.dma)
        move(self.rec, M, page, E_DMA_MAP)
        self.hold += 1           # pages_state_hold_cnt (trace_page_pool_state_hold)
        self.pages[page.id] = page
        if self.sync_dev:
            self.dma.sync_for_device(m, 0, self.max_len)
        return page

    def _alloc_slow(self) -> Page | None:
        """__page_pool_alloc_netmems_slow(): 64 order-0 pages in one bulk call, or one higher-order page."""
        rec = self.rec
        mem = self.mem
        if self.order:
            phys = mem.alloc(self.order)
            rec.call(ALLOC_PAGES, self.cost.alloc_pages, "order %s at %#x", self.order, phys)
            page = self._new_page(phys)
            if page is not None:
                self.alloc_slow_high_order += 1
                move(self.rec, M, page, E_DIRECT)
                self.cache.append(page)
            return self.cache.pop() if self.cache else None
        n = PP_ALLOC_CACHE_REFILL
        phys_list = [mem.alloc(0) for _ in range(n)]
        rec.call(ALLOC_BULK, self.cost.alloc_pages + n * self.cost.alloc_pages_bulk, "|%s order-0 pages", n)
        for phys in phys_list:
            page = self._new_page(phys)
            if page is None:
                continue         # that page is put back; the others stay
            move(self.rec, M, page, E_DIRECT)
            self.cache.append(page)
        if not self.cache:
            return None
        self.alloc_slow += 1     # once per slow-path call that returns a page
        return self.cache.pop()           # "Return last page"

    def _refill(self) -> Page | None:
        """page_pool_refill_alloc_cache(): up to 64 pages from the ptr_ring, returning the last."""
        rec = self.rec
        avail = self.ring_len()
        if not avail:
            self.alloc_empty += 1
            return None
        n = min(PP_ALLOC_CACHE_REFILL, avail)
        # The kernel checks each page's NUMA node here (netmem_is_pref_nid) and waives a remote one
        # (alloc_waive); with one node every page is local, so the whole batch moves.
        ring_ps = self.cost.pp_ring
        rec.call(REFILL, n * ring_ps // 4 + ring_ps, "pool#%s|%s pages from the ptr_ring", self.id, n)
        ring = self.ring
        cache = self.cache
        for i in range(self.ring_head, self.ring_head + n):
            page = ring[i]
            move(rec, M, page, E_REFILL)
            cache.append(page)
        self.ring_head += n
        if self.ring_head > 4096:
            del ring[:self.ring_head]
            self.ring_head = 0
        self.alloc_refill += 1
        return cache.pop()

    def _get_page(self) -> Page | None:
        """page_pool_alloc_netmems(): the alloc cache, else a refill from the ptr_ring, else the slow path."""
        if self.cache:
            self.alloc_fast += 1
            return self.cache.pop()
        return self._refill() or self._alloc_slow()

    def alloc_frag(self, size: int) -> Page | None:
        """page_pool_alloc_frag(): the page of a fragment of `size` bytes (already cache-aligned), or None when
        out of memory. Its offset, the kernel's *offset, is `frag_offset - size` after the call."""
        rec = self.rec
        if size > self.page_bytes:          # page_pool_alloc_frag: WARN_ON(size > max_size)
            rec.warn("page-pool-frag-too-big", f"fragment of {size} bytes from {self.page_bytes}-byte pages")
            return None
        page = self.frag_page
        off = self.frag_offset
        if page is None or off + size > self.page_bytes:
            if page is not None:
                page = self._drain_frag(page)
                if page is not None:
                    # every fragment already came back: the page is reused at once
                    self.recycle_cached += 1
                    self.alloc_fast += 1
            if page is None:
                cache = self.cache
                if cache:                     # _get_page()'s fast path, without the call: once a page
                    self.alloc_fast += 1
                    page = cache.pop()
                else:
                    page = self._refill() or self._alloc_slow()
                    if page is None:
                        return None
            self.frag_page = page             # a fresh page to carve
            page.pp_ref = BIAS_MAX            # page_pool_fragment_netmem(netmem, BIAS_MAX)
            page.frag_users = 0
            off = 0
        self.frag_offset = off + size
        page.frag_users += 1
        rec.cnt[ALLOC_FRAG] += 1
        rec.t += rec.unit[ALLOC_FRAG]
        if rec.tracing:
            rec.emit(ALLOC_FRAG, rec.unit[ALLOC_FRAG], "page#%s+%s|%s bytes", (page.id, off, size))
        move(rec, M, page, E_ALLOC_FRAG)
        return page

    def _drain_frag(self, page: Page) -> Page | None:
        """page_pool_drain_frag(): settle the bias; a page whose fragments all came back is returned for reuse."""
        page.pp_ref -= BIAS_MAX - page.frag_users
        page.frag_users = 0
        self.frag_page = None
        if page.pp_ref == 0:
            if self.sync_dev:
                self.dma.sync_for_device(mapping(page), 0, self.max_len)
            return page
        move(self.rec, M, page, E_FRAGS_OUT)
        return None

    # -- putting a fragment back ------------------------------------------------------
    def put_frag(self, page: Page, allow_direct: bool) -> None:
        """page_pool_put_page(..., -1, allow_direct) for one fragment."""
        ref = page.pp_ref = page.pp_ref - 1
        if ref:
            if ref < 0:
                self.rec.violate("page-refcount-underflow",
                                 f"page#{page.id}: a fragment was put back twice (pp_ref_count went negative)",
                                 f"page#{page.id}")
            return
        self._recycle(page, allow_direct)

    def _recycle(self, page: Page, allow_direct: bool) -> None:
        """__page_pool_put_page() then page_pool_recycle_in_ring(): cache, ring, or out of the pool."""
        rec = self.rec
        if self.destroyed:
            self._release(page)
            return
        # __page_pool_page_can_be_recycled(): page_ref_count is always 1 here (only the pool holds a
        # pool page, and none is pfmemalloc), so recycle_released_refcnt never counts.
        if self.sync_dev:
            self.dma.sync_for_device(mapping(page), 0, self.max_len)
        if allow_direct:
            cache = self.cache
            if len(cache) < PP_ALLOC_CACHE_SIZE:
                cache.append(page)
                self.recycle_cached += 1
                rec.cnt[IN_CACHE] += 1
                rec.t += rec.unit[IN_CACHE]
                if rec.tracing:
                    rec.emit(IN_CACHE, rec.unit[IN_CACHE], "page#%s|alloc cache %s/%s",
                             (page.id, len(cache), PP_ALLOC_CACHE_SIZE))
                move(rec, M, page, E_DIRECT)
                return
            self.recycle_cache_full += 1
        if len(self.ring) - self.ring_head < self.ring_cap:
            self.ring.append(page)
            self.recycle_ring += 1
            rec.cnt[IN_RING] += 1
            rec.t += rec.unit[IN_RING]
            if rec.tracing:
                rec.emit(IN_RING, rec.unit[IN_RING], "page#%s|ptr_ring %s/%s",
                         (page.id, self.ring_len(), self.ring_cap))
            move(rec, M, page, E_RING)
            return
        self.recycle_ring_full += 1      # "Cache full, fallback to free pages"
        self._release(page)

    def _release(self, page: Page) -> None:
        """The page leaves the pool: unmap (SKIP_CPU_SYNC) and give it back to the buddy allocator."""
        rec = self.rec
        rec.call(RELEASE, 0, "page#%s", page.id)
        move(self.rec, M, page, E_RELEASE)
        self.dma.unmap(mapping(page), self.page_bytes, self.dma_dir, UNMAP_PAGE, skip_cpu_sync=True)
        rec.call(PUT_PAGE, self.cost.put_page, "page#%s", page.id)
        move(self.rec, M, page, E_PUT_PAGE)
        self.mem.free(page.phys, self.order)
        self.release += 1
        del self.pages[page.id]

    # -- destroy -------------------------------------------------------------------
    def destroy(self) -> None:
        """page_pool_destroy(): free the frag page and everything cached; wait for the rest."""
        rec = self.rec
        rec.call(DESTROY, 0, "pool#%s|%s pages held", self.id, self.inflight())
        self.destroyed = True
        if self.frag_page is not None:
            page = self._drain_frag(self.frag_page)
            if page is not None:
                self._release(page)
        while self.cache:
            self._release(self.cache.pop())
        while self.ring_len():
            page = self.ring[self.ring_head]
            self.ring_head += 1
            self._release(page)
        self.destroy_t = rec.t
        self.last_warn_t = self.destroy_t

    def release_retry(self, now: int) -> bool:
        """One retry of the delayed release work; True while pages are still in flight."""
        n = self.inflight()
        self.rec.call(RETRY, 0, "pool#%s|%s inflight", self.id, n)
        if n <= 0:
            return False
        if now - self.last_warn_t >= DEFER_WARN_INTERVAL_PS:
            self.last_warn_t = now
            secs = (now - self.destroy_t) // DEFER_TIME_PS
            self.rec.violate("leak-at-teardown",
                             f"page_pool_release_retry() stalled pool shutdown: id {self.id}, "
                             f"{n} inflight {secs} sec", f"pool#{self.id}")
        return True


__all__ = ["PagePool", "Page", "BIAS_MAX", "BIDIRECTIONAL", "STATS"]
