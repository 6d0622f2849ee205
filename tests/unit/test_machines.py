"""The lifecycles the model enforces are the graphs rxviz exports, and every object walks them.

Each lesson variant runs traced (set-up, a few hundred frames, ifdown). Every
transition in its events must be an edge of the networkx graph `rxviz graph
--format json` prints; each object's transitions, in event order, must chain
(the state one ends in is the state the next starts from); the run's per-edge
counts (Recorder.moves) must equal what the trace shows; and no lesson may
provoke an illegal transition.
"""

from __future__ import annotations

import functools
import json
from collections import Counter, defaultdict

import pytest
from shipped import shipped_lessons

from models import lifecycle
from models.sim import Sim

FRAMES = 300
CASES = [(lesson.id, v) for lesson in shipped_lessons() for v in lesson.variants]
# rx-basics' variants stay in `make test`; every other lesson's traced runs are in `make test-all`.
PARAMS = [pytest.param(lid, v, marks=() if lid == "rx-basics" else pytest.mark.slow) for lid, v in CASES]


sim_setup_seq: dict[tuple[str, str], int] = {}


@functools.cache          # three tests read the same run; none changes it
def traced(lesson_id: str, variant: str) -> Sim:
    lesson = next(x for x in shipped_lessons() if x.id == lesson_id)
    sim = Sim(lesson.params_for(variant), trace=2_000_000, faults=tuple(lesson.faults_for(variant, ())))
    sim_setup_seq[(lesson_id, variant)] = sim.rec.seq      # the set-up's calls: before t=0
    sim.run_frames(FRAMES)
    sim.teardown()
    assert sim.rec.seq == len(sim.rec.events), "the trace must hold every event"
    return sim


def exported_edges(machine: str) -> set[tuple[str, str, str]]:
    data = json.loads(lifecycle.to_json(machine))
    return {(e["source"], e["call"], e["target"]) for e in data["edges"]}


EDGES = {m: exported_edges(m) for m in lifecycle.MACHINES}


@pytest.mark.parametrize("lesson_id,variant", PARAMS)
def test_every_traced_transition_is_an_exported_edge_and_objects_chain(lesson_id, variant):
    sim = traced(lesson_id, variant)
    assert [v for v in sim.rec.violations if v.name == "illegal-transition"] == []
    last: dict[tuple[str, str], str] = {}
    seen: Counter = Counter()
    for e in sim.rec.events:
        for t in e.transitions:
            edge = (t.src, t.call, t.dst)
            assert edge in EDGES[t.machine], f"{e.seq} {e.call}: {t}"
            key = (t.machine, t.obj)
            if key in last:
                assert last[key] == t.src, f"{t.obj} was {last[key]}, moves from {t.src} at seq {e.seq}"
            last[key] = t.dst
            seen[(t.machine,) + edge] += 1
    # the untraced counters of the same run say the same
    moves = sim.rec.moves
    for i, (m, src, call, dst) in enumerate(lifecycle.TRANSITION_EDGES):
        assert moves[i] == seen[(m, src, call, dst)], (m, src, call, dst)


@pytest.mark.parametrize("lesson_id,variant", PARAMS)
def test_in_time_order_every_object_still_walks_its_machine(lesson_id, variant):
    # Each context keeps its own clock (the device stamps a frame when it arrived, a poll runs
    # ahead of the event clock, the reader has its own core); merged by time, as `rxviz trace`
    # prints them, no object may be seen in a state before the call that put it there.
    sim = traced(lesson_id, variant)
    setup = sim_setup_seq[(lesson_id, variant)]
    last: dict[tuple[str, str], str] = {}
    for e in sorted(sim.rec.events, key=lambda e: (e.seq > setup, e.t_ns, e.seq)):
        for t in e.transitions:
            key = (t.machine, t.obj)
            if key in last:
                assert last[key] == t.src, f"{t.obj} was {last[key]}, moves from {t.src} at seq {e.seq} t {e.t_ns}"
            last[key] = t.dst


@pytest.mark.slow          # every variant of every lesson, traced
def test_every_machine_is_walked_by_some_lesson():
    walked: set[str] = set()
    for lesson_id, variant in CASES:
        sim = traced(lesson_id, variant)
        walked |= {lifecycle.TRANSITION_EDGES[i][0] for i, n in enumerate(sim.rec.moves) if n}
    assert walked == set(lifecycle.MACHINES)


def test_the_tables_are_the_graphs():
    by_machine = defaultdict(set)
    for m, src, call, dst in lifecycle.TRANSITION_EDGES:
        by_machine[m].add((src, call, dst))
    for name, machine in lifecycle.MACHINE.items():
        assert by_machine[name] == EDGES[name]
        g = lifecycle.graph(name)
        assert set(g.nodes) == set(machine.states)
        assert g.graph["initial"] == machine.states[0]


# Paths no lesson variant takes in its first 300 frames: frames dropped for want of a replacement
# buffer (a leak fills SWIOTLB), and fragments read without a sync for the CPU (the checker's bug).
FAULTED = [
    ("dma-bugs", "missing-unmap", {"swiotlb_size": 1 << 20}, (), 1_200),
    ("ath9k-page-pool", "after", {}, ("no-sync-for-cpu",), 300),
    ("atlantic-page-pool", "after", {}, ("no-sync-for-cpu",), 300),
]


@pytest.mark.parametrize("lesson_id,variant,sets,faults,frames", FAULTED)
def test_drops_and_faults_walk_drawn_edges(lesson_id, variant, sets, faults, frames):
    lesson = next(x for x in shipped_lessons() if x.id == lesson_id)
    sim = Sim({**lesson.params_for(variant), **sets}, trace=2_000_000,
              faults=tuple(lesson.faults_for(variant, faults)))
    sim.run_frames(frames)
    assert sim.rec.seq == len(sim.rec.events)
    assert [v for v in sim.rec.violations if v.name == "illegal-transition"] == []
    last: dict[tuple[str, str], str] = {}
    taken = Counter()
    for e in sim.rec.events:
        for t in e.transitions:
            assert (t.src, t.call, t.dst) in EDGES[t.machine], f"{e.seq} {e.call}: {t}"
            key = (t.machine, t.obj)
            assert last.get(key, t.src) == t.src, f"{t.obj} was {last[key]}, moves from {t.src} at {e.seq}"
            last[key] = t.dst
            taken[t.call] += 1
    if lesson_id == "dma-bugs":
        assert sim.dropped > 0 and taken["rx_dropped"] > 0      # the drop path was walked
    else:
        assert any(v.name == "no-sync-for-cpu" for v in sim.rec.violations)
