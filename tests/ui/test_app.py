"""Pilot tests: every control of the player, every lesson to its end, resizes and random keys.

Each test builds the app with `make_app` (as the CLI does) and drives it
headless. `press` waits for the model worker after each key, so a test
sees what a person would see once the step has landed.
"""

from __future__ import annotations

import random
import re

import pytest
from shipped import shipped_lessons
from textual.command import CommandPalette

from models.lesson import LessonNotFound
from viz.app import make_app, run_app, settle
from viz.screens.end import EndScreen
from viz.screens.help import HelpScreen
from viz.screens.home import HomeScreen
from viz.screens.player import PlayerScreen
from viz.screens.prompt import NumberPrompt
from viz.screens.too_small import TooSmallScreen
from viz.session import compare_pair, views_for
from viz.views.base import ModelView
from viz.widgets.ask import AskPanel
from viz.widgets.compare import DiffLine
from viz.widgets.deck import ViewDeck
from viz.widgets.narration import Narration
from viz.widgets.prose import Prose
from viz.widgets.status import StatusLine

LESSONS = [lesson.id for lesson in shipped_lessons()]


def app_for(lesson=None, step=0, compare=False):
    app = make_app(lesson=lesson, step=step, compare=compare)
    app.animation_level = "none"
    return app


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot.app, pilot)


def position(app) -> tuple[int, int]:
    """(step, extra frames) the player shows."""
    frame = app.screen.frame
    return frame.step, frame.extra


def heading(app) -> str:
    narration = app.screen.query_one(Narration)
    return narration.heading(*narration.step[:2])


# ------------------------------------------------------------------ stepping
@pytest.mark.slow
async def test_step_keys_forward_and_back():
    app = app_for("rx-basics")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, PlayerScreen)
        assert heading(app).startswith("step 0/14 · RX basics")
        await press(pilot, "right")
        assert heading(app) == "step 1/14 · A ring of 256 descriptors"
        await press(pilot, "pagedown", "n")
        assert position(app) == (3, 0)
        await press(pilot, "left")
        assert position(app) == (2, 0)
        await press(pilot, "pageup", "p", "p")
        assert position(app) == (0, 0)        # never below the cover
        await press(pilot, "end")
        assert position(app) == (14, 0)
        await press(pilot, "right")           # past the last step: the end of the lesson
        assert isinstance(app.screen, EndScreen)
        await press(pilot, "escape")
        assert position(app) == (14, 0)       # never past the last step
        await press(pilot, "home")
        assert position(app) == (0, 0)


async def test_burst_of_keys_lands_on_the_last_step_asked():
    app = app_for("rx-basics")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown")   # a clicker, no waiting
        await settle(app, pilot)
        assert position(app) == (4, 0)


