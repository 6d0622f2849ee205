"""The lesson fields of issue 9: reveal, watch, notes, payoff, ask.hide_code, variant inject,
and the answer-position warning of `rxviz check`."""

from __future__ import annotations

import pytest
from shipped import shipped_lessons

from models.calls import CALLS, COUNTERS, METRICS
from models.lesson import LessonError, load_lesson_text
from models.replay import LessonRun
from viz.cli import main

BASE = """\
id: fields
title: "Fields"
driver: generic
summary: "one line"
scenario: {platform: x86-generic}
variants:
  a: {}
  b: {inject: [no-sync-for-cpu], expect: [no-sync-for-cpu]}
pseudocode:
  a: |
    one
    two
    three
steps:
"""

STEP = """\
  - title: "Q"
    say: "before"
    show: a
    run: {frames: 2}
    watch: [tcp_send_ack, cpu_percent]
    notes: "for the speaker"
    reveal: "after"
    ask:
      question: "?"
      choices: ["x", "y"]
      answer: ANSWER
      explain: "because"
      hide_code: [2]
      hide_counts: [rx_dropped]
      hide_figures: [cost.stack, gro_held, detail.napi_gro_receive]
"""


def lesson(text: str = "", answers=(1,)):
    return load_lesson_text(BASE + "".join(STEP.replace("ANSWER", str(a)) for a in answers) + text)


def test_the_new_fields_load():
    x = lesson()
    step = x.steps[0]
    assert step.say == "before" and step.reveal == "after" and step.notes == "for the speaker"
    assert step.watch == ("tcp_send_ack", "cpu_percent") and step.ask.hide_code == (2,)
    assert step.ask.hide_counts == ("rx_dropped",)
    assert step.ask.hide_figures == ("cost.stack", "gro_held", "detail.napi_gro_receive")
    assert step.text(False) == "before" and step.text(True) == "before\n\nafter"
    assert x.inject == {"b": ("no-sync-for-cpu",)} and x.faults_for("b", ["double-unmap"]) == \
        ("no-sync-for-cpu", "double-unmap")
    assert x.faults_for("a") == ()


@pytest.mark.parametrize("change,field,message", [
    ("watch: [tcp_send_ack, cpu_percent]", "steps[0].watch[0]", "unknown counter or metric 'tcpack'"),
    ("hide_code: [2]", "steps[0].ask.hide_code[0]", "between 1 and 3"),
    ("hide_counts: [rx_dropped]", "steps[0].ask.hide_counts[0]", "unknown counter or metric 'rx_drop'"),
    ("hide_figures: [cost.stack,", "steps[0].ask.hide_figures[0]", "unknown figure 'cost.stak'"),
    ("reveal: \"after\"\n    ask:", "steps[0]", "'reveal' is said after a question"),
])
def test_bad_values_are_refused_at_the_spot(change, field, message):
    bad = {"watch: [tcp_send_ack, cpu_percent]": "watch: [tcpack, cpu_percent]",
           "hide_code: [2]": "hide_code: [7]",
           "hide_counts: [rx_dropped]": "hide_counts: [rx_drop]",
           "hide_figures: [cost.stack,": "hide_figures: [cost.stak,",
           "reveal: \"after\"\n    ask:": "reveal: \"after\"\n    xask:"}[change]
    text = BASE + STEP.replace("ANSWER", "1").replace(change, bad)
    if "xask" in bad:           # a reveal with no question: drop the question
        text = text.split("    xask:")[0]
    with pytest.raises(LessonError) as e:
        load_lesson_text(text)
    assert e.value.field == field and message in e.value.message


def test_an_unknown_fault_is_refused():
    with pytest.raises(LessonError) as e:
        load_lesson_text(BASE.replace("inject: [no-sync-for-cpu]", "inject: [no-such]") + STEP.replace("ANSWER", "1"))
    assert e.value.field == "variants.b.inject[0]" and "unknown fault 'no-such'" in e.value.message


def test_payoff_needs_a_paper_and_only_one_step():
    with pytest.raises(LessonError) as e:
        lesson("  - {title: P, say: p, payoff: true}\n")
    assert "has no 'paper'" in e.value.message


def test_a_variant_runs_with_its_faults_in_the_replay():
    run = LessonRun(lesson(), trace=0)
    run.run_to_end()
    assert {v.name for v in run.sims["b"].rec.violations} == {"no-sync-for-cpu"}
    assert not run.sims["a"].rec.violations


def test_answer_balance():
    assert lesson(answers=(1, 1)).answer_balance().startswith("2 of its 2 answers are choice 2")
    assert lesson(answers=(0, 1)).answer_balance() == ""
    assert lesson(answers=(1,)).answer_balance() == ""          # one question has one position


def test_answer_lengths():
    longest = STEP.replace('choices: ["x", "y"]', 'choices: ["x", "a longer one"]')
    two = lambda *steps: load_lesson_text(BASE + "".join(steps))       # noqa: E731
    assert two(longest.replace("ANSWER", "1"), longest.replace("ANSWER", "1")).answer_lengths() \
        .startswith("in 2 of its 2 questions the right choice is the longest")
    assert two(longest.replace("ANSWER", "1"), longest.replace("ANSWER", "0")).answer_lengths() == ""
    assert two(STEP.replace("ANSWER", "1"), STEP.replace("ANSWER", "0")).answer_lengths() == ""   # "x", "y": a tie
    assert two(longest.replace("ANSWER", "1")).answer_lengths() == ""          # one question is no pattern


def test_rxviz_check_warns_about_the_longest_choice(tmp_path, capsys):
    path = tmp_path / "fields.yaml"
    longest = STEP.replace('choices: ["x", "y"]', 'choices: ["x", "a longer one"]')
    path.write_text(BASE + longest.replace("ANSWER", "1") + longest.replace("ANSWER", "0")
                    + longest.replace("ANSWER", "1"))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "warning: answers: in 2 of its 3 questions the right choice is the longest" in out


def test_rxviz_check_warns_and_exits_0(tmp_path, capsys):
    path = tmp_path / "fields.yaml"
    path.write_text(BASE + "".join(STEP.replace("ANSWER", "1") for _ in range(2)))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok  fields") and "warning: answers: 2 of its 2 answers are choice 2" in out


def test_every_shipped_lesson_keeps_the_rules():
    for x in shipped_lessons():
        assert not x.answer_balance(), x.id
        assert not x.answer_lengths(), x.id
        for step in x.steps:
            assert all(n in COUNTERS or n in METRICS or n in CALLS for n in step.watch)
        if x.paper is not None:
            assert x.payoff_step, f"{x.id}: a lesson with a published figure marks its payoff step"
