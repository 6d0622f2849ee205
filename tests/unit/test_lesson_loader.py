"""The lesson loader: valid lessons round-trip, untrusted files fail safely.

Every failure must be a LessonError whose str() is one line starting with
`file:line:column:` pointing at the offending spot, because that is what
`rxviz check` prints and what an author's editor jumps to.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import models
from models.lesson import (
    Lesson,
    LessonError,
    LessonNotFound,
    all_lessons,
    find_lesson,
    lesson_paths,
    lessons_dir,
    load_lesson,
    load_lesson_text,
    loader,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "lessons"
BAD = DATA / "bad"

MINIMAL = """\
id: minimal
title: Minimal
driver: none
summary: The smallest valid lesson.
scenario: {ram: 8GiB}
variants:
  only: {}
steps:
  - title: Start
    say: Hello.
"""


def error(path_or_text, *, text: bool = False) -> LessonError:
    """The LessonError a lesson raises, checked to be one line with file:line:col."""
    with pytest.raises(LessonError) as info:
        load_lesson_text(path_or_text) if text else load_lesson(path_or_text)
    e = info.value
    s = str(e)
    assert "\n" not in s and "\r" not in s
    if e.line == 0:          # the file as a whole (missing, a directory): no spot to point at
        assert s.startswith(f"{e.path}: ") and e.column == 0
    else:
        assert s.startswith(f"{e.path}:{e.line}:{e.column}: ")
        assert e.line >= 1 and e.column >= 1
    return e


def at(e: LessonError) -> tuple[int, int]:
    return e.line, e.column


# --- valid lessons -------------------------------------------------------------

def test_minimal_lesson_round_trip():
    lesson = load_lesson(DATA / "minimal.yaml")
    assert isinstance(lesson, Lesson)
    assert lesson.id == "minimal" and lesson.driver == "none"
    assert lesson.scenario == {"ram": 8 * 1024**3}
    assert lesson.scenario_raw == {"ram": "8GiB"}
    assert lesson.variants == {"only": {}}
    assert lesson.patch is None and lesson.paper is None
    assert lesson.headline.frames == 100_000 and lesson.headline.before == ""
    assert [s.show for s in lesson.steps] == ["only"]       # default: the first variant
    assert lesson.path == str(DATA / "minimal.yaml")


def test_full_lesson_every_field():
    lesson = load_lesson(DATA / "demo-full.yaml")
    assert lesson.scenario["ram"] == 8589934592
    assert lesson.scenario["iommu"] == "off"       # not YAML 1.1's False
    assert lesson.scenario["gro"] is False
    assert list(lesson.variants) == ["before", "after", "baseline"]   # file order kept
    assert lesson.params_for("after")["dma_mask"] == 36
    assert lesson.params_for("after")["ram"] == 8589934592
    assert lesson.params_for("baseline") == lesson.scenario
    assert "dma_mask" not in lesson.scenario           # params_for returns a fresh dict
    with pytest.raises(KeyError):
        lesson.params_for("nope")
    assert lesson.patch.date == "2024-01-23"            # a YAML date, stored as ISO text
    assert lesson.patch.commit == "0123456789"          # digits stay text, leading zero kept
    assert lesson.paper.before == 40.5 and lesson.paper.compare == "change"
    assert (lesson.headline.frames, lesson.headline.before, lesson.headline.after) == (200000, "before", "after")
    assert lesson.fitted[0].param == "rate"
    assert lesson.pseudocode["before"][1].startswith("dma = dma_map_single")
    s = lesson.steps
    assert [x.index for x in s] == [0, 1, 2, 3]
    assert s[1].code == 2 and s[1].run.kind == "frames" and s[1].run.frames == 8
    assert s[1].ask.answer == 0 and s[1].ask.choices == ("above 4 GiB", "below 4 GiB")
    assert (s[2].run.kind, s[2].run.call, s[2].run.count, s[2].run.limit) == ("until", "swiotlb_bounce", 2, 5000)
    assert s[3].run.kind == "teardown" and s[3].run.wait_ns == 61 * 10**9
    assert s[0].line == 45 and s[0].focus == "memory"
    kinds = [(c.kind, c.name, c.op, c.value, c.present) for c in lesson.checks]
    assert kinds == [("counter", "swiotlb_bounce", "==", 0, True), ("metric", "cpu_percent", ">", 20, True),
                     ("violation", "leak-at-teardown", "", None, False)]


def test_lesson_is_frozen():
    lesson = load_lesson(DATA / "minimal.yaml")
    with pytest.raises(AttributeError):
        lesson.id = "x"


def test_text_skips_the_stem_check():
    assert load_lesson_text(MINIMAL.replace("id: minimal", "id: whatever")).path is None


# --- bad lesson files: each one's first error, where and what -------------------

BAD_CASES = {
    "yaml-syntax": (6, 9, "", "YAML syntax error: expected ',' or '}'"),
    "wrong-type": (8, 3, "steps", "expected a list, got a mapping"),
    "unknown-key": (12, 11, "steps[1].run", "unknown key 'frame' (did you mean 'frames'?)"),
    "missing-id": (1, 1, "id", "missing required field"),
    "unknown-param": (7, 3, "scenario", "unknown parameter 'dma_mask2' (did you mean 'dma_mask'?)"),
    "bad-param-value": (6, 10, "scenario.ram", "expected a size such as 8GiB, 64MiB or 2048, got 'lots'"),
    "bad-variant-value": (8, 21, "variants.after.dma_mask",
                          "expected a mask width from 24 to 64 (dma_set_mask() fails below 24 bits on x86), got 99"),
    "nic-ring": (8, 11, "variants.after.ring_size",
                 "ring_size 300: atlantic (AQC100) takes 40 to 8184 RX descriptors in multiples of 8"),
    "frag-too-big": (5, 33, "scenario.frag_size",
                     "a 8192-byte fragment does not fit an order-0 page (4096 bytes): page_pool_alloc_frag() "
                     "warns and fails (in variant after)"),
    "anchor": (5, 11, "", "YAML anchors and aliases are not allowed in lessons"),
    "billion-laughs": (5, 4, "", "YAML anchors and aliases are not allowed in lessons"),
    "python-tag": (7, 17, "", "YAML tag '!!python/object/apply:os.system' is not allowed"),
    "duplicate-key": (8, 3, "", "duplicate key 'before'"),
    "too-deep": (5, 26, "", "lesson is nested too deeply"),
    "code-past-end": (14, 11, "steps[0].code", "line 3 is past the end of pseudocode.before (2 lines)"),
    "show-unknown-variant": (10, 11, "steps[0].show", "unknown variant 'aftr' (did you mean 'after'?)"),
    "check-two-kinds": (11, 5, "checks[0]", "expected exactly one of counter, metric or violation"),
    "run-two-forms": (10, 22, "steps[0].run", "expected exactly one of frames, until or teardown"),
    "id-mismatch": (1, 5, "id", "does not match the file name 'id-mismatch'"),
    "fitted-to-after": (9, 9, "fitted[0].to", "only the before figure may be fitted"),
    "unknown-call": (10, 18, "steps[0].run.until", "unknown kernel call 'dma_map_singel' (did you mean"),
    "paper-no-pair": (7, 8, "paper", "needs a headline pair"),
    "summary-two-lines": (4, 10, "summary", "expected one line, got several"),
    "top-level-list": (1, 1, "", "expected a lesson mapping, got a list"),
    "empty": (1, 1, "", "empty file, expected a lesson mapping"),
    "comment-only": (1, 1, "", "empty file, expected a lesson mapping"),
}


@pytest.mark.parametrize("name", sorted(BAD_CASES))
def test_bad_lesson(name):
    line, col, field, message = BAD_CASES[name]
    path = BAD / f"{name}.yaml"
    e = error(path)
    assert (e.path, e.line, e.column, e.field) == (str(path), line, col, field)
    assert message in e.message
    assert str(e).startswith(f"{path}:{line}:{col}: " + (f"{field}: " if field else ""))


def test_every_bad_file_has_a_case():
    assert {p.stem for p in BAD.glob("*.yaml")} == set(BAD_CASES)


def test_alias_bomb_is_rejected_quickly():
    start = time.perf_counter()
    error(BAD / "billion-laughs.yaml")
    assert time.perf_counter() - start < 1.0


def test_too_many_nodes():
    body = MINIMAL + "checks:\n" + "".join(f"  - {{variant: only, counter: irq, op: '>', value: {i}}}\n"
                                           for i in range(3000))
    e = error(body, text=True)
    assert e.message == "lesson has too many YAML nodes"
    assert e.line > 11


def test_a_variant_runs_a_model_driver_by_its_name_only():
    """`runs:` names one of the model's drivers (models.driver_names.DRIVERS): a name the model does
    not list is refused at the value, and a driver runs without the strategies' fault switches."""
    lesson = load_lesson_text(MINIMAL.replace("  only: {}", "  only: {strategy: page-pool, runs: atlantic}"))
    assert lesson.runs == {"only": "atlantic"} and lesson.variants["only"] == {"strategy": "page-pool"}
    e = error(MINIMAL.replace("  only: {}", "  only: {runs: models.drivers.atlantic}"), text=True)
    assert e.field == "variants.only.runs" and "unknown model driver" in e.message and at(e) == (7, 16)
    e = error(MINIMAL.replace("  only: {}", "  only: {runs: atlantic, inject: [double-unmap]}"), text=True)
    assert e.field == "variants.only.runs" and "injects no faults" in e.message


