"""Determinism and time travel: same inputs, same run; snapshots and chunked runs are exact."""

from __future__ import annotations

import re

import pytest

from models.sim import Sim

TEN_G = 10 * 10**9
SCENARIOS = [
    {},
    {"traffic": "udp", "rate": TEN_G},                                  # overloaded: drops, full polls
    {"strategy": "page-pool", "rate": TEN_G},
    {"strategy": "page-flip", "iommu": "strict", "rate": TEN_G, "page_order": 2},
    {"ram": 16 << 30, "dma_mask": 32, "iommu": "lazy", "rate": TEN_G},
    {"skb_alloc": "napi_build_skb", "tx_free": "napi_consume_skb", "rx_usecs": 50_000, "rate": TEN_G},
    {"strategy": "page-pool", "xdp": "tx", "traffic": "udp"},
    {"delivery": "workqueue"},
    {"bus": "sdio", "bundle": 32, "platform": "arm-qca6174-sdio"},
    {"bus": "sdio", "delivery": "workqueue", "bundle": 32, "platform": "arm-qca6174-sdio"},
    {"bus": "usb", "platform": "arm-qca6174-sdio"},
    {"platform": "ppc464-apm82181", "dma_dir": "bidirectional", "strategy": "page-pool"},
]
IDS = [",".join(f"{k}={v}" for k, v in p.items()) or "defaults" for p in SCENARIOS]


def state(sim: Sim) -> tuple:
    rec = sim.rec
    return (dict(rec.counts), sim.engine.now, sim.processed, sim.dropped, rec.bounce_bytes,
            dict(rec.cpu_ns), sim.cpu_free, rec.t, len(sim.engine), sim.stack.sock.delivered,
            [(v.name, v.t_ns) for v in rec.violations], sim.accounting())


def lines(sim: Sim, pool_ids: bool = True) -> list[str]:
    out = [e.line() for e in sim.rec.events]
    return out if pool_ids else [re.sub(r"pool#\d+", "pool#N", x) for x in out]


@pytest.mark.slow          # 1200 frames twice per scenario; make test keeps the 300-frame byte-for-byte run
@pytest.mark.parametrize("params", SCENARIOS, ids=IDS)
def test_same_params_same_run(params):
    a, b = Sim(params, trace=200_000), Sim(params, trace=200_000)
    a.run_frames(1200)
    b.run_frames(1200)
    assert state(a) == state(b)
    assert lines(a, pool_ids=False) == lines(b, pool_ids=False)


@pytest.mark.parametrize("params", [
    pytest.param(p, id=i) for p, i in zip(SCENARIOS, IDS, strict=True)])
def test_event_log_is_byte_for_byte_identical(params):
    a, b = Sim(params, trace=200_000), Sim(params, trace=200_000)
    a.run_frames(300)
    b.run_frames(300)
    assert lines(a) == lines(b)


@pytest.mark.parametrize("order", [0, 2])
def test_page_flip_pages_start_at_offset_0_whatever_the_seed(order):
    """aq_get_rxpage() sets pg_off = 0 for every page it maps, at ifup as at a refill: no random phase."""
    p = {"strategy": "page-flip", "page_order": order, "rate": TEN_G, "ring_size": 256}
    for seed in (0, 7):
        sim = Sim(p, seed=seed)
        assert {buf.offset for buf in sim.ring.bufs if buf is not None} == {0}
    # so the whole ring flips on one lap and its pages run out of slices on the same lap
    sim = Sim(p)
    sim.run_frames(256)
    assert sim.rec.counts.get("dma_unmap_page", 0) == 0
    assert {buf.offset for buf in sim.ring.bufs if buf is not None} == {2048}


def test_same_seed_same_page_flip_run():
    p = {"strategy": "page-flip", "page_order": 2, "rate": TEN_G}
    a, b = Sim(p, seed=7), Sim(p, seed=7)
    a.run_frames(800)
    b.run_frames(800)
    assert state(a) == state(b)


