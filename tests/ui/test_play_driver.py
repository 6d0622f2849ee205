"""Pilot tests of `rxviz play LESSON --driver FILE`: the learner's driver as a variant of the lesson.

What a learner would check: the steps that showed the lesson's variant show
theirs (`your-driver` on the status line), `]` walks their driver's own
calls, `o` follows one of their buffers to its next move, `v` reaches the
lesson's variants and back, compare sets the lesson's variant beside theirs.
A driver that raises mid-lesson gives one line with their file and line, a
notification with their own traceback lines only, and the player goes on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shipped import shipped_lesson
from test_app import press

from models.driver.lesson import LEARNER
from models.driver.runtime import DriverSim
from viz.app import make_app, settle
from viz.exercises.catalog import BY_ID
from viz.exercises.play import lesson_with_driver
from viz.views.base import ModelView
from viz.widgets.deck import ViewDeck
from viz.widgets.status import StatusLine


def app_with(tmp_path: Path, source: str, step: int, lesson: str = "rx-basics"):
    f = tmp_path / "driver.py"
    f.write_text(source)
    # check=False: the child-process tryout is the CLI's (tests/unit/test_play_driver_cli.py)
    app = make_app(lesson_with_driver(shipped_lesson(lesson), str(f), check=False), step)
    app.animation_level = "none"
    return app


def status(app) -> str:
    return app.screen.query_one(StatusLine).render().plain


def where(app) -> tuple[int, int]:
    frame = app.screen.frame
    return frame.step, frame.sims[frame.shown].rec.seq


@pytest.mark.ahead
async def test_your_driver_is_shown_and_brackets_walk_its_calls(tmp_path):
    app = app_with(tmp_path, BY_ID["rx-refill"].solution_text(), 2)      # step 2: `until: napi_poll`
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        frame = app.screen.frame
        assert frame.shown == LEARNER and isinstance(frame.sims[LEARNER], DriverSim)
        assert list(frame.sims) == ["gro", "no-gro", LEARNER]
        assert LEARNER in status(app) and "napi_poll" in status(app)
        step, seq = where(app)
        await press(pilot, "right_square_bracket")
        assert where(app) == (step, seq + 1)
        # the reference driver's refill: its replacement buffer first (models/driver/skbuff.py)
        assert "netdev_alloc_frag buf#" in status(app)
        await press(pilot, "o")
        followed = app.screen.follow
        assert followed and followed.startswith("buf#")
        before = where(app)
        await press(pilot, "right_square_bracket")
        after = app.screen.frame
        assert where(app) > before
        ev = after.sims[LEARNER].rec.events[-1]
        assert ev.obj == followed or any(t.obj == followed for t in ev.transitions)


async def test_v_reaches_the_lessons_variants_and_compare_sets_yours_beside_its(tmp_path):
    app = app_with(tmp_path, BY_ID["rx-refill"].solution_text(), 3)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        seen = []
        for _ in range(3):
            seen.append(app.screen.variant or app.screen.frame.shown)
            await press(pilot, "v")
        assert seen == [LEARNER, "gro", "no-gro"]
        assert (app.screen.variant or app.screen.frame.shown) == LEARNER
        await press(pilot, "c")
        titles = [str(app.screen.query_one(f"#title-{side}").render()) for side in ("a", "b")]
        assert "gro" in titles[0] and LEARNER not in titles[0] and LEARNER in titles[1]
        # the reference driver is the lesson's variant written with the API: the same counters
        sims = app.screen.frame.sims
        assert sims[LEARNER].rec.counters() == sims["gro"].rec.counters()


RAISES = '''
        if self.polls > 40:
            raise RuntimeError("polls: " + str(self.polls))
'''


async def test_a_driver_raising_mid_lesson_is_one_line_and_the_player_goes_on(tmp_path):
    src = BY_ID["rx-refill"].solution_text()
    src = src.replace("    def poll(self, napi: Napi, budget: int) -> int:\n",
                      "    polls = 0\n\n    def poll(self, napi: Napi, budget: int) -> int:\n        self.polls += 1\n"
                      + RAISES, 1)
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "raise RuntimeError" in t)
    app = app_with(tmp_path, src, 1)
    notes = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.screen.notify = lambda text, **kw: notes.append((text, kw))
        for _ in range(12):
            if app.screen.query_one(StatusLine).error:
                break
            await press(pilot, "right")
        error = app.screen.query_one(StatusLine).error
        assert f"your driver, driver.py:{line} in poll: RuntimeError: polls: 41" in error
        assert "\n" not in error
        text, kw = notes[-1]
        assert kw["severity"] == "error" and kw["markup"] is False
        assert f'File "driver.py", line {line}, in poll' in text
        assert "models/" not in text and "viz/" not in text          # their own lines only
        here = app.screen.frame.step
        await press(pilot, "left")                                    # the player is still usable
        assert app.screen.frame.step == here - 1


async def test_the_pool_view_of_your_driver_counts_its_pages_in_flight(tmp_path):
    """hold − release = inflight, as page_pool_inflight() counts it, for the learner's pool too
    (it once read 1088 − 0 = 0: the pool was seen through a wrapper for the teardown)."""
    from viz.views.pool import PoolView as PoolPane
    from viz.widgets.deck import ViewDeck
    app = app_with(tmp_path, BY_ID["page-pool-frags"].solution_text(), 7, lesson="atlantic-page-pool")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        pool = app.screen.frame.sims[LEARNER].pool
        assert pool.hold > pool.release
        deck = app.screen.query_one(ViewDeck)
        deck.tabbed = True
        deck.active = "pool"
        await settle(app, pilot)
        pane = app.screen.query_one(PoolPane)
        text = "\n".join(strip.text for strip in pane.render_lines(pane.region.reset_offset))
        assert f"hold {pool.hold} − release {pool.release} = inflight {pool.hold - pool.release}" in text


@pytest.mark.slow
async def test_a_question_keeps_back_the_variant_your_driver_stands_in_for(tmp_path):
    """atlantic step 8 asks which way the pool's pages come back. With a driver, the step shows yours,
    and compare (or v) sets the lesson's `after` beside it: its pool view read "cache 37/128 ·
    ptr_ring 0/1024" while the question waited. Both are kept back alike."""
    app = app_with(tmp_path, BY_ID["page-pool-frags"].solution_text(), 8, lesson="atlantic-page-pool")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.holding() and screen.frame.shown == LEARNER
        await press(pilot, "c")
        deck = screen.query_one(ViewDeck)
        pair = deck._pair
        assert pair is not None and {st.variant for st in pair} == {"after", LEARNER}
        for st in pair:
            assert st.asking and "page_pool_recycle_in_cache" in st.hidden_counts, st.variant
        for side in ("a", "b"):
            text = "\n".join(view.render_line(y).text for view in screen.query_one(f"#col-{side}").query(ModelView)
                             for y in range(view.size.height))
            assert "kept back" in text and "cache 37/128" not in text, text
