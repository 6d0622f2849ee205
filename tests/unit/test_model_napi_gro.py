"""NAPI polls, budgets, GRO holds and flushes, and TCP's ACK rate (kernel-facts §5, §6, §8, §9.5)."""

from __future__ import annotations

import re
from collections import deque

import pytest

from models.sim import Sim

TEN_G = 10 * 10**9
SDIO32 = {"bus": "sdio", "bundle": 32, "platform": "arm-qca6174-sdio"}


def make(params: dict, **kw) -> Sim:
    sim = Sim(params, **kw)
    sim.poll_work = deque()          # keep every poll's work, not just the last 64
    return sim


def run(params: dict, frames: int, **kw) -> Sim:
    sim = make(params, **kw)
    sim.run_frames(frames)
    assert sim.processed == frames
    return sim


def skb_segments(sim: Sim) -> list[int]:
    return [int(re.search(r"segs (\d+)", e.detail).group(1))
            for e in sim.rec.events if e.call == "netif_receive_skb"]


# ---------------------------------------------------------------------------- the budget
@pytest.mark.parametrize("params", [
    {"traffic": "udp", "rate": TEN_G, "forward": True},                      # x86, 10 GbE, forwarding
    {"traffic": "udp", "rate": TEN_G, "platform": "mips74kc-bcm4716"},       # slow SoC, overloaded
    {"traffic": "udp", "rate": TEN_G, "platform": "mips74kc-bcm4716", "budget": 16},
    {"rate": TEN_G, "gro": False},                                           # TCP, no GRO
])
def test_no_poll_exceeds_the_budget_and_overloaded_polls_hit_it(params):
    sim = run(params, 4000)
    budget = sim.params["budget"]
    work = list(sim.poll_work)
    assert work and max(work) == budget
    assert all(0 <= w <= budget for w in work)
    c = sim.rec.counts
    # a poll that did less than its budget completes; one that used it all is polled again
    assert c["napi_complete_done"] == sum(1 for w in work if w < budget)
    assert c["napi_poll"] == len(work) + (1 if sim.napi_state == "polling" else 0)
    assert sum(work) + sim.work * (sim.napi_state == "polling") == sim.processed


def test_light_load_polls_complete_every_time():
    sim = run({}, 1500)                         # 1 Gbit/s TCP on a 3 GHz core: one frame per poll
    c = sim.rec.counts
    assert max(sim.poll_work) < sim.params["budget"]
    assert c["napi_complete_done"] == len(sim.poll_work)
    # the IRQ is masked from the hard IRQ to napi_complete_done: one interrupt per poll
    assert c["irq"] == c["napi_schedule"] == c["napi_poll"]


def test_without_napi_there_is_no_poll_and_no_gro():
    sim = run({"delivery": "workqueue"}, 1000)
    c = sim.rec.counts
    assert c["napi_poll"] == c["napi_schedule"] == c["napi_gro_receive"] == 0
    assert c["netif_receive_skb"] == 1000


# ---------------------------------------------------------------------------- GRO
@pytest.mark.parametrize("params", [{}, {"rate": TEN_G}, {"rate": TEN_G, "rx_usecs": 100_000},
                                    {"rate": TEN_G, "budget": 8, "rx_usecs": 20_000}, SDIO32])
def test_gro_holds_nothing_after_napi_complete_done(params):
    sim = run(params, 3000, trace=2_000_000)
    held = 0
    flushes = completes_with_held = exhausted_flushes = 0
    flushed_since_receive = False
    for e in sim.rec.events:
        if e.ctx != "softirq":
            continue
        if e.call == "napi_poll":
            flushed_since_receive = False
        elif e.call == "napi_gro_receive":
            held = 1
            flushed_since_receive = False
        elif e.call == "napi_gro_flush":
            assert held, "napi_gro_flush with nothing held"
            held = 0
            flushes += 1
            flushed_since_receive = True
        elif e.call == "napi_complete_done":
            assert held == 0, "napi_complete_done left a GRO packet held"
            completes_with_held += flushed_since_receive
            flushed_since_receive = False
    work = list(sim.poll_work)
    exhausted = sum(1 for w in work if w == sim.params["budget"])
    exhausted_flushes = flushes - completes_with_held
    assert 0 <= exhausted_flushes <= exhausted
    c = sim.rec.counts
    assert c["napi_gro_flush"] == flushes
    # every TCP segment handed to GRO reaches the stack exactly once (or is still held)
    held_segs = sim.stack.gro.held.segs if sim.stack.gro.held is not None else 0
    waiting = sim.stack.gro.rx_count          # completed, on napi->rx_list until gro_normal_list()
    assert sim.stack.sock.delivered + held_segs + waiting == c["napi_gro_receive"] == sim.processed
    assert sum(skb_segments(sim)) == sim.stack.sock.delivered


