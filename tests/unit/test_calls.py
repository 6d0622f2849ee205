"""One kernel call at a time: a step stopped right after any of its calls, exactly.

`CallCursor.at_call` (models/call_cursor.py) runs a step again from the snapshot before it and stops
it right after one call (trace.Halt), so the player can show that moment;
`moves_of` finds every move of one object in a step, traced whole. These
tests hold them to the model: the stopped run's last event is the call asked
for and its counters are those of a run that made exactly the calls up to it;
stopping at the step's last call is the step's own snapshot; a long step's
untraced head can be stopped in too; run again in chunks a step is the same
run; and every `until` step lands on the call it ran until.
"""

from __future__ import annotations

import pytest
from shipped import shipped_lesson, shipped_lessons

from models.call_cursor import CallCursor
from models.replay import LessonRun, until_hit
from models.snapshot import clone
from viz.session import Session


def accounted(sim) -> int:
    rec = sim.rec
    return sum(rec.cnt) + len(rec.violations) + len(rec.warnings)


@pytest.fixture(scope="module")
def basics() -> CallCursor:
    run = LessonRun(shipped_lesson("rx-basics"))
    run.snapshot(run.total)
    return CallCursor(run)


@pytest.mark.slow
def test_a_step_stops_right_after_the_call_asked_for(basics):
    for k in range(1, basics.run.total + 1):
        v = basics.run.shown(k)
        first, last, reachable = basics.call_range(k, v)
        if last < first:
            continue
        events = basics.step_events(k, v)
        assert [e.seq for e in events] == list(range(reachable, last + 1))
        for e in events[:: max(1, len(events) // 5)]:
            sim = basics.at_call(k, v, e.seq)
            assert sim.rec.events[-1].seq == e.seq and sim.rec.events[-1].call == e.call
            assert accounted(sim) == e.seq             # the next call is not counted
        assert basics.at_call(k, v, last) is basics.run.snapshot(k)[0][v]


def test_a_long_steps_untraced_head_can_be_stopped_in(basics):
    k = next(i for i in range(1, basics.run.total + 1) if basics.head_frames(i))
    v = basics.run.shown(k)
    first, last, reachable = basics.call_range(k, v)
    assert first < reachable <= last
    for seq in (first, (first + reachable) // 2, reachable - 1):
        sim = basics.at_call(k, v, seq)
        assert sim.rec.events[-1].seq == seq and accounted(sim) == seq


def test_a_step_run_again_in_chunks_is_the_same_run(basics):
    for k in range(1, basics.run.total + 1):
        if not basics.head_frames(k):
            continue
        v = basics.run.shown(k)
        sim = clone(basics.run.snapshot(k - 1)[0][v])
        for part in basics.parts(k, v, sim, chunk=97):
            part()
        ref = basics.run.snapshot(k)[0][v]
        assert (sim.rec.cnt, sim.rec.moves, sim.processed, sim.rec.t) == (ref.rec.cnt, ref.rec.moves, ref.processed,
                                                                          ref.rec.t)


@pytest.mark.slow
def test_moves_of_an_object_are_its_transitions_in_a_whole_trace(basics, monkeypatch):
    """buf#257 (the first refill) across the lesson, against the same lesson traced whole."""
    import models.replay as replay

    v = "gro"
    found = [e.seq for k in range(1, basics.run.total + 1) for e in basics.moves_of(k, v, "buf#257")]
    monkeypatch.setattr(replay, "TRACED_TAIL", 10**9)          # trace every frame of every step
    whole = LessonRun(shipped_lesson("rx-basics"), trace=10**7)
    whole.snapshot(whole.total)
    events = whole.snapshot(whole.total)[0][v].rec.events
    want = [e.seq for e in events if e.obj == "buf#257" or any(t.obj == "buf#257" for t in e.transitions)]
    assert found == want and len(found) >= 6
    calls = [t.call for e in events if e.seq in set(found) for t in e.transitions if t.obj == "buf#257"]
    assert calls[:3] == ["netdev_alloc_frag", "dma_map_single", "post"] and calls[-1] == "skb_release_data"


# a second or more of CPU each (make test-all): the lessons with long until-steps
UNTIL_SLOW = {"dma-bugs", "rx-basics", "atlantic-page-pool", "ath11k-36bit-dma-mask"}


@pytest.mark.parametrize("lesson", [pytest.param(x.id, marks=pytest.mark.slow if x.id in UNTIL_SLOW else ())
                                    for x in shipped_lessons()])
def test_until_steps_land_on_the_call_they_ran_until(lesson):
    """The step's frame shows the moment its narration is about: right after that call."""
    spec = shipped_lesson(lesson)
    session = Session(spec)
    for k, step in enumerate(spec.steps, 1):
        if step.run is None or step.run.kind != "until":
            continue
        frame = session.frame_at(k)
        if not frame.reached:
            continue
        sim = frame.sims[frame.shown]
        assert until_hit(sim.rec.events[-1], step.run), (k, sim.rec.events[-1])
        assert frame.landing and frame.cursor in (sim.rec.seq, None)   # None: it was the step's last call
