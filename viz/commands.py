"""The command palette (ctrl+p): open any lesson, jump to any step of this one, toggle compare.

The commands are built when the palette opens, from the screen it was
opened on: step commands exist only over a lesson, and name the step's
title so "jump napi" finds the NAPI steps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class LessonCommands(Provider):
    """Lessons, steps and compare."""

    def _commands(self) -> Iterator[tuple[str, Callable[[], object], str]]:
        from viz.screens.player import PlayerScreen

        app = self.app
        screen = self.screen
        if isinstance(screen, PlayerScreen):
            yield "Toggle compare", screen.action_toggle_compare, "before | after side by side (c)"
            yield "Next variant", screen.action_cycle_variant, "show the next variant on this step (v)"
            yield "Sandbox", screen.action_sandbox, "change a scenario parameter and run again (s)"
            yield "Zoom the view", screen.action_zoom, "the active view on the whole screen (z)"
            yield "Lesson map", screen.action_lesson_map, "every step, where you are, how each question went (m)"
            yield "Glossary", screen.action_glossary, "the terms the lessons use, this step's first (w)"
            lesson = screen.lesson
            yield f"Jump to step 0: {lesson.title}", partial(screen.goto, 0), "the lesson's cover page"
            for step in lesson.steps:
                k = step.index + 1
                yield f"Jump to step {k}: {step.title}", partial(screen.goto, k), f"focus: {step.focus or '-'}"
        for lesson in app.lessons:
            yield f"Open lesson {lesson.title}", partial(app.open_lesson, lesson.id), lesson.summary

    async def discover(self) -> Hits:
        for title, callback, help_text in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
