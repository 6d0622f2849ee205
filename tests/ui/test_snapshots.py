"""SVG snapshots of the app at 80×24 and 160×50: each view as a step's focus, home, help, compare.

Compared with syrupy (one .svg file per snapshot under __snapshots__/). The
app has no clock on screen, no animation and no blinking cursor here, and
the model is deterministic, so a difference is a real change. After an
intended change, inspect the new SVGs and run
`pytest tests/ui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import pytest

from viz.app import make_app, settle

SIZES = [(80, 24), (160, 50)]

# view -> (lesson, step) whose focus is that view
VIEW_STEPS = {
    "ring": ("rx-basics", 1),
    "napi": ("rx-basics", 2),
    "log": ("rx-basics", 3),
    "counters": ("rx-basics", 6),
    "memory": ("ath11k-36bit-dma-mask", 1),
    "code": ("ath11k-36bit-dma-mask", 6),
    "bus": ("ath10k-sdio-napi", 1),
    "skbcache": ("bgmac-napi-skb-cache", 2),
    "pool": ("ath9k-page-pool", 7),
}
# Views no lesson step focuses (yet): snapshotted made active, as Tab makes them.
ACTIVE_STEPS = {
    "machine": ("rx-basics", 10),
    "passport": ("rx-basics", 10),
}


async def shoot(lesson, step, snapshot, keys=(), compare=False, sizes=SIZES, active="") -> None:
    """Snapshot the app at each size in turn (one app, resized: half the start-ups and steps)."""
    app = make_app(lesson=lesson, step=step, compare=compare)
    app.animation_level = "none"
    async with app.run_test(size=sizes[0]) as pilot:
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        if active:
            from viz.widgets.deck import ViewDeck
            deck = app.screen.query_one(ViewDeck)
            deck.tabbed = True
            deck.active = active
            await settle(app, pilot)
        for size in sizes:
            await pilot.resize_terminal(*size)
            await settle(app, pilot)
            assert app.export_screenshot(title="rxviz") == snapshot(name=f"{size[0]}x{size[1]}")


def test_every_view_has_a_snapshot_step():
    from shipped import shipped_lesson

    from models.calls import VIEWS

    assert set(VIEW_STEPS) | set(ACTIVE_STEPS) == set(VIEWS)
    for view, (lesson, step) in VIEW_STEPS.items():
        assert shipped_lesson(lesson).steps[step - 1].focus == view


@pytest.mark.parametrize("view", sorted(VIEW_STEPS))
async def test_view(view, svg_snapshot):
    lesson, step = VIEW_STEPS[view]
    await shoot(lesson, step, svg_snapshot)


@pytest.mark.parametrize("view", sorted(ACTIVE_STEPS))
async def test_active_view(view, svg_snapshot):
    lesson, step = ACTIVE_STEPS[view]
    await shoot(lesson, step, svg_snapshot, active=view)


async def test_compare_machines(svg_snapshot):
    """rx_buffer's per-frame map/unmap loop beside page_pool's recycle loop."""
    await shoot("ath9k-page-pool", 5, svg_snapshot, compare=True, active="machine")


async def test_home(svg_snapshot):
    await shoot(None, 0, svg_snapshot)


async def test_help(svg_snapshot):
    await shoot("rx-basics", 0, svg_snapshot, keys=("question_mark",))


async def test_compare(svg_snapshot):
    await shoot("rx-basics", 5, svg_snapshot, compare=True)


async def test_too_small(svg_snapshot):
    await shoot("rx-basics", 1, svg_snapshot, sizes=[(60, 20)])


async def test_lesson_map(svg_snapshot):
    await shoot("rx-basics", 6, svg_snapshot, keys=("m",))


async def test_glossary(svg_snapshot):
    await shoot("ath11k-36bit-dma-mask", 3, svg_snapshot, keys=("w",))
