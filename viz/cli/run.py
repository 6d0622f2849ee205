"""`rxviz run`: variants headless, their counters and metrics, paper vs model.
"""

from __future__ import annotations

import argparse
import json

from ..messages import err
from .common import load, settings_of, variants_of, violation_exit


def run(args: argparse.Namespace) -> int:
    from models.runner import run_lesson, unexpected
    lesson = load(args.lesson)
    variants = variants_of(lesson, args.variant)
    sets, faults = settings_of(args)
    from .progress import progress
    from .tables import print_run
    frames = args.frames or lesson.headline.frames
    with progress(f"{frames:,} frames x {len(variants or lesson.variants)} variant(s)") as report:
        result = run_lesson(lesson, variants=variants or None, frames=args.frames, seed=args.seed,
                            sets=sets, faults=faults, progress=report)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_run(result, lesson)
    if faults:
        from . import faults as fault_notes
        err(*fault_notes.notes(lesson.id, {n: (r["faults"], r.get("violation_counts") or {},
                                              r.get("warning_counts") or {})
                                          for n, r in result["variants"].items()}, faults))
    return violation_exit(unexpected(result))