def test_gro_flush_count_equals_completes_when_tcp_polls_always_receive():
    # one or more frames in every poll, never the whole budget: each napi_complete_done flushes once
    sim = run({"rate": TEN_G}, 3000)
    c = sim.rec.counts
    assert max(sim.poll_work) < 64 and min(sim.poll_work) >= 1
    assert c["napi_gro_flush"] == c["napi_complete_done"]


def test_udp_is_never_held():
    sim = run({"traffic": "udp", "rate": TEN_G}, 2000)
    c = sim.rec.counts
    assert c["napi_gro_flush"] == 0 and sim.stack.gro.held is None
    assert c["napi_gro_receive"] == 2000
    assert c["netif_receive_skb"] + len(sim.stack.gro.rx_list) == 2000


def test_gro_off_delivers_every_frame_alone_in_batches_of_8():
    # ethtool -K gro off: the driver still calls napi_gro_receive(); netif_elide_gro() makes every
    # skb GRO_NORMAL, and gro_normal_one() hands them up 8 at a time (gro_normal_batch) or at
    # napi_complete_done().
    sim = run({"gro": False, "rate": TEN_G}, 2000, trace=2_000_000)
    c = sim.rec.counts
    assert c["napi_gro_receive"] == 2000 and c["napi_gro_flush"] == 0
    assert c["netif_receive_skb"] + len(sim.stack.gro.rx_list) == 2000
    assert sim.metrics()["segments_per_skb"] == 1.0
    sizes, run_len = [], 0
    for e in sim.rec.events:
        if e.call == "netif_receive_skb":
            run_len += 1
        elif e.call == "gro_normal_list":
            sizes.append(int(e.detail.split()[0]))
    assert sizes and max(sizes) == 8
    assert sum(sizes) == c["netif_receive_skb"]


def test_gro_super_packets_stay_under_64KiB():
    sim = run({"rate": TEN_G, "rx_usecs": 100_000}, 3000, trace=2_000_000)
    segs = skb_segments(sim)
    assert max(segs) <= 45
    assert sim.metrics()["segments_per_skb"] <= 45
    lens = [int(re.search(r"len (\d+)", e.detail).group(1)) for e in sim.rec.events if e.call == "netif_receive_skb"]
    assert max(lens) < 65536


def test_gro_fills_45_segments_at_mtu_1500():
    sim = run({"rate": TEN_G, "rx_usecs": 100_000}, 3000, trace=2_000_000)
    assert max(skb_segments(sim)) == 45      # 1500 + 44 * 1448 = 65212 < 65536; one more would not fit


def test_gro_fills_7_segments_at_mtu_9000():
    # 9000 + 6 * 8948 = 62688 < 65536; a seventh merge would reach 71636
    sim = run({"rate": TEN_G, "rx_usecs": 100_000, "mtu": 9000, "rx_buf_size": 9216}, 2000, trace=2_000_000)
    assert max(skb_segments(sim)) == 7


def test_hz1000_budget_exhaustion_keeps_young_packets_held():
    # __napi_poll: napi_gro_flush(n, HZ >= 1000) flushes only packets a jiffy old, so a GRO
    # packet can collect segments over several budget-exhausted polls
    sim = run({"rate": TEN_G, "budget": 8, "rx_usecs": 20_000}, 3000, trace=2_000_000)
    assert sim.platform.hz == 1000
    assert max(skb_segments(sim)) > 8


def test_hz_below_1000_budget_exhaustion_flushes_everything():
    sim = run({"rate": TEN_G, "budget": 8, "rx_usecs": 20_000, "hz": 250}, 3000, trace=2_000_000)
    assert sim.platform.hz == 250
    # every poll ends with an empty GRO table, so no skb can span two polls
    assert max(skb_segments(sim)) <= 8


