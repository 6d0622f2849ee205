"""The shipped lessons: they load, replay, pass their checks, and reproduce their patches.

For each patch lesson the model's *before* must sit within ±5% of the paper
(fitted parameters are allowed to get it there) and the *after*, a
prediction, within ±15% — or, for the small ath9k and bgmac changes, the
change must have the paper's sign and be within ±50% of its size. The
"changed scenario" tests ask the model questions the patches do not answer
and check it answers them as the hardware would.
"""

from __future__ import annotations

import pytest
from shipped import shipped_lesson

from models.lesson import all_lessons, lesson_paths
from models.replay import LessonRun
from models.runner import run_lesson, run_params, variant_params

REQUIRED = ["rx-basics", "ath9k-page-pool", "ath11k-36bit-dma-mask", "bgmac-napi-skb-cache",
            "atlantic-page-pool", "ath10k-sdio-napi"]
PATCH_LESSONS = REQUIRED[1:]
# rx-basics replays in a fraction of a second and stays in `make test`; the patch lessons take
# seconds each and replay in `make test-all` (CI), as does `rxviz check`, which CI also runs.
REPLAYED = [pytest.param(lid, marks=() if lid == "rx-basics" else pytest.mark.slow) for lid in REQUIRED]


def _ids() -> list[str]:
    return [p.stem for p in lesson_paths()]


def test_every_required_lesson_ships() -> None:
    assert set(REQUIRED) <= set(_ids())
    assert _ids()[0] == "rx-basics"


@pytest.mark.parametrize("lesson_id", REPLAYED)
def test_lesson_replays_and_passes_its_checks(lesson_id: str) -> None:
    lesson = shipped_lesson(lesson_id)
    run = LessonRun(lesson, trace=0)
    results = run.check_all()
    assert run.step == len(lesson.steps)
    assert all(n.reached for n in run.notes), [n for n in run.notes if not n.reached]
    failed = [r.message for r in results if not r.ok]
    assert not failed, failed
    assert results, "a lesson without checks proves nothing"


@pytest.mark.parametrize("lesson_id", PATCH_LESSONS)
def test_patch_lesson_shape(lesson_id: str) -> None:
    lesson = shipped_lesson(lesson_id)
    assert 8 <= len(lesson.steps) <= 20
    assert {"before", "after"} <= set(lesson.variants)
    assert lesson.patch is not None and lesson.paper is not None
    assert lesson.fitted, "say what was fitted, even if it is only one parameter"
    assert sum(1 for s in lesson.steps if s.ask) >= 1


@pytest.mark.slow          # the headline's long runs of both variants
@pytest.mark.parametrize("lesson_id", PATCH_LESSONS)
def test_headline_reproduces_the_paper(lesson_id: str) -> None:
    lesson = shipped_lesson(lesson_id)
    out = run_lesson(lesson, variants=["before", "after"])
    head = out["headline"]
    assert head["within"], head
    for v in out["variants"].values():
        assert v["violations"] == []


def _metrics(lesson_id: str, variant: str, frames: int = 12000, **sets) -> dict:
    lesson = shipped_lesson(lesson_id)
    prm = variant_params(lesson, variant, sets)
    return run_params(variant, prm, frames, teardown=False).__dict__


def test_ath11k_less_ram_means_nothing_to_bounce() -> None:
    # Below 3 GiB of RAM every buffer is below 4 GiB: even the 32-bit mask needs no SWIOTLB.
    r = _metrics("ath11k-36bit-dma-mask", "before", ram=2 << 30)
    assert r["counters"]["swiotlb_bounce"] == 0


def test_ath11k_iommu_replaces_swiotlb() -> None:
    r = _metrics("ath11k-36bit-dma-mask", "before", iommu="lazy")
    assert r["counters"]["swiotlb_bounce"] == 0
    assert r["counters"]["iommu_map"] > 0
    assert r["counters"]["iotlb_sync"] == 0          # lazy: batched flushes only