def test_error_points_at_value_for_bad_value_and_key_for_unknown_key():
    text = MINIMAL.replace("scenario: {ram: 8GiB}", "scenario:\n  mtu: 100\n  rnig_size: 4")
    e = error(text, text=True)
    assert at(e) == (6, 8) and e.field == "scenario.mtu"      # the value 100
    e = error(text.replace("mtu: 100", "mtu: 1500"), text=True)
    assert at(e) == (7, 3) and "did you mean 'ring_size'?" in e.message   # the key


@pytest.mark.parametrize("snippet, field, message", [
    ("    run: {frames: 0}", "steps[0].run.frames", "between 1 and 100,000 (a step is something to watch; "
     "a long run is `rxviz run`'s), got 0"),
    ("    run: {frames: many}", "steps[0].run.frames", "expected a whole number, got 'many'"),
    ("    run: {frames: true}", "steps[0].run.frames", "expected a whole number, got True"),
    ("    run: {frames: 1" + "0" * 400 + "}", "steps[0].run.frames", "got a 401-digit number"),
    ("    run: {frames: 1" + "0" * 5000 + "}", "steps[0].run.frames", "got a 5001-digit number"),
    ("    run: {frames: 100001}", "steps[0].run.frames", "between 1 and 100,000"),
    ("    run: {until: napi_poll, count: 10001}", "steps[0].run.count", "between 1 and 10,000"),
    ("    run: {until: napi_poll, limit: 1" + "0" * 17 + "}", "steps[0].run.limit",
     "between 1 and 100,000 (frames to give up after), got 100,000,000,000,000,000"),
    ("    run: {teardown: true, wait: 601s}", "steps[0].run.wait", "expected a time of at most 600s"),
    ("    code: 100000", "steps[0].code", "between 1 and 10,000"),
    ("    run: {frames: 4, count: 2}", "steps[0].run", "'count' does not go with 'frames'"),
    ("    run: {teardown: true, wait: soon}", "steps[0].run.wait", "expected a time such as"),
    ("    run: {teardown: true, wait: 1" + "0" * 400 + "s}", "steps[0].run.wait", "expected a time such as"),
    ("    focus: memroy", "steps[0].focus", "unknown view 'memroy' (did you mean 'memory'?)"),
    ("    ask: {question: q, choices: [a], answer: 0, explain: e}", "steps[0].ask.choices",
     "expected 2 to 6 entries, got 1"),
    ("    ask: {question: q, choices: [a, b], answer: 2, explain: e}", "steps[0].ask.answer",
     "between 0 and 1 (the index of one of its 2 choices, from 0), got 2"),
    ("    say: [a]", "steps[0]", "duplicate key 'say'"),
])
def test_step_errors(snippet, field, message):
    e = error(MINIMAL + snippet + "\n", text=True)
    if field == "steps[0]":   # duplicate keys are caught before validation, without a field
        assert e.field == "" and message in e.message
        return
    assert e.field == field and message in e.message
    assert e.line == 11


