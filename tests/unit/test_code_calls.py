"""`code_calls`: each pseudo-code line's kernel calls, checked on load and against the model's order.

The order test runs every variant that maps its pseudo-code and reads the
lines its calls stand for, in the order the model makes them. The code must
read in that order: the ▶ may only jump back to the first mapped line of a
block (a function called again, a loop's next turn), and within one poll an
object's calls never go back up the code (`build_skb` before the unmap in
the code but after it in the log is the mismatch issue 18 found in dma-bugs).
"""

from __future__ import annotations

import inspect

import pytest
from shipped import shipped_lessons

from models.lesson import LessonError, load_lesson_text
from models.lesson.extras import before_of, line_of
from models.sim import Sim

LESSON = """
id: tiny
title: t
driver: d
summary: s
scenario: {platform: x86-generic}
variants: {a: {}, b: {}}
pseudocode:
  a: |
    poll():
      dma_unmap_single(tx)
      dma_unmap_single(rx)
steps:
  - {title: one, say: hi}
"""


def load(extra: str):
    return load_lesson_text(LESSON + extra)


def test_lines_map_to_calls_and_a_machine_tells_two_lines_apart():
    lesson = load("code_calls:\n  a:\n    1: [napi_poll]\n    2: [dma_unmap_single on tx_buffer]\n"
                  "    3: [dma_unmap_single]\n")
    entries = lesson.code_calls["a"]
    assert entries[2] == (("dma_unmap_single", "tx_buffer", ""),)
    assert line_of(entries, "dma_unmap_single", {"tx_buffer"}) == 2
    assert line_of(entries, "dma_unmap_single", {"rx_buffer"}) == 3
    assert line_of(entries, "dma_unmap_single", set()) == 3
    assert line_of(entries, "napi_poll", set()) == 1 and line_of(entries, "irq", set()) == 0


def test_a_call_told_apart_by_the_call_before_it_and_line_0_for_none():
    lesson = load("code_calls:\n  a:\n    0: [napi_skb_cache_get after tcp_send_ack]\n"
                  "    3: [napi_skb_cache_get]\n")
    entries = lesson.code_calls["a"]
    assert line_of(entries, "napi_skb_cache_get", {"skb_head"}, "dma_unmap_single") == 3
    assert line_of(entries, "napi_skb_cache_get", {"skb_head"}, "tcp_send_ack") == 0
    with pytest.raises(LessonError, match="unknown kernel call 'tcp_ack'"):
        load("code_calls:\n  a:\n    0: [napi_skb_cache_get after tcp_ack]\n")


@pytest.mark.parametrize("extra,message", [
    ("code_calls:\n  a:\n    1: [napi_pol]\n", "unknown kernel call 'napi_pol' (did you mean 'napi_poll'?)"),
    ("code_calls:\n  a:\n    1: [napi_poll on rx_bufer]\n", "unknown machine 'rx_bufer'"),
    ("code_calls:\n  a:\n    4: [napi_poll]\n", "expected a whole number between 0 and 3, got 4"),
    ("code_calls:\n  b:\n    1: [napi_poll]\n", "variant 'b' has no pseudocode to map"),
    ("code_calls:\n  a:\n    1: [napi_poll]\n    2: [napi_poll]\n", "'napi_poll' is already on line 1"),
    ("code_calls:\n  c:\n    1: [napi_poll]\n", "unknown variant 'c'"),
])
def test_bad_entries_are_reported_where_they_are(extra, message):
    with pytest.raises(LessonError) as exc:
        load(extra)
    assert message in str(exc.value) and exc.value.line > 0


def test_a_recap_is_three_to_five_sentences():
    assert load("recap: One. Two. Three.\n").recap == "One. Two. Three."
    with pytest.raises(LessonError, match="three to five sentences"):
        load("recap: Only one.\n")


def starts(lines: tuple[str, ...], mapped: set[int]) -> set[int]:
    """Lines the ▶ may jump back to: the first mapped line of any block, and a mapped line opening one."""
    ind = [len(t) - len(t.lstrip()) for t in lines]
    n = len(lines)
    out = set()
    for p in range(-1, n):
        hi = n if p < 0 else next((j for j in range(p + 1, n) if ind[j] <= ind[p] and lines[j].strip()), n)
        first = next((k + 1 for k in range(p + 1, hi) if k + 1 in mapped), None)
        if first is not None:
            out.add(first)
        if p >= 0 and p + 1 in mapped and (ind[p] == 0 or hi > p + 1):
            out.add(p + 1)
    return out


MAPPED = [(lesson, v) for lesson in shipped_lessons() for v in lesson.code_calls]


@pytest.mark.parametrize("lesson,variant", MAPPED, ids=[f"{lesson.id}-{v}" for lesson, v in MAPPED])
def test_the_pseudo_code_reads_in_the_order_the_model_makes_its_calls(lesson, variant):
    entries = lesson.code_calls[variant]
    kw = {"faults": lesson.faults_for(variant)} if "faults" in inspect.signature(Sim).parameters else {}
    sim = Sim(lesson.params_for(variant), trace=50_000, **kw)
    sim.run_frames(80)
    seq: list[tuple[int, str]] = []
    progress: dict[str, int] = {}
    received: set[str] = set()
    mapped = 0
    events = list(sim.rec.events)
    for i, ev in enumerate(events):
        if ev.seq <= sim.setup_seq:
            continue
        if ev.call in ("napi_poll", "tasklet_action"):
            progress = {}                    # a new poll: each object goes through the code again
        received |= {t.obj for t in ev.transitions if t.call == "rx_frame"}
        line = line_of(entries, ev.call, {t.machine for t in ev.transitions}, before_of(events, i))
        if not line:
            continue
        mapped += 1
        if not seq or seq[-1][0] != line:
            seq.append((line, ev.call))
        obj = ev.transitions[0].obj if ev.transitions else None
        if obj in received:
            assert progress.get(obj, 0) <= line, (f"{obj}: {ev.call} stands for line {line}, "
                                                  f"after a call of line {progress[obj]} in the same poll")
            progress[obj] = line
    assert mapped, "no call of the run stands for a line"
    ok = starts(lesson.pseudocode[variant], set(entries))
    for (a, ca), (b, cb) in zip(seq, seq[1:], strict=False):
        assert b >= a or b in ok, f"{cb} (line {b}) after {ca} (line {a}): the code reads in another order"
