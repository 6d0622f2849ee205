"""`rxviz stats`: a real page_pool dump read, summed, compared and explained; bad input in one line."""

from __future__ import annotations

import json

import pytest
from cli_message import message

from models.pp_stats import StatsError, explain, parse, ratios
from viz import cli

ETHTOOL = """NIC statistics:
     rx_packets: 99
     rx_pp_alloc_fast: 3641784
     rx_pp_alloc_slow: 8
     rx_pp_alloc_slow_ho: 0
     rx_pp_alloc_empty: 8
     rx_pp_alloc_refill: 0
     rx_pp_alloc_waive: 0
     rx_pp_recycle_cached: 3641280
     rx_pp_recycle_cache_full: 0
     rx_pp_recycle_ring: 0
     rx_pp_recycle_ring_full: 0
     rx_pp_recycle_released_ref: 0
"""
# two pools, as the netdev family's page-pool-stats-get prints them
NETLINK = """[{'alloc-empty': 48, 'alloc-fast': 3024, 'alloc-refill': 0, 'alloc-slow': 48,
  'alloc-slow-high-order': 0, 'alloc-waive': 0, 'info': {'id': 19, 'ifindex': 2},
  'recycle-cache-full': 0, 'recycle-cached': 0, 'recycle-released-refcnt': 0,
  'recycle-ring': 0, 'recycle-ring-full': 0},
 {'info': {'id': 18, 'ifindex': 2}, 'alloc-empty': 2, 'alloc-fast': 100, 'alloc-slow': 2,
  'recycle-ring': 90, 'recycle-ring-full': 10}]
"""


def test_ethtool_dump():
    s, kind, pools = parse(ETHTOOL)
    assert kind == "ethtool" and pools == 1
    assert s["alloc_fast"] == 3641784 and s["alloc_slow_high_order"] == 0 and s["recycle_cached"] == 3641280
    r = ratios(s)
    assert r["fast_share"] == pytest.approx(3641784 / 3641792)
    assert r["cached_share"] == 1.0


def test_netlink_dump_sums_the_pools_as_page_pool_get_stats_does():
    s, kind, pools = parse(NETLINK)
    assert kind == "netlink" and pools == 2
    assert s["alloc_fast"] == 3124 and s["alloc_slow"] == 50 and s["alloc_empty"] == 50
    assert s["recycle_ring"] == 90 and s["recycle_ring_full"] == 10
    assert any("ptr_ring overflowed" in line for line in explain(s))


@pytest.mark.parametrize("text", ["", "rx_packets: 5\n", "{'info': {'id': 1}}", "__import__('os')"])
def test_no_statistics_is_one_clear_error(text):
    with pytest.raises(StatsError, match="no page_pool statistics found"):
        parse(text)


@pytest.mark.slow
def test_the_command_picks_the_closest_pool(tmp_path, capsys):
    f = tmp_path / "ath9k-like.txt"
    # every return through the ring, never the cache: a pool without NAPI, like ath9k's
    f.write_text(ETHTOOL.replace("recycle_cached: 3641280", "recycle_cached: 0")
                 .replace("recycle_ring: 0", "recycle_ring: 3641280")
                 .replace("alloc_refill: 0", "alloc_refill: 56895"))
    code = cli.main(["stats", str(f), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["lesson"] == "ath9k-page-pool" and out["variant"] == "after"
    assert out["model"]["recycle_cached"] == 0 and out["model"]["recycle_ring"] > 0


@pytest.mark.parametrize("argv,expect", [
    (["stats", "/nonexistent/dump.txt"], "cannot read it"),
    (["stats", "/"], "cannot read it"),
    (["stats", "{empty}"], "no page_pool statistics found"),
    (["stats", "{eth}", "--lesson", "rx-basics"], "not a lesson with a page_pool variant"),
])
def test_bad_input(tmp_path, capsys, argv, expect):
    empty, eth = tmp_path / "e.txt", tmp_path / "eth.txt"
    empty.write_text("hello\n")
    eth.write_text(ETHTOOL)
    argv = [a.format(empty=empty, eth=eth) for a in argv]
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2 and expect in message(err)