@pytest.mark.parametrize("check, field, message", [
    ("{variant: only, counter: swiotlb_bounce, op: '==', value: 0, present: true}", "checks[0]",
     "'present' goes with 'violation'"),
    ("{variant: only, violation: leak-at-teardown, op: '=='}", "checks[0]", "'op' does not go with 'violation'"),
    ("{variant: only, counter: swiotlb_bounce, value: 0}", "checks[0].op", "missing required field"),
    ("{variant: only, metric: cpu_precent, op: '<', value: 1}", "checks[0].metric",
     "unknown metric 'cpu_precent' (did you mean 'cpu_percent'?)"),
    ("{variant: only, counter: swiotlb_bounce_bytes, op: '=~', value: 1}", "checks[0].op", "unknown comparison"),
    ("{variant: only, violation: Bad_Name}", "checks[0].violation", "unknown violation 'Bad_Name'"),
    ("{variant: other, violation: x}", "checks[0].variant", "unknown variant 'other'"),
])
def test_check_errors(check, field, message):
    e = error(MINIMAL + f"checks:\n  - {check}\n", text=True)
    assert e.field == field and message in e.message and e.line == 12


def test_variant_rules():
    many = "variants: {a: {}, b: {}, c: {}, d: {}, e: {}, f: {}, g: {}}"
    e = error(MINIMAL.replace("variants:\n  only: {}", many).replace("show", "x"), text=True)
    assert e.field == "variants" and "expected 1 to 6 variants, got 7" in e.message
    e = error(MINIMAL.replace("  only: {}", "  Only: {}"), text=True)
    assert e.field == "variants" and at(e) == (7, 3)
    assert load_lesson_text(MINIMAL.replace("  only: {}", "  only:")).variants == {"only": {}}


