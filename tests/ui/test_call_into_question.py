"""Pilot test of a sequence a review saw once in atlantic: `]` from the end of step 7 into step 8's
question, answer it, then `[`.

Step 8 runs 2,000 frames, so only its last TRACED_TAIL frames are recorded: `]` lands on its first
recorded call (23,448 of 24,233), not its first. There `[` went nowhere (a note said ← goes to the
step before), press after press, while the same key from step 8 opened directly moved. `[` now
crosses the untraced head to the step before's last call, and says what it passed over.
"""

from __future__ import annotations

from test_app import app_for, press

from viz.app import settle


def where(app) -> tuple[int, int]:
    frame = app.screen.frame
    return frame.step, frame.sims[frame.shown].rec.seq


async def test_brackets_into_a_long_question_step_answer_then_back():
    app = app_for("atlantic-page-pool", 7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        end_of_7 = where(app)
        await press(pilot, "right_square_bracket")        # past step 7's last call: step 8's question
        assert screen.frame.step == 8 and screen.holding()
        await press(pilot, "3")                             # answered (right or wrong): the outcome shows
        assert not screen.holding()
        step, seq = where(app)
        first, last = screen.frame.calls[screen.frame.shown]
        assert step == 8 and first < seq <= last            # inside step 8's recorded tail
        await press(pilot, "left_square_bracket")
        assert where(app) != (step, seq)                    # `[` moves
        assert where(app) == end_of_7                       # over the untraced head: step 7's last call
        await press(pilot, "right_square_bracket")
        assert where(app) == (step, seq)                    # and `]` comes back to the same call