# ---------------------------------------------------------------------------- ACKs
def test_without_gro_one_ack_per_two_segments():
    sim = run({"gro": False, "rate": TEN_G}, 1000)
    sim.mark()
    sim.run_frames(6000)
    assert sim.metrics()["acks_per_segment"] == pytest.approx(0.5, abs=0.001)


def test_gro_cuts_acks_to_one_per_super_packet():
    sim = run({"rate": TEN_G}, 3000)
    c = sim.rec.counts
    # every super-packet of two or more segments gets exactly one immediate ACK
    assert c["tcp_send_ack"] <= c["netif_receive_skb"]
    assert sim.metrics()["acks_per_segment"] < 0.5


def test_sdio_bundle_32_with_napi_gro_acks_once_per_32_segments():
    sim = run(SDIO32, 1000)
    sim.mark()
    sim.run_frames(8000)
    m = sim.metrics()
    assert m["acks_per_segment"] == pytest.approx(1 / 32, abs=0.002)
    assert m["segments_per_skb"] == pytest.approx(32, abs=1)
    c = sim.rec.counts
    assert c["ieee80211_rx_napi"] == sim.processed and c["ieee80211_rx_ni"] == 0
    assert max(sim.poll_work) <= sim.params["budget"]


def test_sdio_without_napi_acks_every_second_segment():
    sim = run({**SDIO32, "delivery": "workqueue"}, 1000)
    sim.mark()
    sim.run_frames(6000)
    m = sim.metrics()
    assert m["acks_per_segment"] == pytest.approx(0.5, abs=0.001)
    assert m["segments_per_skb"] == 1.0
    c = sim.rec.counts
    assert c["ieee80211_rx_ni"] == sim.processed and c["napi_poll"] == 0 and c["napi_gro_receive"] == 0


def test_usb_gro_without_a_polled_napi_is_reported():
    # "Doesn't this break USB?": ieee80211_rx_napi on a napi_struct nothing ever polls
    usb = {"bus": "usb", "delivery": "workqueue", "platform": "arm-qca6174-sdio"}
    sim = run({**usb, "mac80211_rx": "ieee80211_rx_napi"}, 500)
    names = [v.name for v in sim.rec.violations]
    assert names == ["gro-outside-napi"]
    ok = run({**usb, "mac80211_rx": "if-napi-registered"}, 500)
    assert ok.rec.violations == [] and ok.rec.counts["napi_gro_receive"] == 0


# ---------------------------------------------------------------------------- the GRO chain
BIG = {"rate": TEN_G, "rx_usecs": 100_000}      # polls of 45+ segments: full 64 KiB super-packets


def flushes(sim: Sim) -> list[tuple[int, int, int]]:
    """(segments, frags of p, frag_list members) of every completed GRO chain."""
    out = []
    for e in sim.rec.events:
        if e.call == "napi_gro_complete":
            m = re.search(r"(\d+) segment\(s\), \d+ bytes, (\d+) frags, (\d+) on frag_list", e.detail)
            out.append(tuple(int(x) for x in m.groups()))
    return out


def test_stolen_heads_fill_17_frags_then_chain_a_container():
    # head_frag buffers (netdev_alloc_frag + build_skb): p keeps its own data and takes 17
    # segments' data as frags; the 19th segment is chained on frag_list with its sk_buff and
    # fills its own 17 frags; a 45-segment super-packet is p(18) + 18 + 9.
    sim = run({**BIG, "rx_alloc": "frag"}, 4000, trace=4_000_000)
    done = flushes(sim)
    full = [f for f in done if f[0] == 45]
    assert full and all(f[1:] == (17, 2) for f in full)
    # one stolen shell per segment that was neither the first of its chain nor chained
    held = sim.stack.gro.held
    in_held = (held.segs - 1 - len(held.frag_list)) if held is not None else 0
    assert sim.rec.counts["napi_skb_free_stolen_head"] == sum(s - 1 - n for s, _, n in done) + in_held


