"""The records of the page_pool view: the pool and its pages, a page-flip driver's counters, the strategy.

`PoolRecord` is what a page_pool holds now: the alloc cache's and the
ptr_ring's fill, struct page_pool_stats, the page being carved, the in-flight
accounting (hold - release) and every page in id order with its state and its
fragments still out (pp_ref_count). Without a pool, `Strategy` says how the
variant gets its RX buffers (the per-frame allocator and free it calls) and
`Flip` holds a page-flip driver's counters (its pages are read per descriptor,
models/records/ring.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple


class PageRecord(NamedTuple):
    """One page of the pool (a tuple: a pool holds hundreds, built at every step)."""
    id: int
    state: str              # its pp_page state: "alloc-cache", "ptr_ring", "carving", "in-flight", ...
    outstanding: int        # fragments still out (pp_ref_count once drained)


@dataclass(frozen=True, slots=True)
class PoolRecord:
    id: int
    page_bytes: int
    frag: int               # bytes of each fragment the driver takes
    cache: int              # pages in the lockless alloc cache
    ring: int               # pages in the ptr_ring
    ring_cap: int
    stats: Mapping[str, int]    # struct page_pool_stats by its ethtool names (alloc_fast, recycle_cached, ...)
    frag_page: PageRecord | None    # the page being carved
    frag_offset: int
    hold: int               # pages_state_hold_cnt
    release: int            # pages_state_release_cnt
    destroyed: bool
    pages: tuple[PageRecord, ...]   # every page the pool holds or has in flight, by id


@dataclass(frozen=True, slots=True)
class Strategy:
    """How a variant gets its RX buffers."""
    name: str               # "per-frame", "page-flip", "page-pool", "sdio", or "" (none)
    kind: str               # per-frame: "frag", "skb" or "kmalloc"
    alloc: str              # per-frame: the allocator called per frame ("" otherwise)
    free: str               # and the free that gives the buffer back


@dataclass(frozen=True, slots=True)
class Flip:
    """A page-flip driver (atlantic before page_pool): its slices and its counters."""
    slice: int
    page_bytes: int
    flips: int              # pg_flips
    reuses: int             # pg_reuses
    lost: int               # pg_losts


def _page(page: Any) -> PageRecord:
    return PageRecord(page.id, page.state, page.outstanding())


def pool_record(sim: Any) -> PoolRecord | None:
    pool = sim.pool
    if pool is None:
        return None
    frag = getattr(sim.strategy, "frag", pool.page_bytes)
    fp = pool.frag_page
    return PoolRecord(pool.id, pool.page_bytes, frag, len(pool.cache), pool.ring_len(), pool.ring_cap,
                      pool.stats, None if fp is None else _page(fp), pool.frag_offset, pool.hold,
                      pool.release, pool.destroyed, tuple(_page(p) for p in pool.pages.values()))


def strategy(sim: Any) -> Strategy:
    st = sim.strategy
    name = getattr(st, "name", "") or ""
    kind = getattr(st, "kind", "") or ""
    table_a, table_f = getattr(st, "ALLOC", None), getattr(st, "FREE", None)
    alloc = table_a.get(kind, "") if isinstance(table_a, dict) else ""
    free = table_f.get(kind, "") if isinstance(table_f, dict) else ""
    return Strategy(name, kind, alloc, free)


def flip(sim: Any) -> Flip:
    st = sim.strategy
    return Flip(st.SLICE, st.page_bytes, st.stats["pg_flips"], st.stats["pg_reuses"], st.stats["pg_losts"])
