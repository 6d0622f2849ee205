"""Jumps in the player at 160x50: `End` from a lesson just opened, and going back to steps already computed.

- end: the lesson opened at step 0 and settled, then End pressed: key to the last
  write of the last step's screen. The player runs every step on the way (each
  one snapshotted, so going back from there is a read), with progress shown.
- back: after walking to the last step, ← pressed eight times (each step is
  computed: a snapshot thawed and the views redrawn), then Home and End; three
  runs, each run's median kept.

Figures go into pytest-benchmark's extra_info (`make bench` prints them); nothing
here asserts a time. The model's own part of End is in `end_model_cpu_s`: CPU
time of the player's jump (Session.goto to the last step from step 0, which runs
the variant it lands on alone); `lockstep_walk_cpu_s` is every variant of every
step, what End ran before and what is filled in behind the reader afterwards.
"""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest

from models.lesson import find_lesson
from models.replay import LessonRun
from viz.app import make_app, settle
from viz.session import Session

from .test_bench_tui import SIZE, PaintClock

LONGEST = "atlantic-page-pool"          # the most frames and variants of the shipped lessons


async def _end(lesson: str) -> float:
    app = make_app(lesson=lesson, remember=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        clock = PaintClock(app)
        t0 = time.perf_counter()
        await pilot.press("end")
        while app.screen.frame.step < app.screen.frame.total or app.screen.waiting:
            await asyncio.sleep(0.002)
        return await clock.settled(t0)


async def _back(lesson: str) -> tuple[list[float], list[float]]:
    app = make_app(lesson=lesson, remember=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        total = len(screen.lesson.steps)
        while screen.frame.step < total or screen.holding():      # → twice past a question
            await pilot.press("right")
            await settle(app, pilot)
        clock = PaintClock(app)
        back, jumps = [], []
        for _ in range(min(8, total - 1)):
            t0 = time.perf_counter()
            await pilot.press("left")
            back.append(await clock.settled(t0))
            await settle(app, pilot)
        for key in ("home", "end", "home", "end"):
            t0 = time.perf_counter()
            await pilot.press(key)
            jumps.append(await clock.settled(t0))
            await settle(app, pilot)
        return back, jumps


def test_bench_end(benchmark) -> None:
    times = []
    benchmark.pedantic(lambda: times.append(asyncio.run(_end(LONGEST))), rounds=3, iterations=1)
    benchmark.extra_info["end_ms_median"] = round(statistics.median(times) * 1000)
    benchmark.extra_info["end_ms_runs"] = [round(t * 1000) for t in times]
    cpu, walk = [], []
    for _ in range(3):
        session = Session(find_lesson(LONGEST))
        session.goto(0)                         # the lesson open at step 0, as in the player
        t0 = time.process_time()
        session.goto(len(session.lesson.steps))
        cpu.append(time.process_time() - t0)
        t0 = time.process_time()
        run = LessonRun(find_lesson(LONGEST))
        run.snapshot(run.total)                 # every variant of every step: what End ran before
        walk.append(time.process_time() - t0)
    benchmark.extra_info["end_model_cpu_s"] = round(statistics.median(cpu), 3)
    benchmark.extra_info["lockstep_walk_cpu_s"] = round(statistics.median(walk), 2)


@pytest.mark.parametrize("lesson", ["rx-basics", LONGEST])
def test_bench_back_to_computed_step(benchmark, lesson: str) -> None:
    runs: list[tuple[list[float], list[float]]] = []
    benchmark.pedantic(lambda: runs.append(asyncio.run(_back(lesson))), rounds=3, iterations=1)
    back = [t for b, _ in runs for t in b]
    jumps = [t for _, j in runs for t in j]
    benchmark.extra_info["back_ms_median"] = round(statistics.median(back) * 1000, 1)
    benchmark.extra_info["back_ms_max"] = round(max(back) * 1000, 1)
    benchmark.extra_info["back_ms_median_runs"] = [round(statistics.median(b) * 1000, 1) for b, _ in runs]
    benchmark.extra_info["home_end_ms_median"] = round(statistics.median(jumps) * 1000, 1)
