"""Figures a question may keep back besides counters: `ask.hide_figures` names them.

`hide_counts` keeps back a kernel call's or a counter's figures wherever a view
shows them. Some answers sit in a figure that is no counter: the share of a
frame's CPU time one cost category takes, what GRO holds right now, the page
size of a pool, what the event log says a call did (the
segments GRO held before it) while the call's line itself should stay. A
lesson names those here; the views that draw one keep it
back while the question waits (the model still computes it).

They are kept back in every variant (a figure such as the stack's share of a
frame answers the question in each), on the held screen and on the step before
it (which the held screen shows), not at earlier steps: a figure is what a
step's state shows, and earlier states may show it as the lesson goes.
"""

from __future__ import annotations

from typing import Final

from ..calls import CALLS, CATEGORIES

COST_PREFIX: Final = "cost."
DETAIL_PREFIX: Final = "detail."

FIGURES: Final[dict[str, str]] = {
    "cpu_breakdown": "the whole CPU breakdown: every cost category's ns per frame and share",
    **{f"{COST_PREFIX}{c}": f"the {c} row of the CPU breakdown (ns per frame and its share)" for c in CATEGORIES},
    "gro_held": "what GRO holds: its segments and bytes (the NAPI view)",
    "pool_page": "the pool's page size and how many fragments a page holds (the pool view)",
    "flip_stats": "a page-flip driver's pg_flips, pg_reuses and pg_losts (the pool view)",
    **{f"{DETAIL_PREFIX}{c}": f"what the event log says {c} did (its line stays)" for c in CALLS},
}


def kept_costs(names: frozenset[str]) -> frozenset[str]:
    """The cost categories among `names` (figures kept back), without their prefix."""
    if "cpu_breakdown" in names:
        return frozenset(CATEGORIES)
    return frozenset(n[len(COST_PREFIX):] for n in names if n.startswith(COST_PREFIX))


def kept_details(names: frozenset[str]) -> frozenset[str]:
    """The calls among `names` (figures kept back) whose event-log detail is kept back."""
    return frozenset(n[len(DETAIL_PREFIX):] for n in names if n.startswith(DETAIL_PREFIX))
