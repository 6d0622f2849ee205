"""The command palette (ctrl+p): open any lesson, jump to any step of this one, toggle compare.

The commands are built when the palette opens, from the screen it was
opened on: step commands exist only over a lesson, and name the step's
title so "jump napi" finds the NAPI steps (a title a waiting question keeps back is not
listed, nor found: viz.kept_titles). Titles and summaries come from
lesson files, so each hit and its help is plain `Content` (viz.plain): the
palette reads a `str` as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from viz.course import OpenLesson, shipped_lessons
from viz.kept_titles import kept_back_by, kept_title
from viz.plain import highlight, join, plain


class LessonCommands(Provider):
    """Lessons, steps and compare."""

    def _commands(self) -> Iterator[tuple[Content, Callable[[], object], Content]]:
        from viz.screens.player import PlayerScreen

        screen = self.screen
        if isinstance(screen, PlayerScreen):
            yield plain("Toggle compare"), screen.action_toggle_compare, plain("before | after side by side (c)")
            yield plain("Next variant"), screen.action_cycle_variant, plain("show the next variant on this step (v)")
            yield plain("Sandbox"), screen.action_sandbox, plain("change a scenario parameter and run again (s)")
            yield plain("Zoom the view"), screen.action_zoom, plain("the active view on the whole screen (z)")
            yield (plain("Lesson map"), screen.action_lesson_map,
                   plain("every step, where you are, how each question went (m)"))
            yield plain("Glossary"), screen.action_glossary, plain("the terms the lessons use, this step's first (w)")
            lesson = screen.lesson
            here = screen.frame.step if screen.frame is not None else screen.want[0]
            seen = screen.course.seen(lesson.id)
            yield join("Jump to step 0: ", lesson.title), partial(screen.goto, 0), plain("the lesson's cover page")
            for step in lesson.steps:
                k = step.index + 1
                kept = kept_back_by(lesson, k, here, screen.answered, seen)
                yield (join(f"Jump to step {k}: ", kept_title(kept) if kept else step.title), partial(screen.goto, k),
                       plain(f"focus: {step.focus or '-'}"))
        for lesson in shipped_lessons():
            yield (join("Open lesson ", lesson.title), partial(self.app.post_message, OpenLesson(lesson.id)),
                   plain(lesson.summary))

    async def discover(self) -> Hits:
        for title, callback, help_text in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)  # type: ignore[arg-type]  # Content: never markup

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._commands():
            score = matcher.match(title.plain)
            if score > 0:
                yield Hit(score, highlight(matcher, title), callback, help=help_text)  # type: ignore[arg-type]
