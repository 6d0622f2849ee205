"""skb heads: the skbuff_cache slab versus the per-CPU NAPI skb cache (kernel-facts §7).

napi_skb_cache_get(): refill NAPI_SKB_CACHE_BULK heads with kmem_cache_alloc_bulk when
empty, pop one. napi_skb_cache_put(): push; when the cache reaches NAPI_SKB_CACHE_SIZE,
kmem_cache_free_bulk the top NAPI_SKB_CACHE_HALF (v6.19: NAPI_SKB_CACHE_FREE) heads.
64/16/32 up to v6.18, 128/32/32 from v6.19.
"""

from __future__ import annotations

import math

import pytest

from models.sim import Sim

# The reader's frees come back to the RX CPU's NAPI cache from v5.19 (skb_attempt_defer_free);
# the tests that isolate one path pin an older kernel, where the reader frees to the slab.
V618 = {"napi_skb_cache_size": 64, "napi_skb_cache_bulk": 16, "napi_skb_cache_free": 32, "kernel": "5.15"}
V619 = {"napi_skb_cache_size": 128, "napi_skb_cache_bulk": 32, "napi_skb_cache_free": 32, "kernel": "5.15"}
OLD = {"kernel": "5.15"}


def run(params: dict, frames: int, **kw) -> Sim:
    sim = Sim(params, **kw)
    sim.run_frames(frames)
    assert sim.processed == frames
    return sim


def replay_cache(events, size: int, bulk: int, free_n: int) -> tuple[int, int, int]:
    """An independent napi_alloc_cache: (bulk allocs, bulk frees, heads left) for the get/put sequence."""
    count = allocs = frees = 0
    for e in events:
        if e.call == "napi_skb_cache_get":
            if count == 0:
                count += bulk
                allocs += 1
            count -= 1
        elif e.call == "napi_skb_cache_put":
            count += 1
            if count == size:
                count -= free_n
                frees += 1
    return allocs, frees, count


@pytest.mark.parametrize("version", [V618, V619])
def test_napi_build_skb_refills_the_cache_in_bulk(version):
    n = 3000
    # UDP forwarding: RX heads come from the NAPI cache and nothing is freed back into it
    sim = run({"skb_alloc": "napi_build_skb", "traffic": "udp", **version}, n)
    c = sim.rec.counts
    bulk = version["napi_skb_cache_bulk"]
    assert c["napi_build_skb"] == c["napi_skb_cache_get"] == n
    assert c["build_skb"] == 0 and c["kmem_cache_alloc"] == 0
    assert c["kmem_cache_alloc_bulk"] == math.ceil(n / bulk)
    assert len(sim.heads.cache) == math.ceil(n / bulk) * bulk - n
    assert c["napi_skb_cache_put"] == c["kmem_cache_free_bulk"] == 0


@pytest.mark.parametrize("version,expected_frees", [(V618, 1 + (1499 - 64) // 32), (V619, 1 + (1499 - 128) // 32)])
def test_napi_consume_skb_fills_the_cache_and_frees_half_when_full(version, expected_frees):
    # TCP without GRO: 1500 ACKs for 3000 segments; their heads come from the slab and
    # the TX reclaim frees them with napi_consume_skb into the NAPI cache, which nothing drains
    sim = run({"gro": False, "tx_free": "napi_consume_skb", **version}, 3000)
    c = sim.rec.counts
    puts = c["napi_consume_skb"]
    assert puts == 1499                      # 1500 ACKs, the last one still on the TX ring
    assert c["tcp_send_ack"] - len(sim.stack.tx.ring) == puts
    assert c["napi_skb_cache_put"] == puts
    assert c["dev_kfree_skb"] == 0
    assert c["kmem_cache_free_bulk"] == expected_frees
    assert len(sim.heads.cache) == puts - version["napi_skb_cache_free"] * expected_frees
    assert len(sim.heads.cache) < version["napi_skb_cache_size"]
    assert c["kmem_cache_alloc_bulk"] == 0   # build_skb: the cache is never asked for a head


def test_dev_kfree_skb_frees_to_the_slab():
    sim = run({"gro": False, "tx_free": "dev_kfree_skb", **OLD}, 2000)
    c = sim.rec.counts
    assert c["napi_consume_skb"] == c["napi_skb_cache_put"] == 0
    assert c["dev_kfree_skb"] == c["tx_complete"] > 0
    assert sim.heads.cache == []


@pytest.mark.parametrize("version", [V618, V619])
@pytest.mark.parametrize("params", [
    {"skb_alloc": "napi_build_skb", "tx_free": "napi_consume_skb", "gro": False},
    {"skb_alloc": "napi_build_skb", "tx_free": "napi_consume_skb", "rate": 10 * 10**9},
    {"skb_alloc": "napi_build_skb", "rate": 10 * 10**9},
    {"skb_alloc": "build_skb", "rate": 10 * 10**9},
    {"skb_alloc": "napi_build_skb", "strategy": "page-pool", "rate": 10 * 10**9, "tx_free": "napi_consume_skb"},
])
def test_bulk_alloc_and_free_match_an_independent_cache(params, version):
    sim = run({**params, **version}, 2500, trace=2_000_000)
    c = sim.rec.counts
    allocs, frees, left = replay_cache(sim.rec.events, version["napi_skb_cache_size"],
                                       version["napi_skb_cache_bulk"], version["napi_skb_cache_free"])
    assert c["kmem_cache_alloc_bulk"] == allocs
    assert c["kmem_cache_free_bulk"] == frees
    assert len(sim.heads.cache) == left
    # each bulk event sits right where the kernel does it: before the get that found the
    # cache empty, after the put that filled it
    ev = [e.call for e in sim.rec.events]
    for i, call in enumerate(ev):
        if call == "kmem_cache_alloc_bulk":
            assert ev[i + 1] == "napi_skb_cache_get"
        elif call == "kmem_cache_free_bulk":
            assert ev[i - 1] == "napi_skb_cache_put"
    # heads put into the cache: napi_consume_skb'd TX skbs plus the shells GRO freed while merging
    assert c["napi_skb_cache_put"] == c["napi_consume_skb"] + c["napi_skb_free_stolen_head"] + c["__napi_kfree_skb"]
    if not (sim.params["traffic"] == "tcp" and sim.params["gro"]):
        assert c["napi_skb_free_stolen_head"] == c["__napi_kfree_skb"] == 0


def test_build_skb_never_takes_rx_heads_from_the_napi_cache():
    n = 2500
    sim = run({"skb_alloc": "build_skb", "rate": 10 * 10**9, **OLD}, n)
    c = sim.rec.counts
    assert c["build_skb"] == n and c["napi_build_skb"] == 0
    assert c["napi_skb_cache_get"] == c["kmem_cache_alloc_bulk"] == 0
    # every head is a kmem_cache_alloc: one per RX skb and one per ACK
    assert c["kmem_cache_alloc"] == n + c["tcp_send_ack"]


def test_heads_are_all_returned_at_teardown():
    sim = run({"skb_alloc": "napi_build_skb", "tx_free": "napi_consume_skb", "rate": 10 * 10**9}, 2000)
    assert sim.heads.in_use > 0
    sim.teardown()
    assert sim.heads.in_use == 0
    assert all(h.state == "napi-cache" for h in sim.heads.cache)
    assert all(h.state == "slab" for h in sim.heads.slab)