def test_patch_rules():
    patch = "patch: {subject: s, author: a, date: 2024-02-30, commit: abc}\n"
    e = error(MINIMAL + patch, text=True)
    assert e.field == "patch.date" and "YYYY-MM-DD" in e.message
    e = error(MINIMAL + patch.replace("2024-02-30, commit: abc", "2024-02-03"), text=True)
    assert e.field == "patch" and "needs a message_id, a commit or a url" in e.message
    # a copy that kept no mail headers: no date, found by its seed; nothing is made up
    bare = load_lesson_text(MINIMAL + "patch: {subject: s, author: a, seed: 003_x.txt}\n").patch
    assert (bare.date, bare.message_id, bare.commit) == ("", "", "")
    e = error(MINIMAL + patch.replace("subject: s, ", ""), text=True)
    assert e.field == "patch.subject" and e.message == "missing required field"


def test_yaml_syntax_error_position():
    e = error('id: x\ntitle: "unclosed\n', text=True)
    assert e.message.startswith("YAML syntax error:") and e.line == 3


# --- reading untrusted files ---------------------------------------------------

def test_missing_file(tmp_path):
    e = error(tmp_path / "nope.yaml")
    # No line:column: there is no line 1 in a file that does not exist.
    assert e.message == "no such file" and at(e) == (0, 0)
    assert str(e) == f"{tmp_path / 'nope.yaml'}: no such file"


