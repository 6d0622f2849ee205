"""A lesson with one more variant: a driver written with the API, beside the lesson's own.

`with_driver(lesson, cls, base)` is the lesson with a variant `your-driver`
(LEARNER) that runs the scenario of the lesson's variant `base` with the
driver class `cls` in the RX strategy's place (DriverSim). The steps that
showed `base` show the driver instead, so the narration lands on it; `v`
still shows the lesson's own, and compare sets `base` beside it. The code
view shows the lesson's pseudo-code of `base`: what the driver should do,
with the line each step is about lit. Nothing
here comes from a lesson file: a lesson never supplies code that runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..lesson.schema import Lesson
from ..sim import Sim
from .netdev import NetDriver
from .runtime import DriverSim

LEARNER = "your-driver"


@dataclass(frozen=True)
class DriverLesson(Lesson):
    """The lesson, plus how its extra variant's Sim is built (models.replay.LessonRun reads `factories`)."""

    factories: dict[str, Callable[..., Sim]] = field(default_factory=dict)
    base: str = ""                 # the lesson's variant the driver stands in for

    def compare_pair(self, shown: str) -> tuple[str, str] | None:
        """Compare sets the lesson's variant beside the driver; None: the lesson's own pair."""
        return (self.base, LEARNER) if shown == LEARNER else None


def driver_factory(cls: type[NetDriver]) -> Callable[..., Sim]:
    def make(values: dict[str, Any], *, trace: int = 0) -> Sim:
        return DriverSim(cls(), values, trace=trace)
    return make


def with_driver(lesson: Lesson, cls: type[NetDriver], base: str) -> DriverLesson:
    """`lesson` with LEARNER running `cls` on the scenario of its variant `base`."""
    if base not in lesson.variants:
        raise KeyError(f"lesson {lesson.id!r} has no variant {base!r}")
    first = next(iter(lesson.variants))
    variants = {**lesson.variants, LEARNER: dict(lesson.variants[base])}
    # A step showing no variant shows the first: when that is `base`, the driver shows there too.
    steps = tuple(replace(s, show=LEARNER) if (s.show or first) == base else s for s in lesson.steps)
    fields = {f: getattr(lesson, f) for f in lesson.__dataclass_fields__}
    fields.update(variants=variants, steps=steps)
    if base in lesson.pseudocode:
        # The steps light lines of the pseudo-code of what the driver should do: the lesson's, for `base`.
        fields.update(pseudocode={**lesson.pseudocode, LEARNER: lesson.pseudocode[base]})
    return DriverLesson(**fields, factories={LEARNER: driver_factory(cls)}, base=base)
