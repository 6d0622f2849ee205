"""`rxviz stats`: real page_pool dumps in every printout, summed once, compared with a healthy pool.

The samples are written from the kernel's documented names: the generic ethtool strings
(pp_stats[] in net/core/page_pool.c), mlx5's own (its aggregate rx_pp_* with
rx_pp_alloc_slow_high_order, and one rx<N>_pp_* set per channel), and the netdev family's
page-pool-stats-get as ynl prints it, as Python and as JSON.
"""

from __future__ import annotations

import json

import pytest
from cli_message import message

from models.pp_stats import StatsError, explain, parse, ratios
from viz import cli

# the generic helper's strings, one aggregated set per device
ETHTOOL = """NIC statistics:
     rx_packets: 99
     rx_pp_alloc_fast: 3641784
     rx_pp_alloc_slow: 8
     rx_pp_alloc_slow_ho: 0
     rx_pp_alloc_empty: 8
     rx_pp_alloc_refill: 35
     rx_pp_alloc_waive: 0
     rx_pp_recycle_cached: 3641280
     rx_pp_recycle_cache_full: 0
     rx_pp_recycle_ring: 2240
     rx_pp_recycle_ring_full: 0
     rx_pp_recycle_released_ref: 0
"""


def mlx5(channels: int, aggregate: bool) -> str:
    """An mlx5 ethtool -S: its own aggregate names (if any) and a set per channel, each channel 100 fast."""
    lines = ["NIC statistics:", "     rx_packets: 1000"]
    names = ("alloc_fast", "alloc_slow", "alloc_slow_high_order", "alloc_empty", "alloc_refill", "alloc_waive",
             "recycle_cached", "recycle_cache_full", "recycle_ring", "recycle_ring_full", "recycle_released_ref")
    per = dict.fromkeys(names, 0) | {"alloc_fast": 100, "alloc_slow": 2, "recycle_cached": 90, "recycle_ring": 12}
    if aggregate:
        lines += [f"     rx_pp_{n}: {v * channels}" for n, v in per.items()]
    for ch in range(channels):
        lines += [f"     rx{ch}_packets: 250"] + [f"     rx{ch}_pp_{n}: {v}" for n, v in per.items()]
    return "\n".join(lines) + "\n"


# two pools, as `ynl --family netdev --dump page-pool-stats-get` prints them (Python)
NETLINK = """[{'alloc-empty': 48, 'alloc-fast': 3024, 'alloc-refill': 0, 'alloc-slow': 48,
  'alloc-slow-high-order': 0, 'alloc-waive': 0, 'info': {'id': 19, 'ifindex': 2},
  'recycle-cache-full': 0, 'recycle-cached': 0, 'recycle-released-refcnt': 0,
  'recycle-ring': 0, 'recycle-ring-full': 0},
 {'info': {'id': 18, 'ifindex': 2}, 'alloc-empty': 2, 'alloc-fast': 100, 'alloc-slow': 2,
  'recycle-ring': 90, 'recycle-ring-full': 10}]
"""
# the same, with --output-json
NETLINK_JSON = json.dumps([
    {"alloc-empty": 48, "alloc-fast": 3024, "alloc-refill": 0, "alloc-slow": 48, "alloc-slow-high-order": 0,
     "alloc-waive": 0, "info": {"id": 19, "ifindex": 2}, "recycle-cache-full": 0, "recycle-cached": 0,
     "recycle-released-refcnt": 0, "recycle-ring": 0, "recycle-ring-full": 0},
    {"info": {"id": 18, "ifindex": 2}, "alloc-empty": 2, "alloc-fast": 100, "alloc-slow": 2,
     "recycle-ring": 90, "recycle-ring-full": 10}], indent=2)


def test_ethtool_dump():
    dump = parse(ETHTOOL)
    s = dump.stats
    assert (dump.kind, dump.pools) == ("ethtool", 1)
    assert s["alloc_fast"] == 3641784 and s["alloc_slow_high_order"] == 0 and s["recycle_cached"] == 3641280
    r = ratios(s)
    assert r["fast_share"] == pytest.approx(3641784 / (3641784 + 8 + 35))
    assert r["pages_per_refill"] == pytest.approx(2240 / 35)


