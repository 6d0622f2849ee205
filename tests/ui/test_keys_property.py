"""No key sequence ends in a traceback: random bursts of keys through Pilot, on every lesson.

A person typing ordinary words into the player sends letters faster than
the screens change (`b` blanks, and the next letters reach the blank screen
before it is gone: that was a ScreenStackError). So keys come in bursts,
posted all at once as a terminal delivers them, with a pause between
bursts; the alphabet is the keys a lesson is driven with (letters, arrows,
`]`, `[`, `o`, Tab, Escape, ctrl+p). Lessons are the shipped ones and the
hostile corpus (tests/data/hostile). `Pilot`'s `run_test` re-raises any
exception the app hit, so finishing the session is the assertion.

Each example is one app session at 80x24, a few bursts long, without
waiting for the model between bursts (only at the end, with a cap), so an
example costs about a second; tests/conftest.py marks this `property`.
"""

from __future__ import annotations

import asyncio
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual import events

from models.lesson import lesson_paths
from viz.app import make_app

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile"
LESSONS = [str(p) for p in lesson_paths()] + [str(HOSTILE / "markup.yaml"), str(HOSTILE / "entities.yaml")]
# Every printable key a reader might type (q quits, which ends the example early: that is fine).
KEYS = [*string.ascii_lowercase, "left", "right", "up", "down", "right_square_bracket",
        "left_square_bracket", "tab", "escape", "ctrl+p", "space"]
CHARS = {"right_square_bracket": "]", "left_square_bracket": "[", "space": " "}


def key_event(key: str) -> events.Key:
    char = CHARS.get(key, key if len(key) == 1 else None)
    return events.Key(key, char)


async def drive(lesson: str, bursts: list[list[str]]) -> None:
    app = make_app(lesson=lesson, step=0, remember=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for burst in bursts:
            if not app.is_running:
                break
            for key in burst:                 # all at once, as a terminal delivers a typed word
                app.post_message(key_event(key))
            await pilot.pause(0.05)
        # What the bursts asked the model for lands, or the example stops waiting.
        for _ in range(40):
            if not any(w.is_running for w in app.workers):
                break
            await pilot.pause(0.05)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.sampled_from(LESSONS), st.lists(st.lists(st.sampled_from(KEYS), min_size=1, max_size=6),
                                          min_size=1, max_size=5))
def test_random_key_bursts_never_crash_the_player(lesson, bursts):
    asyncio.run(drive(lesson, bursts))


@pytest.mark.slow
def test_the_palette_taken_down_while_it_searches_is_no_traceback():
    """Found by the test above: zoom, then escape (back to the lessons), ctrl+p and a letter in one
    burst: the palette left the screen stack while its search ran (viz/palette.py)."""
    rx_basics = next(p for p in LESSONS if p.endswith("rx-basics.yaml"))
    asyncio.run(drive(rx_basics, [["z"], ["a", "r", "down", "escape", "ctrl+p", "a"], ["a", "x", "o"]]))


@pytest.mark.slow
def test_keys_after_the_last_screen_closed_are_dropped():
    """Found by the test above: `q` and more keys in one burst, after the map and the glossary."""
    rx_basics = next(p for p in LESSONS if p.endswith("rx-basics.yaml"))
    asyncio.run(drive(rx_basics, [["tab", "t", "a", "right", "m", "w"], ["space", "y", "o", "a", "a", "a"],
                                  ["a", "a", "a"], ["tab", "j", "tab", "q", "s", "t"]]))


@pytest.mark.slow
def test_typing_words_over_the_blank_screen():
    """The case that was found by hand: `b`, then a word typed at once."""
    asyncio.run(drive(LESSONS[0], [["b"], list("hello"), ["b", "w", "o", "r", "l", "d"]]))


@pytest.mark.slow
def test_reset_while_the_player_is_rebuilt_is_no_traceback():
    """Found by the test above: `r` reached the player while it had no status line (a glossary and a
    zoom earlier in the bursts)."""
    rx_basics = next(p for p in LESSONS if p.endswith("rx-basics.yaml"))
    asyncio.run(drive(rx_basics, [["w", "r"], ["v", "z"], ["down", "a", "x", "p", "left_square_bracket", "down"],
                                  ["y", "n", "a", "a", "a", "a"], ["w", "r"]]))


@pytest.mark.slow
def test_the_palette_gone_before_its_search_starts_is_no_traceback():
    """Found by the test above (in CI): escape, ctrl+p and more keys in one burst; the palette's search
    worker started after the palette had left, and its first lookup failed (viz/palette.py)."""
    ath11k = next(p for p in LESSONS if p.endswith("ath11k-36bit-dma-mask.yaml"))
    asyncio.run(drive(ath11k, [["u", "t", "b", "i", "g", "space"], ["x", "k", "d", "n", "r", "k"],
                               ["h", "j", "d", "h", "b"], ["escape", "ctrl+p", "tab", "f"],
                               ["b", "b", "h", "escape", "left"]]))



async def test_the_lessons_resumed_before_they_are_built_is_no_traceback():
    """Found by the test above (rx-basics, one burst: escape, b): escape builds the lessons the first
    time they are shown; `b` blanked the screen before they were composed, and when the blank screen
    went their resume looked up a list that did not exist yet (NoMatches). Here that resume, directly."""
    from viz.screens.home import HomeScreen
    app = make_app(lesson="rx-basics", remember=False)
    async with app.run_test(size=(80, 24)):
        HomeScreen(app.course).on_screen_resume()      # not composed: nothing to update yet


async def test_a_show_or_open_message_left_when_the_app_took_its_screens_down_is_dropped():
    """Esc ×4 at once from a lesson: the first posts ShowLessons, a later one quits, and the app took
    its screens down before the message came (found by the burst test above: 'No screens on stack')."""
    from viz.course import OpenLesson, ShowLessons
    app = make_app(lesson="rx-basics", step=0, remember=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
    assert app.screen_stack == []
    app.on_show_lessons(ShowLessons())
    app.on_open_lesson(OpenLesson("dma-bugs"))
    assert app.screen_stack == []
