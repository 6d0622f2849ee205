"""One cursor drives every view: pressed through the calls of one step of each lesson, with `]`.

At every call, each view that draws the object the current call touched
lights exactly that (models.cursor is the reference, computed from the
model's own events): the machine strip its move and state, the ring its
descriptor, the memory map the row of its data, the pool its page, the skb
cache its head, and the pseudo-code the line the lesson maps the call to.
The chosen view stays chosen while `]` walks the calls; a step's end,
crossed by `]`, brings back the step's own variant; the machine is drawn,
as boxes and arrows, at 80x24.
"""

from __future__ import annotations

import re

import pytest
from records import from_sim
from test_app import app_for, press

from models.cursor import cursor_of
from models.read import before_of, line_of
from viz.app import settle
from viz.views.code import CodeView
from viz.views.machine.strip import MachineStrip
from viz.widgets.deck import ViewDeck

# One step of each lesson, walked call by call from the landing of the step before: short steps.
STEPS = [("rx-basics", 3), ("ath9k-page-pool", 3), ("ath11k-36bit-dma-mask", 3), ("bgmac-napi-skb-cache", 2),
         ("atlantic-page-pool", 3), ("ath10k-sdio-napi", 4), ("dma-bugs", 4)]
SIZE = (100, 30)           # each view's lines are built at this size, shown or not


def views(app) -> dict:
    return {(v.id or "")[2:]: v for v in app.screen.query_one(ViewDeck).views()}


def lit_of(view) -> frozenset:
    """What the view lights for its state, from a build at SIZE (the lines a paint would show)."""
    view.lit = frozenset()
    view.build_lines(*SIZE)
    return view.lit


def check_call(app) -> list[str]:
    """Each view against the cursor at this call; returns what was checked (so the test knows it ran)."""
    screen = app.screen
    frame = screen.frame
    sim = frame.sims[frame.shown]
    now = cursor_of(sim).now
    assert now is not None and now.seq == sim.rec.seq
    checked = []
    deck_views = views(app)
    first = now.first
    strip = screen.query_one(MachineStrip)
    ms = from_sim(sim, screen.follow, None, screen.trail).machine
    if first is not None:
        # the object the call moved first, where the call left it (a call may move it twice: map, then post)
        final = [m for m in now.moves if m.obj == first.obj][-1]
        assert (ms.machine, ms.state, ms.age) == (first.machine, final.dst, 0), (now.call, ms)
        text = "\n".join(t.plain for t in strip.build_lines(*SIZE))
        assert re.search(rf"┃ *{re.escape(final.dst)} *┃", text), (now.call, text)
        checked.append("machine")
    if "ring" in deck_views and now.descs and sim.bus == "pcie":
        assert lit_of(deck_views["ring"]) == {("desc", i) for i in now.descs}, now
        checked.append("ring")
    if "memory" in deck_views and now.phys:
        assert lit_of(deck_views["memory"]), now
        checked.append("memory")
    if "pool" in deck_views and sim.pool is not None and now.pages & set(sim.pool.pages):
        assert {("page", p) for p in now.pages & set(sim.pool.pages)} <= lit_of(deck_views["pool"]), now
        checked.append("pool")
    heads = [m for m in now.moves if m.machine == "skb_head"]
    if "skbcache" in deck_views and heads:
        assert lit_of(deck_views["skbcache"]) == {("head", int(heads[0].obj.split("#")[1]))}, now
        checked.append("skbcache")
    entries = frame.lesson.code_calls.get(frame.shown)
    code = deck_views.get("code")
    if entries and code is not None and frame.cursor is not None:     # inside the step (its end: its own line)
        events = list(sim.rec.events)
        want = line_of(entries, now.call, {m.machine for m in now.moves}, before_of(events, len(events) - 1))
        if want:
            assert code.lit_line()[0] == want, (now.call, code.lit_line())
            checked.append("code")
    return checked


@pytest.mark.slow
@pytest.mark.parametrize("lesson,step", STEPS)
async def test_every_view_lights_the_current_calls_object_for_every_call_of_a_step(lesson, step):
    app = app_for(lesson, step - 1)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        if screen.holding():                                   # the step before asks: answer it first
            await press(pilot, str(screen.lesson.steps[step - 2].ask.answer + 1))
        seen: set[str] = set()
        calls = 0
        for _ in range(400):                                   # to the step's first call
            await press(pilot, "right_square_bracket")
            if screen.frame.step == step:
                break
        if screen.holding():                                   # the step asks: answer, then walk its calls
            await press(pilot, str(screen.lesson.steps[step - 1].ask.answer + 1))
        while screen.frame.step == step and calls < 400:
            assert not screen.holding()
            seen.update(check_call(app))
            calls += 1
            await press(pilot, "right_square_bracket")
        assert calls >= 3
        # every lesson moves objects on a drawn machine; PCIe lessons light descriptors and code lines too
        assert "machine" in seen and ("code" in seen or not screen.lesson.code_calls)
        if lesson != "ath10k-sdio-napi":
            assert "ring" in seen and "memory" in seen


