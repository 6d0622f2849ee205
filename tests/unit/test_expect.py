"""Variants that show a checker violation on purpose (`expect:`), and runs the paper never measured.

A lesson that demonstrates a bug must not look broken: the violations its
variants `expect` are reported as shown on purpose and do not make `rxviz
run` exit 3; any other violation still does. The data lesson
tests/data/lessons/expect-demo.yaml has one variant of each kind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shipped import shipped_lesson

from models.lesson import LessonError, load_lesson, load_lesson_text
from models.runner import run_lesson, unexpected
from viz import cli

DATA = Path(__file__).resolve().parents[1] / "data"
EXPECT = str(DATA / "lessons" / "expect-demo.yaml")
DEMO = str(DATA / "cli" / "cli-demo.yaml")

BASE = """id: x1
title: T
driver: d
summary: s
scenario: {}
variants:
  a: {}
  b: %s
steps: [{title: t, say: s}]
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_expect_is_read_per_variant_and_is_no_parameter():
    lesson = load_lesson(EXPECT)
    assert lesson.expect == {"broken": ("leak-at-teardown",)}
    assert "expect" not in lesson.params_for("broken") and lesson.params_for("broken")["tx_clean"] == "budgeted"


@pytest.mark.parametrize("value, message", [
    ("{expect: [gro-outside-nap]}", "unknown violation 'gro-outside-nap' (did you mean 'gro-outside-napi'?)"),
    ("{expect: gro-outside-napi}", "expected a list"),
    ("{expect: [double-unmap, double-unmap]}", "'double-unmap' is listed twice"),
    ("{expect: []}", "expected 1 to"),
])
def test_a_bad_expect_is_a_lesson_error_at_its_spot(value, message):
    with pytest.raises(LessonError) as info:
        load_lesson_text(BASE % value)
    assert message in str(info.value) and info.value.line == 8 and "variants.b.expect" in str(info.value)


def test_expected_violations_are_shown_on_purpose_and_exit_0(capsys):
    code, out, err = run(capsys, "run", EXPECT, "--frames", "300")
    assert code == 0 and err == ""
    assert "Violations shown on purpose (the lesson expects them)" in out
    assert "Violations reported by the checker" not in out


def test_an_unexpected_violation_still_exits_3(capsys):
    code, out, err = run(capsys, "run", EXPECT, "--frames", "300", "--inject", "no-sync-for-cpu")
    assert code == 3
    assert "Violations reported by the checker" in out and "Violations shown on purpose" in out
    assert err.startswith("rxviz: the checker reported") and "leak-at-teardown" not in err


def test_json_marks_expected_violations():
    result = run_lesson(load_lesson(EXPECT), frames=300)
    broken = result["variants"]["broken"]
    assert broken["expect"] == ["leak-at-teardown"]
    assert broken["violations"] and all(v["expected"] for v in broken["violations"])
    assert unexpected(result) == {}
    faulty = run_lesson(load_lesson(EXPECT), frames=300, faults=["no-sync-for-cpu"])
    assert set(unexpected(faulty)) == {"fixed", "broken"}
    assert "leak-at-teardown" not in unexpected(faulty)["broken"]


def test_trace_of_an_expecting_variant_exits_0(capsys):
    code, out, err = run(capsys, "trace", "ath10k-sdio-napi", "--variant", "usb-hunk",
                         "--frames", "3")
    assert code == 0 and err == ""
    assert "violations ath10k-sdio-napi / usb-hunk shows on purpose" in out
    assert "napi-not-added" in out


@pytest.mark.parametrize("lesson, variant", [("ath10k-sdio-napi", "usb-hunk"), ("ath10k-sdio-napi", "usb-merged"),
                                             ("atlantic-page-pool", "after-no-fix")])
def test_the_shipped_lessons_that_fail_on_purpose_say_so(capsys, lesson, variant):
    code, out, err = run(capsys, "run", lesson, "--variant", variant, "--frames", "500", "--json")
    assert code == 0, err
    assert json.loads(out)["variants"][variant]["violation_counts"]
    assert shipped_lesson(lesson).expect[variant]


# -- a changed scenario is not compared with the paper ------------------------------------
def test_a_changed_scenario_compares_nothing(capsys):
    code, out, _ = run(capsys, "run", DEMO, "--frames", "500", "--set", "ram=2GiB")
    assert code == 0
    assert "within tolerance" not in out and "error" not in out.split("Model: cpu_percent")[1]
    assert "not compared with the paper: ram changed" in out
    h = run_lesson(load_lesson(DEMO), frames=500, sets={"ram": 2 << 30})["headline"]
    assert h["changed"] == ["ram"] and h["within"] is None and "before_error_pct" not in h


def test_setting_the_lessons_own_value_changes_nothing(capsys):
    code, out, _ = run(capsys, "run", DEMO, "--frames", "500", "--set", "ram=8GiB")
    assert code == 0 and "within tolerance:" in out and "not compared" not in out


def test_a_fault_is_a_changed_scenario_too():
    h = run_lesson(load_lesson(DEMO), frames=300, faults=["double-unmap"])["headline"]
    assert h["changed"] == ["fault double-unmap"] and h["within"] is None
