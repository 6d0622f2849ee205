"""Reading a real machine's page_pool statistics, and what their ratios say.

Three printouts carry `struct page_pool_stats`:
  - `ethtool -S DEV` of a driver that exports them. The generic helper
    (page_pool_ethtool_stats_get_strings() in net/core/page_pool.c) prints one
    aggregated set per device, `rx_pp_alloc_fast`, ..., `rx_pp_alloc_slow_ho`,
    ..., `rx_pp_recycle_released_ref`. Drivers with their own strings spell some
    longer (mlx5: `rx_pp_alloc_slow_high_order`) and add a set per queue with a
    prefix (mlx5: `rx0_pp_alloc_fast`, `rx1_pp_alloc_fast`, ...) beside the
    aggregate. The aggregate is used when the dump has one; otherwise the queues
    are summed. Never both: that would count every page twice.
  - `ynl --family netdev --dump page-pool-stats-get` (tools/net/ynl), one dict
    per pool: printed as Python (`{'info': {'id': 19, 'ifindex': 2},
    'alloc-fast': 3024, ...}`) or, with `--output-json`, as JSON. The pools are
    summed, as page_pool_get_stats() sums them.
The text is taken as it was pasted: other lines are ignored, and nothing is
ever evaluated (JSON is parsed as data; the Python form is read by pattern).

What the counters count (net/core/page_pool.c): every page page_pool_alloc_netmems()
hands out is counted once, by the way it was served: `fast` from the alloc cache,
`refill` by a refill of the cache from the ptr_ring (which moves up to 64 pages and
hands out one: the others count as `fast` when used), `slow` by a bulk call to the
page allocator (up to 64 order-0 pages, one handed out), `slow_high_order` one
higher-order page. So `refill` and `slow` count events, not the pages they bring.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from .page_pool import STATS

# every spelling of a statistic's ethtool name after "pp_": the generic helper's, then drivers' own
_SUFFIX = {
    "alloc_fast": "alloc_fast", "alloc_slow": "alloc_slow", "alloc_slow_ho": "alloc_slow_high_order",
    "alloc_slow_high_order": "alloc_slow_high_order", "alloc_empty": "alloc_empty",
    "alloc_refill": "alloc_refill", "alloc_waive": "alloc_waive", "recycle_cached": "recycle_cached",
    "recycle_cache_full": "recycle_cache_full", "recycle_ring": "recycle_ring",
    "recycle_ring_full": "recycle_ring_full", "recycle_released_ref": "recycle_released_refcnt",
    "recycle_released_refcnt": "recycle_released_refcnt",
}
# the generic helper's strings (pp_stats[] in net/core/page_pool.c), for the record and the tests
ETHTOOL = {"alloc_fast": "rx_pp_alloc_fast", "alloc_slow": "rx_pp_alloc_slow",
           "alloc_slow_high_order": "rx_pp_alloc_slow_ho", "alloc_empty": "rx_pp_alloc_empty",
           "alloc_refill": "rx_pp_alloc_refill", "alloc_waive": "rx_pp_alloc_waive",
           "recycle_cached": "rx_pp_recycle_cached", "recycle_cache_full": "rx_pp_recycle_cache_full",
           "recycle_ring": "rx_pp_recycle_ring", "recycle_ring_full": "rx_pp_recycle_ring_full",
           "recycle_released_refcnt": "rx_pp_recycle_released_ref"}
_ETH_LINE = re.compile(r"^\s*([A-Za-z0-9_.\-\[\]]*?)_?pp_(" + "|".join(sorted(_SUFFIX, key=len, reverse=True))
                       + r")\s*:\s*(\d+)\s*$")
_BY_NETLINK = {k.replace("_", "-"): k for k in STATS}
_NL_PAIR = re.compile(r"""['"]([a-z-]+)['"]\s*:\s*(\d+)""")
MAX_INPUT = 1 << 20


class StatsError(ValueError):
    """A dump that holds no page_pool statistics, in one sentence."""


class Dump(NamedTuple):
    """What was read: the statistics (summed as the kernel sums them), where from, and how."""
    stats: dict[str, int]
    kind: str          # "ethtool" or "netlink"
    pools: int         # pools (netlink), queues summed (ethtool per-queue) or 1 (an aggregate)
    how: str           # one sentence: which lines were used


def parse(text: str) -> Dump:
    """The page_pool statistics of an `ethtool -S` or `page-pool-stats-get` dump."""
    if len(text) > MAX_INPUT:
        raise StatsError("the file is larger than 1 MiB; paste one ethtool -S or page-pool-stats-get dump")
    found = _ethtool(text) or _netlink(text)
    if found is None:
        raise StatsError("no page_pool statistics found: expected `ethtool -S` lines such as "
                         "'rx_pp_alloc_fast: 123' (or per queue, 'rx0_pp_alloc_fast: 123') or a "
                         "`page-pool-stats-get` dump with 'alloc-fast': 123")
    return found


def _ethtool(text: str) -> Dump | None:
    groups: dict[str, dict[str, int]] = {}            # line prefix ("rx", "rx0", ...) -> its statistics
    for line in text.splitlines():
        m = _ETH_LINE.match(line)
        if m:
            prefix, name, value = m.group(1), _SUFFIX[m.group(2)], int(m.group(3))
            group = groups.setdefault(prefix, {})
            group[name] = group.get(name, 0) + value
    if not groups:
        return None
    aggregate = {p: g for p, g in groups.items() if not any(ch.isdigit() for ch in p)}
    queues = {p: g for p, g in groups.items() if p not in aggregate}
    use = aggregate or queues
    total = dict.fromkeys(STATS, 0)
    for group in use.values():
        for name, value in group.items():
            total[name] += value
    if aggregate:
        names = ", ".join(f"{p}_pp_*" for p in sorted(aggregate))
        extra = f"; the {len(queues)} per-queue sets beside it are not added again" if queues else ""
        return Dump(total, "ethtool", 1, f"the device's aggregate lines ({names}){extra}")
    return Dump(total, "ethtool", len(queues), f"{len(queues)} per-queue sets "
                f"({', '.join(sorted(queues, key=_natural)[:4])}{', ...' if len(queues) > 4 else ''}), summed")


