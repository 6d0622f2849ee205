"""Finding one's way in a lesson: the map (m), the glossary (w), and asking a question again (a).

Mixed into `PlayerScreen`. The map and the glossary are modal screens of
their own (viz.screens.lesson_map, viz.screens.glossary); a jump from the
map is the player's own `goto`, so a question step reached that way holds
like any other. Asking a question again forgets its answer (or its reveal)
and goes back to the step's landing, where it holds again.
"""

from __future__ import annotations

from viz.screens.player_host import PlayerHost


class Wayfinding(PlayerHost):
    """The host is the player: a Screen with `lesson`, `frame`, `want`, `revealed`, `answered()` and `goto()`."""

    def action_lesson_map(self) -> None:
        """m: every step's title, where we are, each question and how it went; Enter jumps (a jump like g)."""
        from viz.screens.lesson_map import LessonMap
        here = self.frame.step if self.frame is not None else self.want[0]

        def jump(k: int | None) -> None:
            if k is not None:
                self.goto(k)
        self.app.push_screen(LessonMap(self.lesson, here, self.course.answers, self.revealed,
                                       self.course.seen(self.lesson.id)), jump)

    def action_glossary(self) -> None:
        """w: the glossary, the terms this step's text uses first."""
        from viz.screens.glossary import GlossaryScreen
        step = self.frame.step if self.frame is not None else 0
        if step:
            spec = self.lesson.steps[step - 1]
            parts = [spec.title, spec.text(self.answered(step))]
            if spec.ask is not None:
                parts += [spec.ask.question, *spec.ask.choices]
            text, where = "\n".join(parts), f"on step {step}"
        else:
            text, where = self.lesson.summary, "in the lesson's summary"
        self.app.push_screen(GlossaryScreen(text, where))

    def action_retry(self) -> None:
        """a: ask the step's question again (after its answer or its reveal): the step holds again."""
        frame = self.frame
        if frame is None or frame.extra or not frame.step:
            return
        step = frame.step
        spec = self.lesson.steps[step - 1]
        if spec.ask is None:
            self.notify("this step asks no question: m lists those that do", timeout=3)
            return
        if self.answered(step):
            self.revealed.discard(step)
            self.course.forget(self.lesson.id, step)
            self.goto(step)                     # from the step's own landing, holding again
