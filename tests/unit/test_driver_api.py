"""The driver API: every exercise's reference driver, run as a driver of the API, reproduces the golden
`rxviz run --json` counters and metrics of its lesson variant (the same kernel calls, in the same order)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from shipped import shipped_lesson

from models.driver.runtime import DriverSim
from models.drivers import variant_sim
from models.read import reading_of
from models.replay import LessonRun
from models.runner import variant_params, warmup
from viz.exercises.catalog import BY_ID, EXERCISES
from viz.exercises.child import load

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


@pytest.mark.slow
@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.id)
def test_a_reference_driver_reproduces_its_lesson_variant(ex):
    gold = json.loads((GOLDEN / f"{ex.lesson}.json").read_text())
    want = gold["variants"][ex.variant]
    frames = gold["frames"]
    drv = ex.solution_driver()()
    sim = DriverSim(drv, variant_params(shipped_lesson(ex.lesson), ex.variant))
    sim.run_frames(warmup(frames))
    sim.mark()
    sim.run_frames(frames)
    got = json.loads(json.dumps({"counters": sim.rec.counters(), "metrics": sim.metrics()}))
    assert got["counters"] == want["counters"]
    assert got["metrics"] == want["metrics"]
    sim.teardown()
    assert not sim.rec.violations.counts
    assert all(n == 0 for n in sim.accounting().values())


def test_a_stop_between_two_frames_mid_poll_changes_nothing():
    """The model stops the driver's poll between two frames and calls it again: same result as one run."""
    ex = EXERCISES[0]
    prm = variant_params(shipped_lesson(ex.lesson), ex.variant)
    cls = ex.solution_driver()
    one, many = DriverSim(cls(), prm), DriverSim(cls(), prm)
    one.run_frames(700)
    for _ in range(70):
        many.run_frames(10)          # budget 64: most stops fall inside a poll
    assert many.rec.counters() == one.rec.counters()
    assert many.metrics() == one.metrics()


def test_a_variant_that_runs_a_driver_builds_it_and_its_faults_run_the_strategy():
    lesson = shipped_lesson("atlantic-page-pool")
    prm = variant_params(lesson, "after")
    sim = variant_sim(prm, runs="atlantic")
    assert isinstance(sim, DriverSim) and type(sim.driver).__module__ == "models.drivers.atlantic"
    # the drivers have no fault switches: --inject runs the strategy, which has them
    assert not isinstance(variant_sim(prm, runs="atlantic", faults=["no-sync-for-cpu"]), DriverSim)


@pytest.mark.slow
@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.id)
def test_the_player_shows_a_driver_variant_as_it_showed_the_strategy(ex):
    """Every record a view reads (models.read), at every step of the lesson, the same whether the
    variant runs its exercise's reference driver or the strategy it stands for (ifdown and its wait
    included)."""
    lesson, name = shipped_lesson(ex.lesson), ex.variant
    driver, strategy = LessonRun(replace(lesson, runs={name: ex.solution})), LessonRun(lesson)
    assert isinstance(driver.sims[name], DriverSim) and not isinstance(strategy.sims[name], DriverSim)
    assert driver.total >= 10           # every step of a whole lesson (dma-bugs has ten)
    for k in range(driver.total + 1):
        a, b = reading_of(driver.snapshot(k)[0][name]), reading_of(strategy.snapshot(k)[0][name])
        for what in ("ring", "pool", "memory", "skb_cache", "napi", "counters", "metrics", "events", "cursor",
                     "path"):
            assert getattr(a, what)() == getattr(b, what)(), (k, what)