def test_kmalloc_heads_cannot_be_stolen_every_segment_is_chained():
    # slab_build_skb(): head_frag = 0, so skb_gro_receive() takes the merge path every time
    sim = run({**BIG, "rx_alloc": "kmalloc"}, 3000, trace=4_000_000)
    full = [f for f in flushes(sim) if f[0] == 45]
    assert full and all(f[1:] == (0, 44) for f in full)
    assert sim.rec.counts["napi_skb_free_stolen_head"] == 0


def test_napi_alloc_skb_frames_move_their_frags():
    # atlantic: napi_alloc_skb() header + one page frag per frame: NAPI_GRO_FREE moves the frag,
    # so p holds its own frag plus 16 more before a container is chained (17 frags at most)
    sim = run({**BIG, "strategy": "page-flip", "rx_build": "napi_alloc_skb"}, 3000, trace=4_000_000)
    full = [f for f in flushes(sim) if f[0] == 45]
    assert full and all(f[1:] == (17, 2) for f in full)
    c = sim.rec.counts
    assert c["__napi_kfree_skb"] > 0 and c["napi_skb_free_stolen_head"] == 0


@pytest.mark.parametrize("kernel,bulk", [("6.1", False), ("6.3", True)])
def test_frag_list_members_go_back_to_the_slab(kernel, bulk):
    # consume of a super-packet: kfree_skb_list_reason() frees the chained containers to the
    # slab, 16 at a time with kmem_cache_free_bulk from v6.3, one kmem_cache_free each before
    sim = run({**BIG, "rx_alloc": "kmalloc", "kernel": kernel}, 3000, trace=4_000_000)
    lists = [int(e.detail.split()[0]) for e in sim.rec.events if e.call == "kfree_skb_list"]
    assert lists and max(lists) == 44
    bulks = [e for e in sim.rec.events if e.call == "kmem_cache_free_bulk" and "frag_list" in e.detail]
    if bulk:
        sizes = [int(e.detail.split()[0]) for e in bulks]
        assert max(sizes) == 16 and sum(sizes) == sum(lists)
    else:
        assert bulks == []


@pytest.mark.parametrize("kernel,to", [("5.10", "slab"), ("5.12", "napi")])
def test_stolen_shells_go_to_the_napi_cache_from_5_12(kernel, to):
    sim = run({**BIG, "kernel": kernel}, 2000, trace=4_000_000)
    ev = [e for e in sim.rec.events if e.call == "napi_skb_free_stolen_head"]
    assert ev and all(("NAPI cache" if to == "napi" else "slab") in e.detail for e in ev)


# The lessons' NAPI variants on PCIe: the driver's poll unmasks its device's interrupt with its own
# call right after napi_complete_done() (bgmac_poll(), aq_vec_poll(), ath11k's ext group poll).
PCIE_NAPI = [("rx-basics", "gro"), ("bgmac-napi-skb-cache", "after"), ("atlantic-page-pool", "after")]


@pytest.mark.parametrize("lesson_id,variant", PCIE_NAPI)
def test_the_poll_unmasks_its_interrupt_right_after_napi_complete_done(lesson_id, variant):
    from shipped import shipped_lesson

    from models.nic import NICS
    params = shipped_lesson(lesson_id).params_for(variant)
    sim = Sim(params, trace=100_000)
    unmask = NICS[sim.sc.platform].irq_unmask
    for _ in range(400):                  # frame by frame: NAPI idle never leaves the interrupt masked
        sim.run_frames(1)
        if sim.napi_state == "idle":
            assert sim.irq_on, f"{lesson_id}/{variant}: NAPI idle with the IRQ masked at frame {sim.processed}"
    events = list(sim.rec.events)
    after = [events[i + 1].call for i, e in enumerate(events[:-1]) if e.call == "napi_complete_done"]
    assert after and set(after) == {unmask}


def test_on_sdio_the_interrupt_stays_masked_only_while_the_irq_thread_reads():
    """ath10k's SDIO poll never touches the hardware: the MMC core re-enables the card interrupt
    when ath10k_sdio_irq_handler() returns, which it does once the mailbox has nothing pending."""
    from shipped import shipped_lesson
    sim = Sim(shipped_lesson("ath10k-sdio-napi").params_for("after"))
    seen = 0
    for _ in range(300):
        sim.run_frames(1)
        if not sim.irq_on:
            seen += 1
            assert sim.sdio_reading
    assert seen
