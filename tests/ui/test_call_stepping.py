"""Pilot tests of stepping one kernel call at a time: ] and [, follow (o), and play by call.

What a person would check: the status line counts calls within the step;
] then [ as many times gives back exactly the screen it started from, even
across a step's end; a step with an unanswered question does not let ]
give its answer away; `o` follows the object of the current call and ]
then visits that object's moves and nothing else, in order, across steps,
with the machine view in front showing it.
"""

from __future__ import annotations

import re

import pytest
from test_app import app_for, press

from viz.app import settle
from viz.widgets.deck import ViewDeck
from viz.widgets.status import StatusLine


def status(app) -> str:
    return app.screen.query_one(StatusLine).render().plain


def where(app) -> tuple[int, int]:
    """(step, the number of the call the shown variant is at)."""
    frame = app.screen.frame
    return frame.step, frame.sims[frame.shown].rec.seq



async def test_the_status_line_counts_calls_and_brackets_move_one():
    app = app_for("rx-basics", 2)                      # `until: napi_poll`
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        m = re.search(r"step 2/\d+ · call (\d+)/(\d+)", status(app))
        assert m, status(app)
        here, total = int(m[1]), int(m[2])
        assert here < total                            # landed on napi_poll, not the step's end
        assert "napi_poll" in status(app)
        step, seq = where(app)
        await press(pilot, "right_square_bracket")
        assert where(app) == (2, seq + 1) and f"call {here + 1}/{total}" in status(app)
        await press(pilot, "left_square_bracket", "left_square_bracket")
        assert where(app) == (2, seq - 1) and f"call {here - 1}/{total}" in status(app)


@pytest.mark.slow
async def test_brackets_there_and_back_give_the_same_screen_across_a_step_end():
    app = app_for("rx-basics", 7)                       # steps 7 and 8 ask nothing
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        before = app.export_screenshot()
        start = where(app)
        n = 0
        while where(app)[0] == 7 and n < 80:
            await press(pilot, "right_square_bracket")
            n += 1
        await press(pilot, "right_square_bracket", "right_square_bracket")
        assert where(app)[0] == 8
        await press(pilot, *["left_square_bracket"] * (n + 2))
        assert where(app) == start
        assert app.export_screenshot() == before


async def test_a_question_holds_against_brackets():
    app = app_for("rx-basics", 3)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await press(pilot, "right_square_bracket")     # into step 4, which asks a question
        held = app.export_screenshot()
        assert app.screen.holding()
        await press(pilot, "right_square_bracket", "right_square_bracket")
        assert app.export_screenshot() == held        # nothing moved: the answer stays hidden


@pytest.mark.slow
async def test_follow_visits_exactly_the_objects_moves_in_order():
    app = app_for("rx-basics", 2)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await press(pilot, "right_square_bracket")      # netdev_alloc_frag of buf#257
        assert "netdev_alloc_frag buf#257" in status(app)
        await press(pilot, "o")
        assert "◎ buf#257" in status(app)
        assert app.screen.query_one(ViewDeck).lead == "machine"
        session = app.screen.moves.session
        cursor, total = session.cursor, session.run.total
        want = [(k, e.seq) for k in range(2, total + 1) for e in cursor.moves_of(k, "gro", "buf#257")]
        want = [w for w in want if w > where(app)]
        seen = []
        for _ in want:
            await press(pilot, "right_square_bracket")
            seen.append(where(app))
        assert seen == want
        await press(pilot, "right_square_bracket")     # no further move: it stays, and says so
        assert where(app) == want[-1]
        assert "free" in app.screen.frame.sims["gro"].rec.events[-1].call + str(
            [t.dst for t in app.screen.frame.sims["gro"].rec.events[-1].transitions])


async def test_space_plays_call_by_call_after_a_bracket():
    app = app_for("rx-basics", 2)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await press(pilot, "right_square_bracket")
        start = where(app)
        app.screen.action_speed(5)                       # the fastest pace
        await press(pilot, "space")
        for _ in range(40):
            await pilot.pause(0.1)
            if where(app)[1] >= start[1] + 2:
                break
        await press(pilot, "space")
        # It moved by calls (a frame stopped after a call, not a step's landing), however
        # many the timer managed on a loaded machine.
        assert where(app)[1] >= start[1] + 2 and not app.screen.frame.landing


def counts(frame, name: str) -> tuple[int, int]:
    """`name`'s count in the two variants compare mode sets side by side (rx-basics: gro, no-gro)."""
    return tuple(frame.sims[v].rec.counters().get(name, 0) for v in ("gro", "no-gro"))


@pytest.mark.slow
async def test_compare_at_a_call_shows_the_other_variant_at_the_same_moment():
    """Both variants get the same frames at the same times: stopped at a call, the other one is shown at
    that moment, not at the step's end (it was thousands of frames ahead, and the difference line
    counted them as GRO's doing)."""
    app = app_for("rx-basics", 11)                 # 2,000 frames in both variants
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await press(pilot, *["left_square_bracket"] * 40)   # some frames before the step's end
        await press(pilot, "c")                             # compare comes on at that call
        frame = app.screen.frame
        assert frame.step == 11 and frame.cursor is not None and not frame.landing
        gro, no_gro = counts(frame, "napi_gro_receive")
        end = app.screen.ready[11].sims["no-gro"].rec.counters()["napi_gro_receive"]
        assert abs(gro - no_gro) <= 1 and no_gro < end
        await press(pilot, *["left_square_bracket"] * 3)    # stepping on keeps them together
        frame = app.screen.frame
        gro, no_gro = counts(frame, "napi_gro_receive")
        assert frame.cursor is not None and abs(gro - no_gro) <= 1
        assert abs(frame.sims["gro"].processed - frame.sims["no-gro"].processed) <= 1
