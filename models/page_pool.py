"""page_pool (net/core/page_pool.c): pages mapped once, split into fragments, recycled.

- A page is DMA-mapped when it enters the pool (PP_FLAG_DMA_MAP) and stays
  mapped until it leaves; recycling costs no map or unmap.
- Fragments: the pool carves its current page; the page's pp_ref_count is set
  to a large bias at once and each fragment handed out bumps a local
  frag_users, settled in one step when the page is full
  (page_pool_drain_frag). Only the last fragment's put recycles the page.
- Where a page goes back: into the lockless alloc cache (128) when the last
  put happens in the owning NAPI's poll on its CPU (page_pool_napi_local),
  otherwise into the ptr_ring (default 1024) under its lock; if the ring is
  full it leaves the pool: unmapped and returned to the page allocator.
- Allocation: pop the alloc cache; else refill up to 64 from the ptr_ring;
  else the slow path allocates 64 order-0 pages in bulk (one for higher
  orders) and maps each.
- Destroy: the pool waits for pages in flight (hold - release), retrying
  every second; after 60 s it warns "stalled pool shutdown".

Simplification: page_pool_scrub's unmap of pages still held by skbs at
destroy (6.15+) is not modelled: pages in flight keep their mapping.
"""

from __future__ import annotations

from . import lifecycle
from .dma import BIDIRECTIONAL

PP_ALLOC_CACHE_SIZE = 128
PP_ALLOC_CACHE_REFILL = 64
BIAS_MAX = (1 << 62)           # LONG_MAX / 2 on 64-bit
DEFER_TIME_NS = 1_000_000_000
DEFER_WARN_INTERVAL_NS = 60 * 1_000_000_000

_PP = lifecycle.TRANSITIONS["pp_page"]


class Page:
    __slots__ = ("id", "phys", "order", "map", "pp_ref", "state", "frag_users")

    def __init__(self, id: int, phys: int, order: int) -> None:
        self.id = id
        self.phys = phys
        self.order = order
        self.map = None
        self.pp_ref = 0
        self.state = "buddy"
        self.frag_users = 0

    def outstanding(self) -> int:
        """Fragments of this page still out (what pp_ref_count means once drained)."""
        if self.state == "carving":
            return self.pp_ref - (BIAS_MAX - self.frag_users)
        return self.pp_ref


def _move(page: Page, call: str) -> None:
    try:
        page.state = _PP[(page.state, call)]
    except KeyError:
        raise lifecycle.IllegalTransition(f"pp_page: no edge {page.state} --{call}--> for page#{page.id}") from None


# struct page_pool_alloc_stats and page_pool_recycle_stats, in the order
# `ynl --family netdev --dump page-pool-stats-get` prints them (with "-" for "_").
STATS = ("alloc_fast", "alloc_slow", "alloc_slow_high_order", "alloc_empty", "alloc_refill",
         "alloc_waive", "recycle_cached", "recycle_cache_full", "recycle_ring",
         "recycle_ring_full", "recycle_released_refcnt")