async def test_the_code_line_follows_the_call_across_functions():
    app = app_for("rx-basics", 2)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        code = app.screen.query_one("#side-code", CodeView)
        for _ in range(40):                     # to step 3's first call
            await press(pilot, "right_square_bracket")
            if app.screen.frame.step == 3:
                break
        lines = [code.lit_line()[0]]
        for _ in range(5):                      # its calls, short of its end (which lights the step's own line)
            await press(pilot, "right_square_bracket")
            lines.append(code.lit_line()[0])
        # refill (5), take the filled buffer (6), wrap it (7), hand it to GRO (8): in the pseudo-code's order
        assert [n for i, n in enumerate(lines) if i == 0 or n != lines[i - 1]][:4] == [5, 6, 7, 8], lines
        assert "this call" in code.lit_line()[1]


async def test_a_chosen_view_stays_chosen_while_brackets_walk_the_calls():
    app = app_for("rx-basics", 3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        deck = app.screen.query_one(ViewDeck)
        for _ in range(len(deck.keys)):
            if deck.active == "machine":
                break
            await press(pilot, "tab")
        assert deck.active == "machine"
        for _ in range(5):
            await press(pilot, "right_square_bracket")
            assert deck.active == "machine" and app.screen.query_one("#v-machine").display
        await press(pilot, "left")                           # a step: its own focus again
        assert deck.active == deck.lead != "machine"


async def test_a_step_boundary_brings_back_the_steps_own_variant():
    app = app_for("rx-basics", 2)                            # step 2 shows gro, step 3 shows gro
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await press(pilot, "v")
        assert screen.variant == "no-gro"
        n = 0
        while screen.frame.step == 2 and n < 200:
            await press(pilot, "right_square_bracket")
            assert screen.frame.step == 3 or screen.frame.shown == "no-gro"   # within step 2: the one v chose
            n += 1
        assert screen.frame.step == 3 and screen.frame.shown == "gro" and screen.variant is None
        assert screen.query_one(ViewDeck)._state.variant == "gro"
        await press(pilot, "left_square_bracket")            # back across the end: step 2's own variant
        assert screen.frame.step == 2 and screen.frame.shown == "gro"


async def test_following_across_a_step_end_shows_the_steps_own_variant():
    app = app_for("rx-basics", 3)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await press(pilot, "v", "left_square_bracket", "o")
        assert screen.follow and screen.frame.shown == "no-gro"
        for _ in range(6):
            await press(pilot, "right_square_bracket")
            if screen.frame.step != 3:
                break
        assert screen.frame.shown == screen.lesson.steps[screen.frame.step - 1].show


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_the_machine_is_drawn_as_boxes_and_arrows_at_every_size(size):
    app = app_for("rx-basics", 3)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        strip = app.screen.query_one(MachineStrip)
        deck = app.screen.query_one(ViewDeck)
        assert strip.display and strip.size.height == 4 and strip.region.width == deck.region.width
        text = "\n".join(strip.render_line(y).text for y in range(strip.size.height))
        ms = from_sim(app.screen.frame.sims["gro"]).machine
        assert re.search(rf"┃ *{re.escape(ms.state)} *┃", text)         # the state it is in, lit
        assert "▶" in text and re.search(r"[╭┏]─*━*[╮┓]", text)           # arrows and boxes, not a list
        for _ in range(3):
            await press(pilot, "left_square_bracket")          # back through step 3's calls (4 asks)
            ms = from_sim(app.screen.frame.sims[app.screen.frame.shown]).machine
            text = "\n".join(strip.render_line(y).text for y in range(strip.size.height))
            assert re.search(rf"┃ *{re.escape(ms.state)} *┃", text)


async def test_the_strip_steps_aside_for_the_whole_machine():
    app = app_for("rx-basics", 10)                           # the step that focuses the machine
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.screen.query_one("#v-machine").display
        assert not app.screen.query_one(MachineStrip).display
