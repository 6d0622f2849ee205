"""What a question keeps back beyond its counters: the figure or log line that answers it is on no
view while it waits, and is there once it is answered.

Each case is a question a reviewer found answered on screen (issue: "a question never shows its
answer before it is answered"): the lesson names what answers it (`hide_counts`, `hide_figures`),
and the views keep it back, at the size the leak was seen at.
"""

from __future__ import annotations

import re

import pytest

from viz.app import make_app, settle
from viz.views.base import ModelView

# (lesson, step, size, view, what answers it (a regex per line of that view), what says it is kept back)
CASES = [
    # the log of the poll the held screen shows: GRO steals each frame's data into the held skb,
    # flushes one skb of 32 segments, and gro_normal_list hands up one skb
    ("ath10k-sdio-napi", 7, (160, 50), "v-log",
     r"napi_skb_free_stolen_head|napi_gro_flush|gro_normal_list|napi_gro_complete|data now frag"
     r"|segment\(s\) of the flow held|segs \d+", r"napi_gro_receive .*\(kept back"),
    # the CPU breakdown: the stack takes 94% of a frame
    ("ath9k-page-pool", 12, (80, 24), "v-counters", r"^.*\bstack\b.* ns", r"by category: kept"),
    # the pool's header: 3 fragments of 2336 B to an 8 KiB page
    ("ath9k-page-pool", 8, (160, 50), "v-pool", r"KiB pages|frags of|/8192", r"page size, fragments a page: kept back"),
    # which way pages come back, from the other end: the cache's fill, the alloc split, A and R pages
    ("atlantic-page-pool", 8, (160, 50), "v-pool", r"alloc cache +▕|ptr_ring +▕|alloc: fast|\bA \d|\bR \d",
     r"back in the pool: \d+ pages"),
    # the page-flip driver's stats: the first frame's refill counted one pg_flip
    ("atlantic-page-pool", 2, (160, 50), "v-pool", r"\bflips \d", r"flips, reuses, lost: kept back"),
    # what GRO holds while the poll runs: the segments merged into one skb
    ("rx-basics", 5, (80, 24), "v-napi", r"GRO holds \d+ seg", r"GRO holds … kept back"),
]


def lines(app, key: str, height: int = 30) -> list[str]:
    view = app.screen.query_one(f"#{key}", ModelView)
    return [strip.text for strip in view._build(76, height)]


@pytest.mark.parametrize("lesson,step,size,key,answer,kept", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
async def test_the_answer_is_kept_back_until_the_question_is_answered(lesson, step, size, key, answer, kept):
    app = make_app(lesson=lesson, step=step, remember=False)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.holding()
        held = lines(app, key)
        assert not [line for line in held if re.search(answer, line)], held
        assert any(re.search(kept, line) for line in held), held
        await pilot.press(str(screen.lesson.steps[step - 1].ask.answer + 1))
        await settle(app, pilot)
        assert not screen.holding()
        # the step ran on past its poll: the log's lines of it are further back than a screen
        shown = lines(app, key, 300 if key == "v-log" else 30)
        assert any(re.search(answer, line) for line in shown), shown
        assert not any(re.search(kept, line) for line in shown), shown


async def test_a_figure_is_kept_back_in_every_variant_and_at_the_step_before():
    """`hide_figures` holds in each variant (the stack's share answers ath9k's question in both), and
    on the step before the question (which the held screen shows), but not two steps before."""
    app = make_app(lesson="ath9k-page-pool", step=11, remember=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert not screen.holding()
        for variant in ("before", "after"):
            assert "cpu_breakdown" in screen.hidden_counts(variant, 11)
            assert "cpu_breakdown" not in screen.hidden_counts(variant, 10)
        assert any("by category: kept" in line for line in lines(app, "v-counters"))
