"""`rxviz stats FILE`: a real machine's page_pool statistics beside the model's.

The dump (`ethtool -S`, aggregate or per queue, or `page-pool-stats-get` in
ynl's Python or JSON printout) is read by models.pp_stats; this module finds
the closest healthy lesson pool (a page_pool variant that shows no bug on
purpose: no `inject`, no `expect`), prints both sets of counters with their
shares, and explains what they say. Counts differ in scale (a machine since
boot, the model for one run), so the shares are what is compared.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..messages import CliError

if TYPE_CHECKING:
    from models.lesson.schema import Lesson

STATS_FRAMES = 20_000
# the page allocations the alloc_* shares are of, and the returns the recycle_* shares are of
_ALLOC = ("alloc_fast", "alloc_slow", "alloc_slow_high_order", "alloc_refill")
_BACK = ("recycle_cached", "recycle_ring", "recycle_ring_full", "recycle_released_refcnt")


def _pools() -> list[tuple[Any, str]]:
    """(lesson, variant) for every healthy page_pool variant of the shipped lessons.

    A variant that injects a fault or expects a violation demonstrates a bug: a real
    machine's pool is never matched to it.
    """
    from models.lesson import all_lessons
    out = []
    for lesson in all_lessons():
        for name in lesson.variants:
            if lesson.params_for(name).get("strategy") != "page-pool":
                continue
            if lesson.faults_for(name) or lesson.expect.get(name):
                continue
            out.append((lesson, name))
    return out


def _model_stats(lesson: Lesson, variant: str) -> dict[str, int]:
    from models.runner import run_params, variant_params
    frames = min(lesson.headline.frames, STATS_FRAMES)
    r = run_params(variant, variant_params(lesson, variant), frames, teardown=False,
                   runs=lesson.runs.get(variant, ""))
    return r.page_pool_stats or {}


def _share_line(stats: dict[str, int], name: str) -> str:
    base = sum(stats[k] for k in _ALLOC) if name in _ALLOC else sum(stats[k] for k in _BACK)
    shared = base and (name in _ALLOC or name in _BACK)
    share = f"{stats[name] / base:6.1%}" if shared else "      "
    return f"{stats[name]:>13,} {share}"


def run(args: argparse.Namespace) -> int:
    from models.page_pool import STATS
    from models.pp_stats import StatsError, distance, explain, parse
    path = Path(args.file)
    try:
        if path.is_dir():
            raise OSError("is a directory")
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise CliError(f"{args.file}: cannot read it ({e.strerror or e})", 2) from None
    try:
        dump = parse(text)
    except StatsError as e:
        raise CliError(f"{args.file}: {e}", 2) from None
    yours = dump.stats
    candidates = _pools()
    if args.lesson:
        candidates = [(lsn, v) for lsn, v in candidates if lsn.id == args.lesson]
        if not candidates:
            raise CliError(f"--lesson {args.lesson}: not a lesson with a healthy page_pool variant; those are "
                           f"{', '.join(sorted({lsn.id for lsn, _ in _pools()}))}", 2)
    best = min(((distance(yours, s := _model_stats(lsn, v)), lsn, v, s) for lsn, v in candidates),
               key=lambda t: t[0])
    _, lesson, variant, model = best
    if args.json:
        print(json.dumps({"source": dump.kind, "pools": dump.pools, "read": dump.how, "yours": yours,
                          "lesson": lesson.id, "variant": variant, "model": model, "explain": explain(yours)},
                         indent=2))
        return 0
    what = "ethtool -S" if dump.kind == "ethtool" else "page-pool-stats-get"
    print(textwrap.fill(f"page_pool statistics from {what}: {dump.how}", width=79, subsequent_indent="  "))
    print(f"closest healthy lesson pool: {lesson.id}, variant {variant} "
          f"({min(lesson.headline.frames, STATS_FRAMES):,} frames)")
    print()
    print(f"{'statistic':<24} {'yours':>13} {'share':>6} {'model':>13} {'share':>6}")
    for name in STATS:
        print(f"{name:<24} {_share_line(yours, name)} {_share_line(model, name)}".rstrip())
    print(textwrap.fill("shares: alloc_* of the page allocations (each page handed out is counted once, by how it "
                        "was served; a refill or a slow call is one event that brings many pages), recycle_* of "
                        "the pages returned", width=79, subsequent_indent="  "))
    print()
    for line in explain(yours):
        print(textwrap.fill(line, width=79, initial_indent="- ", subsequent_indent="  "))
    print()
    print(textwrap.fill(f"The model's pool ({lesson.id}, {variant}): " + " ".join(explain(model)), width=79))
    return 0
