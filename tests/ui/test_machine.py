"""The machine view: every state on screen at 160x50, the lit state and counts the data's, compact at 80x24.

The view is checked as text on screen, hosted alone and in the player with
the machine view active, alone and compared (the geometry of the drawings
is test_machine_layout's). What is lit is compared with
the machine records (`Reading.rx`), the only thing the view reads.
"""

from __future__ import annotations

import functools
import re

import pytest
from hosting import Host
from records import from_sim
from shipped import shipped_lesson
from test_machine_layout import AREAS, check_drawing

from models.read import MACHINES
from models.sim import Sim
from viz.app import make_app, settle
from viz.views import VIEW_CLASSES
from viz.views.base import ViewState
from viz.views.machine.layout import layers
from viz.views.machine.view import MachineView
from viz.widgets.deck import ViewDeck

SIDE = "[│┃├┤┣┫]"          # a box's side: its border, or the port an arrow leaves from
# Each lesson variant's machine, as the player shows it.
CASES = [("rx-basics", "gro", "rx_buffer"), ("ath9k-page-pool", "after", "pp_page"),
         ("atlantic-page-pool", "before", "flip_page"), ("atlantic-page-pool", "after-xdp", "pp_page"),
         ("ath10k-sdio-napi", "after", "gro_flow"), ("ath10k-sdio-napi", "before", "napi")]


@functools.cache
def sim_of(lesson: str, variant: str, frames: int = 200) -> Sim:
    sim = Sim(shipped_lesson(lesson).params_for(variant), trace=400)
    sim.run_frames(frames)
    return sim


def state(lesson: str, variant: str, frames: int = 200) -> ViewState:
    return ViewState(sim=sim_of(lesson, variant, frames), variant=variant, lesson=shipped_lesson(lesson), step=1)


@pytest.mark.parametrize("lesson,variant,machine", CASES)
def test_the_machine_a_run_takes_fits_a_compare_column(lesson, variant, machine):
    ms = from_sim(sim_of(lesson, variant), machine=machine).machine
    assert ms.machine == machine
    picked = MachineView().drawing(ms, *AREAS["compare"])
    assert picked is not None
    check_drawing(picked[0], *AREAS["compare"])


async def render(st: ViewState, size: tuple[int, int], **attrs) -> str:
    app = Host(MachineView)
    async with app.run_test(size=size) as pilot:
        view = app.query_one(MachineView)
        for name, value in attrs.items():
            setattr(view, name, value)
        view.state = st
        await laid_out(app, pilot)
        return "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))


