"""Model speed: simulated frames per wall-clock second, and the memory of a long run.

Run with `make bench` (`python -m pytest tests/bench --benchmark-only`); tests/bench is not
in the default testpaths. Figures go into each benchmark's extra_info; nothing here asserts
a time, only that the run did what it was asked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from models.sim import Sim

ROOT = Path(__file__).resolve().parents[2]
TEN_G = 10 * 10**9
WARMUP = 2_000
FRAMES = 20_000

SCENARIOS = {
    "per-frame": {"platform": "x86-generic", "rate": TEN_G},
    "page-pool": {"platform": "x86-generic", "rate": TEN_G, "strategy": "page-pool"},
    "swiotlb-bounce": {"platform": "x86-generic", "rate": TEN_G, "ram": 16 << 30, "dma_mask": 32},
    "strict-iommu-page-flip": {"platform": "x86-generic", "rate": TEN_G, "strategy": "page-flip",
                               "iommu": "strict"},
    "sdio-napi-bundle32": {"platform": "arm-qca6174-sdio", "bus": "sdio", "napi": True, "bundle": 32},
}


@pytest.mark.benchmark(group="frames-per-second")
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_frames_per_second(benchmark, name):
    params = SCENARIOS[name]

    def setup():
        sim = Sim(params)
        sim.run_frames(WARMUP)           # ring filled, pool populated, TCP window open
        return (sim,), {}

    def run(sim: Sim) -> Sim:
        sim.run_frames(FRAMES)
        return sim

    sim = benchmark.pedantic(run, setup=setup, rounds=3, iterations=1)
    assert sim.processed == WARMUP + FRAMES
    assert sim.rec.violations == []
    benchmark.extra_info["scenario"] = name
    benchmark.extra_info["frames"] = FRAMES
    if benchmark.stats is not None:
        benchmark.extra_info["frames_per_s"] = round(FRAMES / benchmark.stats.stats.mean)
        benchmark.extra_info["frames_per_s_best"] = round(FRAMES / benchmark.stats.stats.min)


# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss across exec, so a child of a big
# pytest process reports the parent's size (592 MB after the TUI benchmarks); VmHWM belongs to
# the address space exec made, i.e. to this run alone.
RSS_SCRIPT = """
from models.sim import Sim
sim = Sim({"platform": "x86-generic", "strategy": "page-pool", "rate": 10 * 10**9})
sim.run_frames(1_000_000)
assert sim.processed == 1_000_000, sim.processed
assert sim.rec.violations == []
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""


@pytest.mark.benchmark(group="memory")
def test_peak_rss_of_a_million_frames(benchmark):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out: dict = {}

    def run() -> None:
        p = subprocess.run([sys.executable, "-c", RSS_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        out["kb"] = int(p.stdout.strip().splitlines()[-1])     # VmHWM is in kB

    benchmark.pedantic(run, rounds=1, iterations=1)
    mb = out["kb"] / 1024
    benchmark.extra_info["frames"] = 1_000_000
    benchmark.extra_info["peak_rss_mb"] = round(mb, 1)
    # not a timing: a guard against state that grows with the run (a few tens of MB is the interpreter)
    assert mb < 1024
