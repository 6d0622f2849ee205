"""A question holds on every path into its step; the map, the glossary, and asking a question again.

Every way into a question step shows the step before's views and the
question, and none of the step's own outcome: → from the step before, a jump
with `g` to a step never computed, the command palette, the lesson map (`m`),
`]` across the step's start, and following an object (`o`, `]`) into it
from far earlier (issue 18: from rx-basics step 2, `]`×12, `o`, `]` once
landed on step 5 with its reveal on screen). A question whose outcome → has
revealed takes no answer and no longer asks to predict; `a` asks it again.
"""

from __future__ import annotations

import pytest
from shipped import shipped_lesson
from test_app import app_for, press

from viz.app import settle
from viz.screens.glossary import GlossaryScreen
from viz.screens.lesson_map import LessonMap
from viz.widgets.ask import AskPanel
from viz.widgets.deck import ViewDeck
from viz.widgets.narration import Narration
from viz.widgets.prose import Prose

RX = shipped_lesson("rx-basics")
Q = 5                                  # rx-basics step 5 asks; its reveal text is long and distinctive


def assert_holds(app, step: int) -> None:
    screen = app.screen
    spec = screen.lesson.steps[step - 1]
    assert screen.frame.step == step and screen.holding(), (screen.frame.step, step)
    ask = screen.query_one(AskPanel)
    assert ask.display and ask.chosen is None and not ask.revealed
    assert "predict" in str(ask.query_one("#q").render())
    state = screen.query_one(ViewDeck)._state
    assert state.step == step - 1                            # every view: the step before
    said = screen.query_one("#n-say", Prose).source
    assert said == spec.say and spec.reveal.split("\n")[0] not in said
    assert screen.query_one(Narration).step[0] == step


