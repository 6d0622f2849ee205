"""What the lessons carry for teaching: fair questions, speaker notes, recaps and the glossary.

- `rxviz check` reports a question its step's title or visible pseudo-code
  gives away (models.lesson.fairness), and no shipped lesson has one;
- every step of every shipped lesson has speaker notes, and what `rxviz
  notes` prints for a question step includes the question and its answer;
- every shipped lesson has a recap for its end screen;
- the glossary loads as untrusted as a lesson, cites the kernel for every
  term, and finds a step's terms in its text.
"""

from __future__ import annotations

import pytest
from shipped import shipped_lessons

from models.lesson import LessonError, load_lesson_text
from models.lesson.fairness import spoilers
from models.lesson.glossary import glossary, load_glossary, terms_in
from viz.notes import asked, render

LESSONS = shipped_lessons()

ASKING = """
id: fair
title: t
driver: d
summary: s
scenario: {platform: x86-generic}
variants: {a: {}}
pseudocode:
  a: |
    refill: dma_map_single()
      if (dma_mapping_error()) { drop the frame; keep the old buffer }
    alloc cache, else ptr_ring
steps:
  - title: "{title}"
    say: hi
    ask:
      question: "The pool is full. What happens next?"
      choices: ["nothing at all", "a mapping fails and its frame is dropped", "the driver oopses at once"]
      answer: 1
      explain: why
{hide}
"""


def lesson(title: str = "Keep going", hide: str = ""):
    return load_lesson_text(ASKING.replace("{title}", title).replace("{hide}", hide))


def test_a_pseudo_code_line_that_names_the_answer_is_reported_until_hidden():
    found = spoilers(lesson())
    assert [why for _, why in found] == [
        "pseudocode.a line 2 names the answer (drop, frame) while the question waits: add 2 to hide_code "
        "or reword the line"]
    assert not spoilers(lesson(hide="      hide_code: [2]"))


def test_a_title_that_names_a_choice_is_reported():
    found = spoilers(lesson(title="When a mapping fails", hide="      hide_code: [2]"))
    assert found and "its title names choice 2" in found[0][1]


def test_a_line_that_names_every_choice_favours_none():
    text = ASKING.replace('["nothing at all", "a mapping fails and its frame is dropped", "the driver oopses at once"]',
                          '["through the ptr_ring", "through the lockless alloc cache", "both"]')
    assert not spoilers(load_lesson_text(text.replace("{title}", "Where").replace("{hide}", "      hide_code: [2]")))


def test_an_earlier_step_cannot_watch_what_a_question_keeps_back():
    text = ASKING.replace("{title}", "Keep going").replace("{hide}", "      hide_code: [2]\n"
                                                            "      hide_counts: [rx_dropped]")
    text = text.replace("steps:\n", "steps:\n  - {title: First, say: hi, watch: [rx_dropped]}\n")
    assert [why for _, why in spoilers(load_lesson_text(text))] == [
        "step 1 watches rx_dropped, which this question keeps back until it is answered: leave it out of "
        "that step's watch or of hide_counts"]
    assert not spoilers(load_lesson_text(text.replace("watch: [rx_dropped]", "watch: [tcp_send_ack]")))


@pytest.mark.parametrize("lesson_", LESSONS, ids=[x.id for x in LESSONS])
def test_no_shipped_question_is_given_away_by_its_title_or_code(lesson_):
    assert spoilers(lesson_) == []


@pytest.mark.parametrize("lesson_", LESSONS, ids=[x.id for x in LESSONS])
def test_every_step_has_speaker_notes_and_the_lesson_a_recap(lesson_):
    assert [s.index + 1 for s in lesson_.steps if not s.notes.strip()] == []
    assert lesson_.recap


def test_the_speakers_notes_of_a_question_step_give_the_question_and_its_answer():
    rx = next(x for x in LESSONS if x.id == "rx-basics")
    spec = rx.steps[4]
    text = render({"lesson": rx.id, "step": 5, "total": len(rx.steps), "step_title": spec.title,
                   "notes": spec.notes, "ask": asked(spec.ask), "started": 0, "updated": 0}, 200)
    assert spec.ask.question in text
    right = spec.ask.choices[spec.ask.answer]
    assert f"✓ {spec.ask.answer + 1}. {right}" in text and spec.ask.explain[:40] in text


def test_the_glossary_cites_the_kernel_for_every_term():
    terms = load_glossary()
    assert len(terms) >= 30 and terms == glossary()
    names = {t.term for t in terms}
    for wanted in ("GFP_ATOMIC", "ZONE_DMA32", "streaming mapping", "IOTLB", "CMD53", "NAPI budget", "frag_list"):
        assert wanted in names
    for t in terms:
        assert "/" in t.kernel or "boot option" in t.kernel, t.term   # a kernel file, at least one
        assert len(t.means) <= 600


def test_a_steps_terms_are_found_by_any_of_their_names():
    terms = glossary()
    found = {t.term for t in terms_in("The buffer is bounced; GRO then merges it (napi_gro_receive).", terms)}
    assert {"SWIOTLB", "GRO"} <= found
    assert "descriptor ring" not in {t.term for t in terms_in("a string of bytes", terms)}   # whole words only


def test_a_bad_glossary_says_where(tmp_path):
    bad = tmp_path / "terms.yaml"
    bad.write_text("terms:\n  - term: X\n    means: y\n")
    with pytest.raises(LessonError) as exc:
        load_glossary(bad)
    assert "missing required field" in str(exc.value) and exc.value.line == 2
    bad.write_text("terms:\n  - {term: X, means: see tests/unit, kernel: net/core/dev.c}\n")
    with pytest.raises(LessonError, match="cite the kernel"):
        load_glossary(bad)
