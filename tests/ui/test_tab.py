"""Tab always changes what is on screen, at every size the player lays views out for.

At 120x40 two views are stacked; the next view in order was often the second
one already showing, so the first Tab only moved the highlight, which a
person (or a plain-text capture) could not see.
"""

from __future__ import annotations

import pytest

from viz.app import make_app, settle
from viz.widgets.deck import ViewDeck


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 50)])
async def test_each_tab_brings_a_view_that_was_not_on_screen(size):
    app = make_app(lesson="rx-basics", step=1)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        deck = app.screen.query_one(ViewDeck)
        seen = set(deck.shown_keys())
        for _ in range(len(deck.pool()) - len(seen)):
            before = deck.shown_keys()
            await pilot.press("tab")
            await settle(app, pilot)
            after = deck.shown_keys()
            assert deck.active in after and deck.active not in before
            assert deck.query_one(f"#v-{deck.active}").display
            seen |= set(after)
        assert seen == set(deck.pool())             # every view came up
