"""`rxviz trace`: the event log, one kernel call a line (or JSON), streamed
(viz/cli/trace_stream.py).
"""

from __future__ import annotations

import argparse
import json
import sys

from ..messages import CliError, err
from .common import load, settings_of, variants_of, violation_exit

TRACE_FRAMES = 20


def run(args: argparse.Namespace) -> int:  # noqa: C901 (older than the complexity rule)
    from models.drivers import variant_sim
    from models.runner import variant_params

    from .trace_stream import BUFFER, Stream, event_json, lines, problems
    lesson = load(args.lesson)
    if len(args.variant) > 1:
        raise CliError(f"trace: one --variant at a time, got {', '.join(args.variant)} "
                       f"(`rxviz run` compares variants)", 2)
    name = variants_of(lesson, args.variant)[0] if args.variant else next(iter(lesson.variants))
    sets, faults = settings_of(args)
    frames = args.frames or TRACE_FRAMES
    sim = variant_sim(variant_params(lesson, name, sets), runs=lesson.runs.get(name, ""), seed=args.seed,
                      trace=BUFFER, faults=lesson.faults_for(name, faults))
    setup_seq = sim.setup_seq           # the ring fill, before t=0
    # In time order, as ftrace merges its per-CPU buffers: each context keeps its own clock (the
    # device stamps a frame when it arrived, the reader runs on its own core), so the order the
    # model made the calls in is not the order they happened; the set-up, before t=0, comes first.
    # Streamed: a million frames take time, not memory (viz/cli/trace_stream.py).
    events = Stream(sim, frames, setup_seq)
    write = sys.stdout.write
    if args.json:
        for e in events:
            write(json.dumps(event_json(e, setup_seq)) + "\n")
    else:
        for line in lines(events, setup_seq):
            write(line + "\n")
    if events.lost > 0:
        err(f"rxviz: note: {events.lost:,} events did not fit in the trace buffer and are not listed")
    if events.late > 0:
        err(f"rxviz: note: {events.late:,} events came too late to be sorted in and are printed where they came")
    if faults:
        from . import faults as fault_notes
        mine = (sim.fault_hits, sim.rec.violations.counts, sim.rec.warnings.counts)
        err(*fault_notes.notes(lesson.id, {name: mine}, faults, where=f" in {frames:,} frames"))
    expect = lesson.expect.get(name, ())
    reports = sim.rec.violations
    shown = [v for v in reports if v.name in expect]
    found = [v for v in reports if v.name not in expect]
    if len(reports) < reports.total:
        err(f"rxviz: note: {reports.total} violations in all; the first {len(reports)} (and the first of each "
            f"kind) are listed")
    if args.json:
        pass        # violations are events of the stream (call "VIOLATION"); stdout stays one object a line
    elif shown:
        print("", *problems(f"violations {lesson.id} / {name} shows on purpose (the lesson expects them):",
                            shown), sep="\n")
    if found and not args.json:
        print("", *problems(f"violations reported by the checker in {lesson.id} / {name}:", found), sep="\n")
    counts = {kind: n for kind, n in reports.counts.items() if kind not in expect}
    return violation_exit({name: counts} if counts else {})
