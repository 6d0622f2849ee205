"""Pilot tests: text that did not fit gives way by rule, never cut mid-word.

- the RX path strip at 80 columns wrote ath10k's delivery "workque" (a fixed cut of the name);
- at 160x50 the memory view cut "◀ this c…" and the NAPI view "ACK/seg so f…": their glosses
  go first (the legend says what ◀ is; "so far" is what ACK/seg already means);
- holding a question, the status line dropped a long variant name ("missing-unmap") to keep the
  hint whole: the hint's aside in brackets gives way first.
"""

from __future__ import annotations

from test_app import app_for

from viz.app import settle
from viz.views.base import ModelView
from viz.widgets.pathstrip import PathStrip
from viz.widgets.status import StatusLine


def lines(view: ModelView) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(view.size.height)]


async def test_the_path_strip_writes_a_delivery_whole_at_80_columns():
    app = app_for("ath10k-sdio-napi", 5)            # the `before` variant delivers from a workqueue
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        text = app.screen.query_one(PathStrip).render().plain
        assert "workqueue" in text and "…" not in text, text


async def test_glosses_give_way_before_a_view_cuts_a_word_at_160x50():
    app = app_for("bgmac-napi-skb-cache", 2)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        napi = [ln for ln in lines(app.screen.query_one("#v-napi", ModelView)) if "ACK/seg" in ln]
        assert napi and not any("…" in ln for ln in napi), napi
        memory = [ln for ln in lines(app.screen.query_one("#v-memory", ModelView)) if "◀" in ln]
        assert memory and not any("…" in ln for ln in memory), memory


async def test_holding_a_question_the_status_line_keeps_a_long_variant_name():
    app = app_for("dma-bugs", 8)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.holding()
        shown = screen.frame.shown
        assert len(shown) >= 12                     # "missing-unmap"
        text = screen.query_one(StatusLine).render().plain
        assert shown in text and "1–3 to answer, → to reveal" in text, text