def test_ath11k_36bit_mask_on_80GiB_fresh_boot_does_not_bounce() -> None:
    # A freshly booted kernel hands out ZONE_NORMAL from its lowest pages (free lists are
    # filled bottom-up, pages placed at the tail since v5.10): the RX buffers sit just above
    # 4 GiB, far below the 64 GiB a 36-bit mask reaches, so even 80 GiB needs no bounce.
    r = _metrics("ath11k-36bit-dma-mask", "after", frames=3000, ram=80 << 30)
    assert r["counters"]["swiotlb_bounce"] == 0
    # The 32-bit mask still bounces every buffer: ZONE_NORMAL starts at 4 GiB.
    b = _metrics("ath11k-36bit-dma-mask", "before", frames=3000, ram=80 << 30)
    assert b["counters"]["swiotlb_bounce"] >= b["counters"]["dma_map_single"] - b["counters"]["tcp_send_ack"]


def test_atlantic_without_iommu_the_page_flip_is_fast_too() -> None:
    strict = _metrics("atlantic-page-pool", "before")
    off = _metrics("atlantic-page-pool", "before", iommu="off", untrusted=False)
    assert off["metrics"]["throughput_mbps"] > 2 * strict["metrics"]["throughput_mbps"]


def test_atlantic_rxpageorder_3_workaround_amortizes_the_unmaps() -> None:
    o0 = _metrics("atlantic-page-pool", "before")
    o3 = _metrics("atlantic-page-pool", "before", page_order=3)
    assert o3["metrics"]["throughput_mbps"] > 2 * o0["metrics"]["throughput_mbps"]
    per0 = o0["counters"]["dma_unmap_page"] / o0["metrics"]["frames_processed"]
    per3 = o3["counters"]["dma_unmap_page"] / o3["metrics"]["frames_processed"]
    assert per3 < per0 / 4


def test_ath10k_smaller_bundle_means_more_acks_and_less_throughput() -> None:
    b32 = _metrics("ath10k-sdio-napi", "after", frames=8000)
    b8 = _metrics("ath10k-sdio-napi", "after", frames=8000, bundle=8)
    assert b8["metrics"]["acks_per_segment"] == pytest.approx(1 / 8, rel=0.1)
    assert b32["metrics"]["acks_per_segment"] == pytest.approx(1 / 32, rel=0.1)
    assert b8["metrics"]["throughput_mbps"] < b32["metrics"]["throughput_mbps"]


def test_bgmac_v619_cache_sizes_change_the_slab_traffic() -> None:
    old = _metrics("bgmac-napi-skb-cache", "after", frames=6000)
    new = _metrics("bgmac-napi-skb-cache", "after", frames=6000, napi_skb_cache_size=128,
                   napi_skb_cache_bulk=32, napi_skb_cache_free=32)
    assert old["counters"]["kmem_cache_alloc_bulk"] >= new["counters"]["kmem_cache_alloc_bulk"]


def test_lessons_load_from_the_package_directory() -> None:
    ids = [lesson.id for lesson in all_lessons()]     # the loader itself: no shared copy
    assert ids == _ids()


# ---------------------------------------------------------------------------- honest labels
def test_headline_labels_each_figure():
    from models.runner import run_lesson
    out = run_lesson(shipped_lesson("atlantic-page-pool"), variants=["before", "after"], frames=8000)
    h = out["headline"]
    assert h["before_kind"] == "fitted"
    # at line rate the after figure is capped by the link, whatever the IOTLB costs
    assert h["after_kind"] == "bounded" and h["model"]["after"] >= 0.97 * h["capacity"]
    (sens,) = h["sensitivity"]
    assert sens["param"] == "iotlb_sync_ns" and [p["factor"] for p in sens["points"]] == [0.5, 1.5]
    assert all(abs(p["after"] - h["model"]["after"]) < 0.01 * h["model"]["after"] for p in sens["points"])
    # measured over the headline's own frames, so the headline's figure is its x1 point
    assert sens["frames"] == 8000 and sens["nominal"] == h["model"]["after"]
    (fit,) = h["fitted"]
    assert fit["plausible"] == [1000, 20000] and fit["in_plausible_range"] is True