class PagePool:
    def __init__(self, sim, order: int, pool_size: int, dma_dir: str, max_len: int, sync_dev: bool,
                 napi: bool = True) -> None:
        self.id = 1                  # one pool per simulated queue; ids are per simulation
        self.sim = sim
        self.rec = sim.rec
        self.p = sim.platform
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
        self.stats = dict.fromkeys(STATS, 0)
        self._ids = 0
        self.destroyed = False
        self.destroy_t = -1
        self.last_warn_t = -1
        self.rec.call("page_pool_create", 0.0, "pool#%s|order %s, ptr_ring %s, %s", self.id, order, self.ring_cap, dma_dir)

    # -- accounting --------------------------------------------------------------
    def inflight(self) -> int:
        return self.hold - self.release

    def ring_len(self) -> int:
        return len(self.ring) - self.ring_head

    def napi_local(self) -> bool:
        """page_pool_napi_local(): a put may use the lockless cache only from the pool's NAPI.

        True in softirq on the CPU whose poll list holds the pool's NAPI (napi->list_owner:
        set from napi_schedule until napi_complete_done), never without pp_params.napi.
        """
        sim = self.sim
        return (self.napi and self.rec.ctx == "softirq" and not self.destroyed
                and sim.napi_state in ("scheduled", "polling"))

    # -- getting a page ------------------------------------------------------------
    def _new_page(self, phys: int) -> Page | None:
        """Map one fresh page and account it as held (page_pool_dma_map + set_pp_info)."""
        rec = self.rec
        self._ids += 1
        page = Page(self._ids, phys, self.order)
        _move(page, "alloc_pages")
        m = self.sim.dma.map(phys, self.page_bytes, self.dma_dir, "dma_map_page", skip_cpu_sync=True)
        if m is None:            # SWIOTLB full or no IOVA: the page goes straight back
            rec.call("put_page", self.p.put_page_ns, "page#%s|mapping failed", page.id)
            self.sim.mem.free(phys, self.order)
            return None
        page.map = m
        rec.call("page_pool_dma_map", 0.0, "page#%s|dma %#x", page.id, m.dma)
        _move(page, "page_pool_dma_map")
        self.hold += 1           # pages_state_hold_cnt (trace_page_pool_state_hold)
        self.pages[page.id] = page
        if self.sync_dev:
            self.sim.dma.sync_for_device(m, 0, self.max_len)
        return page

    def _alloc_slow(self) -> Page | None:
        """__page_pool_alloc_netmems_slow(): 64 order-0 pages in one bulk call, or one higher-order page."""
        rec = self.rec
        mem = self.sim.mem
        if self.order:
            phys = mem.alloc(self.order)
            rec.call("alloc_pages", self.p.alloc_pages_ns, "order %s at %#x", self.order, phys)
            page = self._new_page(phys)
            if page is not None:
                self.stats["alloc_slow_high_order"] += 1
                _move(page, "page_pool_recycle_direct")
                self.cache.append(page)
            return self.cache.pop() if self.cache else None
        n = PP_ALLOC_CACHE_REFILL
        phys_list = [mem.alloc(0) for _ in range(n)]
        rec.call("alloc_pages_bulk_node", self.p.alloc_pages_ns + n * self.p.alloc_pages_bulk_ns,
                 "|%s order-0 pages", n)
        for phys in phys_list:
            page = self._new_page(phys)
            if page is None:
                continue         # that page is put back; the others stay
            _move(page, "page_pool_recycle_direct")
            self.cache.append(page)
        if not self.cache:
            return None
        self.stats["alloc_slow"] += 1     # once per slow-path call that returns a page
        return self.cache.pop()           # "Return last page"

    def _refill(self) -> Page | None:
        """page_pool_refill_alloc_cache(): up to 64 pages from the ptr_ring, returning the last."""
        rec = self.rec
        avail = self.ring_len()
        if not avail:
            self.stats["alloc_empty"] += 1
            return None
        n = min(PP_ALLOC_CACHE_REFILL, avail)
        rec.call("page_pool_refill_alloc_cache", n * self.p.pp_ring_ns / 4 + self.p.pp_ring_ns,
                 "pool#%s|%s pages from the ptr_ring", self.id, n)
        ring = self.ring
        for i in range(self.ring_head, self.ring_head + n):
            page = ring[i]
            _move(page, "page_pool_refill_alloc_cache")
            self.cache.append(page)
        self.ring_head += n
        if self.ring_head > 4096:
            del ring[:self.ring_head]
            self.ring_head = 0
        self.stats["alloc_refill"] += 1
        return self.cache.pop()

    def _get_page(self) -> Page | None:
        """page_pool_alloc_netmems(): the alloc cache, else a refill from the ptr_ring, else the slow path."""
        if self.cache:
            self.stats["alloc_fast"] += 1
            return self.cache.pop()
        return self._refill() or self._alloc_slow()

    def alloc_frag(self, size: int) -> tuple[Page, int] | None:
        """page_pool_alloc_frag(): a fragment of `size` bytes (already cache-aligned); None when out of memory."""
        rec = self.rec
        if size > self.page_bytes:          # page_pool_alloc_frag: WARN_ON(size > max_size)
            rec.warn("page-pool-frag-too-big", f"fragment of {size} bytes from {self.page_bytes}-byte pages")
            return None
        page = self.frag_page
        if page is not None and self.frag_offset + size > self.page_bytes:
            page = self._drain_frag(page)
            if page is not None:
                # every fragment already came back: the page is reused at once
                self.stats["recycle_cached"] += 1
                self.stats["alloc_fast"] += 1
                self._start_frag_page(page)
        if page is None:
            page = self._get_page()
            if page is None:
                return None
            self._start_frag_page(page)
        off = self.frag_offset
        self.frag_offset += size
        page.frag_users += 1
        _move(page, "page_pool_alloc_frag")
        rec.call("page_pool_alloc_frag", self.p.pp_fast_ns, "page#%s+%s|%s bytes", page.id, off, size)
        return page, off

    def _start_frag_page(self, page: Page) -> None:
        self.frag_page = page
        self.frag_offset = 0
        page.pp_ref = BIAS_MAX            # page_pool_fragment_netmem(netmem, BIAS_MAX)
        page.frag_users = 0

    def _drain_frag(self, page: Page) -> Page | None:
        """page_pool_drain_frag(): settle the bias; a page whose fragments all came back is returned for reuse."""
        page.pp_ref -= BIAS_MAX - page.frag_users
        page.frag_users = 0
        self.frag_page = None
        if page.pp_ref == 0:
            if self.sync_dev:
                self.sim.dma.sync_for_device(page.map, 0, self.max_len)
            return page
        _move(page, "frags_out")
        return None

    # -- putting a fragment back ------------------------------------------------------
    def put_frag(self, page: Page, allow_direct: bool) -> None:
        """page_pool_put_page(..., -1, allow_direct) for one fragment."""
        page.pp_ref -= 1
        if page.pp_ref != 0:
            if page.pp_ref < 0:
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
        if self.sync_dev:
            self.sim.dma.sync_for_device(page.map, 0, self.max_len)
        if allow_direct:
            if len(self.cache) < PP_ALLOC_CACHE_SIZE:
                _move(page, "page_pool_recycle_direct")
                self.cache.append(page)
                self.stats["recycle_cached"] += 1
                rec.call("page_pool_recycle_direct", self.p.pp_fast_ns, "page#%s|alloc cache %s/%s",
                         page.id, len(self.cache), PP_ALLOC_CACHE_SIZE)
                return
            self.stats["recycle_cache_full"] += 1
        if self.ring_len() < self.ring_cap:
            _move(page, "page_pool_recycle_ring")
            self.ring.append(page)
            self.stats["recycle_ring"] += 1
            rec.call("page_pool_recycle_ring", self.p.pp_ring_ns, "page#%s|ptr_ring %s/%s", page.id,
                     self.ring_len(), self.ring_cap)
            return
        self.stats["recycle_ring_full"] += 1      # "Cache full, fallback to free pages"
        self._release(page)

    def _release(self, page: Page) -> None:
        """The page leaves the pool: unmap (SKIP_CPU_SYNC) and give it back to the buddy allocator."""
        rec = self.rec
        rec.call("page_pool_release_page", 0.0, "page#%s", page.id)
        _move(page, "page_pool_release_page")
        self.sim.dma.unmap(page.map, self.page_bytes, self.dma_dir, "dma_unmap_page", skip_cpu_sync=True)
        rec.call("put_page", self.p.put_page_ns, "page#%s", page.id)
        _move(page, "put_page")
        self.sim.mem.free(page.phys, self.order)
        self.release += 1
        del self.pages[page.id]

    # -- destroy -------------------------------------------------------------------
    def destroy(self) -> None:
        """page_pool_destroy(): free the frag page and everything cached; wait for the rest."""
        rec = self.rec
        rec.call("page_pool_destroy", 0.0, "pool#%s|%s pages held", self.id, self.inflight())
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
        self.destroy_t = int(rec.t)
        self.last_warn_t = self.destroy_t

    def release_retry(self, now: int) -> bool:
        """One retry of the delayed release work; True while pages are still in flight."""
        n = self.inflight()
        self.rec.call("page_pool_release_retry", 0.0, "pool#%s|%s inflight", self.id, n)
        if n <= 0:
            return False
        if now - self.last_warn_t >= DEFER_WARN_INTERVAL_NS:
            self.last_warn_t = now
            secs = (now - self.destroy_t) // 1_000_000_000
            self.rec.violate("leak-at-teardown",
                             f"page_pool_release_retry() stalled pool shutdown: id {self.id}, "
                             f"{n} inflight {secs} sec", f"pool#{self.id}")
        return True


def needs_bidirectional(xdp: str) -> bool:
    """XDP_TX sends the RX page back out, so the pool must map DMA_BIDIRECTIONAL."""
    return xdp == "tx"


__all__ = ["PagePool", "Page", "BIAS_MAX", "BIDIRECTIONAL", "needs_bidirectional"]
