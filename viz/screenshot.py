"""SVG screenshots of the player at a step, for `rxviz screenshot` and the docs.

The app is built with `make_app`, run headless at the size asked for, left
to settle (the model worker idle, the narration's Markdown laid out), and
exported with `App.export_screenshot()`. Nothing in the UI reads a clock,
so the same lesson, step and size give the same SVG.
"""

from __future__ import annotations

import asyncio

from viz.app import make_app, settle


async def screenshot(lesson_id: str | None, step: int = 0, size: tuple[int, int] = (120, 40),
                     compare: bool = False, keys: tuple[str, ...] = ()) -> str:
    """The SVG text of `lesson_id` at `step` (the home screen for None), after pressing `keys`."""
    app = make_app(lesson=lesson_id, step=step, compare=compare)
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        title = "rxviz" if lesson_id is None else f"rxviz {lesson_id} step {step}"
        return app.export_screenshot(title=title)


def screenshot_sync(lesson_id: str | None, step: int = 0, size: tuple[int, int] = (120, 40),
                    compare: bool = False, keys: tuple[str, ...] = ()) -> str:
    """`screenshot` for callers without an event loop (the CLI)."""
    return asyncio.run(screenshot(lesson_id, step, size, compare, keys))


def parse_size(text: str) -> tuple[int, int]:
    """'160x50' -> (160, 50); raises ValueError with a readable message otherwise."""
    w, sep, h = text.lower().replace("×", "x").partition("x")
    if not sep or not w.strip().isdigit() or not h.strip().isdigit():
        raise ValueError(f"size must look like 160x50, got {text!r}")
    width, height = int(w), int(h)
    if not (20 <= width <= 1000 and 10 <= height <= 500):
        raise ValueError(f"size {width}x{height} is out of range (20x10 to 1000x500)")
    return width, height
