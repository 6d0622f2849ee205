"""Progress in the player: End and a long fast-forward show a bar with the share done.

The model reports after each lesson step (End) and each chunk of frames
(fast-forward); the status line draws the bar while the reader waits. The
tests record every report the player got rather than timing anything.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from viz.app import make_app, settle
from viz.screens.player import PlayerScreen
from viz.session import FF_CHUNK
from viz.widgets.status import StatusLine


class _StatusHost(App):
    def compose(self) -> ComposeResult:
        yield StatusLine()


async def test_the_status_line_draws_the_share_done():
    app = _StatusHost()
    async with app.run_test(size=(80, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.busy = "computing step 11/11…"
        status.progress = 0.42
        await pilot.pause()
        text = status.render().plain
        assert "computing step 11/11…" in text and text.endswith(" 42%")
        bar = text.split("…", 1)[1]
        assert bar.count("█") == 10 and bar.count("░") == 14       # 42% of 24 cells
        status.progress = None
        await pilot.pause()
        assert "█" not in status.render().plain and "%" not in status.render().plain


def _spy(monkeypatch) -> list[tuple[int, int, float | None]]:
    """Every progress report the player receives: (done, total, share the status line then shows)."""
    seen: list[tuple[int, int, float | None]] = []
    original = PlayerScreen._on_progress

    def record(self, done: int, total: int) -> None:
        original(self, done, total)
        seen.append((done, total, self.query_one(StatusLine).progress))

    monkeypatch.setattr(PlayerScreen, "_on_progress", record)
    return seen


@pytest.mark.slow
async def test_end_reports_each_step_up_to_the_last(monkeypatch):
    from viz.session import Session
    # The worker runs the last step ahead once it has nothing else to do; here it must not.
    monkeypatch.setattr(Session, "at_end_ready", lambda self: True)
    seen = _spy(monkeypatch)
    app = make_app(lesson="rx-basics")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        total = len(app.screen.lesson.steps)
        await pilot.press("end")
        await settle(app, pilot)
        assert app.screen.frame.step == total
        assert app.screen.query_one(StatusLine).progress is None        # the frame landed: bar gone
    dones = [d for d, _, _ in seen]
    assert dones == sorted(dones) and dones[-1] == seen[-1][1]          # up to the whole way
    assert all(share == d / t for d, t, share in seen)                  # each drawn as it came


@pytest.mark.ahead
async def test_end_after_the_lesson_settles_is_computed_already(monkeypatch):
    """An idle worker runs the last step's own variant ahead: End only shows it (no progress)."""
    seen = _spy(monkeypatch)
    app = make_app(lesson="rx-basics", remember=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        session = app.screen.moves.session
        assert session.at_end_ready() and session.computed == 1      # step 1 ahead, and the end alone
        seen.clear()
        await pilot.press("end")
        await settle(app, pilot)
        assert app.screen.frame.step == len(app.screen.lesson.steps) and seen == []


@pytest.mark.slow
async def test_fast_forward_reports_each_chunk(monkeypatch):
    seen = _spy(monkeypatch)
    app = make_app(lesson="rx-basics", step=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        seen.clear()                        # opening at step 1 reported its one step
        app.screen._ff(3 * FF_CHUNK)
        await settle(app, pilot)
        assert app.screen.frame.extra == 3 * FF_CHUNK
    assert [(d, t) for d, t, _ in seen] == [(FF_CHUNK * i, 3 * FF_CHUNK) for i in (1, 2, 3)]


@pytest.mark.slow
async def test_only_the_end_screen_after_every_step_finishes_a_lesson():
    from shipped import shipped_lesson

    from viz.screens.end import EndScreen
    total = len(shipped_lesson("rx-basics").steps)
    app = make_app(lesson="rx-basics", step=total, remember=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.frame.step == total                               # --step to the last step
        assert "rx-basics" not in app.course.finished and not app.store.get("rx-basics").finished
        await pilot.press("right")
        await settle(app, pilot)
        assert isinstance(app.screen, EndScreen)
        # The end, reached by a jump: the steps before were never shown, so it is not finished.
        assert "rx-basics" not in app.course.finished and app.store.get("rx-basics").seen == {total}
        await pilot.press("escape", "home")
        await settle(app, pilot)
        for _ in range(total + 1):            # every step (a question's first → shows its outcome)
            while screen.frame.step < total and screen.holding():
                await pilot.press("right")
                await settle(app, pilot)
            await pilot.press("right")
            await settle(app, pilot)
            if isinstance(app.screen, EndScreen):
                break
        assert isinstance(app.screen, EndScreen)
        assert app.store.get("rx-basics").seen == set(range(1, total + 1))
        assert "rx-basics" in app.course.finished and app.store.get("rx-basics").finished