@pytest.mark.ahead
async def test_the_next_step_is_computed_ahead_and_shown_without_the_worker():
    app = app_for("rx-basics", step=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert set(screen.ready) == {0, 1, 2, 3}        # the way there, and one step ahead
        ahead = screen.ready[3]
        screen.action_next()                            # no await: shown within the key handler
        assert screen.frame is ahead and position(app) == (3, 0)
        await settle(app, pilot)
        assert 4 in screen.ready


@pytest.mark.slow
async def test_a_published_frame_never_changes():
    """Frames share the run's snapshots: later steps and fast-forwards run on other objects."""
    app = app_for("rx-basics", step=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        frame = app.screen.frame
        counts = {v: dict(s.rec.counts) for v, s in frame.sims.items()}
        now = {v: s.engine.now for v, s in frame.sims.items()}
        # step 4 asks a question: answered first, since f waits for the answer there
        await press(pilot, "right", "right", "3", "f", *["backspace"] * 4, "3", "0", "0", "enter")
        assert position(app) == (4, 300)
        await press(pilot, "f", *["backspace"] * 4, "1", "0", "0", "enter")
        assert position(app) == (4, 400)
        assert {v: dict(s.rec.counts) for v, s in frame.sims.items()} == counts
        assert {v: s.engine.now for v, s in frame.sims.items()} == now
        await press(pilot, "left", "left", "left")
        assert app.screen.frame is frame


async def test_a_wide_grid_moves_only_the_lead_and_the_view_it_replaces():
    """When a step brings another focus view, the other views keep their places."""
    app = app_for("rx-basics", step=1)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        deck = app.screen.query_one(ViewDeck)
        before = deck.shown_keys()
        await press(pilot, "right")                    # step 2 focuses napi
        after = deck.shown_keys()
        assert after[0] == "napi" and before[0] == "ring"
        moved = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert len(moved) == 2 and after[before.index("napi")] == "ring"


@pytest.mark.slow
async def test_lines_built_ahead_are_the_lines_a_fresh_build_draws():
    """The views and the narration build the next step's lines while the reader reads (ModelView.prepare,
    Prose.prepare): at every step, questions and revealed outcomes included, each shows what building
    it now gives."""
    app = app_for("atlantic-page-pool")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        used = 0
        while screen.frame.step < len(screen.lesson.steps) or screen.holding():
            await press(pilot, "right")
            for view in screen.query(ModelView):
                if view.is_on_screen and view._lines is not None:
                    assert view._lines == view._make(*view.size)[0], (screen.frame.step, view.id)
                    used += view._ahead is view.state
            prose = screen.query_one("#n-say", Prose)
            assert prose._strips(prose.text_width) == prose._make(prose.source, prose.text_width)
        assert used            # the lines built ahead were used


@pytest.mark.ahead
async def test_the_views_build_ahead_what_a_question_shows_before_its_step(monkeypatch):
    # rx-basics step 4 asks about no-gro while step 3 shows gro: the question shows step 3's model
    # as no-gro, which the deck's views must have built while the reader read step 3.
    built = []
    real = ModelView._build
    monkeypatch.setattr(ModelView, "_build", lambda view, w, h: (
        built.append(view.id) if view._drawn_before(w, h) is None else None) or real(view, w, h))
    app = app_for("rx-basics", step=3)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        built.clear()
        await press(pilot, "right")
        screen = app.screen
        assert screen.holding() and screen.frame.step == 4 and screen.seen.step == 3
        assert screen.seen.shown == "no-gro" != screen.ready[3].shown
        assert [b for b in built if b.startswith("v-")] == []


@pytest.mark.slow
async def test_the_deck_knows_each_views_next_size_even_after_a_view_that_filled_it():
    """Views build the next step's lines at the size the deck says they will have (next_sizes): it must
    be the size they get, also on the step after rx-basics' machine view filled the whole deck."""
    app = app_for("rx-basics")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen, deck = app.screen, app.screen.query_one(ViewDeck)
        checked = []
        while screen.frame.step < len(screen.lesson.steps):
            step = screen.frame.step
            sizes = None if screen.holding() else deck.next_sizes(screen._lead(step + 1))
            await press(pilot, "right")
            if screen.holding():
                await press(pilot, "right")          # a question: its outcome, at the step's own layout
            if sizes is not None:
                assert {k: tuple(screen.query_one(f"#v-{k}").size) for k in sizes} == sizes, step + 1
                checked.append(step + 1)
        machine = next(s.index + 1 for s in screen.lesson.steps if s.focus == "machine")
        assert machine + 1 in checked and len(checked) >= 10, checked


@pytest.mark.slow
async def test_going_back_reuses_the_lines_drawn_and_they_are_a_fresh_builds(monkeypatch):
    """← to a step shown a moment ago gets the same views' state (PlayerScreen._state) and each view the
    lines it drew for it (ModelView.RECENT): they must be what building them now gives."""
    made = []
    real = ModelView._make
    monkeypatch.setattr(ModelView, "_make", lambda view, w, h: made.append(view.id) or real(view, w, h))
    app = app_for("rx-basics")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        for _ in range(8):
            await press(pilot, "right")
        shown = 0
        made.clear()
        monkeypatch.setattr(ModelView, "prepare", lambda view, state, sizes=None: None)    # only the steps' builds
        for _ in range(5):
            await press(pilot, "left")
            for view in screen.query(ModelView):
                if view.is_on_screen and view._lines is not None:
                    shown += 1
                    assert view._lines == real(view, *view.size)[0], (screen.frame.step, view.id)
        assert len(made) < shown / 2, (len(made), shown)     # most views drew nothing new

@pytest.mark.parametrize("lesson,step", [("rx-basics", 4), ("ath10k-sdio-napi", 5)])
async def test_back_then_forward_is_the_identical_screen(lesson, step):
    app = app_for(lesson, step=step)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        before = app.export_screenshot()
        await press(pilot, "left", "right")
        assert position(app) == (step, 0)
        assert app.export_screenshot() == before


@pytest.mark.slow
async def test_reset_and_jump_modal():
    app = app_for("rx-basics", step=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "r")
        assert position(app) == (0, 0)
        await press(pilot, "g")
        assert isinstance(app.screen, NumberPrompt)
        await press(pilot, "backspace", "9", "9", "enter")
        assert isinstance(app.screen, NumberPrompt)          # out of range: refused in place
        assert "out of range" in str(app.screen.query_one("#prompt-error").render())
        await press(pilot, "backspace", "backspace", "5", "enter")
        assert isinstance(app.screen, PlayerScreen)
        assert position(app) == (5, 0)
        await press(pilot, "g", "escape")
        assert isinstance(app.screen, PlayerScreen) and position(app) == (5, 0)


@pytest.mark.slow
async def test_fast_forward_then_step_returns_to_the_lesson():
    app = app_for("rx-basics", step=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        # Fast-forward runs on from the step's end (step 2 shows the moment of its napi_poll).
        processed = app.screen.moves.session.run.snapshot(2)[0]["gro"].processed
        await press(pilot, "f")
        assert isinstance(app.screen, NumberPrompt)
        for _ in range(4):
            await pilot.press("backspace")
        await press(pilot, "3", "0", "0", "enter")
        assert position(app) == (2, 300)
        assert heading(app).startswith("step 2/14 +300 frames")
        assert app.screen.frame.sims["gro"].processed == processed + 300
        await press(pilot, "right")
        assert position(app) == (3, 0)
        clean = app.export_screenshot()
        await press(pilot, "f", "enter", "left")       # the default 5 000 frames, then back out of it
        assert position(app) == (3, 0)
        assert app.export_screenshot() == clean


async def test_play_pause_and_speed():
    app = app_for("rx-basics")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        status = screen.query_one(StatusLine)
        for _ in range(3):
            await press(pilot, "plus")
        assert screen.speed == 8.0 and status.speed == 8.0
        await press(pilot, "plus")
        assert screen.speed == 8.0                 # capped
        # Checked as soon as the key is handled, not after a settle: on a loaded machine a settle can
        # take longer than 8x needs to play rx-basics to its end, where playing stops by itself.
        await pilot.press("space")
        assert screen.playing and status.playing
        for _ in range(200):                       # 8x: a step every 0.25 s
            if position(app)[0] >= 1:
                break
            await pilot.pause(0.05)
        await pilot.press("space")
        assert not screen.playing and not status.playing
        assert position(app)[0] >= 1
        for _ in range(6):
            await press(pilot, "minus")
        assert screen.speed == 0.25


# ------------------------------------------------------------------ views, compare, questions
async def test_tab_cycles_the_views_and_a_step_brings_back_its_focus():
    app = app_for("rx-basics", step=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        deck = app.screen.query_one(ViewDeck)
        assert deck.active == "ring"
        assert deck.query_one("#v-ring").display and not deck.query_one("#v-napi").display
        await press(pilot, "tab")
        assert deck.active == "napi"
        assert deck.query_one("#v-napi").display and not deck.query_one("#v-ring").display
        await press(pilot, "shift+tab", "shift+tab")
        assert deck.active == deck.keys[-1]
        await press(pilot, "right")               # step 2 focuses napi
        assert deck.active == "napi"


@pytest.mark.slow
async def test_compare_shows_both_variants_and_the_counter_difference():
    app = app_for("rx-basics", step=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        deck = app.screen.query_one(ViewDeck)
        await press(pilot, "c")
        assert deck.compare and deck.query_one("#deck-pair").display
        assert str(deck.query_one("#title-a").render()) == "gro"
        assert str(deck.query_one("#title-b").render()) == "no-gro"
        text = str(deck.query_one(DiffLine).render())
        assert re.match(r"▸?\w+: gro [\d ]+, no-gro [\d ]+, (Δ [+−]?[\d ]+|same)", text), text
        await press(pilot, "right", "right")    # reveal step 4's question, then step 5
        assert deck.compare and position(app) == (5, 0)   # compare stays on while stepping
        await press(pilot, "c")
        assert not deck.compare


@pytest.mark.slow
async def test_compare_flag_from_the_factory():
    app = app_for("ath11k-36bit-dma-mask", step=2, compare=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        deck = app.screen.query_one(ViewDeck)
        assert deck.compare
        assert str(deck.query_one("#title-a").render()) == "before"


async def test_answering_a_question_is_remembered():
    app = app_for("rx-basics", step=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        ask = app.screen.query_one(AskPanel)
        assert ask.display and ask.chosen is None
        await press(pilot, "9")                  # no such choice: nothing happens
        assert ask.chosen is None
        await press(pilot, "1")
        assert ask.chosen == 0
        verdict = " ".join(str(w.render()) for w in ask.query(".verdict"))
        assert "you chose 1" in verdict and "the answer is 2" in verdict
        await press(pilot, "right")
        assert not ask.display                   # step 6 asks nothing
        await press(pilot, "left")
        assert ask.display and ask.chosen == 0   # the answer given is shown again
        await press(pilot, "2")                  # answered: a digit does not change the answer
        assert ask.chosen == 0 and (app.screen.lesson.id, 5) in app.course.answers
        await press(pilot, "a")                  # a asks it again: the step holds, the answer is gone
        await settle(app, pilot)
        assert ask.chosen is None and app.screen.holding() and (app.screen.lesson.id, 5) not in app.course.answers
        await press(pilot, "2")
        assert "✓ right" in str(ask.query_one(".verdict").render())


async def test_a_click_on_a_choice_answers_and_a_click_on_a_tab_shows_that_view():
    app = app_for("rx-basics", step=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        ask = app.screen.query_one(AskPanel)
        choices = ask.query_one("#a")
        await pilot.click(choices, offset=(4, 1))       # the second line: choice 2
        await settle(app, pilot)
        assert ask.chosen == 1
        assert "✓ right" in str(ask.query_one(".verdict").render())
        deck = app.screen.query_one(ViewDeck)
        strip = deck.query_one("#deck-tabs")
        start, _, key = next(span for span in strip._spans() if span[2] == "log")
        await pilot.click(strip, offset=(start + 2, 0))
        await settle(app, pilot)
        assert deck.active == key and deck.query_one("#v-log").display


@pytest.mark.slow
async def test_a_question_holds_the_views_before_the_step_until_answered_or_revealed():
    app = app_for("rx-basics", step=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        before = screen.frame
        await press(pilot, "right")                       # step 4 asks a question
        deck = screen.query_one(ViewDeck)
        status = screen.query_one(StatusLine)
        assert position(app) == (4, 0) and screen.holding()
        assert deck._state.sim is before.sims["no-gro"]   # the model as it was before step 4 ran
        assert "predict first" in status.hint
        await press(pilot, "right")                       # the first → shows what happened
        assert position(app) == (4, 0) and not screen.holding()
        assert deck._state.sim is screen.frame.sims["no-gro"] and status.hint == ""
        await press(pilot, "right")
        assert position(app) == (5, 0)
        await press(pilot, "left")                        # back to step 4: still revealed
        assert position(app) == (4, 0) and not screen.holding()

    app = app_for("rx-basics", step=4)                    # answering also reveals
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.screen.holding()
        await press(pilot, "1")
        assert not app.screen.holding()
        assert app.screen.query_one(ViewDeck)._state.sim is app.screen.frame.sims["no-gro"]


@pytest.mark.slow
async def test_question_never_blocks_stepping():
    app = app_for("ath11k-36bit-dma-mask", step=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        asks = sum(1 for step in app.screen.lesson.steps[:3] if step.ask)
        assert asks                                       # the test is about questions
        await press(pilot, *["right"] * (3 + asks))       # one extra → per question: its reveal
        assert position(app) == (3, 0) and not app.course.answers


# ------------------------------------------------------------------ screens
async def test_home_opens_a_lesson_and_shows_progress():
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, HomeScreen)
        await press(pilot, "enter")
        assert isinstance(app.screen, PlayerScreen) and app.screen.lesson.id == LESSONS[0]
        await press(pilot, "right", "right", "right", "escape")
        assert isinstance(app.screen, HomeScreen)
        prompt = str(app.screen.query_one("#lessons").get_option_at_index(0).prompt)
        assert "seen 3/14" in prompt
        await press(pilot, "enter")                # resumes where it was
        assert position(app) == (3, 0)


async def test_a_lesson_opened_directly_has_the_lessons_under_it():
    """`rxviz play` builds the lessons only when Esc first shows them: they look and work as from `rxviz`."""
    app = app_for(LESSONS[0])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert not any(isinstance(s, HomeScreen) for s in app.screen_stack)    # not built yet
        await press(pilot, "right", "escape")
        assert isinstance(app.screen, HomeScreen)
        shown = unnamed(app.export_screenshot())
        await press(pilot, "down", "enter")                                    # another lesson opens
        assert isinstance(app.screen, PlayerScreen) and app.screen.lesson.id == LESSONS[1]
        await press(pilot, "escape", "up", "enter")                            # and the first resumes
        assert app.screen.lesson.id == LESSONS[0] and position(app) == (1, 0)

    home = app_for()                                  # `rxviz` with the progress there was when Esc showed the list
    del home.course.progress[LESSONS[1]]
    async with home.run_test(size=(80, 24)) as pilot:
        await settle(home, pilot)
        assert unnamed(home.export_screenshot()) == shown


async def test_the_lessons_look_the_same_on_coming_back_from_one():
    """Back from a lesson, the list is the one `rxviz` would show with that progress: every
    separator, the highlight and the scroll kept (refilling the list lost a separator)."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "down", "down", "enter")
        assert isinstance(app.screen, PlayerScreen) and app.screen.lesson.id == LESSONS[2]
        await press(pilot, "right", "escape")
        assert isinstance(app.screen, HomeScreen)
        back = unnamed(app.export_screenshot())

    fresh = app_for()                                 # the same progress, the same lesson highlighted
    fresh.course.progress = {LESSONS[2]: app.course.progress[LESSONS[2]]}
    async with fresh.run_test(size=(80, 24)) as pilot:
        await settle(fresh, pilot)
        await press(pilot, "down", "down")
        assert unnamed(fresh.export_screenshot()) == back


def unnamed(svg: str) -> str:
    """An SVG without Rich's id for it (a hash of the segments, their click handlers included)."""
    return re.sub(r"terminal-\d+", "terminal", svg)


async def test_help_lists_every_binding():
    app = app_for("rx-basics")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = "\n".join(str(w.render()) for w in app.screen.query("Static"))
        for word in ("PgDn", "space", "fast-forward", "compare", "go to step", "answer", "ctrl+p", "colours"):
            assert word.lower() in text.lower(), word
        await press(pilot, "escape")
        assert isinstance(app.screen, PlayerScreen)


@pytest.mark.slow
async def test_command_palette_jumps_to_a_step_and_opens_lessons():
    app = app_for("rx-basics")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await press(pilot, "ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"step 7")
        await pilot.pause(0.4)
        await press(pilot, "enter")
        assert isinstance(app.screen, PlayerScreen)
        assert position(app) == (7, 0)
        await press(pilot, "ctrl+p")
        await pilot.press(*"bgmac")
        await pilot.pause(0.4)
        await press(pilot, "enter")
        assert isinstance(app.screen, PlayerScreen) and app.screen.lesson.id == "bgmac-napi-skb-cache"


async def test_quit():
    app = app_for("rx-basics")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert app._exit


async def test_too_small_message_and_back():
    app = app_for("rx-basics", step=1)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, TooSmallScreen)
        text = str(app.screen.query_one("#too-small-message").render())
        assert text == ("rxviz needs at least 80×24 (now 60×20): enlarge the terminal "
                        "or lower the font size")
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        assert isinstance(app.screen, PlayerScreen) and position(app) == (1, 0)


async def test_help_opened_over_the_too_small_message_leaves_nothing_behind():
    """? works on the too-small message; grown meanwhile, Esc used to uncover the message again,
    saying "needs at least 80×24 (now 80×24)" until the next resize."""
    from viz.screens.help import HelpScreen
    app = app_for("rx-basics", step=1)
    async with app.run_test(size=(40, 10)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, TooSmallScreen)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        await press(pilot, "escape")
        assert isinstance(app.screen, PlayerScreen) and position(app) == (1, 0)
        await press(pilot, "right")
        assert position(app) == (2, 0)


# ------------------------------------------------------------------ whole lessons, resizes, random keys
@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS)
async def test_play_each_lesson_to_its_end(lesson):
    app = app_for(lesson)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        total = len(app.screen.lesson.steps)
        for k in range(1, total):
            # The key as the terminal would deliver it, without Pilot's CPU-idle polling while the
            # worker computes (the model's time is what this test is made of).
            app.simulate_key("right")
            await settle(app, pilot)
            assert heading(app).startswith(f"step {k}/{total} · ")
            if app.screen.holding():                      # a question: the next → reveals its outcome
                app.simulate_key("right")
                await settle(app, pilot)
                assert position(app) == (k, 0) and not app.screen.holding()
        # The last step by play (8x: a step every 0.25 s), which must stop there by itself.
        await press(pilot, "plus", "plus", "plus", "space")
        await pilot.pause(0.5)
        await settle(app, pilot)
        assert heading(app).startswith(f"step {total}/{total} · ")
        assert not app.screen.playing
        await press(pilot, "right")
        assert isinstance(app.screen, EndScreen)
        await press(pilot, "escape")
        assert position(app) == (total, 0)


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS)
async def test_play_each_lesson_to_its_end_in_compare(lesson):
    """Compare mode from the first step to the last: both columns always show the two variants."""
    app = app_for(lesson, compare=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        deck = screen.query_one(ViewDeck)
        total = len(screen.lesson.steps)
        while screen.frame.step < total or screen.holding():
            app.simulate_key("right")
            await settle(app, pilot)
            names = compare_pair(screen.lesson, screen.frame.shown)
            assert deck.compare and names is not None
            assert (str(deck.query_one("#title-a").render()), str(deck.query_one("#title-b").render())) == names
            diff = str(deck.query_one(DiffLine).render())
            assert "Δ" in diff or "equal" in diff or "same" in diff
        assert position(app) == (total, 0)


@pytest.mark.slow
async def test_resize_while_playing():
    app = app_for("rx-basics", step=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "plus", "plus", "plus", "space")
        for size in ((160, 50), (100, 40), (60, 20), (200, 60), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause(0.1)
        await press(pilot, "space")
        assert isinstance(app.screen, PlayerScreen)
        assert position(app)[0] > 0


@pytest.mark.slow
async def test_random_keys_and_resizes(monkeypatch):
    import viz.screens.player as player

    monkeypatch.setattr(player, "FF_MAX", 3000)           # keep random fast-forwards short
    keys = ["right", "left", "pagedown", "pageup", "space", "plus", "minus", "g", "f", "r", "c",
            "tab", "shift+tab", "question_mark", "escape", "enter", "up", "down", "home",
            "1", "2", "3", "4", "backspace", "0", "5", "n", "p", "x"]
    rng = random.Random(20261130)
    app = app_for("rx-basics")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        for _ in range(150):
            if rng.random() < 0.08:
                await pilot.resize_terminal(rng.randint(60, 200), rng.randint(20, 60))
            else:
                await pilot.press(rng.choice(keys))      # press waits until the app is idle
        await settle(app, pilot)
        await pilot.resize_terminal(120, 40)
        await settle(app, pilot)
        assert not isinstance(app.screen, TooSmallScreen)


# ------------------------------------------------------------------ the factory and helpers
def test_make_app_refuses_an_unknown_lesson(capsys):
    with pytest.raises(LessonNotFound):
        make_app(lesson="no-such-lesson")
    assert run_app(lesson="no-such-lesson") == 2
    assert "unknown lesson 'no-such-lesson'" in capsys.readouterr().err


def test_views_follow_the_scenario():
    lessons = {lesson.id: lesson for lesson in shipped_lessons()}
    sdio = views_for(lessons["ath10k-sdio-napi"])
    assert "bus" in sdio and "ring" not in sdio and "pool" not in sdio
    basics = views_for(lessons["rx-basics"])
    assert basics[0] == "ring" and "bus" not in basics and "pool" not in basics
    assert "pool" in views_for(lessons["atlantic-page-pool"])
    assert "skbcache" in views_for(lessons["bgmac-napi-skb-cache"])
    for lesson in lessons.values():
        keys = views_for(lesson)
        assert all(step.focus in keys for step in lesson.steps if step.focus)


async def test_screenshot_returns_svg():
    from viz.screenshot import parse_size, screenshot

    svg = await screenshot("rx-basics", 1, (80, 24))
    assert svg.lstrip().startswith("<svg") and "A ring of 256 descriptors" in svg.replace("&#160;", " ")
    assert parse_size("160x50") == (160, 50)
    with pytest.raises(ValueError):
        parse_size("wide")
