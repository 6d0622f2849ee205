"""Fitted parameters are fits, not hand-tuned numbers.

Each patch lesson declares what it fitted, to which *before* figure, in a
machine-readable `target`. Re-running the fit from scratch must land on the
value the lesson stores (within a few percent: the fit itself stops at 0.2%
of the figure, and a short run is noisier than the headline's long one).
"""

from __future__ import annotations

import pytest
from shipped import shipped_lesson, shipped_lessons

from models.fit import refit_lesson

FITTED = [lesson for lesson in shipped_lessons() if any(f.metric for f in lesson.fitted)]


def test_every_patch_lesson_declares_a_fit_target() -> None:
    patch_lessons = {lesson.id for lesson in shipped_lessons() if lesson.paper is not None}
    assert patch_lessons <= {lesson.id for lesson in FITTED}


@pytest.mark.slow          # each fit runs its lesson's variants over and over
@pytest.mark.parametrize("lesson", FITTED, ids=lambda lesson: lesson.id)
def test_stored_values_are_the_fit(lesson) -> None:
    values = refit_lesson(lesson, frames=8192)     # whole laps (models.fit.refit_lesson says why)
    for name, value in values.items():
        stored = lesson.scenario[name]
        assert value == pytest.approx(stored, rel=0.04), f"{lesson.id}: {name} refits to {value:.6g}, stores {stored}"
    for f in lesson.fitted:
        if f.metric:
            assert f.variant != lesson.headline.after


@pytest.mark.parametrize("lesson", FITTED, ids=lambda lesson: lesson.id)
def test_every_fit_is_plausible_or_says_what_it_absorbs(lesson) -> None:
    """A fitted value outside the range a real machine has must say plainly what it stands for."""
    for f in lesson.fitted:
        assert f.plausible is not None and f.basis, f"{lesson.id}: {f.param} has no range a real machine has"
        assert "before figure" not in f.basis, f"{lesson.id}: {f.param}'s range must not come from the fit's figure"
        lo, hi = f.plausible
        value = float(lesson.scenario[f.param])
        assert lo <= value <= hi or f.absorbs, f"{lesson.id}: {f.param} = {value:g} is outside [{lo:g}, {hi:g}]"


def test_the_routed_rest_and_the_segment_rest_are_named_for_what_they_are() -> None:
    from models.params import PARAMS
    assert "forward_ns" not in PARAMS and "everything else" in PARAMS["path_rest_ns"].doc
    for lesson_id, param in (("ath9k-page-pool", "path_rest_ns"), ("bgmac-napi-skb-cache", "stack_seg_ns")):
        (f,) = shipped_lesson(lesson_id).fitted
        assert f.param == param and "everything" in f.absorbs.lower()
        assert f.plausible[0] <= shipped_lesson(lesson_id).scenario[param] <= f.plausible[1]
    swiotlb = {f.param: f for f in shipped_lesson("ath11k-36bit-dma-mask").fitted}["swiotlb_copy_gbs"]
    assert "not a memory bandwidth" in swiotlb.absorbs
