"""A jump runs only the variants it shows (models/replay.py LessonRun.reach), and gives what the lockstep walk gives.

Each variant is a model of its own; only an `until` step's lead decides something
for the others (how many frames the step runs). So a variant run alone to step k,
from whatever step it was frozen at, must end exactly where the lockstep walk
(every variant, every step frozen) puts it: the same events numbered, the same
counters, the same frames, the same notes, the same state and recorded calls. And whatever
order jumps, fills and steps come in, the lesson's snapshots end up the same.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_model_determinism import lines, state

from models.lesson import find_lesson
from models.replay import LessonRun
from models.snapshot import thaw
from viz.session import Session

LESSONS = ["atlantic-page-pool", "rx-basics", "ath11k-36bit-dma-mask", "bgmac-napi-skb-cache",
           "ath9k-page-pool", "ath10k-sdio-napi", "dma-bugs"]
_REFERENCE: dict[str, LessonRun] = {}


def reference(lesson_id: str) -> LessonRun:
    """The lockstep walk to the last step: every variant of every step frozen (computed once)."""
    if lesson_id not in _REFERENCE:
        run = LessonRun(find_lesson(lesson_id))
        run.stored(run.total)
        _REFERENCE[lesson_id] = run
    return _REFERENCE[lesson_id]


def same_as_reference(run: LessonRun, lesson_id: str, k: int, name: str) -> None:
    ref = reference(lesson_id).stored(k)
    got = run.at(k)
    assert (got.seq[name], got.cnt[name], got.bounce[name], got.processed[name]) == (
        ref.seq[name], ref.cnt[name], ref.bounce[name], ref.processed[name]), (k, name)
    assert got.notes == ref.notes, k
    if name in got.blobs:           # the same model: its figures, its records, its recorded calls
        a, b = thaw(got.blobs[name]), thaw(ref.blobs[name])
        assert (state(a), lines(a), a.metrics()) == (state(b), lines(b), b.metrics()), (k, name)


@pytest.mark.slow
@pytest.mark.parametrize("lesson_id", LESSONS)
def test_the_variant_a_jump_shows_is_the_lockstep_walks(lesson_id):
    run = LessonRun(find_lesson(lesson_id))
    k = run.total
    shown = run.shown(k)
    assert run.reach(k, (shown,))
    same_as_reference(run, lesson_id, k, shown)
    for i in range(1, k):                                   # the steps passed keep its figures only
        same_as_reference(run, lesson_id, i, shown)
        assert not run.has(i, shown)
    assert run.computed == 0                                # nothing filled whole on the way
    assert run.reach(k, run.names)                          # then the others, as the player fills them
    for name in run.names:
        same_as_reference(run, lesson_id, k, name)


def test_a_jump_runs_the_lead_of_an_until_step_only_as_far_as_that_step():
    # atlantic: steps 3 and 4 run `until` on before; the last step shows after-no-fix.
    run = LessonRun(find_lesson("atlantic-page-pool"))
    assert run.reach(run.total, ("after-no-fix",))
    assert run.note(3).frames and run.note(4).frames        # decided by their lead on the way
    assert "before" in run.at(4).seq and "before" not in run.at(5).seq
    assert [n for n in run.names if n in run.at(run.total).blobs] == ["after-no-fix"]
    same_as_reference(run, "atlantic-page-pool", 4, "before")
    same_as_reference(run, "atlantic-page-pool", run.total, "after-no-fix")


def test_the_lockstep_walk_fills_in_behind_a_jump_and_keeps_what_it_made():
    run = LessonRun(find_lesson("rx-basics"))
    run.reach(run.total, ("gro",), keep=(run.total - 1, run.total))
    landing = run.at(run.total)
    blob = landing.blobs["gro"]
    assert not run.full(run.total) and run.has(run.total - 1, "gro")
    run.stored(run.total)
    assert run.computed == run.total and run.at(run.total) is landing     # filled in, not replaced
    assert landing.blobs["gro"] is blob
    for k in range(run.total + 1):
        for name in run.names:
            same_as_reference(run, "rx-basics", k, name)


def test_a_cancelled_jump_keeps_the_figures_it_made_and_can_go_on():
    run = LessonRun(find_lesson("rx-basics"))
    asked = []
    assert not run.reach(run.total, ("no-gro",), cancelled=lambda: len(asked) > 3,
                         progress=lambda done, total: asked.append(done))
    assert not run.has(run.total, "no-gro") and asked == [1, 2, 3, 4]
    assert run.reach(run.total, ("no-gro",))
    same_as_reference(run, "rx-basics", run.total, "no-gro")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["reach", "stored", "fresh", "note"]), st.integers(0, 14),
                          st.sampled_from(["gro", "no-gro"])), min_size=1, max_size=6))
def test_any_order_of_jumps_and_walks_gives_the_lockstep_snapshots(ops):
    """rx-basics (cheap, `until` steps led by both variants): any mix of the four ways in."""
    run = LessonRun(find_lesson("rx-basics"))
    for op, k, name in ops:
        k = min(k, run.total)
        if op == "reach":
            run.reach(k, (name,))
        elif op == "stored":
            run.stored(k)
        elif op == "fresh":
            sim = run.fresh(k, name)
            assert sim.rec.seq == reference("rx-basics").stored(k).seq[name]
        elif k:
            assert run.note(k) == reference("rx-basics").note(k)
    for k, snap in run._snaps.items():
        for name in snap.seq:
            same_as_reference(run, "rx-basics", k, name)


def test_the_players_jump_lands_with_the_variant_shown_and_fills_the_rest_behind():
    session = Session(find_lesson("atlantic-page-pool"))
    total = len(session.lesson.steps)
    frame = session.goto(total)
    assert frame is not None and list(frame.sims) == ["after-no-fix"]
    assert session.behind() == (total, None)            # the step before's variant is kept by the jump
    session.fill(*session.behind())
    assert list(frame.sims) == session.run.names        # the frame on screen has them all now, in order
    assert session.behind() is None
    session.compare = True
    session.goto(2)
    pair = session.goto(total - 2)
    assert pair is not None and set(pair.sims) >= {"after-no-fix", "before"}     # compare's pair, run by the jump


def test_a_steps_swiotlb_bounce_bytes_delta_comes_from_the_model():
    """ath11k's step 9 watches swiotlb_bounce_bytes: the bytes are no call's count, so the step's
    figures once kept none and the counters view showed that figure without its "+N"."""
    from viz.views.base import ViewState
    from viz.views.counters import step_counts
    lesson = find_lesson("ath11k-36bit-dma-mask")
    k = next(i for i, s in enumerate(lesson.steps, 1) if "swiotlb_bounce_bytes" in s.watch and i > 1)
    run = LessonRun(lesson)
    run.goto(k)
    name = lesson.steps[k - 1].show
    before, after = run.at(k - 1), run.at(k)
    sim = after.sims[name]
    assert after.counts(name)["swiotlb_bounce_bytes"] == sim.rec.bounce_bytes
    assert before.counts(name)["swiotlb_bounce_bytes"] == before.sims[name].rec.bounce_bytes
    moved = sim.rec.bounce_bytes - before.sims[name].rec.bounce_bytes
    assert moved > 0
    st = ViewState(sim=sim, variant=name, lesson=lesson, step=k, prev_counts=dict(before.counts(name)))
    assert step_counts(st)["swiotlb_bounce_bytes"] == (sim.rec.bounce_bytes, moved)
