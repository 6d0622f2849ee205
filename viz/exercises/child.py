"""The child process that runs a learner's driver: limits first, then the driver under the model.

`python -m viz.exercises.child EXERCISE PATH [--frames N] [--cpu S] [--mem MB]` prints one JSON
object on its last line of output. The learner's code runs only here, under RLIMIT_CPU and
RLIMIT_AS: an endless loop is killed by the kernel (SIGXCPU), an allocation spree gets a
MemoryError. Every call the driver makes through the API is wrapped, so that what the checker
reports during it is tied to the learner's file and line.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import re
import resource
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import models.driver as api
from models.driver import napi as napi_mod
from models.driver.host import CPU, DMA_MAPPING_ERROR
from models.driver.netdev import NetDriver
from models.lesson import find_lesson
from models.runner import variant_params, warmup

from .catalog import BY_ID, Exercise

MODULE = "rxviz_learner_driver"        # the name the learner's file is imported under
STRESS_FRAMES, STRESS_BUDGET = 2000, 2
ADDR = re.compile(r"device address=(0x[0-9a-f]+)")


class Sites:
    """Where in the learner's file each report happened (and where each bus address was mapped)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.found: dict[tuple[str, str], list[Any]] = {}      # (name, site) -> [count, first message]
        self.map_site: dict[int, str] = {}

    def site(self) -> str:
        f = sys._getframe(2)
        while f is not None and f.f_code.co_filename != self.path:
            f = f.f_back            # type: ignore[assignment]
        if f is None:
            return ""
        return f"{Path(self.path).name}:{f.f_lineno} in {f.f_code.co_name}"

    def wrap(self, fn: Callable[..., Any], name: str) -> Callable[..., Any]:
        @functools.wraps(fn)
        def call(*args: Any, **kw: Any) -> Any:
            host = CPU.host
            rec = host.rec if host is not None else None
            n0 = rec.violations.total if rec is not None else 0
            out = fn(*args, **kw)
            if rec is not None:
                if name in ("dma_map_single", "dma_map_page") and out != DMA_MAPPING_ERROR:
                    self.map_site[out] = self.site()
                new = rec.violations.total - n0
                if new and rec.violations.last is not None:
                    v = rec.violations.last
                    key = (v.name, self.site())
                    got = self.found.setdefault(key, [0, v.message])
                    got[0] += new
            return out
        return call

    def install(self) -> None:
        for name in api.__all__:
            fn = getattr(api, name)
            if callable(fn) and not isinstance(fn, type) and name[0].islower():
                setattr(api, name, self.wrap(fn, name))
        for cls, meth in ((napi_mod.RxRing, "post"), (napi_mod.RxRing, "next_rx"),
                          (napi_mod.TxRing, "next_completed")):
            setattr(cls, meth, self.wrap(getattr(cls, meth), meth))


