"""page_pool in the kernel's names (include/net/page_pool/helpers.h, net/core/page_pool.c).

page_pool_create() builds the model's pool (models/page_pool.py) from the
driver's parameters: PP_FLAG_DMA_MAP (the pool maps each page once, as it
enters), PP_FLAG_DMA_SYNC_DEV (the pool syncs for the device, from offset
over up to max_len bytes, when it maps a page and whenever it recycles one;
with fragments, when the last fragment of a page comes back), the page order, the
ptr_ring size, the DMA direction and the NAPI instance whose poll may
recycle into the lockless cache. Fragments come from
page_pool_dev_alloc_frag(); the skb that holds one is marked with
skb_mark_for_recycle() and gives it back when it is freed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from mypy_extensions import mypyc_attr

from ..dma import BIDIRECTIONAL, FROM_DEVICE
from ..lifecycle import EDGE_ID as E
from ..page_pool import Page, PagePool
from .host import CPU, NO_CPU, DriverBug, move, this_cpu

PP_FLAG_DMA_MAP: Final = 1 << 0          # include/net/page_pool/types.h
PP_FLAG_DMA_SYNC_DEV: Final = 1 << 1
PP_FLAG_SYSTEM_POOL: Final = 1 << 2
# The kernel's PP_FLAG_ALL also has PP_FLAG_ALLOW_UNREADABLE_NETMEM (BIT(3), device memory for
# zero-copy RX since 6.12): the model has no such memory, so page_pool_create() refuses it.
PP_FLAG_ALL: Final = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV | PP_FLAG_SYSTEM_POOL
EINVAL: Final = 22
E_RING_DEINIT: Final = E["ring_deinit"]


@mypyc_attr(native_class=False)
@dataclass
class PagePoolParams:
    """struct page_pool_params: the fields a driver fills before page_pool_create()."""
    flags: int = 0
    order: int = 0
    pool_size: int = 1024
    nid: int = -1
    dev: Any = None
    napi: Any = None
    dma_dir: str = FROM_DEVICE
    max_len: int = 0
    offset: int = 0


def page_pool_create(params: Any) -> PagePool:
    """net/core/page_pool.c page_pool_create(): a pool for one RX queue.

    As page_pool_init() does, it refuses what the kernel refuses (ERR_PTR(-EINVAL)): unknown flags, a
    DMA direction other than FROM_DEVICE or BIDIRECTIONAL with PP_FLAG_DMA_MAP, PP_FLAG_DMA_SYNC_DEV
    without PP_FLAG_DMA_MAP or without max_len. The model's pool always maps (every pool in the lessons
    does): creating one without PP_FLAG_DMA_MAP is refused here with a clear message.
    """
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    if not isinstance(params, PagePoolParams):
        raise DriverBug("page_pool_create() takes a PagePoolParams")
    if params.flags & ~PP_FLAG_ALL:
        raise DriverBug(f"page_pool_create(): unknown flags {params.flags:#x} (-EINVAL)")
    if not params.flags & PP_FLAG_DMA_MAP:
        raise DriverBug("page_pool_create() without PP_FLAG_DMA_MAP: the model's pool maps its pages "
                        "(set PP_FLAG_DMA_MAP and let the pool map each page once)")
    if params.dma_dir not in (FROM_DEVICE, BIDIRECTIONAL):
        raise DriverBug(f"page_pool_create(): dma_dir {params.dma_dir!r} with PP_FLAG_DMA_MAP (-EINVAL: "
                        f"only DMA_FROM_DEVICE or DMA_BIDIRECTIONAL)")
    sync_dev = bool(params.flags & PP_FLAG_DMA_SYNC_DEV)
    if sync_dev and not params.max_len:
        raise DriverBug("page_pool_create(): PP_FLAG_DMA_SYNC_DEV needs max_len (-EINVAL)")
    sim = h.sim
    pool = PagePool(sim.rec, sim.costs, sim.dma, sim.mem, params.order, params.pool_size, params.dma_dir,
                    params.max_len, sync_dev=sync_dev, napi=params.napi is not None and sim.napi_polled)
    pool.driver_owned = True               # the driver destroys it (page_pool_destroy()), not the model
    h.pools.append(pool)
    return pool


def page_pool_dev_alloc_frag(pool: Any, size: int) -> tuple[Page | None, int]:
    """include/net/page_pool/helpers.h page_pool_dev_alloc_frag(): (page, offset) of a size-byte fragment,
    or (None, 0); the size is rounded up to dma_get_cache_alignment() as page_pool_alloc_frag() does."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    if type(pool) is not PagePool and not isinstance(pool, PagePool):
        raise DriverBug("page_pool_dev_alloc_frag(): the first argument is the pool page_pool_create() made")
    pp: PagePool = pool
    if size == h.frag_asked:
        n = h.frag
    else:
        align = 1 if h.coherent else h.cacheline
        h.frag = n = (size + align - 1) // align * align
        h.frag_asked = size
    page = pp.alloc_frag(n)
    if page is None:
        return None, 0
    return page, pp.frag_offset - n


def page_pool_get_dma_addr(page: Any) -> int:
    """include/net/page_pool/helpers.h page_pool_get_dma_addr(): the bus address the pool mapped the page at."""
    m = page.map if type(page) is Page else None
    if m is None:
        if not isinstance(page, Page) or page.map is None:
            raise DriverBug("page_pool_get_dma_addr(): not a page_pool page")
        m = page.map
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    addr = m.dma
    # The dma-debug table learns the pool's mapping (Host.find()). A live mapping the table took once is
    # still the one at its address: no other can be live there until it is unmapped.
    if not (m.debug and m.live):
        if h.maps.get(addr) is not m:
            h.maps[addr] = m
        m.debug = True
    h.last_addr = addr
    h.last_map = m
    return addr


def page_pool_put_full_page(pool: Any, page: Any, allow_direct: bool) -> None:
    """include/net/page_pool/helpers.h page_pool_put_full_page(): give back a fragment the driver owns
    (never one an skb holds: that one comes back when the skb is freed)."""
    if not isinstance(page, Page):
        raise DriverBug("page_pool_put_full_page(): not a page_pool page")
    h = CPU.host
    if h is not None and h.unposted_frags:
        frags = h.unposted_frags.get(page.id)
        if frags:                          # ifdown: a fragment the ring held is the driver's as it goes back
            move(frags.pop(0), E_RING_DEINIT, h.rec)
    pool.put_frag(page, allow_direct)


def page_pool_destroy(pool: Any) -> None:
    """net/core/page_pool.c page_pool_destroy(): free what the pool holds; pages still in flight keep it
    alive: page_pool_release_retry() tries again every second and, for a pool no live netdev shows,
    warns "stalled pool shutdown" every 60 s until they come back.

    Called from stop() (ifdown), the pool of the ring is destroyed by the model's teardown, at the
    point where it destroys the pool of its own RX strategies: after the socket's unread skbs are
    freed (models/sim.py Sim.teardown). A driver and the strategy it stands for then give the same
    figures; the pool is destroyed either way, and what is still in flight is counted the same."""
    if not isinstance(pool, PagePool):
        raise DriverBug("page_pool_destroy(): not a page_pool")
    h = this_cpu()
    if pool.destroyed or not pool.driver_owned:
        h.rec.violate("use-after-free", f"page_pool_destroy() of pool#{pool.id} twice: use after free",
                      f"pool#{pool.id}")
        return
    if h.sim.torn_down and pool is h.sim.pool:
        pool.driver_owned = False          # the driver let go of it: Sim.teardown destroys it
        return
    pool.destroy()
