"""TUI speed at 160x50: first frame, and one lesson step from key press to painted screen.

Figures go into pytest-benchmark's extra_info (`make bench` prints them);
nothing here asserts a time.

- first frame: construction to the first frame that shows the lesson (for
  scale, the same for a bare Textual app with one Static);
- step: → pressed to the last write of the new screen to the terminal. The
  player computes one step ahead while the reader reads, so between two
  presses the bench waits for that worker to go idle, as a reader would;
  this is what stepping through a lesson feels like;
- model step: what a step costs when it was *not* computed ahead (a jump,
  or a clicker faster than the model): LessonRun.forward, snapshot included;
- for scale, a bare Textual app rewriting eight bordered Statics that fill
  the same 160x50 screen, timed the same way.
"""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from models.lesson import find_lesson
from models.replay import LessonRun
from viz.app import make_app, settle

SIZE = (160, 50)
QUIET = 0.1          # no terminal write for this long: the screen is complete


class _Bare(App):
    def compose(self) -> ComposeResult:
        yield Static("hello")


class _BareGrid(App):
    """For scale: plain Textual, eight bordered Statics filling 160x50, all rewritten at each step."""

    CSS = "Screen { layout: grid; grid-size: 2 4; } Static { border: round $accent; height: 1fr; }"

    def compose(self) -> ComposeResult:
        for i in range(8):
            yield Static(id=f"s{i}")

    def step(self, n: int) -> None:
        for i, widget in enumerate(self.query(Static)):
            widget.update("\n".join(f"line {y:2} of panel {i}: step {n} " + "x" * ((n + y) % 40)
                                     for y in range(10)))


class PaintClock:
    """When the app last wrote to the terminal (wraps App._display, the one place output leaves)."""

    def __init__(self, app: App) -> None:
        self.last = 0.0
        self._display = app._display

        def display(*args, **kw):
            self.last = time.perf_counter()
            return self._display(*args, **kw)

        app._display = display  # type: ignore[method-assign]

    async def settled(self, t0: float) -> float:
        """Seconds from t0 to the last write, once nothing has been written for QUIET."""
        self.last = max(self.last, t0)
        while time.perf_counter() - self.last < QUIET:
            await asyncio.sleep(0.002)
        return self.last - t0


async def _first_frame(make, settled: bool) -> float:
    """Construction to the first complete frame (for rxviz: the lesson's step 0 on screen)."""
    t0 = time.perf_counter()
    app = make()
    clock = PaintClock(app)
    async with app.run_test(size=SIZE) as pilot:
        if not settled:
            await pilot.pause()
            return time.perf_counter() - t0
        while getattr(app.screen, "frame", None) is None:
            await asyncio.sleep(0.002)
        took = await clock.settled(t0)
        await settle(app, pilot)
        return took


async def _steps(lesson: str) -> list[float]:
    app = make_app(lesson=lesson)
    out = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        clock = PaintClock(app)
        screen = app.screen
        total = len(screen.lesson.steps)
        while screen.frame.step < total or screen.holding():
            t0 = time.perf_counter()          # a step, or the reveal of a question's outcome
            await pilot.press("right")
            out.append(await clock.settled(t0))
            await settle(app, pilot)          # the reader reads while the next step computes
    return out


async def _bare_steps(n: int) -> list[float]:
    app = _BareGrid()
    out = []
    async with app.run_test(size=SIZE) as pilot:
        app.step(0)
        await pilot.pause()
        clock = PaintClock(app)
        for k in range(1, n + 1):
            t0 = time.perf_counter()
            app.step(k)
            out.append(await clock.settled(t0))
    return out


def test_bench_bare_textual_step(benchmark) -> None:
    times = benchmark.pedantic(lambda: asyncio.run(_bare_steps(13)), rounds=1, iterations=1)
    benchmark.extra_info["bare_textual_step_ms_median"] = round(statistics.median(times) * 1000, 1)


def test_bench_first_frame(benchmark) -> None:
    bare = statistics.median(asyncio.run(_first_frame(_Bare, False)) for _ in range(3))
    times = []
    benchmark.pedantic(lambda: times.append(asyncio.run(_first_frame(lambda: make_app(lesson="rx-basics"), True))),
                       rounds=3, iterations=1)
    benchmark.extra_info["bare_textual_first_frame_ms"] = round(bare * 1000, 1)
    benchmark.extra_info["rxviz_first_frame_ms"] = round(statistics.median(times) * 1000, 1)


@pytest.mark.parametrize("lesson", ["rx-basics", "ath11k-36bit-dma-mask", "atlantic-page-pool"])
def test_bench_step(benchmark, lesson: str) -> None:
    times = benchmark.pedantic(lambda: asyncio.run(_steps(lesson)), rounds=1, iterations=1)
    benchmark.extra_info["step_ms_median"] = round(statistics.median(times) * 1000, 1)
    benchmark.extra_info["step_ms_max"] = round(max(times) * 1000, 1)
    benchmark.extra_info["step_ms_each"] = [round(t * 1000, 1) for t in times]


@pytest.mark.parametrize("lesson", ["rx-basics", "ath11k-36bit-dma-mask", "atlantic-page-pool"])
def test_bench_model_step(benchmark, lesson: str) -> None:
    def run() -> list[float]:
        lesson_run = LessonRun(find_lesson(lesson))
        out = []
        while lesson_run.step < lesson_run.total:
            t0 = time.perf_counter()
            lesson_run.forward()
            out.append(time.perf_counter() - t0)
        return out

    times = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["model_step_ms_median"] = round(statistics.median(times) * 1000, 1)
    benchmark.extra_info["model_step_ms_max"] = round(max(times) * 1000, 1)
