"""Reading a real machine's page_pool statistics, and what their ratios say.

Two dumps carry `struct page_pool_stats`:
  - `ethtool -S DEV` of a driver that exports them (page_pool_ethtool_stats_get()):
    lines such as `     rx_pp_alloc_fast: 3641784`, one aggregated set per device;
  - `ynl --family netdev --dump page-pool-stats-get` (tools/net/ynl): a Python
    printout of one dict per pool, `{'info': {'id': 19, 'ifindex': 2}, 'alloc-fast': 3024, ...}`.
Both are summed over pools, as page_pool_get_stats() sums them. The parser takes the text
as it was pasted: other ethtool lines are ignored, and nothing is ever evaluated.
"""

from __future__ import annotations

import re

from .page_pool import STATS

# ethtool's strings (pp_stats[] in net/core/page_pool.c) for each statistic
ETHTOOL = {
    "alloc_fast": "rx_pp_alloc_fast", "alloc_slow": "rx_pp_alloc_slow",
    "alloc_slow_high_order": "rx_pp_alloc_slow_ho", "alloc_empty": "rx_pp_alloc_empty",
    "alloc_refill": "rx_pp_alloc_refill", "alloc_waive": "rx_pp_alloc_waive",
    "recycle_cached": "rx_pp_recycle_cached", "recycle_cache_full": "rx_pp_recycle_cache_full",
    "recycle_ring": "rx_pp_recycle_ring", "recycle_ring_full": "rx_pp_recycle_ring_full",
    "recycle_released_refcnt": "rx_pp_recycle_released_ref",
}
_BY_ETHTOOL = {v: k for k, v in ETHTOOL.items()}
_BY_NETLINK = {k.replace("_", "-"): k for k in STATS}

_ETH_LINE = re.compile(r"^\s*(rx_pp_[a-z_]+)\s*:\s*(\d+)\s*$")
_NL_PAIR = re.compile(r"'([a-z-]+)'\s*:\s*(\d+)")
MAX_INPUT = 1 << 20


class StatsError(ValueError):
    """A dump that holds no page_pool statistics, in one sentence."""


def parse(text: str) -> tuple[dict[str, int], str, int]:
    """(statistics summed over pools, "ethtool" or "netlink", number of pools or devices)."""
    if len(text) > MAX_INPUT:
        raise StatsError("the file is larger than 1 MiB; paste one ethtool -S or page-pool-stats-get dump")
    total = dict.fromkeys(STATS, 0)
    found = 0
    for line in text.splitlines():
        m = _ETH_LINE.match(line)
        if m and m.group(1) in _BY_ETHTOOL:
            total[_BY_ETHTOOL[m.group(1)]] += int(m.group(2))
            found += 1
    if found:
        return total, "ethtool", 1
    pools = 0
    for chunk in _top_level_dicts(text):
        hits = [(k, v) for k, v in _NL_PAIR.findall(chunk) if k in _BY_NETLINK]
        if hits:
            pools += 1
        for key, value in hits:
            total[_BY_NETLINK[key]] += int(value)
            found += 1
    if found:
        return total, "netlink", pools
    raise StatsError("no page_pool statistics found: expected `ethtool -S` lines such as "
                     "'rx_pp_alloc_fast: 123' or a `page-pool-stats-get` dump with 'alloc-fast': 123")


def _top_level_dicts(text: str) -> list[str]:
    """The outermost {...} of a printed list of dicts, one string per pool (nested ones stay inside)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
    return out


def ratios(s: dict[str, int]) -> dict[str, float | None]:
    """The shares that say how a pool behaves, each None when its denominator is zero."""
    def share(a: int, b: int) -> float | None:
        return a / b if b else None
    pages_out = s["alloc_fast"] + s["alloc_slow"] + s["alloc_slow_high_order"] + s["alloc_refill"]
    recycled = s["recycle_cached"] + s["recycle_ring"] + s["recycle_ring_full"] + s["recycle_released_refcnt"]
    return {
        "fast_share": share(s["alloc_fast"], pages_out),
        "refill_share": share(s["alloc_refill"], pages_out),
        "slow_share": share(s["alloc_slow"] + s["alloc_slow_high_order"], pages_out),
        "cached_share": share(s["recycle_cached"], recycled),
        "ring_share": share(s["recycle_ring"], recycled),
        "released_share": share(s["recycle_ring_full"] + s["recycle_released_refcnt"], recycled),
    }


def explain(s: dict[str, int]) -> list[str]:
    """What the ratios mean, one sentence each, in the kernel's terms."""
    r = ratios(s)
    out = []
    if r["fast_share"] is not None:
        out.append(f"{r['fast_share']:.1%} of the pages the pool handed out came straight from its lockless "
                   f"alloc cache (alloc_fast); {r['refill_share']:.1%} came from the ptr_ring through a refill "
                   f"(alloc_refill counts refills, up to 64 pages each) and {r['slow_share']:.1%} needed the "
                   "page allocator (alloc_slow counts one bulk call of up to 64 order-0 pages).")
    if r["cached_share"] is not None:
        out.append(f"{r['cached_share']:.1%} of the returns went straight back into the alloc cache "
                   "(recycle_cached): freed in the pool's own NAPI context; "
                   f"{r['ring_share']:.1%} went through the ptr_ring (recycle_ring): freed elsewhere, under its "
                   f"producer lock; {r['released_share']:.1%} left the pool (ring full, or a page still referenced).")
    if s["recycle_ring_full"]:
        out.append("recycle_ring_full is not zero: the ptr_ring overflowed and pages were unmapped and freed; a "
                   "larger pool_size, or frees in the NAPI context, would keep them.")
    if s["alloc_waive"]:
        out.append("alloc_waive is not zero: pages of another NUMA node were given back instead of used.")
    if s["recycle_cache_full"]:
        out.append("recycle_cache_full is not zero: direct returns found the 128-entry alloc cache full and fell "
                   "back to the ptr_ring.")
    return out


def distance(a: dict[str, int], b: dict[str, int]) -> float:
    """How unlike two pools behave: the sum of the differences of their shares."""
    ra, rb = ratios(a), ratios(b)
    return sum(abs((ra[k] or 0.0) - (rb[k] or 0.0)) for k in ra)