async def test_arrow_from_the_step_before():
    app = app_for("rx-basics", Q - 1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await press(pilot, "3")                              # step 4 asks too: answer it
        await press(pilot, "right")
        assert_holds(app, Q)


async def test_g_to_a_step_never_computed():
    app = app_for("rx-basics", 0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert max(app.screen.ready) < Q - 1                 # the step before was never computed
        await press(pilot, "g")
        await pilot.press(*str(Q), "enter")
        await settle(app, pilot)
        assert_holds(app, Q)


async def test_the_command_palette():
    app = app_for("rx-basics", 0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await press(pilot, "ctrl+p")
        await pilot.press(*f"jump to step {Q}")
        await pilot.pause(0.5)
        await press(pilot, "enter")
        assert_holds(app, Q)


async def test_the_lesson_map():
    app = app_for("rx-basics", 1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "m")
        assert isinstance(app.screen, LessonMap)
        await press(pilot, *["down"] * (Q - 1), "enter")
        assert_holds(app, Q)


async def test_brackets_across_the_steps_start():
    app = app_for("rx-basics", 3)                            # step 4 asks and runs nothing
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for _ in range(40):
            await press(pilot, "right_square_bracket")
            if app.screen.frame.step == 4:
                break
        assert_holds(app, 4)
        await press(pilot, "right_square_bracket")           # the hold holds against ] too
        assert_holds(app, 4)


@pytest.mark.slow
async def test_following_an_object_into_a_question_step():
    """The issue's path: step 2, ]×12, o, ] lands in a later step; any question there holds."""
    app = app_for("rx-basics", 2)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await press(pilot, *["right_square_bracket"] * 12, "o")
        screen = app.screen
        # The case: the steps ahead not computed yet (the worker had not got there), so the
        # hold cannot lean on the step before's frame being at hand.
        screen.ready = {k: f for k, f in screen.ready.items() if k <= screen.frame.step}
        await press(pilot, "right_square_bracket")
        step = screen.frame.step
        spec = screen.lesson.steps[step - 1]
        assert step == Q and spec.ask is not None
        assert_holds(app, step)


async def test_a_revealed_question_takes_no_answer_and_can_be_asked_again():
    app = app_for("rx-basics", Q)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert_holds(app, Q)
        await press(pilot, "right")                          # → reveals
        ask = screen.query_one(AskPanel)
        assert not screen.holding() and ask.revealed
        assert "predict" not in str(ask.query_one("#q").render()) and "revealed" in str(ask.query_one("#q").render())
        await press(pilot, "2")                              # no score for an answer after the outcome
        assert (RX.id, Q) not in app.course.answers and ask.chosen is None
        await press(pilot, "a")                              # ask again: the step holds
        assert_holds(app, Q)
        await press(pilot, "1")                              # a wrong answer, scored
        assert app.course.answers[(RX.id, Q)] == 0
        await press(pilot, "a")
        assert_holds(app, Q)
        assert (RX.id, Q) not in app.course.answers


async def test_the_map_lists_every_step_and_how_each_question_went():
    app = app_for("rx-basics", 4)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await press(pilot, "3")                              # step 4's right answer
        await press(pilot, "m")
        lmap = app.screen
        assert isinstance(lmap, LessonMap)
        text = "\n".join(str(o.prompt) for o in lmap.query_one("OptionList")._options)
        lines = text.split("\n")
        assert lines[4].startswith("▶") and "✓ right" in lines[4]
        assert "? to predict" in lines[5]                    # step 5: not answered yet
        # up to the waiting question, every title; past it, the number only ("One ACK per super-packet",
        # step 6, would answer step 5's "how many skbs enter the stack?")
        for spec in RX.steps:
            k = spec.index + 1
            assert (spec.title in lines[k]) == (k <= Q), k
            assert ("its title waits for step 5's answer" in lines[k]) == (k > Q), k
        await press(pilot, "escape")
        assert app.screen.frame.step == 4
        await press(pilot, "right")                          # step 5 holds its question
        await press(pilot, "2")                              # answered (right or not): nothing is kept back
        await press(pilot, "m")
        text = "\n".join(str(o.prompt) for o in app.screen.query_one("OptionList")._options)
        for spec in RX.steps:
            assert spec.title in text
        assert "waits for" not in text


async def test_the_palette_and_the_cover_keep_back_the_titles_a_waiting_question_would_give_away():
    from viz.commands import LessonCommands
    from viz.widgets.narration import cover
    dma = shipped_lesson("dma-bugs")
    assert dma.steps[7].ask is not None and dma.steps[8].title == "Frames drop"
    app = app_for("dma-bugs", 8)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        provider = LessonCommands(app.screen)
        titles = [str(t) for t, _, _ in provider._commands()]
        assert not any("Frames drop" in t for t in titles)
        assert "Jump to step 9: ··· its title waits for step 8's answer" in titles
        assert any(t == f"Jump to step 8: {dma.steps[7].title}" for t in titles)
        await press(pilot, "1")                              # answered: the title is no secret any more
        titles = [str(t) for t, _, _ in LessonCommands(app.screen)._commands()]
        assert "Jump to step 9: Frames drop" in titles
    # the cover's list of steps (the home screen's, the presenter's) stops at the first question
    first = next(s.index + 1 for s in dma.steps if s.ask is not None)
    listed = cover(dma, start=False)
    assert dma.steps[first - 1].title in listed and "Frames drop" not in listed
    assert "Frames drop" in cover(dma, start=False, seen=frozenset(range(1, 10)))     # shown before: no secret
    assert "Frames drop" in cover(dma, start=False, settled=lambda q: True)


async def test_the_glossary_lists_this_steps_terms_first_with_their_kernel_files():
    app = app_for("ath11k-36bit-dma-mask", 2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "w")
        gl = app.screen
        assert isinstance(gl, GlossaryScreen)
        names = [t.term for t in gl.here]
        assert "SWIOTLB" in names and "DMA mask" in names
        shown = str(gl.query_one("#gl-def").render())
        assert gl._order[0].term in shown and "kernel:" in shown and "/" in shown
        await press(pilot, "down")
        assert gl._order[1].term in str(gl.query_one("#gl-def").render())
        await press(pilot, "escape")
        assert not isinstance(app.screen, GlossaryScreen)


async def test_the_end_screen_opens_with_what_the_lesson_showed():
    from viz.screens.end import EndScreen
    app = app_for("rx-basics", len(RX.steps))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await press(pilot, "right")
        end = app.screen
        assert isinstance(end, EndScreen)
        heads = [str(w.render()) for w in end.query(".end-head")]
        assert heads[0] == "What you saw"
        assert str(end.query_one("#end-recap").render()) == " ".join(RX.recap.split())


async def test_the_status_line_keeps_the_current_call_whole_at_80_columns():
    from viz.widgets.status import StatusLine
    app = app_for("rx-basics", 3)                          # lands on napi_skb_cache_put head#2
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        text = app.screen.query_one(StatusLine).render().plain
        call = app.screen.frame.sims["gro"].rec.recent(1)[-1].call
        assert call in text and len(text) <= 78 and "gro" in text
        await press(pilot, "left_square_bracket", "right_square_bracket")
        assert call in app.screen.query_one(StatusLine).render().plain


async def test_brackets_at_a_hold_say_so_once_not_once_a_press():
    app = app_for("rx-basics", Q)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert_holds(app, Q)
        await press(pilot, *["right_square_bracket"] * 4)
        said = [n for n in app._notifications if "answer first" in n.message]
        assert len(said) == 1 and app.screen.frame.step == Q


async def test_fast_forward_waits_for_the_answer():
    """f at a question ran every variant on: the NAPI view read "4.0 segments per skb" beside the
    question of how many skbs GRO hands up. It now asks for the answer first, as ] does."""
    from viz.screens.player import PlayerScreen
    app = app_for("rx-basics", Q)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert_holds(app, Q)
        await press(pilot, "f")
        assert isinstance(app.screen, PlayerScreen)                 # no prompt for frames
        await press(pilot, "enter")
        assert app.screen.frame.extra == 0
        assert_holds(app, Q)
        assert any("answer first" in n.message for n in app._notifications)
        await press(pilot, "2", "f")                               # answered: f asks how many frames
        assert not isinstance(app.screen, PlayerScreen)


async def test_the_sandbox_says_what_moved_at_the_step_the_views_show():
    """The sandbox at a question step: the views show the step before, and what moved did not: with
    gro=false it read "netif_receive_skb 1 → 4" under "how many skbs enter the stack?"."""
    from viz.screens.player import PlayerScreen
    from viz.widgets.sandbox_bar import SandboxBar
    app = app_for("rx-basics", Q - 1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await press(pilot, "3", "right")                     # step 4 answered, step 5 asks
        assert_holds(app, Q)
        await press(pilot, "s")
        await pilot.press(*"gro=false", "enter")
        await settle(app, pilot)
        await press(pilot, "enter")                         # an empty line runs
        screen = app.screen
        assert isinstance(screen, PlayerScreen) and screen.sets == {"gro": False}
        assert_holds(app, Q)
        bar = screen.query_one(SandboxBar)
        assert bar.display and bar.rows is not None
        assert "netif_receive_skb" not in {name for name, _, _ in bar.rows}, bar.rows
        await press(pilot, "2")                             # answered: this step's figures
        assert ("netif_receive_skb", 1, 4) in bar.rows, bar.rows


@pytest.mark.slow
async def test_playing_pauses_at_a_question_and_does_not_reveal_it():
    """space played on through a question: the tick after it arrived revealed its outcome unasked."""
    app = app_for("rx-basics", 3)                            # step 4 asks
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "plus", "plus", "plus")           # 8x: a step every 0.25 s
        await pilot.press("space")
        for _ in range(200):
            if not app.screen.playing:
                break
            await pilot.pause(0.05)
        await settle(app, pilot)
        assert not app.screen.playing
        assert_holds(app, 4)
        assert any("paused at a question" in n.message for n in app._notifications)