def test_mlx5_per_channel_sets_are_summed_when_there_is_no_aggregate():
    dump = parse(mlx5(4, aggregate=False))
    assert (dump.kind, dump.pools) == ("ethtool", 4)
    assert dump.stats["alloc_fast"] == 400 and dump.stats["recycle_ring"] == 48
    assert "4 per-queue sets" in dump.how


def test_mlx5_aggregate_lines_are_used_and_the_channels_not_added_again():
    dump = parse(mlx5(4, aggregate=True))          # rx_pp_alloc_slow_high_order: mlx5's own spelling
    assert dump.pools == 1 and dump.stats["alloc_fast"] == 400 and dump.stats["alloc_slow"] == 8
    assert "not added again" in dump.how


@pytest.mark.parametrize("text,form", [(NETLINK, "Python"), (NETLINK_JSON, "JSON")])
def test_netlink_dump_sums_the_pools_as_page_pool_get_stats_does(text, form):
    dump = parse(text)
    s = dump.stats
    assert (dump.kind, dump.pools) == ("netlink", 2) and form in dump.how
    assert s["alloc_fast"] == 3124 and s["alloc_slow"] == 50 and s["alloc_empty"] == 50
    assert s["recycle_ring"] == 90 and s["recycle_ring_full"] == 10
    assert any("ptr_ring overflowed" in line for line in explain(s))


def test_refills_are_explained_as_events_not_as_a_share_of_pages():
    text = " ".join(explain(parse(ETHTOOL).stats))
    assert "35 times (alloc_refill counts refills, not pages" in text
    assert "about 64 pages a refill" in text
    # the old wording counted the 35 refills as a share of the 3.6 million pages handed out
    assert "came from the ptr_ring through a refill" not in text


@pytest.mark.parametrize("text", ["", "rx_packets: 5\n", "{'info': {'id': 1}}", "__import__('os')",
                                  '[{"info": {"id": 1}}]'])
def test_no_statistics_is_one_clear_error(text):
    with pytest.raises(StatsError, match="no page_pool statistics found"):
        parse(text)


def test_only_healthy_pools_are_candidates():
    # a variant that injects a fault or expects a violation demonstrates a bug: never a real pool's match
    from viz.cli.stats import _pools
    pools = {(lesson.id, v) for lesson, v in _pools()}
    assert ("atlantic-page-pool", "after") in pools and ("atlantic-page-pool", "after-xdp") in pools
    assert ("ath9k-page-pool", "after") in pools
    assert ("atlantic-page-pool", "after-no-fix") not in pools and ("dma-bugs", "pool-leak") not in pools


@pytest.mark.slow
def test_the_command_picks_the_closest_pool(tmp_path, capsys):
    f = tmp_path / "ath9k-like.txt"
    # every return through the ring, never the cache: a pool without NAPI, like ath9k's
    f.write_text(ETHTOOL.replace("recycle_cached: 3641280", "recycle_cached: 0")
                 .replace("recycle_ring: 2240", "recycle_ring: 3641280")
                 .replace("alloc_refill: 35", "alloc_refill: 356895"))
    code = cli.main(["stats", str(f), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["lesson"] == "ath9k-page-pool" and out["variant"] == "after"
    assert out["model"]["recycle_cached"] == 0 and out["model"]["recycle_ring"] > 0


@pytest.mark.slow
def test_a_pool_like_the_buggy_xdp_variant_matches_its_healthy_twin(tmp_path, capsys):
    f = tmp_path / "xdp.json"
    f.write_text(NETLINK_JSON)
    code = cli.main(["stats", str(f), "--json", "--lesson", "atlantic-page-pool"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["variant"] in ("after", "after-xdp") and out["pools"] == 2


@pytest.mark.parametrize("argv,expect", [
    (["stats", "/nonexistent/dump.txt"], "cannot read it"),
    (["stats", "/"], "cannot read it"),
    (["stats", "{empty}"], "no page_pool statistics found"),
    (["stats", "{eth}", "--lesson", "rx-basics"], "not a lesson with a healthy page_pool variant"),
])
def test_bad_input(tmp_path, capsys, argv, expect):
    empty, eth = tmp_path / "e.txt", tmp_path / "eth.txt"
    empty.write_text("hello\n")
    eth.write_text(ETHTOOL)
    argv = [a.format(empty=empty, eth=eth) for a in argv]
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2 and expect in message(err)