async def laid_out(app, pilot) -> None:
    """The view painted, with its drawing (computed by a worker the first time a size is asked for)."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


def lit_box(text: str) -> str:
    """The name in the heavy box (the state the view lights)."""
    names = re.findall(r"[┃┣┫] *(\S+) *[┃┣┫]", text)
    assert len(set(names)) == 1, names
    return names[0]


def test_registered_as_a_view():
    assert VIEW_CLASSES["machine"] is MachineView


@pytest.mark.parametrize("lesson,variant,machine", CASES)
async def test_the_lit_state_is_the_one_the_data_gives(lesson, variant, machine):
    st = state(lesson, variant)
    ms = from_sim(st.sim, machine=machine).machine
    text = await render(st, (160, 50), machine=machine)
    for s in {s for layer in layers(machine).layers for s in layer}:
        assert re.search(rf"{SIDE} *{re.escape(s)} *{SIDE}", text), f"state {s} not drawn"
    assert lit_box(text) == ms.state
    # The model agrees: the followed object really is in that state.
    if ms.obj and ms.obj.startswith("buf#") and machine == "rx_buffer":
        bufs = {f"buf#{b.id}": b for b in st.sim.ring.bufs if b is not None}
        if ms.obj in bufs:
            assert bufs[ms.obj].state == ms.state
    if ms.last is not None and ms.age == 0:
        assert f"this call {ms.call}: {ms.last.src} → " in text
    elif ms.last is not None:
        assert f"{ms.age} call{'s' if ms.age != 1 else ''} ago" in text


@pytest.mark.parametrize("lesson,variant,machine", CASES)
def test_with_no_machine_asked_for_the_current_calls_object_is_drawn(lesson, variant, machine):
    """The cursor: the machine and object are those of the latest move, made by the current call or,
    when it moved nothing, a few calls before (and the view says how many)."""
    sim = sim_of(lesson, variant)
    ms = from_sim(sim).machine
    moved = [(ev, t) for ev in sim.rec.events for t in ev.transitions]
    ev, t = moved[-1]
    assert (ms.machine, ms.state) == (t.machine, t.dst)
    # a page_pool fragment is named by its page and offset (page#93+2048), the event by its buffer
    assert ms.obj == t.obj or (t.machine == "pp_frag" and ms.obj.startswith("page#"))
    assert ms.last is not None and ms.last.seq == ev.seq and ms.call == sim.rec.recent(1)[-1].call
    assert ms.age == sum(1 for e in sim.rec.events if ev.seq < e.seq)


async def test_a_machine_can_be_chosen():
    st = state("rx-basics", "gro")
    text = await render(st, (160, 50), machine="skb_head")
    assert "sk_buff head" in text
    for s in ("slab", "in-use", "napi-cache", "bulk-free"):
        assert re.search(rf"{SIDE} *{s} *{SIDE}", text)


async def test_80x24_is_compact_and_keeps_the_state_and_the_edge_just_taken():
    st = state("rx-basics", "gro")
    ms = from_sim(st.sim, machine="rx_buffer").machine
    text = await render(st, (80, 24), machine="rx_buffer")
    # the compact drawing: boxes and arrows (the state came from, the arrow, the state lit), not a list
    assert re.search(rf"[│╭╰] *{re.escape(ms.last.src)} *[│╮╯]", text)
    assert lit_box(text) == ms.state and "▶" in text
    assert ms.last is not None and f"{ms.last.src} → " in text
    assert re.search(r"next: \S+", text)


async def test_a_drawing_is_laid_out_off_the_event_loop():
    """A mounted view asked for a size it has no drawing for gets None (it paints its compact form) and a
    worker computes the drawing; the view then repaints with it."""
    from viz.views.machine import view as view_module

    st = state("rx-basics", "gro", 120)
    app = Host(MachineView)
    async with app.run_test(size=(150, 47)) as pilot:
        view = app.query_one(MachineView)
        view.machine = "rx_buffer"
        view.state = st
        await laid_out(app, pilot)
        ms = view.data().machine
        view_module._CHOSEN.clear()
        assert view.drawing(ms, 101, 41) is None
        await laid_out(app, pilot)
        got = view.drawing(ms, 101, 41)
        assert got is not None and got[0].machine == "rx_buffer"


async def test_counts_are_the_datas():
    st = state("rx-basics", "gro")
    ms = from_sim(st.sim, machine="rx_buffer").machine
    text = await render(st, (160, 50), machine="rx_buffer")
    n = ms.counts[("allocated", "dma_map_single", "mapped")]
    assert re.search(rf"dma_map_single {n:,}".replace(",", " "), text)
    assert "n transitions this run" in text      # the model counts every move on every edge


async def player(lesson: str, step: int, size: tuple[int, int], compare: bool = False):
    app = make_app(lesson=lesson, step=step, compare=compare)
    app.animation_level = "none"
    return app


async def show_machine(app, pilot) -> None:
    await settle(app, pilot)
    deck = app.screen.query_one(ViewDeck)
    deck.tabbed = True
    deck.active = "machine"
    await settle(app, pilot)


@pytest.mark.parametrize("lesson,step", [("rx-basics", 9), ("ath9k-page-pool", 5),
                                         pytest.param("atlantic-page-pool", 3, marks=pytest.mark.slow),
                                         ("ath10k-sdio-napi", 7)])
async def test_in_the_player_at_160x50_the_machine_takes_the_deck_and_shows_every_state(lesson, step):
    app = await player(lesson, step, (160, 50))
    async with app.run_test(size=(160, 50)) as pilot:
        await show_machine(app, pilot)
        view = app.screen.query_one("#v-machine", MachineView)
        assert view.display and view.size.width >= 90          # the whole deck, not a grid cell
        text = "\n".join(view.render_line(y).text for y in range(view.size.height))
        ms = view.data().machine
        for s in {s for layer in layers(ms.machine).layers for s in layer}:
            assert re.search(rf"{SIDE} *{re.escape(s)} *{SIDE}", text), f"{s} not on screen"
        assert lit_box(text) == ms.state


@pytest.mark.slow
async def test_compare_draws_both_machines_side_by_side():
    app = await player("ath9k-page-pool", 5, (160, 50), compare=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await show_machine(app, pilot)
        assert app.screen.has_class("-deck-wide")              # the narration stepped aside
        texts = {}
        for side in ("a", "b"):
            view = app.screen.query_one(f"#{side}-machine", MachineView)
            texts[side] = "\n".join(view.render_line(y).text for y in range(view.size.height))
        # each column draws the machine of its own variant's current call's object, lit
        for side in ("a", "b"):
            ms = app.screen.query_one(f"#{side}-machine", MachineView).data().machine
            assert MACHINES[ms.machine][0].split(" (")[0] in texts[side] and "┃" in texts[side]
        await pilot.press("c")                                  # compare off: the narration is back
        await settle(app, pilot)
        assert not app.screen.has_class("-deck-wide")


# ---------------------------------------------------------------------- snapshots of the view alone
@pytest.mark.parametrize("lesson,variant", [("rx-basics", "gro"), ("ath9k-page-pool", "after")])
async def test_snapshot_alone(lesson, variant, svg_snapshot):
    from viz.screenshot import portable

    st = state(lesson, variant)
    app = Host(MachineView)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(MachineView).state = st
        for size in ((80, 24), (160, 50)):
            await pilot.resize_terminal(*size)
            await laid_out(app, pilot)
            assert portable(app.export_screenshot(title="machine")) == svg_snapshot(name=f"{size[0]}x{size[1]}")
