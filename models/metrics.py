"""Metrics derived from a run, never written down: throughput, CPU, time per frame.

`mark()` remembers the counters and clocks at the end of a warm-up, and
`metrics()` reports the difference, so the ring filling and the page_pool's
first allocations do not distort steady-state figures.

cpu_percent is the busy time of the CPU that takes the RX interrupt (hard
IRQ + softirq + process context on it); a socket reader on another core is
reported separately as app_cpu_percent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .link import Link
from .sdio import SdioMailbox
from .trace import PS

if TYPE_CHECKING:  # pragma: no cover
    from .stack import Stack
    from .trace import Recorder


def state(rec: Recorder, link: Link, stack: Stack, t: int, now: int, processed: int) -> dict[str, Any]:
    """The counters and clocks now: `t` the latest time reached, `now` the event clock (both ps)."""
    cpu = rec.cpu_ns
    return {
        "t": t / PS,
        "cpu": cpu["hardirq"] + cpu["softirq"] + cpu["process"],
        "app": cpu["app"],
        "cats": dict(rec.cat_ns),
        "counts": dict(rec.counts),
        "delivered": stack.sock.delivered,
        "arrived": link.frames,
        "read": stack.sock.read_segs,
        "processed": processed,
        "dropped": link.dropped,
        "bus": _bus_busy(link, max(now, rec.t)) / PS,
        "bounce": rec.bounce_bytes,
    }


def _bus_busy(link: Link, now: int) -> int:
    """SDIO/USB: ps the bus has been busy. Transfers already booked past now are not busy time
    yet (the bus is FIFO, so what is booked beyond now is one contiguous run ending at free_at)."""
    if not isinstance(link, SdioMailbox):
        return 0
    return link.busy - max(0, link.free_at - now)


def metrics(now: dict[str, Any], base: dict[str, Any] | None, payload: int) -> dict[str, Any]:
    """The figures between two states (`base` None: from the start); `payload` is a segment's bytes (the MSS)."""
    base = base or {k: (0 if not isinstance(v, dict) else {kk: 0 for kk in v}) for k, v in now.items()}
    dt = max(1, now["t"] - base["t"])
    delivered = now["delivered"] - base["delivered"]
    # Frames queued on the ring when the window opened are delivered inside it; counting them
    # would let a link-bound run report more than its link carried. The window's goodput is
    # at most what arrived in it.
    goodput = min(delivered, now["arrived"] - base["arrived"])
    processed = now["processed"] - base["processed"]
    cpu = now["cpu"] - base["cpu"]
    counts = {k: now["counts"][k] - base["counts"].get(k, 0) for k in now["counts"]}
    acks = counts.get("tcp_send_ack", 0)
    skbs = counts.get("netif_receive_skb", 0)
    cats = {k: now["cats"][k] - base["cats"].get(k, 0) for k in now["cats"]}
    per_frame = {k: round(v / processed, 1) for k, v in cats.items()} if processed else {}
    return {
        "throughput_mbps": round(goodput * payload * 8 / dt * 1000, 2),
        "cpu_percent": round(100.0 * cpu / dt, 2),
        "app_cpu_percent": round(100.0 * (now["app"] - base["app"]) / dt, 2),
        "sim_time_s": round(dt / 1e9, 6),
        "frames_delivered": delivered,
        "frames_dropped": now["dropped"] - base["dropped"],
        "frames_processed": processed,
        "cpu_ns_per_frame": round(cpu / processed, 1) if processed else 0.0,
        # The reader's CPU (the app context) is not in cpu_ns_per_frame, which is the RX path's,
        # but its calls are in the categories: by category = cpu_ns_per_frame + app_ns_per_frame.
        "app_ns_per_frame": round((now["app"] - base["app"]) / processed, 1) if processed else 0.0,
        "cpu_ns_per_frame_by_category": per_frame,
        "acks_per_segment": round(acks / delivered, 4) if delivered else 0.0,
        "segments_per_skb": round(delivered / skbs, 2) if skbs else 0.0,
        "bus_percent": round(100.0 * (now["bus"] - base["bus"]) / dt, 2),
        "swiotlb_share": round(cats.get("swiotlb", 0.0) / cpu, 4) if cpu else 0.0,
        "cpu_percent_outside_swiotlb": round(100.0 * (cpu - cats.get("swiotlb", 0.0)) / dt, 2),
    }
