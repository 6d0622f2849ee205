"""The driver API: every exercise's reference driver, run as a driver of the API, reproduces the golden
`rxviz run --json` counters and metrics of its lesson variant (the same kernel calls, in the same order)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shipped import shipped_lesson

from models.driver.runtime import DriverSim
from models.runner import variant_params, warmup
from viz.exercises.catalog import EXERCISES

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
