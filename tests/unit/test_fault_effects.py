"""Injected faults on the lessons' own drivers: never a model bug, and a fault that changes nothing says so.

`--inject FAULT` breaks one rule of the DMA API on purpose; whatever it breaks, the objects must
still move only along the edges of their machines (an illegal transition is a bug in the model,
not in the driver). Each fault counts the times it changed what the driver did (`faults` in
`rxviz run --json`); one that never did is listed under `faults_without_effect`.
"""

from __future__ import annotations

import pytest
from shipped import shipped_lesson, shipped_lessons

from models.calls import FAULTS
from models.runner import run_lesson, run_params, variant_params

VARIANTS = [(lesson.id, v) for lesson in shipped_lessons() for v in lesson.variants]


def run_variant(lesson_id: str, variant: str, fault: str, frames: int = 300):
    lesson = shipped_lesson(lesson_id)
    return run_params(variant, variant_params(lesson, variant), frames, faults=lesson.faults_for(variant, [fault]))


@pytest.mark.parametrize("variant", ["after-xdp", "after-no-fix"])
def test_reading_an_unsynced_fragment_then_reflecting_it_is_the_bug_not_an_illegal_move(variant):
    # XDP_TX of a fragment the driver never synced for the CPU: the pp_frag machine has the bug's edge
    # (filled --xdp_do_tx--> tx-posted), as it has filled --build_skb--> in-skb
    r = run_variant("atlantic-page-pool", variant, "no-sync-for-cpu", 200)
    assert "illegal-transition" not in r.violation_counts
    # every frame taken off the ring, warm-up included: each read unsynced, each reported
    assert r.violation_counts["no-sync-for-cpu"] == r.fault_hits["no-sync-for-cpu"] >= 200


def test_syncing_a_page_the_driver_unmapped_is_dma_debugs_report_not_a_bounce_into_a_freed_slot():
    # dma-bugs' pool-leak with --inject double-unmap: the driver unmaps a pool page (bounced through
    # SWIOTLB on this 32-bit machine); the pool then syncs the page for the device before XDP_TX.
    # check_sync() finds no entry, and swiotlb_bounce() copies nothing for a released slot.
    r = run_variant("dma-bugs", "pool-leak", "double-unmap", 300)
    assert "illegal-transition" not in r.violation_counts
    assert r.violation_counts["sync-unmapped"] > 0 and r.violation_counts["double-unmap"] > 0
    msg = next(v["message"] for v in r.violations if v["name"] == "sync-unmapped")
    assert msg.startswith("DMA-API: device driver tries to sync DMA memory it has not allocated")


@pytest.mark.parametrize("lesson_id,variant,fault", [
    ("ath10k-sdio-napi", "after", "no-sync-for-cpu"),       # SDIO: the host copies each message; no DMA map
    ("rx-basics", "gro", "leak-at-teardown"),                # a few ACKs on the TX ring: one budgeted pass frees them
    ("atlantic-page-pool", "after-no-fix", "leak-at-teardown"),   # the variant already cleans with a budget
    ("ath11k-36bit-dma-mask", "after", "mask-violation"),    # every buffer is within 36 bits anyway
    ("dma-bugs", "missing-unmap", "double-unmap"),           # a driver that never unmaps cannot unmap twice
])
def test_a_fault_that_changes_nothing_is_listed_without_effect(lesson_id, variant, fault):
    result = run_lesson(shipped_lesson(lesson_id), variants=[variant], frames=300, faults=[fault], sensitivity=False)
    v = result["variants"][variant]
    assert v["faults"][fault] == 0 and fault in v["faults_without_effect"]


def test_a_fault_that_acts_is_counted_and_a_lesson_bug_is_listed_with_it():
    result = run_lesson(shipped_lesson("dma-bugs"), variants=["bad-unmap", "clean"], frames=300, sensitivity=False)
    bad, clean = result["variants"]["bad-unmap"], result["variants"]["clean"]
    # the variant's own `inject`: every frame is unmapped twice, with the wrong direction
    assert bad["faults"]["double-unmap"] == bad["faults"]["wrong-direction"] > 300
    assert bad["faults_without_effect"] == []
    assert clean["faults"] == {} and clean["faults_without_effect"] == []


@pytest.mark.slow
@pytest.mark.parametrize("lesson_id,variant", VARIANTS)
def test_no_fault_on_any_lesson_variant_makes_an_object_leave_its_machine(lesson_id, variant):
    for fault in FAULTS:
        r = run_variant(lesson_id, variant, fault, 300)
        assert "illegal-transition" not in r.violation_counts, (fault, r.violations[:3])
        assert set(r.fault_hits) >= {fault}
