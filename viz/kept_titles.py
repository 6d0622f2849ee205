"""Which step titles a waiting question keeps back.

A title can give an answer away: dma-bugs asks what happens when the traffic
keeps going, and its next step is called "Frames drop". So wherever the
lesson's step titles are listed (the map, the palette, the cover's list of
steps), a step past a question that waits for its answer is listed by number
only, until that question is answered or its outcome shown. Only questions
from the step on screen onwards count: one left behind by a jump has already
been passed; and a step the player has shown keeps no secret.
"""

from __future__ import annotations

from collections.abc import Callable

from models.lesson.schema import Lesson


def kept_back_by(lesson: Lesson, step: int, here: int, settled: Callable[[int], bool],
                 seen: frozenset[int] = frozenset()) -> int:
    """The question step q (here <= q < step) whose waiting question keeps `step`'s title back, or 0.

    `settled(q)`: q's question was answered or its outcome revealed; `seen`: the steps already shown."""
    if step <= here or step in seen:
        return 0
    for q in range(max(here, 1), step):
        if lesson.steps[q - 1].ask is not None and not settled(q):
            return q
    return 0


def answered_in(lesson: Lesson, answers: dict[tuple[str, int], int],
                revealed: set[int] | frozenset[int] = frozenset()) -> Callable[[int], bool]:
    """settled() for kept_back_by from the answers kept with the course and the steps revealed."""
    return lambda q: q in revealed or (lesson.id, q) in answers


def kept_title(q: int) -> str:
    """What stands in a list where a step's title is kept back by step q's question."""
    return f"··· its title waits for step {q}'s answer"
