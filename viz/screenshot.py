"""SVG screenshots of the player at a step, for `rxviz screenshot`, the handouts and the docs.

The app is built with `make_app`, run headless at the size asked for, left
to settle (the model worker idle, the narration's Markdown laid out), and
exported with `App.export_screenshot()`. Nothing in the UI reads a clock,
so the same lesson, step and size give the same SVG. A handout needs every
step: one app is stepped through them, so each step is computed once.

Textual writes each run of cells as a `<text>` whose spaces are `&#160;`.
Under SVG's default `xml:space` a renderer may strip and collapse
white space at the ends of a text; librsvg (`rsvg-convert`, most image
viewers on Linux) counts U+00A0 as white space and does, so "Press → or"
came out as "Press →or". `portable` marks the whole drawing
`xml:space="preserve"`; browsers looked right either way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from textual.pilot import Pilot

from models.lesson.schema import Lesson
from viz.app import RxvizApp, make_app, settle
from viz.screens.player import PlayerScreen

Report = Callable[[int, int], None]


def portable(svg: str) -> str:
    """The SVG with its spacing kept by every renderer (see the module docstring)."""
    head, sep, rest = svg.partition("<svg ")
    if not sep or 'xml:space="preserve"' in rest.split(">", 1)[0]:
        return svg
    return f'{head}<svg xml:space="preserve" {rest}'


async def _settle(app: RxvizApp, pilot: Pilot[int], target: int, report: Report | None) -> None:
    """settle(), telling `report` how many lesson steps the worker has computed towards `target`."""
    if report is not None:
        while any(w.is_running for w in app.workers):
            session = getattr(getattr(app.screen, "moves", None), "session", None)
            if session is not None:
                report(min(max(0, session.computed), target), target)
            await asyncio.sleep(0.1)
    await settle(app, pilot)


async def screenshots(lesson_id: str | Lesson | None, steps: Iterable[int], size: tuple[int, int] = (120, 40),
                      compare: bool = False, keys: tuple[str, ...] = (),
                      report: Report | None = None) -> list[str]:
    """The SVG text of `lesson_id` at each of `steps` in turn (the home screen for None).

    `keys` are pressed once, at the first step. `report(done, total)` hears
    how far the model has come, in lesson steps.
    """
    steps = list(steps)
    # remember=False: a screenshot shows the lesson as a newcomer sees it, and leaves progress alone
    app = make_app(lesson=lesson_id, step=steps[0] if steps else 0, compare=compare, remember=False)
    app.animation_level = "none"
    out: list[str] = []
    async with app.run_test(size=size) as pilot:
        await _settle(app, pilot, steps[0] if steps else 0, report)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        for step in steps:
            screen = app.screen
            if (lesson_id is not None and isinstance(screen, PlayerScreen)
                    and (screen.frame is None or screen.frame.step != step)):
                screen.goto(step)
                await _settle(app, pilot, step, report)
            name = lesson_id.id if isinstance(lesson_id, Lesson) else lesson_id
            title = "rxviz" if name is None else f"rxviz {name} step {step}"
            out.append(portable(app.export_screenshot(title=title)))
    return out


async def screenshot(lesson_id: str | Lesson | None, step: int = 0, size: tuple[int, int] = (120, 40),
                     compare: bool = False, keys: tuple[str, ...] = ()) -> str:
    """The SVG text of `lesson_id` at `step` (the home screen for None), after pressing `keys`."""
    return (await screenshots(lesson_id, [step], size, compare, keys))[0]


def screenshot_sync(lesson_id: str | Lesson | None, step: int = 0, size: tuple[int, int] = (120, 40),
                    compare: bool = False, keys: tuple[str, ...] = (), report: Report | None = None) -> str:
    """`screenshot` for callers without an event loop (the CLI)."""
    return asyncio.run(screenshots(lesson_id, [step], size, compare, keys, report))[0]


def parse_size(text: str) -> tuple[int, int]:
    """'160x50' -> (160, 50); raises ValueError with a readable message otherwise."""
    w, sep, h = text.lower().replace("×", "x").partition("x")
    if not sep or not w.strip().isdigit() or not h.strip().isdigit():
        raise ValueError(f"size must look like 160x50, got {text!r}")
    width, height = int(w), int(h)
    if not (20 <= width <= 1000 and 10 <= height <= 500):
        raise ValueError(f"size {width}x{height} is out of range (20x10 to 1000x500)")
    return width, height