def own_traceback(exc: BaseException, path: str) -> str:
    """The exception with the learner's own frames only (never rxviz's)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    lines = [f'  File "{Path(f.filename).name}", line {f.lineno}, in {f.name}\n    {f.line}' for f in frames]
    return "\n".join(lines + [f"{type(exc).__name__}: {exc}"])


def load(path: str) -> type[NetDriver]:
    spec = importlib.util.spec_from_file_location(MODULE, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: cannot be imported as Python")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[MODULE] = mod
    spec.loader.exec_module(mod)
    cls = getattr(mod, "Driver", None)
    if not (isinstance(cls, type) and issubclass(cls, NetDriver)):
        raise TypeError(f"{Path(path).name} defines no class Driver(NetDriver)")
    return cls


def figures(sim: Any, metrics: dict[str, Any], counters: dict[str, int]) -> dict[str, Any]:
    # Per frame the NIC received: those the driver took off the ring and those it missed for want of a
    # descriptor. A driver that takes none (a skeleton) then reads 1 missed a frame, not the run's total.
    frames = max(1, sim.processed + counters.get("rx_missed_errors", 0))
    maps = counters.get("dma_map_single", 0) + counters.get("dma_map_page", 0)
    return {"throughput_mbps": metrics["throughput_mbps"], "cpu_ns_per_frame": metrics["cpu_ns_per_frame"],
            "maps_per_frame": round(maps / frames, 3),
            "bounces_per_frame": round(counters.get("swiotlb_bounce", 0) / frames, 3),
            "frames_delivered": metrics["frames_delivered"], "frames_dropped": metrics["frames_dropped"],
            "calls": {k: round(n / frames, 4) for k, n in counters.items() if n}}


def run(ex: Exercise, cls: type[NetDriver], frames: int, **sets: Any) -> tuple[Any, dict[str, Any]]:
    from models.driver.runtime import DriverSim
    prm = {**variant_params(find_lesson(ex.lesson), ex.variant), **sets}
    sim = DriverSim(cls(), prm)
    sim.run_frames(warmup(frames))
    sim.mark()
    sim.run_frames(frames)
    metrics = sim.metrics()
    counters = sim.rec.counters()
    out = figures(sim, metrics, counters)
    sim.teardown()
    return sim, out


def main(argv: list[str]) -> int:
    ex_id, path = argv[0], str(Path(argv[1]).resolve())
    opts = dict(zip(argv[2::2], argv[3::2], strict=False))
    cpu, mem = int(opts.get("--cpu", "60")), int(opts.get("--mem", "1536"))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
    resource.setrlimit(resource.RLIMIT_AS, (mem << 20, mem << 20))
    ex = BY_ID[ex_id]
    frames = int(opts.get("--frames", "0")) or find_lesson(ex.lesson).headline.frames
    sites = Sites(path)
    sites.install()
    result: dict[str, Any] = {"exercise": ex_id, "frames": frames}
    try:
        cls = load(path)
        sim, mine = run(ex, cls, frames)
    except Exception as exc:          # the learner's mistake, reported with their own lines only
        result["error"] = own_traceback(exc, path)
        print(json.dumps(result))
        return 0
    result["probe_rc"] = sim.probe_rc
    result["learner"] = mine
    result["violations"] = [{"name": n, "site": s, "count": c, "message": m}
                            for (n, s), (c, m) in sites.found.items()]
    seen: dict[str, int] = {}
    for (n, _), (c, _) in sites.found.items():
        seen[n] = seen.get(n, 0) + c
    for v in sim.rec.violations:       # what happened outside the driver's calls (the device, the unbind audit)
        if seen.get(v.name, 0) > 0:
            seen[v.name] -= 1
            continue
        m = ADDR.search(v.message)
        site = sites.map_site.get(int(m.group(1), 16), "") if m else ""
        result["violations"].append({"name": v.name, "site": f"mapped at {site}" if site else "", "count":
                                     sim.rec.violations.counts.get(v.name, 1), "message": v.message})
        seen[v.name] = 1 << 62       # one entry per name is enough: its count says how many
    result["accounting"] = sim.accounting()
    # A second, short run with a NAPI budget of 2: the lesson's traffic rarely fills a poll of 64, so this
    # is where a poll that ignores its budget, or never completes, shows itself.
    try:
        tight, _ = run(ex, cls, STRESS_FRAMES, budget=STRESS_BUDGET)
    except Exception as exc:
        result["error"] = own_traceback(exc, path)
        print(json.dumps(result))
        return 0
    result["napi_stuck"] = sim.napi_stuck or tight.napi_stuck
    result["over_budget"] = (sim.over_budget or tight.over_budget)[:1]
    result["ring_phys"] = sim.link.ring_phys
    result["coherent_mask"] = sim.device.coherent_dma_mask.bit_length()
    result["dma_mask"] = sim.device.dma_mask.bit_length()
    pools = sim.host.pools
    result["pool"] = ({"destroyed": pools[0].destroyed, "inflight": pools[0].inflight()} if pools else None)
    _, ref = run(ex, ex.solution_driver(), frames)
    result["reference"] = ref
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
