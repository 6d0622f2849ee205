"""Whether an `--inject` fault did anything: a fault that changes nothing is said so on stderr.

A fault breaks one DMA-API rule in the driver the variant runs, so it shows
only where that driver does the thing it breaks: `no-sync-for-cpu` on a
variant that never reads a buffer before the poll, `leak-at-teardown` in a
trace that never takes the interface down, `mask-violation` on a 64-bit
mask. A silent exit 0 would tell a newcomer that the kernel would not have
complained, when the fault never ran. The model counts each time an injected
fault changed what the driver did (`Sim.fault_hits`, a run's `faults`): a
fault counted 0 times had no effect, and one that acted without the checker
reporting what it shows (models.calls.FAULT_SHOWS) is said so too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# What a run says of its faults: (times each fault acted, violation counts, warning counts).
Outcome = tuple[Mapping[str, int], Mapping[str, int], Mapping[str, int]]


def notes(lesson_id: str, outcomes: dict[str, Outcome], injected: Iterable[str], where: str = "") -> list[str]:
    """The notes for the `--inject` faults that showed nothing in each variant's run."""
    from models.calls import FAULT_SHOWS
    out = []
    for name, (hits, violations, warnings) in outcomes.items():
        for fault in dict.fromkeys(injected):
            shows = FAULT_SHOWS.get(fault, fault)
            if shows in violations or shows in warnings:
                continue
            if not hits.get(fault, 0):
                out.append(f"rxviz: note: --inject {fault} has no effect on {lesson_id} / {name}{where}: "
                           f"what it breaks never happens in this run")
            else:
                out.append(f"rxviz: note: --inject {fault} changed {lesson_id} / {name}{where}, but the checker "
                           f"reported no {shows}")
    return out
