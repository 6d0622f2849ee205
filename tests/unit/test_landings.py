"""Each step lands on the moment its text describes: the lesson-level checks of what a step's
`run` stops at and what the model holds there (the text says it; the model must agree)."""

from __future__ import annotations

import pytest
from shipped import shipped_lesson
from test_lesson_loader import MINIMAL

from models.call_cursor import CallCursor
from models.lesson import LessonError, load_lesson_text
from models.machines import MACHINES
from models.records.delivery import skb_cache
from models.replay import LessonRun, until_hit
from models.snapshot import clone
from viz.session import Session


def _step(lesson_id: str, title: str) -> int:
    """The 1-based number of the step with that title (the tests name steps as the text does)."""
    return next(k for k, s in enumerate(shipped_lesson(lesson_id).steps, 1) if s.title == title)


def test_bgmac_overflow_step_lands_on_the_full_caches_bulk_free():
    """'The cache overflows' stops at napi_skb_cache_put()'s kmem_cache_free_bulk, not at the earlier
    frag_list free: NAPI_SKB_CACHE_FREE (32) heads go back and 96 of 128 stay, as its text says."""
    spec = shipped_lesson("bgmac-napi-skb-cache")
    k = _step(spec.id, "The cache overflows")
    assert spec.steps[k - 1].run is not None and spec.steps[k - 1].run.source == "napi-cache"
    frame = Session(spec).frame_at(k)
    assert frame.reached and frame.landing
    sim = frame.sims[frame.shown]
    last = sim.rec.events[-1]
    assert last.call == "kmem_cache_free_bulk" and last.detail == "32 heads back to the slab"
    assert {t.src for t in last.transitions} == {"napi-cache"}
    cache = skb_cache(sim)
    assert (cache.size, cache.free_n, cache.cached) == (128, 32, 96)
    say = spec.steps[k - 1].say
    assert "(32)" in say and "keeping 96" in say and "kmem_cache_free_bulk()" in say


def test_until_from_counts_only_the_calls_that_empty_that_state():
    run = load_lesson_text(MINIMAL + "    run: {until: kmem_cache_free_bulk, from: napi-cache}\n").steps[0].run
    assert run is not None and (run.call, run.source, run.count) == ("kmem_cache_free_bulk", "napi-cache", 1)


@pytest.mark.parametrize("run, field, message", [
    ("{until: kmem_cache_free_bulk, from: napi_cache}", "steps[0].run.from",
     "expected a state kmem_cache_free_bulk moves an object out of (bulk-free, napi-cache), got 'napi_cache'"),
    ("{until: kmem_cache_free_bulk, from: napi-cache, count: 2}", "steps[0].run", "'count' does not go with 'from'"),
    ("{until: tcp_send_ack, from: in-use}", "steps[0].run.from", "tcp_send_ack moves no object"),
    ("{frames: 2, from: napi-cache}", "steps[0].run", "'from' does not go with 'frames'"),
])
def test_until_from_errors_point_at_the_field(run, field, message):
    with pytest.raises(LessonError) as info:
        load_lesson_text(MINIMAL + f"    run: {run}\n")
    e = info.value
    assert e.field == field and message in e.message and e.line == 11 and e.column >= 1, str(e)


def test_an_until_from_step_re_run_by_the_call_cursor_is_the_same_run():
    """The cursor re-runs a long step's head untraced, its tail traced, or the whole in chunks:
    with `from` each part counts moves as the step did, and ends where the step ended."""
    spec = shipped_lesson("bgmac-napi-skb-cache")
    k = _step(spec.id, "The cache overflows")
    run = LessonRun(spec)
    cursor = CallCursor(run)
    v = run.shown(k)
    assert cursor.head_frames(k) > 0                      # a long step: head and tail
    events = cursor.step_events(k, v)
    assert events[-1].seq == run.at(k).seq[v] and until_hit(events[-1], spec.steps[k - 1].run)
    sim = clone(run.snapshot(k - 1)[0][v])
    for part in cursor.parts(k, v, sim, chunk=37):
        part()
    ref = run.snapshot(k)[0][v]
    assert (sim.rec.cnt, sim.rec.moves, sim.processed) == (ref.rec.cnt, ref.rec.moves, ref.processed)


def test_ath10k_per_frame_step_shows_the_ack_after_its_first_frame_not_its_second():
    """'Straight up, one frame at a time' runs two frames: TCP ACKs every second segment, and in the
    model the first of the two is a pair's second, so the ACK follows it and the last frame has none."""
    spec = shipped_lesson("ath10k-sdio-napi")
    k = _step(spec.id, "Straight up, one frame at a time")
    say = spec.steps[k - 1].say
    assert "The first of them" in say and "no ACK of its own" in say
    frame = Session(spec).frame_at(k)
    sim = frame.sims[frame.shown]
    start = Session(spec).frame_at(k - 1).sims[frame.shown].rec.seq
    calls = [e.call for e in sim.rec.events if e.seq > start]
    up = [i for i, c in enumerate(calls) if c == "netif_receive_skb"]
    assert len(up) == 2 and "tcp_send_ack" in calls[up[0]:up[1]] and "tcp_send_ack" not in calls[up[1]:]


def test_ath10k_usb_steps_focus_the_view_their_text_points_at():
    """'As merged' says to watch the NAPI view's queue; 'ifdown' points at the violation at the end
    of the log, which is the call the teardown step lands on."""
    spec = shipped_lesson("ath10k-sdio-napi")
    merged = spec.steps[_step(spec.id, "As merged: queued for a poll USB never has") - 1]
    assert merged.focus == "napi" and "Watch the NAPI view" in merged.say
    k = _step(spec.id, "ifdown: what the queue held")
    ifdown = spec.steps[k - 1]
    assert ifdown.focus == "log" and "the violation at the end of the log" in ifdown.say
    assert "still in use" not in ifdown.say
    frame = Session(spec).frame_at(k)
    last = frame.sims[frame.shown].rec.events[-1]
    assert last.call == "VIOLATION" and "leak-at-teardown" in last.obj + last.detail
    assert "skb(s) left on htt->rx_indication_head" in last.detail


def test_rx_basics_machine_step_names_states_not_a_side_of_the_drawing():
    """The machine is drawn across at 80x24 and top to bottom at 160x50: 'the left half' is false at
    one of them. The text names the states, each one of the machine it points at."""
    spec = shipped_lesson("rx-basics")
    step = spec.steps[_step(spec.id, "One buffer's life") - 1]
    assert step.focus == "machine"
    words = set(step.say.replace(",", " ").replace(":", " ").split())
    assert not words & {"left", "right", "top", "bottom", "above", "below"}
    states = {s for src, _, dst in MACHINES["rx_buffer"][2] for s in (src, dst)}
    assert {"free", "allocated", "mapped", "unmapped", "in-skb"} <= states & words
