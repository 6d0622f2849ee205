"""The kernel version a scenario runs, and the behaviours that changed between versions.

The lessons span 2019 (ath10k, v5.6) to 2026 (net-next), and the RX path
moved under them: where a freed skb head goes, where an allocated one comes
from, how GRO's frag_list is freed, how big the NAPI skb cache is. Each
behaviour below names the release (and the commit, where one decides it)
that changed it, so a lesson set in its own era shows that era's kernel, and
a learner can set `kernel` to see what another one does.

Two changes of the v6.19 series are stated here rather than keyed, because
no scenario of the model reaches them:
  - e20dfbad8aab ("net: fix napi_consume_skb() with alien skbs"):
    napi_consume_skb() hands an skb allocated on another CPU to
    skb_attempt_defer_free(). The model calls napi_consume_skb() from a TX
    completion and from skb_defer_free_flush() on the CPU that built those
    skbs (TCP's ACKs are built in the RX softirq), so none is alien.
  - Before v5.12 the NAPI skb cache only batched frees (napi_consume_skb,
    64 at a time, flushed at the end of net_rx_action()); Alexander Lobakin
    made it a cache that napi_build_skb() allocates from (v5.12). The model
    keeps the v5.12 cache for older versions: below v5.12 nothing in it frees
    into the cache (GRO's shells go to the slab, and napi_build_skb() is
    refused, as the kernel had none).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

OLDEST = (5, 4)


def parse_version(value: object) -> tuple[int, int]:
    text = str(value).strip()
    parts = text.split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"expected a kernel version such as 6.12, got {value!r}")
    v = (int(parts[0]), int(parts[1]))
    if v < OLDEST:
        raise ValueError(f"expected a kernel version from 5.4 on (the oldest the model knows), got {value!r}")
    return v


@dataclass(frozen=True)
class Kernel:
    """A kernel release; its behaviours are read on the hot path, so each is computed once."""
    version: tuple[int, int]

    def at_least(self, major: int, minor: int) -> bool:
        return self.version >= (major, minor)

    @cached_property
    def stolen_heads_to_napi_cache(self) -> bool:
        """v5.12 (Lobakin): GRO's merged sk_buff shells go to the NAPI skb cache, not the slab."""
        return self.at_least(5, 12)

    @cached_property
    def defer_free(self) -> bool:
        """v5.19: skb_attempt_defer_free() sends a reader's free back to the CPU that allocated the skb."""
        return self.at_least(5, 19)

    @cached_property
    def udp_defer_free(self) -> bool:
        """v6.18, 6471658dc66c ("udp: use skb_attempt_defer_free()"): skb_consume_udp() frees a read datagram
        as TCP does, back on the CPU that allocated it; before, __consume_stateless_skb() freed it at once."""
        return self.at_least(6, 18)

    @cached_property
    def same_cpu_free_to_napi_cache(self) -> bool:
        """v6.10: a free on the allocating CPU uses kfree_skb_napi_cache() (NAPI cache, BHs off), not the slab."""
        return self.at_least(6, 10)

    @cached_property
    def frag_list_bulk_free(self) -> bool:
        """v6.3: kfree_skb_list_reason() frees frag_list members with kmem_cache_free_bulk, 16 at a time."""
        return self.at_least(6, 3)

    @cached_property
    def pp_direct_from_skb_free(self) -> bool:
        """v6.5: an skb freed in the pool's NAPI context may recycle its pages into the lockless cache."""
        return self.at_least(6, 5)

    @cached_property
    def napi_build_skb(self) -> bool:
        """v5.12 (Lobakin, "skbuff: introduce {,__}napi_build_skb() which reuses NAPI cache heads")."""
        return self.at_least(5, 12)

    @cached_property
    def alloc_skb_from_napi_cache(self) -> bool:
        """v6.19, 21664814b89e ("net: use napi_skb_cache even in process context"): __alloc_skb() takes a
        non-fclone sk_buff from this CPU's NAPI cache when it is not in hard IRQ, and falls back to the
        slab when the cache is empty (napi_skb_cache_get(false) does not refill it): TCP's ACKs too."""
        return self.at_least(6, 19)

    @cached_property
    def napi_skb_cache(self) -> tuple[int, int, int]:
        """(NAPI_SKB_CACHE_SIZE, _BULK, heads freed when full): 64/16/32 up to v6.18, 128/32/32 from v6.19."""
        return (128, 32, 32) if self.at_least(6, 19) else (64, 16, 32)

    @cached_property
    def defer_max(self) -> int:
        """net.core.skb_defer_max: 64, raised to 128 in v6.19 (b61785852ed0)."""
        return 128 if self.at_least(6, 19) else 64

    def __str__(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"
