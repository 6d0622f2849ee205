"""TUI speed: first frame and one lesson step (model step + repaint), at 160x50.

Figures go into pytest-benchmark's extra_info (`make bench` prints them);
nothing here asserts a time. For scale, the same measurement is taken of a
bare Textual app with one Static.
"""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from viz.app import make_app, settle

SIZE = (160, 50)


class _Bare(App):
    def compose(self) -> ComposeResult:
        yield Static("hello")


async def _first_frame(make, settled: bool) -> float:
    """Construction to the first complete frame (for rxviz: the model worker idle, Markdown laid out)."""
    t0 = time.perf_counter()
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await (settle(app, pilot) if settled else pilot.pause())
        return time.perf_counter() - t0


async def _steps(lesson: str, n: int) -> list[float]:
    app = make_app(lesson=lesson)
    out = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for _ in range(n):
            t0 = time.perf_counter()
            await pilot.press("right")
            await settle(app, pilot)
            out.append(time.perf_counter() - t0)
    return out


def test_bench_first_frame(benchmark) -> None:
    bare = statistics.median(asyncio.run(_first_frame(_Bare, False)) for _ in range(3))
    ours = benchmark.pedantic(lambda: asyncio.run(_first_frame(lambda: make_app(lesson="rx-basics"), True)),
                              rounds=3, iterations=1)
    benchmark.extra_info["bare_textual_first_frame_ms"] = round(bare * 1000, 1)
    benchmark.extra_info["rxviz_first_frame_ms"] = round(ours * 1000, 1)


@pytest.mark.parametrize("lesson", ["rx-basics", "ath11k-36bit-dma-mask"])
def test_bench_step(benchmark, lesson: str) -> None:
    times = benchmark.pedantic(lambda: asyncio.run(_steps(lesson, 6)), rounds=1, iterations=1)
    benchmark.extra_info["step_ms_median"] = round(statistics.median(times) * 1000, 1)
    benchmark.extra_info["step_ms_each"] = [round(t * 1000, 1) for t in times]