@pytest.mark.slow          # each scenario run whole and again in chunks
@pytest.mark.parametrize("params", SCENARIOS, ids=IDS)
def test_chunked_runs_equal_one_run(params):
    # the model suspends a NAPI poll (or a process-context unit) between two frames
    one = Sim(params, trace=200_000)
    one.run_frames(50)
    chunked = Sim(params, trace=200_000)
    for _ in range(5):
        chunked.run_frames(10)
    assert chunked.processed == one.processed == 50
    assert state(chunked) == state(one)
    assert lines(chunked, pool_ids=False) == lines(one, pool_ids=False)
    # and it stays exact afterwards
    one.run_frames(731)
    for _ in range(731):
        chunked.run_frames(1)
    assert state(chunked) == state(one)


@pytest.mark.parametrize("params", SCENARIOS, ids=IDS)
def test_snapshot_runs_exactly_like_the_original(params):
    sim = Sim(params, trace=100_000)
    sim.run_frames(137)                             # stop mid-poll
    copy = sim.snapshot()
    assert state(copy) == state(sim)
    copy.run_frames(500)
    assert sim.processed == 137, "running the snapshot must not move the original"
    sim.run_frames(500)
    assert state(copy) == state(sim)
    assert lines(copy) == lines(sim)
    sim.teardown()
    copy.teardown()
    assert state(copy) == state(sim)


def test_snapshot_mid_poll_is_a_suspended_poll():
    sim = Sim({"traffic": "udp", "rate": TEN_G})
    sim.run_frames(100)
    assert sim.suspended is not None and sim.napi_state == "polling"
    copy = sim.snapshot()
    assert copy.suspended is not None
    copy.run_frames(1)
    sim.run_frames(1)
    assert state(copy) == state(sim)


def test_step_back_by_snapshot_and_replay():
    """Going back to step k and forward again lands in the same state as going forward only."""
    sim = Sim({"strategy": "page-pool", "rate": TEN_G}, trace=50_000)
    snaps = []
    for _ in range(6):
        snaps.append(sim.snapshot())
        sim.run_frames(64)
    forward = state(sim)
    back = snaps[2].snapshot()                      # step 2, then replay steps 2..5
    for _ in range(4):
        back.run_frames(64)
    assert state(back) == forward
    assert lines(back) == lines(sim)


def test_run_until_is_deterministic():
    a, b = Sim({"rate": TEN_G}), Sim({"rate": TEN_G})
    assert a.run_until("tcp_send_ack", 5) and b.run_until("tcp_send_ack", 5)
    assert state(a) == state(b)
    assert a.rec.counts["tcp_send_ack"] >= 5


def test_marked_metrics_are_deterministic():
    out = []
    for _ in range(2):
        sim = Sim({"strategy": "page-pool", "rate": TEN_G})
        sim.run_frames(500)
        sim.mark()
        sim.run_frames(2000)
        out.append(sim.metrics())
    assert out[0] == out[1]
    assert out[0]["frames_processed"] == 2000


def test_lesson_snapshots_are_the_state_after_each_step_and_never_change():
    """LessonRun.snapshot(k) is step k as goto(k) reaches it, and computing on does not touch it."""
    from shipped import shipped_lesson

    from models.replay import LessonRun

    lesson = shipped_lesson("rx-basics")
    run = LessonRun(lesson)
    sims, _ = run.snapshot(3)                     # runs forward lazily
    assert run.computed == 3 and run.step == 3
    before = {v: state(s) for v, s in sims.items()}
    run.snapshot(6)                               # later steps run on other objects
    run.goto(2)                                   # a goto restores a *copy*
    run.forward()
    assert run.snapshot(3)[0] is sims             # the same shared snapshot, unchanged
    assert {v: state(s) for v, s in sims.items()} == before
    other = LessonRun(lesson)
    other.goto(3)
    assert {v: state(s) for v, s in other.sims.items()} == before