@pytest.mark.slow
@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.id)
def test_a_reference_driver_goes_down_as_the_strategy_it_stands_for(ex):
    """ifdown after a run that stops mid-poll (77 frames: not a multiple of the budget): every event, with
    its transitions, the same from the driver's stop() as from the strategy's ring release (a buffer is
    the driver's as its unmap ends, a pool fragment as it goes back), and the same teardown audit."""
    prm = variant_params(shipped_lesson(ex.lesson), ex.variant)
    driver, strategy = variant_sim(prm, runs=ex.solution, trace=1 << 20), variant_sim(prm, trace=1 << 20)
    assert isinstance(driver, DriverSim) and not isinstance(strategy, DriverSim)
    for sim in (driver, strategy):
        sim.run_frames(77)
        sim.teardown()
    got, want = driver.rec.events, strategy.rec.events
    assert got is not None and want is not None and len(want) < 1 << 20      # none fell out of the window
    assert any(ev.call == "ring_deinit" for ev in want)
    assert list(got) == list(want)
    assert driver.accounting() == strategy.accounting()
    assert not driver.rec.violations.counts and not strategy.rec.violations.counts


@pytest.mark.slow
def test_a_stop_that_frees_without_unmapping_still_takes_its_buffers_back(tmp_path):
    """ifdown with a stop() that frees every buffer and unmaps none: each buffer is the driver's
    (ring_deinit) as it is freed, and ends free; the audit reports the mappings leaked."""
    ex = BY_ID["rx-refill"]
    unmap = "                dma_unmap_single(self.dev, self.dma[i], RX_BUF_SIZE, DMA_FROM_DEVICE)\n"
    src = ex.solution_text()
    assert src.count(unmap) == 1            # the one in stop()
    f = tmp_path / "driver.py"
    f.write_text(src.replace(unmap, ""))
    leaky = load(str(f))                    # interpreted, as a learner's driver runs
    sim = DriverSim(leaky(), variant_params(shipped_lesson(ex.lesson), ex.variant), trace=1 << 20)
    sim.run_frames(77)
    assert sim.ring is not None
    posted = {f"buf#{buf.id}" for buf in sim.ring.bufs if buf is not None}
    assert len(posted) == sim.sc.ring_size
    sim.teardown()
    assert sim.rec.events is not None
    events = list(sim.rec.events)
    down = next(i for i, ev in enumerate(events) if ev.call == "ring_deinit" and ev.obj == "rx")
    moves: dict[str, list[tuple[str, str, str]]] = {obj: [] for obj in posted}
    for ev in events[down:]:
        for t in ev.transitions:
            if t.obj in moves:
                moves[t.obj].append((t.src, t.dst, t.call))
    # posted (device-owned) or written and not taken (filled), then the driver's, then free
    assert {(m[0][1:], *m[1:]) for m in moves.values()} == {
        (("unmapped", "ring_deinit"), ("unmapped", "free", "skb_free_frag"))}
    assert sim.rec.violations.counts == {"leak-at-teardown": 1}
    assert sim.accounting()["live_mappings"] == sim.sc.ring_size


def test_the_fragments_kept_for_find_frag_are_pruned_to_the_latest_at_each_place():
    from models.driver.host import TAKEN_MAX
    from models.rx_buffer import PP_FRAG, Buf

    ex = BY_ID["page-pool-frags"]
    sim = DriverSim(ex.solution_driver()(), variant_params(shipped_lesson(ex.lesson), ex.variant))
    host = sim.host
    page = next(iter(host.pools[0].pages.values()))
    bufs = [Buf(n, page.phys, 2048, PP_FRAG, 0, "pp", page, n % 2 * 2048, page.map) for n in range(1, TAKEN_MAX + 2)]
    for b in bufs:
        b.posted = True
        host.keep(b)
    # a learner's driver that never attaches what it takes does not make the list grow without end
    assert sorted(b.id for b in host.taken) == [bufs[-2].id, bufs[-1].id]
    assert host.find_frag(page.map, bufs[-1].offset) is bufs[-1]
    bufs[-1].posted = False                      # attached: what is found there now is what the ring holds
    assert host.find_frag(page.map, bufs[-1].offset) not in bufs
