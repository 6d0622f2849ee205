"""The machine records (`Reading.rx`): what the machine, passport and path views read, checked against the model.

Current states must be the model's own; counts are the run's transition
counts on every edge; a history is the model's own transitions, walking its
machine's edges and ending where the object is.
"""

from __future__ import annotations

import functools
from itertools import pairwise

import pytest
from records import from_sim
from shipped import shipped_lesson, shipped_lessons

from models.lifecycle import MACHINES, edge_counts
from models.sim import Sim

VARIANTS = [(lesson.id, v) for lesson in shipped_lessons() for v in lesson.variants]


@functools.cache
def sim_of(lesson: str, variant: str, frames: int = 120) -> Sim:
    sim = Sim(shipped_lesson(lesson).params_for(variant), trace=400)
    sim.run_frames(frames)
    return sim


@pytest.mark.parametrize("lesson,variant", VARIANTS)
def test_history_walks_the_machine_and_ends_in_the_objects_state(lesson, variant):
    d = from_sim(sim_of(lesson, variant))
    ms, p = d.machine, d.passport
    assert ms.machine in MACHINES and ms.exact and p is not None and p.exact
    assert p is not None and p.obj == ms.obj and p.state == ms.state
    edges = {(s, c): d for s, c, d in MACHINES[ms.machine][2]}
    for a, b in pairwise(p.history):
        assert a.dst == b.src and a.seq <= b.seq and a.t_ns <= b.t_ns
    for t in p.history:
        assert edges[(t.src, t.call)] == t.dst and t.obj == p.obj and t.machine == ms.machine
    if ms.last is not None:
        assert ms.last == p.history[-1] and ms.last.dst == ms.state


@pytest.mark.parametrize("lesson,variant", VARIANTS)
def test_counts_are_the_runs_transitions_on_every_edge(lesson, variant):
    sim = sim_of(lesson, variant)
    ms = from_sim(sim).machine
    assert set(ms.counts) == set(MACHINES[ms.machine][2])
    assert dict(ms.counts) == edge_counts(sim.rec.moves, ms.machine)
    # every transition the trace shows is counted
    shown: dict = {}
    for e in sim.rec.events:
        for t in e.transitions:
            if t.machine == ms.machine:
                shown[(t.src, t.call, t.dst)] = shown.get((t.src, t.call, t.dst), 0) + 1
    assert all(ms.counts[edge] >= n for edge, n in shown.items())


def test_the_followed_buffer_is_the_models():
    sim = sim_of("rx-basics", "gro")
    ms = from_sim(sim, machine="rx_buffer").machine
    assert ms.obj == f"buf#{ms.obj[4:]}"
    on_ring = {f"buf#{b.id}": b for b in sim.ring.bufs if b is not None}
    held = sim.stack.gro.held
    in_skbs = {f"buf#{b.id}": b for skb in list(sim.stack.sock.sockq) + ([held] if held else []) for b in skb.buffers()}
    buf = {**in_skbs, **on_ring}[ms.obj]
    assert buf.state == ms.state
    p = from_sim(sim, machine="rx_buffer").passport
    assert p.phys == buf.phys and p.size == buf.size and p.dma == buf.map.dma and p.mapped == buf.map.live


def test_following_a_named_object():
    sim = sim_of("rx-basics", "gro")
    buf = sim.ring.buf(5)
    d = from_sim(sim, follow=f"buf#{buf.id}")
    assert d.machine.obj == f"buf#{buf.id}" and d.machine.state == buf.state
    assert d.machine.where == "at desc 5"
    pool_sim = sim_of("ath9k-page-pool", "after")
    page = next(iter(pool_sim.pool.pages.values()))
    p = from_sim(pool_sim, follow=f"page#{page.id}").passport
    assert p.machine == "pp_page" and p.state == page.state and dict(p.refs)["pp_ref_count"] == page.outstanding()


def test_population_counts_the_ring():
    sim = sim_of("rx-basics", "gro")
    ms = from_sim(sim, machine="rx_buffer").machine
    on_ring = sum(1 for b in sim.ring.bufs if b is not None and b.state == "device-owned")
    assert ms.population["device-owned"] == on_ring


def test_the_current_call_is_the_last_event():
    sim = sim_of("rx-basics", "gro")
    ev = sim.rec.recent(1)[-1]
    call = from_sim(sim).call
    assert (call.seq, call.call, call.obj, call.t_ns) == (ev.seq, ev.call, ev.obj, ev.t_ns)


def test_cached_per_sim_and_moment():
    sim = Sim(shipped_lesson("rx-basics").params_for("gro"), trace=400)
    sim.run_frames(10)
    a = from_sim(sim)
    assert from_sim(sim) is a
    sim.run_frames(1)
    assert from_sim(sim) is not a


def test_an_object_back_with_its_allocator_is_freed_not_in_the_drivers_hands():
    # atlantic's last step tears the pools down: the last move the strip draws is a page going
    # back to the page allocator, which no part of the model holds any more.
    from viz.session import Session

    session = Session(shipped_lesson("atlantic-page-pool"))
    last = len(session.lesson.steps)
    session.goto(last)
    ms = from_sim(session.frame_at(last).sims["after-no-fix"]).machine
    assert (ms.machine, ms.state, ms.where) == ("pp_page", "buddy", "freed")
