"""Pilot tests of where the event log opens: at the step's first call, not its last.

A step's text reads its calls from the first; at 80x24 the log has six rows, so a
log that opened at the newest calls hid the ones the text names (rx-basics 3:
the replacement's `netdev_alloc_frag` and `dma_map_single`). Stepping by call
the log follows the call the screen is at.
"""

from __future__ import annotations

from test_app import app_for, press

from viz.app import settle
from viz.views.log import LogView, stamp


def log_rows(app) -> list[str]:
    """The event log's lines on screen, without the legend and the blank ones."""
    view = app.screen.query_one("#v-log", LogView)
    lines = [view.render_line(y).text for y in range(view.size.height)]
    return [ln for ln in lines if ln.strip()][:-1]


def event(app, seq: int):
    frame = app.screen.frame
    return next(e for e in frame.sims[frame.shown].rec.events if e.seq == seq)


def shows(row: str, e) -> bool:
    return row.lstrip().startswith(stamp(e.t_ns).strip()) and f" {e.call} " in row + " "


async def test_a_step_opens_the_log_at_its_first_call_and_brackets_follow():
    app = app_for("rx-basics", 3)                   # focus: log; more calls than the log has rows at 80x24
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        frame = app.screen.frame
        first, last = frame.calls[frame.shown]
        rows = log_rows(app)
        assert last - first + 1 > len(rows)         # the step does not fit: where it opens matters
        assert shows(rows[0], event(app, first)), rows
        assert not any(shows(r, event(app, last)) for r in rows)
        screen = app.screen
        screen.playing = True                           # playing, the state a step gets follows the newest
        assert screen._state(frame, frame.shown).opens_at is None
        screen.playing = False
        assert screen._state(frame, frame.shown).opens_at == first
        await press(pilot, "left_square_bracket")       # stepping by call: the newest call at the bottom
        frame = app.screen.frame
        at = frame.sims[frame.shown].rec.seq
        assert shows(log_rows(app)[-1], event(app, at)), log_rows(app)


async def test_a_step_that_runs_nothing_opens_the_log_at_the_run_its_text_reads():
    app = app_for("dma-bugs", 3)             # "the clean variant received the same frame. Read its log"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        frame = app.screen.frame
        first, last = frame.calls[frame.shown]
        assert first > last                          # step 3 runs nothing
        before = app.screen.ready[2] if 2 in app.screen.ready else None
        start = app.screen.moves.session.run.seq_at(1, frame.shown) + 1     # step 2's first call
        assert before is None or before.calls[frame.shown][0] == start
        assert shows(log_rows(app)[0], event(app, start)), log_rows(app)



async def test_a_report_the_step_made_is_never_left_below_the_log():
    """dma-bugs 5 is about the checker's report of a device write past its mapping: at 80x24 the log
    opened at the step's first call and the report was the eleventh line of six (at 160x50 its message
    was cut after the first line). The view ends with the whole report instead."""
    app = app_for("dma-bugs", 5)
    async with app.run_test(size=(80, 24)) as pilot:
        for size in ((80, 24), (160, 50)):
            await pilot.resize_terminal(*size)
            await settle(app, pilot)
            rows = log_rows(app)
            text = " ".join(" ".join(rows).split())
            assert "VIOLATION" in text and "490 bytes past its end" in text, (size, rows)
