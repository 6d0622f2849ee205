"""A jump runs only what it shows; `v`, compare and the end screen ask for the rest (viz/session.py).

With nothing computed behind the reader (LOOKAHEAD made negative, so the worker
never fills in after a jump), each key that needs a variant the jump did not run
must get it from the worker and show it, never read a variant that is not there.
"""

from __future__ import annotations

import pytest

from models.calls import CALL_ID
from viz import step_queue
from viz.app import make_app, settle
from viz.screens.end import EndScreen
from viz.widgets.deck import ViewDeck
from viz.widgets.status import StatusLine


@pytest.fixture
def nothing_behind(monkeypatch):
    monkeypatch.setattr(step_queue, "LOOKAHEAD", -1_000)


async def open_then_end(app, pilot) -> None:
    await settle(app, pilot)
    await pilot.press("end")
    await settle(app, pilot)


async def test_end_lands_with_the_variant_it_shows_and_v_brings_the_next(nothing_behind):
    app = make_app(lesson="rx-basics", remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_then_end(app, pilot)
        screen = app.screen
        total = len(screen.lesson.steps)
        assert screen.frame.step == total and list(screen.frame.sims) == ["gro"]
        await pilot.press("v")
        await settle(app, pilot)
        assert screen.variant == "no-gro" and screen.seen.shown == "no-gro"
        assert "no-gro" in screen.frame.sims and screen.query_one(StatusLine).busy == ""
        # its counters the step before, for the views' "+N this step": there too, though the frame is older
        before = screen.moves.session.run.at(total - 1).cnt["no-gro"]
        assert screen.frame.prev_counts["no-gro"]["napi_poll"] == before[CALL_ID["napi_poll"]]
        await pilot.press("c")                              # compare: the pair is there now
        await settle(app, pilot)
        assert screen.query_one(ViewDeck).compare


async def test_the_end_screen_after_a_jump_runs_its_pair_first(nothing_behind):
    app = make_app(lesson="atlantic-page-pool", remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_then_end(app, pilot)
        assert list(app.screen.frame.sims) == ["after-no-fix"]
        await pilot.press("right")                          # past the last step: the summary of before/after
        await settle(app, pilot)
        assert isinstance(app.screen, EndScreen)
        assert {"before", "after"} <= set(app.screen.frame.sims)


async def test_compare_on_a_jump_runs_both_of_the_pair(nothing_behind):
    app = make_app(lesson="rx-basics", compare=True, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_then_end(app, pilot)
        assert list(app.screen.frame.sims) == ["gro", "no-gro"]
        assert app.screen.query_one(ViewDeck).compare