def test_directory(tmp_path):
    e = error(tmp_path)
    assert e.message == "is a directory, expected a .yaml file"


def test_huge_file_rejected_without_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(50 * 1024 * 1024)        # sparse: no disk used
    reads = []
    monkeypatch.setattr(loader.os, "read", lambda fd, n: reads.append(n) or b"")
    e = error(big)
    assert e.message == f"file is {50 * 1024 * 1024} bytes; lessons are limited to 1 MiB"
    assert reads == []


def test_file_that_grows_after_stat_is_capped(tmp_path, monkeypatch):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(10 * 1024 * 1024)
    real_stat, real_read, total = os.stat, os.read, []
    monkeypatch.setattr(loader.os, "stat", lambda p: os.stat_result((0o100644, 0, 0, 1, 0, 0, 10, 0, 0, 0))
                        if str(p) == str(big) else real_stat(p))
    monkeypatch.setattr(loader.os, "read", lambda fd, n: (lambda b: total.append(len(b)) or b)(real_read(fd, n)))
    e = error(big)
    assert "lessons are limited to 1 MiB" in e.message
    assert sum(total) <= loader.MAX_BYTES + 1


def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "secret.yaml"
    path.write_text(MINIMAL)
    if os.geteuid() == 0:     # root reads anything: simulate the permission failure
        def refuse(*args, **kwargs):
            raise PermissionError(13, "Permission denied")
        monkeypatch.setattr(loader.os, "open", refuse)
    else:
        path.chmod(0)
    e = error(path)
    assert e.message == "cannot read: Permission denied" and at(e) == (0, 0)


def test_binary_file(tmp_path):
    path = tmp_path / "bin.yaml"
    path.write_bytes(b"id: x\ntit\0le: y\n")
    e = error(path)
    assert e.message == "binary file (NUL byte at line 2, column 4)"


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"id: x\ntitle: caf" + b"\xff\n")
    e = error(path)
    assert e.message == "not UTF-8 (byte 0xff)" and at(e) == (2, 11)


def test_control_character_is_a_syntax_error(tmp_path):
    path = tmp_path / "ctl.yaml"
    path.write_bytes(b"id: x\ntitle: a\x07b\n")
    e = error(path)
    assert e.message.startswith("YAML syntax error") and at(e) == (2, 9)


def test_str_is_one_line_even_with_odd_paths():
    e = LessonError("a\nb.yaml", 3, 4, "f", "bad\nthing")
    assert str(e) == "a b.yaml:3:4: f: bad thing"
    assert str(LessonError("x.yaml", 1, 1, "", "m")) == "x.yaml:1:1: m"


# --- finding lessons -----------------------------------------------------------

def test_lessons_dir_in_a_checkout():
    assert lessons_dir() == Path(models.__file__).resolve().parent.parent / "lessons"


def test_lesson_order_and_lookup(tmp_path, monkeypatch):
    for name in ("zeta", "alpha", "rx-basics"):
        (tmp_path / f"{name}.yaml").write_text(MINIMAL.replace("id: minimal", f"id: {name}"))
    (tmp_path / "README.md").write_text("not a lesson")
    monkeypatch.setattr(loader, "lessons_dir", lambda: tmp_path)
    assert [p.stem for p in lesson_paths()] == ["rx-basics", "alpha", "zeta"]
    assert [x.id for x in all_lessons()] == ["rx-basics", "alpha", "zeta"]
    assert find_lesson("zeta").id == "zeta"
    assert find_lesson(str(DATA / "minimal.yaml")).id == "minimal"     # a path works too
    with pytest.raises(LessonNotFound) as info:
        find_lesson("zeat")
    assert str(info.value) == ("unknown lesson 'zeat': known lessons are rx-basics, alpha, zeta "
                               "(did you mean 'zeta'?)")
    with pytest.raises(LessonNotFound) as info:
        find_lesson("qqqqqq")
    assert "did you mean" not in str(info.value)


