"""Presenter mode: the theme's contrast, zoom, blank, the timer, and speaker notes in a second terminal."""

from __future__ import annotations

import io
import time
from contextlib import redirect_stdout

import pytest
from rich.color import Color as RichColor
from rich.style import Style

from viz import notes
from viz.app import make_app, settle
from viz.cli import main
from viz.screens.presenting import BlankScreen
from viz.theme import PRESENT, contrast
from viz.widgets.deck import ViewDeck
from viz.widgets.paper_vs_model import HeadlinePanel
from viz.widgets.status import StatusLine

MIN_CONTRAST = 4.5


async def press(pilot, *keys):
    for key in keys:
        await pilot.press(key)
        await settle(pilot.app, pilot)


def rgb(color: RichColor | None, fallback: tuple[int, int, int]) -> tuple[int, int, int]:
    if color is None or color.is_default:
        return fallback
    triplet = color.get_truecolor()
    return (triplet.red, triplet.green, triplet.blue)


def pairs(app) -> list[tuple[str, float]]:
    """(where, contrast) for every widget's own text colour and every component class it uses."""
    out = []
    back = rgb(RichColor.parse(PRESENT.background), (0, 0, 0))
    for widget in app.screen.walk_children(with_self=True):
        if not widget.display or not widget.is_mounted:
            continue
        base: Style = widget.rich_style
        bg = rgb(base.bgcolor, back)
        styles = [("", base)]
        for name in getattr(widget, "COMPONENT_CLASSES", ()):
            styles.append((name, widget.get_component_rich_style(name, partial=True)))
        for name, style in styles:
            if name.endswith(("--track", "--sep")) or "scrollbar" in name or name.startswith("toast"):
                continue                      # separator glyphs and scrollbars: not text
            fg_c, bg_c = style.color, style.bgcolor
            if style.reverse:
                fg_c, bg_c = bg_c or base.bgcolor, fg_c or base.color
            fg = rgb(fg_c, rgb(base.color, (255, 255, 255)))
            under = rgb(bg_c, bg)
            out.append((f"{type(widget).__name__}#{widget.id} {name}".strip(), contrast(fg, under)))
    return out


@pytest.mark.slow          # ten screens of five lessons at 160x50
async def test_every_text_colour_of_the_presenter_theme_has_contrast():
    seen = {}
    for lesson, step, keys in (("rx-basics", 4, ()), ("rx-basics", 5, ("c",)), ("ath11k-36bit-dma-mask", 1, ()),
                               ("ath9k-page-pool", 7, ()), ("ath10k-sdio-napi", 1, ()),
                               ("bgmac-napi-skb-cache", 2, ()), (None, 0, ()), ("rx-basics", 0, ("question_mark",)),
                               ("rx-basics", 14, ("right",)), ("rx-basics", 14, ("s",))):
        app = make_app(lesson=lesson, step=step, present=True, remember=False)
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(app, pilot)
            assert app.theme == PRESENT.name
            await press(pilot, *keys)
            for where, ratio in pairs(app):
                seen[where] = min(ratio, seen.get(where, 99))
    low = {w: round(r, 2) for w, r in seen.items() if r < MIN_CONTRAST}
    print("\n".join(f"{w}: {r}" for w, r in sorted(low.items())))
    assert not low, low
    assert len(seen) > 60                     # the walk found the app's styles, not an empty screen


