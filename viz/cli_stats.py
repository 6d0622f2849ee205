"""`rxviz stats FILE`: a real machine's page_pool statistics beside the model's.

The dump (`ethtool -S` or `page-pool-stats-get`) is read by models.pp_stats;
this module finds the closest lesson pool (the page_pool variant whose shares
are nearest), prints both sets of counters with their shares, and explains
what the ratios say. Counts differ in scale (a machine since boot, the model
for one run), so the shares are what is compared.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .cli_commands import CliError

STATS_FRAMES = 20_000


def _pools() -> list[tuple[Any, str]]:
    """(lesson, variant) for every page_pool variant of the shipped lessons."""
    from models.lesson import all_lessons
    out = []
    for lesson in all_lessons():
        for name in lesson.variants:
            if lesson.params_for(name).get("strategy") == "page-pool":
                out.append((lesson, name))
    return out


def _model_stats(lesson, variant: str) -> dict[str, int]:
    from models.runner import run_params, variant_params
    frames = min(lesson.headline.frames, STATS_FRAMES)
    r = run_params(variant, variant_params(lesson, variant), frames, teardown=False)
    return r.page_pool_stats or {}


def _share_line(stats: dict[str, int], name: str) -> str:
    from models.pp_stats import STATS
    alloc = sum(stats[k] for k in ("alloc_fast", "alloc_slow", "alloc_slow_high_order", "alloc_refill"))
    back = sum(stats[k] for k in ("recycle_cached", "recycle_ring", "recycle_ring_full", "recycle_released_refcnt"))
    base = alloc if name in STATS[:6] else back
    shared = base and name not in ("alloc_empty", "alloc_waive", "recycle_cache_full")
    share = f"{stats[name] / base:6.1%}" if shared else "      "
    return f"{stats[name]:>13,} {share}"


def cmd_stats(args: argparse.Namespace) -> int:
    from models.pp_stats import STATS, StatsError, distance, explain, parse
    path = Path(args.file)
    try:
        if path.is_dir():
            raise OSError("is a directory")
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise CliError(f"{args.file}: cannot read it ({e.strerror or e})", 2) from None
    try:
        yours, kind, pools = parse(text)
    except StatsError as e:
        raise CliError(f"{args.file}: {e}", 2) from None
    candidates = _pools()
    if args.lesson:
        candidates = [(lsn, v) for lsn, v in candidates if lsn.id == args.lesson]
        if not candidates:
            raise CliError(f"--lesson {args.lesson}: not a lesson with a page_pool variant; those are "
                           f"{', '.join(sorted({lsn.id for lsn, _ in _pools()}))}", 2)
    best = min(((distance(yours, s := _model_stats(lsn, v)), lsn, v, s) for lsn, v in candidates),
               key=lambda t: t[0])
    _, lesson, variant, model = best
    if args.json:
        print(json.dumps({"source": kind, "pools": pools, "yours": yours, "lesson": lesson.id,
                          "variant": variant, "model": model, "explain": explain(yours)}, indent=2))
        return 0
    print(f"page_pool statistics from {'ethtool -S' if kind == 'ethtool' else 'page-pool-stats-get'}"
          f" ({pools} pool{'s' if pools != 1 else ''}{' summed' if pools > 1 else ''})")
    print(f"closest lesson pool: {lesson.id}, variant {variant} "
          f"({min(lesson.headline.frames, STATS_FRAMES):,} frames)")
    print()
    print(f"{'statistic':<24} {'yours':>13} {'share':>6} {'model':>13} {'share':>6}")
    for name in STATS:
        print(f"{name:<24} {_share_line(yours, name)} {_share_line(model, name)}".rstrip())
    print("shares: of the pages handed out (alloc_*), or of the pages returned (recycle_*)")
    print()
    import textwrap
    for line in explain(yours):
        print(textwrap.fill(line, width=79, initial_indent="- ", subsequent_indent="  "))
    print()
    print(textwrap.fill(f"The model's pool ({lesson.id}, {variant}): " + " ".join(explain(model)), width=79))
    return 0