def test_a_declared_kind_wins_and_a_fit_outside_its_range_is_flagged():
    from models.runner import run_lesson
    out = run_lesson(shipped_lesson("ath11k-36bit-dma-mask"), frames=3000, sensitivity=False)
    h = out["headline"]
    assert h["after_kind"] == "fitted" and "arithmetic" in h["after_note"]
    fits = {f["param"]: f for f in h["fitted"]}
    assert fits["swiotlb_copy_gbs"]["in_plausible_range"] is False
    assert "sensitivity" not in h


def test_a_sensitivity_longer_than_its_cap_has_no_nominal_point():
    from models.paper_vs_model import SENSITIVITY_FRAMES
    from models.runner import _headline
    lesson = shipped_lesson("bgmac-napi-skb-cache")
    frames = SENSITIVITY_FRAMES + 1          # the runs themselves are faked: only the bookkeeping is under test
    metrics = {"throughput_mbps": 250.0, "cpu_percent": 50.0}
    results = {v: type("R", (), {"metrics": metrics})() for v in ("before", "after")}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("models.runner.run_params", lambda *a, **k: type("R", (), {"metrics": metrics})())
        h = _headline(lesson, results, frames, 0, None, [], True)
    (row,) = h["sensitivity"]
    assert row["frames"] == SENSITIVITY_FRAMES and "nominal" not in row


def test_a_changed_scenario_gets_no_sensitivity():
    from models.runner import run_lesson
    out = run_lesson(shipped_lesson("ath10k-sdio-napi"), variants=["before", "after"], frames=2000,
                     sets={"bundle": 8})
    assert "sensitivity" not in out["headline"]


def test_a_capped_sensitivity_point_says_the_factor_really_applied():
    from models.paper_vs_model import sensitivity
    from viz.paper_vs_model_text import notes
    lesson = shipped_lesson("ath10k-sdio-napi")
    seen = []

    def run(variant, prm, frames):
        seen.append(prm["sdio_duty"])
        return {"throughput_mbps": 500.0 * prm["sdio_duty"]}

    (row,) = sensitivity(lesson, run, 1000)
    half, up = row["points"]
    assert "applied_factor" not in half and half["value"] == pytest.approx(0.3515625)
    # x1.5 of 0.703125 would be 1.05: a share cannot exceed the whole, so 1.0 is applied (x1.42)
    assert up["value"] == 1.0 and up["capped_at"] == 1.0 and up["applied_factor"] == pytest.approx(1.422, abs=1e-3)
    assert max(seen) == 1.0
    # ath10k compares the ratio: both variants re-run at each point (here both give 500 x duty)
    assert up["before"] == up["after"] == 500.0 and up["ratio"] == up["figure"] == 1.0
    text = " ".join(notes({"fitted": [], "sensitivity": [row], "compare": "ratio"}, lesson))
    assert "x1.5 (applied x1.42, capped at 1.0) gives ratio 1.0" in text


def _narration(lesson) -> str:
    """Everything a lesson's steps say on screen: narration, reveals, questions, choices, explanations."""
    out = []
    for s in lesson.steps:
        out += [s.title, s.say, s.reveal]
        if s.ask is not None:
            out += [s.ask.question, s.ask.explain, *s.ask.choices]
    return "\n".join(out)


def test_ath9k_leaves_the_pool_sizes_to_the_pool_view() -> None:
    """The text once gave the ptr_ring's size as the pool's page count (171) while the pool view,
    from the model, counted more pages (the stack's and the egress driver's on top): neither number
    belongs in the text, the pool view shows both."""
    import re

    from models.records.pool import pool_record
    from models.sim import Sim
    lesson = shipped_lesson("ath9k-page-pool")
    sim = Sim(lesson.params_for("after"))
    sim.run_frames(2000)
    pool = pool_record(sim)
    assert pool is not None
    figures = {lesson.scenario["pool_size"], len(pool.pages), pool.hold}
    text = _narration(lesson)
    for n in figures:
        assert not re.search(rf"(?<![\d.,]){n}(?![\d,])", text), f"the text states {n}, a figure of the pool view"
