"""Whether an `--inject` fault did anything: a fault that changes nothing is said so on stderr.

A fault breaks one DMA-API rule in the driver the variant runs, so it shows
only where that driver does the thing it breaks: `no-sync-for-cpu` on a
variant that never reads a buffer before the poll, `leak-at-teardown` in a
trace that never takes the interface down, `mask-violation` on a 64-bit
mask. A silent exit 0 would tell a newcomer that the kernel would not have
complained, when the fault never ran. So, for each variant whose checker did
not report what the fault shows (models.calls.FAULT_SHOWS), the variant is
run again without that fault, the same frames and seed; the two runs are
compared by what the model counted (every kernel call counter, the metrics),
and a note says either that the fault had no effect at all, or that it
changed the run without the checker seeing it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

# What a run leaves that a fault could change: (counters, metrics, violation counts, warning counts).
Outcome = tuple[dict[str, Any], dict[str, Any], dict[str, int], dict[str, int]]


def notes(lesson_id: str, outcomes: dict[str, Outcome], injected: Iterable[str],
          rerun: Callable[[str, list[str]], Outcome], where: str = "") -> list[str]:
    """The notes for `--inject` faults that showed nothing; `rerun(variant, faults)` runs a variant
    with those `--inject` faults instead (the lesson's own stay), as the first run was made."""
    from models.calls import FAULT_SHOWS
    injected = list(dict.fromkeys(injected))
    out = []
    for name, (counters, metrics, violations, warnings) in outcomes.items():
        for fault in injected:
            shows = FAULT_SHOWS.get(fault, fault)
            if shows in violations or shows in warnings:
                continue
            other = rerun(name, [f for f in injected if f != fault])
            if (other[0], other[1]) == (counters, metrics):
                out.append(f"rxviz: note: --inject {fault} has no effect on {lesson_id} / {name}{where}: "
                           f"what it breaks never happens in this run (it counts what the run without it counts)")
            else:
                out.append(f"rxviz: note: --inject {fault} changed {lesson_id} / {name}{where}, but the checker "
                           f"reported no {shows}")
    return out


def of_result(r: dict[str, Any]) -> Outcome:
    """The outcome of one variant of a `run_lesson` result."""
    return (r["counters"], r["metrics"], r.get("violation_counts") or {}, r.get("warning_counts") or {})


def of_variant(r: Any) -> Outcome:
    """The outcome of a `models.runner.VariantResult`."""
    return (r.counters, r.metrics, r.violation_counts, r.warning_counts)
