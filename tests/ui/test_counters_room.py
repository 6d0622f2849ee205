"""Pilot tests: at 80x24 a step that watches counters shows every one of them.

The machine strip under the views takes four rows; beside it the counters view
of ath9k step 11 (six watched counters) showed two and "… 17 more". The strip
now gives its rows to a view that needs them for its step (ModelView.rows_wanted),
and only then: with three watched counters (rx-basics 6) it stays, and tabbing to
a view that claims nothing brings it back.
"""

from __future__ import annotations

from test_app import app_for, press

from viz.app import settle
from viz.views.counters import CountersView
from viz.views.machine.strip import MachineStrip


def counters_text(app) -> str:
    view = app.screen.query_one("#v-counters", CountersView)
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def test_every_watched_counter_is_on_screen_at_80x24():
    app = app_for("ath9k-page-pool", 11)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        spec = app.screen.lesson.steps[10]
        assert spec.focus == "counters" and len(spec.watch) >= 6
        text = counters_text(app)
        for name in spec.watch:
            assert f"▸{name}"[:20] in text, (name, text)       # a long name may end in "…"
        assert not app.screen.query_one(MachineStrip).display
        await press(pilot, "tab")                           # a view that claims no rows: the strip is back
        assert app.screen.query_one(MachineStrip).display


async def test_the_strip_stays_when_the_watched_counters_fit():
    app = app_for("rx-basics", 6)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        text = counters_text(app)
        for name in app.screen.lesson.steps[5].watch:
            assert f"▸{name}" in text
        assert app.screen.query_one(MachineStrip).display
