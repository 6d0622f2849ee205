"""The kernel version a scenario runs, and the behaviours that changed between versions.

The lessons span 2019 (ath10k, v5.4) to 2026 (net-next), and the RX path
moved under them: where a freed skb head goes, how GRO's frag_list is freed,
how big the NAPI skb cache is. Each behaviour below names the release that
changed it, so a lesson set in its own era shows that era's kernel, and a
learner can set `kernel` to see what a later one does.
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
    def napi_skb_cache(self) -> tuple[int, int, int]:
        """(NAPI_SKB_CACHE_SIZE, _BULK, heads freed when full): 64/16/32 up to v6.18, 128/32/32 from v6.19."""
        return (128, 32, 32) if self.at_least(6, 19) else (64, 16, 32)

    @cached_property
    def defer_max(self) -> int:
        """net.core.skb_defer_max: 64, raised to 128 in v6.19."""
        return 128 if self.at_least(6, 19) else 64

    def __str__(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"
