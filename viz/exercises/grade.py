"""Grading a learner's driver: run it in the child process, then say what the kernel would have said.

The report has four parts: what CONFIG_DMA_API_DEBUG reported during the run
(with the learner's file and line), what was still held when the driver let go
of the device (the unbind audit, the page_pool's pages in flight), NAPI's
complaints (a poll over its budget, a NAPI never completed), and the figures
beside the reference driver's (the lesson variant's own driver). Then pass or
fail, and one hint per failure.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .catalog import Exercise, hint

CPU_LIMIT_S = 60               # CPU seconds the child may use (the learner's run and the reference's)
MEM_LIMIT_MB = 1536
SLOWER = 0.97                  # throughput below 97% of the reference's, or CPU/frame 5% above it, fails
COSTLIER = 1.05


@dataclass
class Verdict:
    passed: bool
    lines: list[str] = field(default_factory=list)       # the report, one line each
    failures: list[str] = field(default_factory=list)    # failure kinds, in order


def run_child(ex: Exercise, path: Path, frames: int = 0, cpu: int = CPU_LIMIT_S,
              mem: int = MEM_LIMIT_MB) -> dict[str, Any]:
    """Run the driver in a child process under limits; its JSON, or {"killed": why}."""
    cmd = [sys.executable, "-m", "viz.exercises.child", ex.id, str(path), "--cpu", str(cpu), "--mem", str(mem)]
    if frames:
        cmd += ["--frames", str(frames)]
    return spawn(cmd, cpu)


def spawn(cmd: list[str], cpu: int) -> dict[str, Any]:
    """Run a child that sets its own limits and prints one JSON line last; that JSON, or {"killed": why}."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=cpu * 3 + 30)
    except subprocess.TimeoutExpired:
        return {"killed": f"stopped after {cpu * 3 + 30} s: your driver never gave the CPU back"}
    if p.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return {"killed": f"stopped after {cpu} s of CPU time: your driver never gave the CPU back "
                          f"(an endless loop?)"}
    lines = p.stdout.strip().splitlines()
    try:
        return dict(json.loads(lines[-1]))
    except (IndexError, ValueError):
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        return {"killed": f"the driver's process ended without a result ({tail})"}


def _fig(v: float) -> str:
    if isinstance(v, int):
        return f"{v:,}"
    return f"{v:,.1f}" if v >= 10 else f"{v:.3f}".rstrip("0").rstrip(".")


def grade(ex: Exercise, r: dict[str, Any], name: str = "driver.py") -> Verdict:
    """The report and the verdict for one child result."""
    v = Verdict(False)
    out, fail = v.lines, v.failures
    if "killed" in r:
        out.append(r["killed"])
        fail.append("timeout")
    elif "error" in r:
        out += ["Your driver raised an exception:", *r["error"].splitlines()]
        fail.append("exception")
    else:
        _report(ex, r, out, fail)
    v.passed = not fail
    out.append("")
    if v.passed:
        out.append(f"PASS: {ex.id}: your driver is correct and as fast as the reference.")
    else:
        out.append(f"FAIL: {ex.id}: {len(fail)} problem(s)")
        for kind in fail:
            out.append(f"  hint ({kind}): {hint(ex, kind)}")
    return v


def _report(ex: Exercise, r: dict[str, Any], out: list[str], fail: list[str]) -> None:  # noqa: C901 (older than the complexity rule)
    if r.get("probe_rc"):
        out.append(f"probe() returned {r['probe_rc']}: the device would not bind")
    out.append("DMA-API checker (CONFIG_DMA_API_DEBUG):")
    vio = r["violations"]
    if not vio:
        out.append("  no report")
    for x in vio:
        where = f"{x['site']}: " if x["site"] else ""
        times = f"  (x{x['count']})" if x["count"] > 1 else ""
        out.append(f"  {where}{x['message']}{times}")
        if x["name"] not in fail:
            fail.append(x["name"])
    acc = r["accounting"]
    out.append("At unbind:")
    held = {k: n for k, n in acc.items() if n and k != "pool_inflight"}
    out.append("  everything given back" if not held else
               "  still held: " + ", ".join(f"{k} {n}" for k, n in held.items()))
    if held.get("rx_buffers_in_use") or held.get("skb_heads_in_use"):
        fail.append("leak")
    pool = r.get("pool")
    if pool is not None:
        if not pool["destroyed"]:
            out.append("  page_pool: never destroyed (page_pool_destroy() missing): its pages stay mapped")
            fail.append("pool-inflight")
        else:
            out.append(f"  page_pool: {pool['inflight']} page(s) in flight after page_pool_destroy()")
            if pool["inflight"]:
                fail.append("pool-inflight")
    out.append("NAPI:")
    napi_ok = True
    for got, budget in r["over_budget"]:
        out.append(f"  NAPI poll function Driver.poll returned {got}, exceeding its budget of {budget}.")
        fail.append("over-budget")
        napi_ok = False
    if r["napi_stuck"]:
        out.append("  poll() returned less than its budget without napi_complete_done(): NAPI stays scheduled, "
                   "nothing polls it again, RX stops")
        fail.append("napi-stuck")
        napi_ok = False
    if napi_ok:
        out.append("  every poll kept its budget and completed")
    if ex.coherent_limit and r["ring_phys"] >= 1 << ex.coherent_limit:
        out.append(f"  firmware crash: the RX ring's coherent memory is at {r['ring_phys']:#x}, above "
                   f"{ex.coherent_limit} bits (coherent mask {r['coherent_mask']} bits)")
        fail.append("firmware")
    _figures(r, out, fail)


def _figures(r: dict[str, Any], out: list[str], fail: list[str]) -> None:
    me, ref = r["learner"], r["reference"]
    out.append(f"Figures ({r['frames']:,} frames; yours / the reference driver's):")
    rows = (("throughput, Mbit/s", "throughput_mbps"), ("CPU per frame, ns", "cpu_ns_per_frame"),
            ("DMA maps per frame", "maps_per_frame"), ("SWIOTLB bounces per frame", "bounces_per_frame"),
            ("frames delivered", "frames_delivered"))
    for label, key in rows:
        out.append(f"  {label:<27} {_fig(me[key]):>10} / {_fig(ref[key])}")
    slow = (me["throughput_mbps"] < SLOWER * ref["throughput_mbps"]
            or me["cpu_ns_per_frame"] > COSTLIER * ref["cpu_ns_per_frame"])
    differ = _calls_that_differ(me.get("calls", {}), ref.get("calls", {}))
    if differ:
        out.append("  kernel calls per frame that differ from the reference's:")
        out += [f"    {name:<30} {a:>8.3f} / {b:.3f}" for name, a, b in differ[:4]]
    if me["frames_delivered"] == 0:
        fail.append("no-frames")
    elif (slow or differ) and not fail:
        fail.append("slower")


def _calls_that_differ(mine: dict[str, float], ref: dict[str, float]) -> list[tuple[str, float, float]]:
    """Calls made per frame more than 10% (and 0.05 a frame) apart, the largest difference first."""
    out = []
    for name in sorted(set(mine) | set(ref)):
        a, b = mine.get(name, 0.0), ref.get(name, 0.0)
        if abs(a - b) > max(0.05, 0.1 * max(a, b)):
            out.append((name, a, b))
    return sorted(out, key=lambda x: -abs(x[1] - x[2]))
