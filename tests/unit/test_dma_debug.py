"""What CONFIG_DMA_API_DEBUG prints: the first error by default, every error counted, all with all_errors.

kernel/dma/debug.c: err_printk() adds one to error_count for every error and prints it only while
show_num_errors (/sys/kernel/debug/dma-api/num_errors, 1 at boot) lasts, unless show_all_errors
(all_errors) is set. The leak report at driver unbind goes through err_printk() too, so it is
printed only if nothing was printed before it.
"""

from __future__ import annotations

import pytest
from shipped import shipped_lesson

from models.replay import LessonRun
from models.sim import Sim

DMA_DEBUG = {"double-unmap", "wrong-direction", "wrong-size", "sync-beyond-mapping", "sync-unmapped"}


def replayed(sets: dict | None = None) -> LessonRun:
    run = LessonRun(shipped_lesson("dma-bugs"), sets=sets, trace=0)
    run.run_to_end()
    return run


def final(run: LessonRun, variant: str) -> Sim:
    sims, _ = run.snapshot(run.total)
    return sims[variant]


@pytest.fixture(scope="module")
def default_run() -> LessonRun:
    return replayed()


@pytest.fixture(scope="module")
def all_errors_run() -> LessonRun:
    return replayed({"dma_debug_all_errors": True})


@pytest.mark.slow
def test_dma_bugs_replayed_with_the_defaults_prints_one_error_a_machine(default_run):
    assert all(r.ok for r in default_run.check_all())
    bad = final(default_run, "bad-unmap")
    reports = [v for v in bad.rec.violations if v.name in DMA_DEBUG]
    # the first frame's first unmap: wrong direction, printed; its second unmap and every later one counted
    assert reports[0].name == "wrong-direction" and reports[0].printed is True
    assert reports[1].name == "double-unmap" and reports[1].printed is False
    assert [v.printed for v in reports].count(True) == 1
    state = bad.dma.debug_state()
    assert state["printed"] == 1 and state["error_count"] == bad.rec.violations.total > 1000
    assert (state["all_errors"], state["num_errors"]) == (False, 1)


@pytest.mark.slow
def test_the_unbind_leak_report_is_printed_when_nothing_was_printed_before_it(default_run):
    sim = final(default_run, "missing-unmap")
    (leak,) = [v for v in sim.rec.violations if v.name == "leak-at-teardown"]
    assert leak.printed is True and sim.dma.debug_state() == {"all_errors": False, "num_errors": 1,
                                                               "error_count": 1, "printed": 1}


@pytest.mark.slow
def test_page_pools_stall_warning_and_the_models_own_checks_are_not_dma_debug(default_run):
    pool = final(default_run, "pool-leak")
    assert {v.printed for v in pool.rec.violations if v.name == "leak-at-teardown"} == {None}
    nosync = final(default_run, "no-sync")
    assert {v.printed for v in nosync.rec.violations} == {None}     # the CPU's reads: dma-debug cannot see them
    assert nosync.dma.debug_state()["error_count"] == 0


@pytest.mark.slow
def test_dma_bugs_replayed_with_all_errors_prints_every_one(all_errors_run):
    assert all(r.ok for r in all_errors_run.check_all())
    bad = final(all_errors_run, "bad-unmap")
    assert all(v.printed for v in bad.rec.violations)
    state = bad.dma.debug_state()
    assert state["all_errors"] and state["printed"] == state["error_count"] == bad.rec.violations.total


def test_by_default_only_the_first_error_is_printed_and_every_one_is_counted():
    lesson = shipped_lesson("dma-bugs")
    sim = Sim(lesson.params_for("bad-unmap"), faults=lesson.faults_for("bad-unmap"), trace=20)
    sim.run_frames(50)
    assert [v.printed for v in sim.rec.violations] == [True] + [False] * 99
    assert sim.dma.debug_state() == {"all_errors": False, "num_errors": 1, "error_count": 100, "printed": 1}
    counted = [e for e in sim.rec.events if e.call == "VIOLATION"][-1]
    assert counted.detail.endswith("printed nothing: num_errors was used up)")


def test_num_errors_is_a_countdown():
    lesson = shipped_lesson("dma-bugs")
    sim = Sim({**lesson.params_for("bad-unmap"), "dma_debug_num_errors": 5}, faults=lesson.faults_for("bad-unmap"))
    sim.run_frames(50)
    assert [v.printed for v in sim.rec.violations][:6] == [True] * 5 + [False]
    assert sim.dma.debug_state()["printed"] == 5 and sim.dma.error_count == 100


def test_after_a_printed_error_the_leak_at_unbind_is_only_counted():
    lesson = shipped_lesson("dma-bugs")
    sim = Sim(lesson.params_for("missing-unmap"), faults=lesson.faults_for("missing-unmap"))
    sim.run_frames(100)
    m = next(iter(sim.dma.live.values()))
    sim.dma.unmap(m, m.size + 1, m.dir)            # a driver's wrong-size unmap: the first error, printed
    sim.teardown()
    first, leak = [v for v in sim.rec.violations if v.printed is not None]
    assert (first.name, first.printed) == ("wrong-size", True)
    assert (leak.name, leak.printed) == ("leak-at-teardown", False)


def test_run_json_says_which_reports_the_kernel_printed():
    from models.runner import run_lesson
    result = run_lesson(shipped_lesson("dma-bugs"), variants=["bad-unmap", "no-sync"], frames=100, sensitivity=False)
    bad, nosync = result["variants"]["bad-unmap"], result["variants"]["no-sync"]
    assert [v["dma_debug"] for v in bad["violations"][:3]] == ["printed", "counted", "counted"]
    assert bad["dma_debug"] == {"all_errors": False, "num_errors": 1, "error_count": 220, "printed": 1}
    assert "dma_debug" not in nosync["violations"][0] and nosync["dma_debug"]["error_count"] == 0
