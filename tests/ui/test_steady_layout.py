"""A step moves as little as it can: the wide player's pseudo-code stays put, and marking the
step's focus view restyles nothing.

- On a wide screen the side column's pseudo-code sits at the column's foot at a
  height that does not depend on the step (the text above takes what is left),
  so stepping through a lesson never moves it, whatever the length of each
  step's text; only the payoff step's headline takes its place.
- The deck marks its lead view (both grid columns) and the active view (the
  accent border) with the view's own styles: the mark follows the focus view
  from step to step and the theme's accent after a theme change.
"""

from __future__ import annotations

from textual.color import Color

from viz.app import make_app, settle
from viz.views.base import ModelView
from viz.widgets.deck import ViewDeck

LESSON = "atlantic-page-pool"


async def test_the_side_code_keeps_its_place_from_step_to_step():
    app = make_app(lesson=LESSON, step=1, remember=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        code = screen.query_one("#side-code", ModelView)
        prose = screen.query_one("#n-say")
        regions, texts = set(), set()
        while screen.frame.step < screen.lesson.payoff_step - 1:
            if not screen.holding():            # a question's panel takes rows from the text, not the code
                regions.add(code.region)
                texts.add(prose.source)
            await pilot.press("right")
            await settle(app, pilot)
        assert len(texts) > 3                   # steps with texts of different lengths went by
        assert len(regions) == 1
        region = regions.pop()
        assert region.bottom == screen.query_one("#legend").region.y    # at the foot of the column
        lines = max(len(code) for code in screen.lesson.pseudocode.values())
        assert region.height >= lines + 2                                # the longest variant's code fits


async def test_the_payoff_headline_takes_the_code_place():
    app = make_app(lesson=LESSON, remember=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        screen.goto(screen.lesson.payoff_step)
        await settle(app, pilot)
        while screen.holding():
            await pilot.press("right")
            await settle(app, pilot)
        assert screen.query_one("#headline").display
        assert not screen.query_one("#side-code").display
        await pilot.press("left")
        await settle(app, pilot)
        assert screen.query_one("#side-code").display


def _accent(app) -> Color:
    return Color.parse(app.theme_variables["accent"])


async def test_the_marks_follow_the_focus_view_and_the_theme():
    app = make_app(lesson=LESSON, step=3, remember=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        deck = screen.query_one(ViewDeck)
        first = deck.query_one(f"#v-{deck.lead}", ModelView)
        assert first.styles.column_span == 2
        assert first.styles.border_top == ("round", _accent(app))
        while deck.lead == first.id[2:] or screen.holding():
            await pilot.press("right")
            await settle(app, pilot)
        second = deck.query_one(f"#v-{deck.lead}", ModelView)
        assert second.styles.column_span == 2 and second.styles.border_top == ("round", _accent(app))
        assert first.styles.column_span == 1
        assert first.styles.border_top[1] != _accent(app)        # back to its CSS border
        assert not second.classes & {"-lead", "-active"}         # marked without a class change
        app.theme = "nord" if app.theme != "nord" else "gruvbox"
        await settle(app, pilot)
        assert second.styles.border_top == ("round", _accent(app))
        assert second.styles.border_title_color == _accent(app)


async def test_at_80x24_the_heading_and_the_text_take_the_rows_their_step_needs():
    # A step asks for a layout pass only when its heading or text changes height; each step's
    # rows must still be those its own content needs (up to the text's cap), with the view below.
    app = make_app(lesson="rx-basics", step=1, remember=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        head, prose = screen.query_one("#n-head"), screen.query_one("#n-say")
        heights = set()
        while screen.frame.step < len(screen.lesson.steps):
            width = head.content_size.width
            assert head.size.height == head.get_content_height(head.content_size, app.size, width)
            cap = int(prose.styles.max_height.value)
            assert prose.size.height == min(prose.virtual_size.height, cap), screen.frame.step
            assert screen.query_one(ViewDeck).region.y >= prose.region.bottom
            heights.add(prose.size.height)
            await pilot.press("right")
            await settle(app, pilot)
        assert len(heights) > 1                 # steps whose text fits and steps where it is capped
