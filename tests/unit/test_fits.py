"""Fitted parameters are fits, not hand-tuned numbers.

Each patch lesson declares what it fitted, to which *before* figure, in a
machine-readable `target`. Re-running the fit from scratch must land on the
value the lesson stores (within a few percent: the fit itself stops at 0.2%
of the figure, and a short run is noisier than the headline's long one).
"""

from __future__ import annotations

import pytest

from models.fit import refit_lesson
from models.lesson import all_lessons

FITTED = [lesson for lesson in all_lessons() if any(f.metric for f in lesson.fitted)]


def test_every_patch_lesson_declares_a_fit_target() -> None:
    patch_lessons = {lesson.id for lesson in all_lessons() if lesson.paper is not None}
    assert patch_lessons <= {lesson.id for lesson in FITTED}


@pytest.mark.slow          # each fit runs its lesson's variants over and over
@pytest.mark.parametrize("lesson", FITTED, ids=lambda lesson: lesson.id)
def test_stored_values_are_the_fit(lesson) -> None:
    values = refit_lesson(lesson, frames=8000)
    for name, value in values.items():
        stored = lesson.scenario[name]
        assert value == pytest.approx(stored, rel=0.04), f"{lesson.id}: {name} refits to {value:.6g}, stores {stored}"
    for f in lesson.fitted:
        if f.metric:
            assert f.variant != lesson.headline.after
