"""The records of the NAPI/GRO view and the NAPI skb cache view: how frames are delivered, what GRO holds,
and the per-CPU skb head cache.

`Napi` is the delivery side of one variant: is NAPI polled, its state and
the IRQ's, the budget and the work of the latest polls, what GRO holds, the
socket queue, and which transport takes the frames. `SkbCache` is
napi_alloc_cache: its fill, its size and the levels a bulk refill and a
flush leave, and the driver's choice of allocator and free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..gro import GRO_LEGACY_MAX_SIZE

# GRO's 64 KiB limit on a super-packet, which the NAPI view draws what GRO holds against (models.read).
__all__ = ["GRO_LEGACY_MAX_SIZE", "Napi", "SkbCache", "napi", "skb_cache"]


@dataclass(frozen=True, slots=True)
class Napi:
    polled: bool            # a NAPI poll runs the RX (netif_napi_add() was called, delivery napi)
    api: bool               # frames are handed to napi_gro_receive
    state: str              # the NAPI instance's state: "idle", "scheduled", "polling", "disabled"
    irq_on: bool            # the device's RX interrupt is unmasked
    budget: int
    poll_work: tuple[int, ...]      # frames each of the latest polls handled, oldest first
    gro: bool               # GRO is on (the scenario's gro): napi_gro_receive merges a flow's segments
    held_segs: int          # segments GRO holds now
    held_bytes: int
    socket_queue: int       # skbs waiting in the socket's receive queue
    forward: bool           # the frames are routed, not read by a local socket
    tcp: bool               # the traffic is TCP
    delivery: str           # "napi", "tasklet" or "workqueue"
    mac80211: bool          # a Wi-Fi driver: mac80211's RX handlers run per frame
    tasklet_budget: int     # frames a tasklet run handles at most
    # skbs read off an SDIO/USB bus and queued for a NAPI poll (htt->rx_indication_head); with no
    # poll (netif_napi_add() never called) they stay there: the NAPI view says so, not "delivered"
    queued: int = 0


@dataclass(frozen=True, slots=True)
class SkbCache:
    skb_alloc: str          # the driver's head allocator: "build_skb" or "napi_build_skb"
    tx_free: str            # and its TX free: "dev_kfree_skb" or "napi_consume_skb"
    cached: int             # heads in the cache now
    size: int               # NAPI_SKB_CACHE_SIZE
    bulk: int               # NAPI_SKB_CACHE_BULK: heads a refill takes from the slab
    free_n: int             # NAPI_SKB_CACHE_HALF: heads a flush gives back
    in_use: int             # heads in skbs now


def napi(sim: Any) -> Napi:
    stack = sim.stack
    held = stack.gro.held
    return Napi(sim.napi_polled, sim.napi_api, sim.napi_state, sim.irq_on, sim.params["budget"],
                tuple(sim.poll_work), bool(sim.sc.gro), held.segs if held else 0, held.len if held else 0,
                len(stack.sock.sockq), sim.sc.forward, sim.wire.tcp, sim.delivery, sim.platform.mac80211_ns > 0,
                sim.sc.tasklet_budget, len(sim.rx_ind) if sim.bus != "pcie" else 0)


def skb_cache(sim: Any) -> SkbCache:
    h = sim.heads
    prm = sim.params
    return SkbCache(prm["skb_alloc"], prm["tx_free"], len(h.cache), h.size, h.bulk, h.free_n, h.in_use)