@pytest.mark.slow
async def test_zoom_blank_timer_and_larger_figures():
    app = make_app(lesson="ath11k-36bit-dma-mask", step=1, present=True, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.has_class("-present") and screen.query_one(HeadlinePanel).has_class("-present")
        assert screen.query_one(StatusLine).clock.startswith("⏱ 00:0")
        deck = screen.query_one(ViewDeck)
        await press(pilot, "z")
        assert deck.zoomed
        active = screen.query_one(f"#v-{deck.active}")
        assert active.region.width == 120 and active.region.height >= 38       # the whole screen
        assert screen.query_one("#side").region.width == 0
        await press(pilot, "z")
        assert not deck.zoomed and screen.query_one("#side").region.width > 0
        await press(pilot, "b")
        assert isinstance(app.screen, BlankScreen)
        await press(pilot, "x")
        assert app.screen is screen


@pytest.mark.slow
async def test_notes_follow_each_presenter_and_two_do_not_mix():
    one = make_app(lesson="rx-basics", step=1, present=True, remember=False)
    two = make_app(lesson="ath11k-36bit-dma-mask", step=0, present=True, remember=False)
    assert one.notes.session != two.notes.session
    async with one.run_test(size=(80, 24)) as p1:
        await settle(one, p1)
        async with two.run_test(size=(80, 24)) as p2:
            await settle(two, p2)
            await press(p2, "right")                            # ath11k step 1: the most recent presenter
            live = notes.sessions()
            assert {d["session"] for d in live} == {one.notes.session, two.notes.session}
            assert notes.pick(None)["lesson"] == "ath11k-36bit-dma-mask"
            await press(p1, "right", "right", "right")         # rx-basics step 4 asks a question
            mine = notes.pick(one.notes.session)
            assert (mine["lesson"], mine["step"]) == ("rx-basics", 4)
            assert "A prediction before anything reaches TCP" in mine["notes"] and mine["next_title"]
            printed: list[str] = []
            for _ in notes.follow(two.notes.session, printed.append, once=True):
                pass
            assert printed[0].startswith("── ath11k-36bit-dma-mask · step 1/11") and "memory map" in printed[0]
            out = io.StringIO()
            with redirect_stdout(out):
                assert main(["notes", "--session", one.notes.session, "--once"]) == 0
            assert "rx-basics · step 4/14" in out.getvalue()
        assert not two.notes.path.exists()                      # a presenter that quits removes its file
    assert notes.sessions() == []


def test_notes_follower_waits_for_a_presenter_then_prints_each_step(tmp_path):
    published = notes.NotesPublisher("test-1", tmp_path)
    from shipped import shipped_lesson
    lesson = shipped_lesson("rx-basics")
    printed: list[str] = []
    ticks = iter(range(4))

    def step(_):
        k = next(ticks)
        if k == 0:
            published.publish(lesson, 2)
        elif k == 1:
            published.publish(lesson, 3)
    for _ in notes.follow(None, printed.append, directory=tmp_path, sleep=step, limit=5):
        if len(printed) >= 3:
            break
    assert printed[0].startswith("waiting for a presenter")
    assert "step 2/14" in printed[1] and "step 3/14" in printed[2]


def test_notes_without_a_session_stay_with_one_presenter_of_two(tmp_path):
    """Two presenters, no --session: the follower locks onto the most recent one and never jumps."""
    from shipped import shipped_lesson
    basics, ath11k = shipped_lesson("rx-basics"), shipped_lesson("ath11k-36bit-dma-mask")
    first, second = notes.NotesPublisher("first", tmp_path), notes.NotesPublisher("second", tmp_path)
    first.publish(basics, 1)
    time.sleep(0.01)
    second.publish(ath11k, 1)                               # the most recently active at start
    printed: list[str] = []
    ticks = iter(range(10))

    def step(_):
        k = next(ticks)
        if k == 0:
            first.publish(basics, 2)                        # now the other one is the most recent...
        elif k == 1:
            second.publish(ath11k, 2)                       # ...and the followed one moves on
        elif k == 2:
            first.publish(basics, 3)
        elif k == 3:
            second.close()                                  # the followed presenter quits
        elif k == 5:
            first.publish(basics, 4)
    for _ in notes.follow(None, printed.append, directory=tmp_path, sleep=step, limit=5):
        if len(printed) >= 6:
            break
    assert printed[0].startswith("following presenter second") and "--session" in printed[0] \
        and "--list" in printed[0]
    assert printed[1].startswith("── ath11k-36bit-dma-mask · step 1/")
    assert printed[2].startswith("── ath11k-36bit-dma-mask · step 2/")   # never rx-basics while second runs
    assert printed[3].startswith("presenter second has ended")
    assert printed[4].startswith("── rx-basics · step 3/")              # then the one still running
    assert printed[5].startswith("── rx-basics · step 4/")


@pytest.mark.slow
async def test_presenting_z_zooms_the_headline_on_the_payoff_and_the_machine_elsewhere():
    from textual.widgets import Digits

    from viz.widgets.prose import Prose
    payoff = 10
    app = make_app(lesson="atlantic-page-pool", step=payoff, present=True, remember=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        panel = screen.query_one(HeadlinePanel)
        assert panel.display and panel.headline is not None
        # both figures large: the paper's and the model's, before and after
        big = {d.id: d.value for d in panel.query(Digits)}
        assert all(big[f"hl-{who}-{side}"] for who in ("paper", "model") for side in ("before", "after"))
        assert big["hl-paper-before"] == "2,240.0"
        await press(pilot, "z")
        assert screen.has_class("-zoom-headline") and panel.region.height >= 30
        assert screen.query_one(StatusLine).region.height == 1                 # the call and the timer stay
        await press(pilot, "z", "left", "z")                  # back, a step back, zoom: the machine
        deck = screen.query_one(ViewDeck)
        assert deck.zoomed and deck.active == "machine" and not screen.has_class("-zoom-headline")
        assert screen.query_one("#v-machine").region.width == 120
        await press(pilot, "z")
        # the narration is the step's `say` only, drawn at a heavier weight
        spec = screen.lesson.steps[screen.frame.step - 1]
        prose = screen.query_one("#n-say", Prose)
        assert prose.source == spec.say and prose.rich_style.bold


@pytest.mark.slow
async def test_a_question_steps_notes_carry_its_question_and_answer():
    app = make_app(lesson="rx-basics", step=4, present=True, remember=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        data = notes.pick(app.notes.session)
        spec = app.screen.lesson.steps[3]
        assert data["ask"] == {"question": spec.ask.question, "choices": list(spec.ask.choices),
                               "answer": spec.ask.answer, "explain": spec.ask.explain}
        text = notes.render(data, 100)
        assert "ask the room" in text and f"✓ {spec.ask.answer + 1}." in text


@pytest.mark.slow
async def test_presenting_at_80x24_each_large_figure_says_whole_what_it_is():
    """The room reads fitted, predicted or bounded beside the digits: at 80 columns the caption on one
    line was cut to "before fitted, after p"."""
    from textual.widgets import Static
    app = make_app(lesson="bgmac-napi-skb-cache", step=11, present=True, remember=False)    # the payoff
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        panel = app.screen.query_one(HeadlinePanel)
        assert panel.headline is not None
        for who, words in (("paper", "published"), ("model", "after predicted")):
            kind = panel.query_one(f"#hl-{who}-kind", Static)
            text = str(kind.render())
            assert words in text and "Mbit/s" in text
            assert kind.region.right <= panel.content_region.right, (who, kind.region, panel.content_region)
            assert kind.region.width >= max(len(line) for line in text.splitlines())