def _natural(prefix: str) -> tuple[str, int]:
    digits = "".join(ch for ch in prefix if ch.isdigit())
    return (prefix.rstrip("0123456789"), int(digits) if digits else -1)


def _netlink(text: str) -> Dump | None:
    try:
        data = json.loads(text)
    except ValueError:
        chunks = [dict(_NL_PAIR.findall(c)) for c in _top_level_dicts(text)]
        form = "Python"
    else:
        items = data if isinstance(data, list) else [data]
        chunks = [{str(k): v for k, v in d.items()} for d in items if isinstance(d, dict)]
        form = "JSON"
    total = dict.fromkeys(STATS, 0)
    pools = 0
    for chunk in chunks:
        hits = {_BY_NETLINK[k]: int(v) for k, v in chunk.items()
                if k in _BY_NETLINK and str(v).isdigit()}
        if hits:
            pools += 1
        for name, value in hits.items():
            total[name] += value
    if not pools:
        return None
    return Dump(total, "netlink", pools, f"{pools} pool{'s' if pools != 1 else ''} of a {form} printout, summed")


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


def allocations(s: dict[str, int]) -> int:
    """Pages page_pool_alloc_netmems() handed out: each is counted once, by the way it was served."""
    return s["alloc_fast"] + s["alloc_slow"] + s["alloc_slow_high_order"] + s["alloc_refill"]


def returns(s: dict[str, int]) -> int:
    """Pages that came back: into the cache, into the ring, or out of the pool."""
    return s["recycle_cached"] + s["recycle_ring"] + s["recycle_ring_full"] + s["recycle_released_refcnt"]


def ratios(s: dict[str, Any]) -> dict[str, float | None]:
    """The shares that say how a pool behaves, each None when its denominator is zero.

    fast, refill and slow shares are of the page allocations (refill and slow are events that
    each handed out one page); pages_per_refill is what one refill took from the ptr_ring.
    """
    def share(a: float, b: float) -> float | None:
        return a / b if b else None
    allocs, back = allocations(s), returns(s)
    return {
        "fast_share": share(s["alloc_fast"], allocs),
        "refill_share": share(s["alloc_refill"], allocs),
        "slow_share": share(s["alloc_slow"] + s["alloc_slow_high_order"], allocs),
        "cached_share": share(s["recycle_cached"], back),
        "ring_share": share(s["recycle_ring"], back),
        "released_share": share(s["recycle_ring_full"] + s["recycle_released_refcnt"], back),
        "pages_per_refill": share(s["recycle_ring"], s["alloc_refill"]),
    }


def explain(s: dict[str, int]) -> list[str]:
    """What the counters mean, one sentence each, in the kernel's terms."""
    r = ratios(s)
    out = []
    allocs = allocations(s)
    if allocs:
        assert r["fast_share"] is not None
        out.append(f"Of {allocs:,} pages the pool handed out, {r['fast_share']:.1%} came straight from its "
                   f"lockless alloc cache (alloc_fast). The cache was refilled from the ptr_ring "
                   f"{s['alloc_refill']:,} times (alloc_refill counts refills, not pages: each moves up to 64 "
                   f"pages and hands out one; the others count as alloc_fast when they are used), and the page "
                   f"allocator was called {s['alloc_slow']:,} times for up to 64 order-0 pages each "
                   f"(alloc_slow) and {s['alloc_slow_high_order']:,} times for one higher-order page "
                   f"(alloc_slow_high_order).")
    if r["pages_per_refill"] is not None:
        out.append(f"{s['recycle_ring']:,} pages went back through the ptr_ring and {s['alloc_refill']:,} refills "
                   f"took them out: about {r['pages_per_refill']:.0f} pages a refill.")
    if r["cached_share"] is not None:
        out.append(f"Of {returns(s):,} pages that came back, {r['cached_share']:.1%} went straight into the alloc "
                   "cache (recycle_cached): freed in the pool's own NAPI context; "
                   f"{r['ring_share']:.1%} went through the ptr_ring (recycle_ring): freed elsewhere, under its "
                   f"producer lock; {r['released_share']:.1%} left the pool (ring full, or a page still referenced).")
    if s["alloc_empty"]:
        out.append(f"alloc_empty {s['alloc_empty']:,}: refills that found the ptr_ring empty and went to the page "
                   "allocator (a pool filling up, or pages held elsewhere).")
    if s["recycle_ring_full"]:
        out.append("recycle_ring_full is not zero: the ptr_ring overflowed and pages were unmapped and freed; a "
                   "larger pool_size, or frees in the NAPI context, would keep them.")
    if s["alloc_waive"]:
        out.append("alloc_waive is not zero: pages of another NUMA node were given back instead of used.")
    if s["recycle_cache_full"]:
        out.append("recycle_cache_full is not zero: direct returns found the 128-entry alloc cache full and fell "
                   "back to the ptr_ring.")
    return out


_SHARES = ("fast_share", "refill_share", "slow_share", "cached_share", "ring_share", "released_share")


def distance(a: dict[str, int], b: dict[str, int]) -> float:
    """How unlike two pools behave: the sum of the differences of their shares."""
    ra, rb = ratios(a), ratios(b)
    return sum(abs((ra[k] or 0.0) - (rb[k] or 0.0)) for k in _SHARES)