def test_package_imports_no_ui():
    code = ("import sys, models.lesson; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'viz')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(models.__file__).resolve().parent.parent)
    assert out.stdout.strip() == "[]"


# --- fuzzing: nothing but LessonError may escape -------------------------------

FULL = (DATA / "demo-full.yaml").read_text()


def only_lesson_errors(text: str) -> None:
    try:
        load_lesson_text(text)
    except LessonError as e:
        assert "\n" not in str(e) and re.match(r"^<string>:\d+:\d+: ", str(e))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_random_bytes(tmp_path, data):
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(data)
    try:
        load_lesson(path)
    except LessonError as e:
        assert "\n" not in str(e) and str(e).startswith(f"{path}:")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_random_text(text):
    only_lesson_errors(text)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, len(FULL) - 1), st.integers(0, 40), st.text(alphabet="{}[]:,-&*!'\"#|> \n\tx0.~", max_size=6))
def test_mutated_lesson(pos, cut, insert):
    only_lesson_errors(FULL[:pos] + insert + FULL[pos + cut:])


def test_huge_numbers_are_errors_not_crashes():
    paper = "paper: {metric: cpu_percent, unit: '%', before: 1" + "0" * 400 + ", after: .inf, source: x}\n"
    body = MINIMAL.replace("  only: {}", "  before: {}\n  after: {}")
    e = error(body + paper, text=True)
    # Both are found in one pass: each number of a lesson is bounded, and a float must be finite.
    assert [(x.field, x.message) for x in e.errors] == [
        ("paper.before", "expected a number of at most 1,000,000,000,000, got a 401-digit number"),
        ("paper.after", "expected a number, got inf")]


# --- the authors' documentation stays true ---------------------------------------

README = Path(models.__file__).resolve().parent.parent / "lessons" / "README.md"


def test_readme_example_is_a_valid_lesson():
    text = README.read_text()
    example = re.search(r"```yaml\n(.*?)```", text, re.S).group(1)
    lesson = load_lesson_text(example)
    assert lesson.id == "ath11k-36bit-dma-mask" and lesson.fitted[0].param == "stack_skb_ns"


def test_readme_documents_every_scenario_parameter():
    # The table is generated from models.params: the README must hold it as generated.
    from models.param_docs import BEGIN, END, table
    text = README.read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    assert text[text.index(BEGIN):text.index(END) + len(END)] == table(), \
        "lessons/README.md is stale: run `python -m models.param_docs --write lessons/README.md`"


def test_readme_names_every_violation_a_check_can_name():
    from models.calls import VIOLATIONS
    row = next(line for line in README.read_text().splitlines() if line.startswith("| `violation` |"))
    assert set(re.findall(r"`([a-z-]+)`", row)) - {"violation"} == set(VIOLATIONS)


def test_lessons_dir_prefers_the_packaged_copy(tmp_path, monkeypatch):
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "rx-basics.yaml").write_text(MINIMAL.replace("id: minimal", "id: rx-basics"))
    monkeypatch.setattr(loader.importlib.resources, "files", lambda pkg: tmp_path)
    assert lessons_dir() == tmp_path / "lessons"


def test_end_pair_rules():
    two = MINIMAL.replace("  only: {}", "  a: {}\n  b: {}")
    assert load_lesson_text(two + "end_pair: [b, a]\n").end_pair == ("b", "a")
    assert load_lesson_text(two).end_pair == ()
    e = error(two + "end_pair: [a, c]\n", text=True)
    assert e.field == "end_pair[1]" and "unknown variant 'c'" in e.message
    e = error(two + "end_pair: [a, a]\n", text=True)
    assert e.field == "end_pair" and "two different" in e.message
    e = error(two + "end_pair: [a]\n", text=True)
    assert e.field == "end_pair"
