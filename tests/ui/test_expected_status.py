"""The player's status line tells a violation the lesson shows on purpose from one it does not."""

from __future__ import annotations

from pathlib import Path

from viz.app import make_app, settle
from viz.widgets.status import StatusLine

EXPECT = str(Path(__file__).resolve().parents[1] / "data" / "lessons" / "expect-demo.yaml")


async def test_an_expected_violation_is_marked_expected_not_as_an_error():
    app = make_app(lesson=EXPECT, step=2)          # step 2 takes the broken variant down
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        text = app.screen.query_one(StatusLine).render().plain
    assert "⚑ leak-at-teardown (expected)" in text and "⚠" not in text
