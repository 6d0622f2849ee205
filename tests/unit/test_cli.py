"""The `rxviz` command line: output, exit codes and one-line errors.

Most tests call `viz.cli.main([...])` in-process; a few run `python -m viz`
in a subprocess to prove that bad input never reaches a traceback. The
lessons used live in tests/data/cli/ and tests/data/lessons/ (the lessons
directory is redirected there), so these tests do not depend on the real
lessons, which are written and refitted independently.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_message import message, messages
from shipped import shipped_lesson

from models import lifecycle
from models.calls import CALLS, FAULT_SHOWS
from models.lesson import load_lesson, loader
from models.params import PARAMS
from models.runner import run_lesson
from models.sim import FAULTS
from viz import cli
from viz.cli import graph as cli_graph

DATA = Path(__file__).resolve().parents[1] / "data"
DEMO = str(DATA / "cli" / "cli-demo.yaml")
FAILS = str(DATA / "cli" / "cli-fails.yaml")
BAD = DATA / "lessons" / "bad"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lessons(monkeypatch):
    """Point the lessons directory at tests/data/cli (cli-demo, cli-fails)."""
    monkeypatch.setattr(loader, "lessons_dir", lambda: DATA / "cli")
    return DATA / "cli"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert code != cli.EXIT_INTERNAL, err
    return code, out, err


# -- no arguments, list --------------------------------------------------------
def test_no_arguments_prints_usage_with_lessons_and_commands(capsys, lessons):
    code, out, err = run(capsys)
    assert code == 0 and err == ""
    assert "cli-demo" in out and "CLI demo: page_pool" in out
    for command in ("rxviz list", "rxviz run LESSON", "rxviz trace", "rxviz graph", "rxviz check"):
        assert command in out
    assert "rxviz play" in out


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("rxviz ")


def test_list_table_fits_80_columns(capsys, lessons):
    code, out, err = run(capsys, "list")
    assert code == 0 and err == ""
    assert "cli-demo" in out and "cli-fails" in out and "demo" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_list_json(capsys, lessons):
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    items = {x["id"]: x for x in json.loads(out)}
    demo = items["cli-demo"]
    assert set(demo) == {"id", "title", "driver", "summary", "steps", "variants", "patch"}
    assert demo["steps"] == 3 and demo["variants"] == ["before", "after"]
    assert demo["patch"] == {"subject": "net: demo: use page_pool for RX buffers",
                             "author": "A. Tester <tester@example.org>", "date": "2024-05-01",
                             "message_id": "<20240501.1@example.org>", "commit": ""}
    assert items["cli-fails"]["patch"] is None


def test_list_reports_a_broken_lesson_and_lists_the_rest(capsys, monkeypatch, tmp_path):
    shutil.copy(DEMO, tmp_path)
    shutil.copy(BAD / "unknown-key.yaml", tmp_path)
    monkeypatch.setattr(loader, "lessons_dir", lambda: tmp_path)
    code, out, err = run(capsys, "list", "--json")
    assert code == 1
    assert [x["id"] for x in json.loads(out)] == ["cli-demo"]
    line = message(err)
    assert "unknown-key.yaml:12:11: steps[1].run: unknown key 'frame'" in line


# -- graph ---------------------------------------------------------------------------
def test_graph_lists_machines(capsys):
    code, out, _ = run(capsys, "graph")
    assert code == 0
    for name, (title, _, _) in lifecycle.MACHINES.items():
        assert name in out and title in out


@pytest.mark.parametrize("fmt,render", [("text", lifecycle.to_text), ("dot", lifecycle.to_dot),
                                        ("mermaid", lifecycle.to_mermaid)])
def test_graph_formats(capsys, fmt, render):
    for machine in lifecycle.MACHINES:
        code, out, _ = run(capsys, "graph", machine, "--format", fmt)
        assert code == 0 and out == render(machine) + "\n"


def test_graph_unknown_machine(capsys):
    code, out, err = run(capsys, "graph", "rx_bufer")
    assert code == 2 and out == ""
    line = message(err)
    assert "unknown machine 'rx_bufer'" in line and "pp_page" in line and "did you mean 'rx_buffer'" in line


def test_graph_unknown_format(capsys):
    code, _, err = run(capsys, "graph", "napi", "--format", "svg")
    assert code == 2 and "invalid choice: 'svg'" in message(err)


# -- run -------------------------------------------------------------------------------
@pytest.mark.slow
def test_run_json_is_run_lesson_exactly(capsys):
    code, out, err = run(capsys, "run", DEMO, "--json", "--frames", "3000")
    assert code == 0 and err == ""
    assert out == json.dumps(run_lesson(load_lesson(DEMO), frames=3000), indent=2) + "\n"
    result = json.loads(out)
    assert set(result) >= {"lesson", "frames", "seed", "variants", "headline"}
    assert result["frames"] == 3000 and list(result["variants"]) == ["before", "after"]


def test_run_table(capsys):
    code, out, err = run(capsys, "run", DEMO, "--frames", "1000")
    assert code == 0 and err == ""
    for text in ("Metrics", "throughput_mbps", "cpu_ns_per_frame", "frames_dropped", "Kernel calls",
                 "dma_map_single", "page_pool_alloc_frag", "Paper vs model: cpu_percent",
                 "within tolerance:", "fitted: stack_skb_ns = 700ns, to paper.before"):
        assert text in out
    assert "Violations" not in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_run_only_some_variants(capsys, lessons):
    code, out, _ = run(capsys, "run", "cli-demo", "--json", "--frames", "300", "--variant", "after")
    result = json.loads(out)
    assert code == 0 and list(result["variants"]) == ["after"]
    assert result["headline"]["model"]["before"] is None and result["headline"]["within"] is None
    code, out, _ = run(capsys, "run", "cli-demo", "--frames", "300", "--variant", "after")
    assert code == 0 and "not run" in out


def test_run_set_applies_to_every_variant(capsys):
    code, out, _ = run(capsys, "run", DEMO, "--json", "--frames", "300", "--set", "ram=2GiB", "--set", "mtu=1400")
    assert code == 0
    for v in json.loads(out)["variants"].values():
        assert v["params"]["ram"] == 2 << 30 and v["params"]["mtu"] == 1400


@pytest.mark.parametrize("setting,expect", [
    ("mtu=9000", "rx_buf_size 2048 cannot hold a 9014-byte frame"),
    ("ring_size=100",
     "ring_size 100: a generic 10GbE NIC (ixgbe-like) takes 64 to 4096 RX descriptors in multiples of 8"),
    ("budget=128", "expected a NAPI budget from 1 to 64 (NAPI_POLL_WEIGHT is 64"),
    ("page_order=11", "MAX_PAGE_ORDER, 10 on x86-64"),
    ("bundle=2", "bundle 2: the RX bundle is HTC's over SDIO or USB (HTC_HOST_MAX_MSG_PER_RX_BUNDLE)"),
])
def test_run_refuses_what_the_kernel_would(capsys, setting, expect):
    code, out, err = run(capsys, "run", DEMO, "--frames", "100", "--set", setting)
    line = message(err)
    assert code == 2 and expect in line and out == ""


@pytest.mark.parametrize("setting,expect", [
    ("rma=8GiB", "--set rma: unknown parameter (did you mean 'ram'?)"),
    ("ram=lots", "--set ram=lots: expected a size"),
    ("iommu=maybe", "--set iommu=maybe: expected one of off, passthrough, lazy, strict"),
    ("ram", "expected KEY=VALUE"),
])
def test_run_bad_set(capsys, setting, expect):
    code, out, err = run(capsys, "run", DEMO, "--set", setting)
    assert code == 2 and out == ""
    assert expect in message(err)


def test_run_unknown_variant(capsys):
    code, _, err = run(capsys, "run", DEMO, "--variant", "aftr")
    assert code == 2
    assert err == ("rxviz: lesson 'cli-demo' has no variant 'aftr' (did you mean 'after'?);\n"
                   "  its variants are before, after\n")
    assert message(err).endswith("; its variants are before, after")


@pytest.mark.parametrize("fault", FAULTS)
def test_run_each_fault_is_reported_never_a_traceback(capsys, fault):
    code, out, err = run(capsys, "run", DEMO, "--json", "--frames", "300", "--inject", fault)
    result = json.loads(out)
    found = [v for r in result["variants"].values() for v in r["violations"]]
    assert code == (3 if found else 0)
    said = messages(err)
    quiet = [n for n, r in result["variants"].items() if FAULT_SHOWS[fault] not in r["violation_counts"]
             and FAULT_SHOWS[fault] not in r["warning_counts"]]
    # A variant the fault showed nothing in is said so, never a silent exit 0.
    notes = [m for m in said if m.startswith(f"rxviz: note: --inject {fault} ")]
    assert len(notes) == len(quiet) and all(f"/ {n}" in m for n, m in zip(quiet, notes, strict=True))
    # "no effect" exactly where the model counted the fault acting 0 times
    idle = [n for n in quiet if result["variants"][n]["faults"][fault] == 0]
    assert [n for n, m in zip(quiet, notes, strict=True) if "has no effect" in m] == idle
    if found:
        assert any("the checker reported" in m for m in said) and FAULT_SHOWS[fault] in err
    else:
        assert said == notes


def test_run_violations_table(capsys):
    code, out, err = run(capsys, "run", DEMO, "--frames", "300", "--variant", "before", "--inject", "double-unmap")
    assert code == 3
    assert "Violations reported by the checker" in out and "double-unmap" in out
    assert message(err).startswith("rxviz: the checker reported")


def test_run_unknown_fault(capsys):
    code, _, err = run(capsys, "run", DEMO, "--inject", "double-free")
    line = message(err)
    assert code == 2 and "--inject double-free: unknown fault" in line and "double-unmap" in line


def test_run_unknown_lesson_suggests(capsys, lessons):
    code, _, err = run(capsys, "run", "cli-dmeo")
    line = message(err)
    assert code == 2 and "unknown lesson 'cli-dmeo'" in line and "did you mean 'cli-demo'" in line


@pytest.mark.parametrize("bad", ["yaml-syntax.yaml", "unknown-key.yaml", "bad-param-value.yaml",
                                 "python-tag.yaml", "billion-laughs.yaml", "empty.yaml", "top-level-list.yaml",
                                 "duplicate-key.yaml"])
def test_broken_lesson_run_exits_2_check_exits_1(capsys, bad):
    path = str(BAD / bad)
    code, out, err = run(capsys, "run", path)
    assert code == 2 and out == ""
    line = message(err)
    assert line.startswith(f"rxviz: {path}:")
    code, out, err = run(capsys, "check", path)
    assert code == 1 and err == ""
    head, said = messages(out)           # a FAIL line as plain to spot as an ok line, then the problem
    assert head == f"FAIL  {bad[:-5]}  (1 problem)"
    assert said.startswith(f"{path}:") and line.endswith(said)


@pytest.mark.parametrize("command", ["run", "trace"])
def test_directory_and_missing_path(capsys, command, tmp_path):
    code, _, err = run(capsys, command, str(tmp_path))
    assert code == 2 and "is a directory" in message(err)
    code, _, err = run(capsys, command, str(tmp_path / "nope.yaml"))
    assert code == 2 and "no such file" in message(err)


@pytest.mark.parametrize("frames", ["0", "x", "-3", "1.5", ""])
def test_frames_must_be_a_positive_int(capsys, frames):
    code, _, err = run(capsys, "run", DEMO, "--frames", frames)
    line = message(err)
    assert code == 2 and "--frames: expected a positive whole number" in line and "rxviz run --help" in line


def test_run_help_lists_every_parameter_and_fault(capsys):
    code, out, _ = run(capsys, "run", "--help")
    assert code == 0
    for name in PARAMS:
        assert f"    {name}" in out, name
    for group in {p.group for p in PARAMS.values()}:
        assert f"  {group}:" in out
    flat = " ".join(out.split())       # defaults may wrap onto the next line
    assert "[default: 16GiB]" in flat and "[default: 1Gbit]" in flat and "[default: 512]" in flat
    for fault in FAULTS:
        assert f"    {fault}" in out


# -- trace -----------------------------------------------------------------------------
def _call_lines(out: str) -> list[str]:
    """The lines of a trace that start a kernel call (not markers, not wrapped continuations)."""
    return [line for line in out.splitlines() if re.match(r"\s*[0-9.,]+us ", line)]


def test_trace_one_kernel_call_per_line(capsys):
    code, out, err = run(capsys, "trace", DEMO, "--frames", "5")
    assert code == 0 and err == ""
    lines = _call_lines(out)
    calls = [line.split()[2] if line.split()[2] in CALLS else line.split()[3] for line in lines]
    assert all(c in CALLS for c in calls), set(calls) - set(CALLS)
    assert "napi_poll" in calls and "napi_complete_done" in calls and calls.count("rx_frame") == 5


def test_trace_variant_and_fault(capsys):
    code, out, err = run(capsys, "trace", DEMO, "--frames", "3", "--variant", "before", "--inject", "no-sync-for-cpu")
    assert code == 3
    log, _, tail = out.partition("\nviolations reported by the checker in cli-demo / before:\n")
    assert "VIOLATION" in log and "no-sync-for-cpu:" in tail
    assert message(err).startswith("rxviz: the checker reported")
    code, _, err = run(capsys, "trace", DEMO, "--variant", "nope")
    assert code == 2 and "has no variant 'nope'" in message(err)


def test_trace_of_a_bug_on_every_frame_says_how_many_reports_it_did_not_list(capsys):
    code, out, err = run(capsys, "trace", "dma-bugs", "--variant", "bad-unmap", "--frames", "700")
    assert code == 0                                      # the lesson shows this bug on purpose
    assert "1400 violations in all; the first 1000" in " ".join(err.split())
    listed = out.partition("violations dma-bugs / bad-unmap shows on purpose")[2]
    assert len(re.findall(r"^ +[0-9.]+us  [a-z-]+: ", listed, re.M)) == 1000


# -- check -------------------------------------------------------------------------------
def test_check_ok(capsys):
    code, out, err = run(capsys, "check", DEMO)
    assert (code, out, err) == (0, "ok  cli-demo  (3 steps, 3 checks)\n", "")


def test_check_failures_name_the_line(capsys):
    code, out, err = run(capsys, "check", FAILS)
    assert code == 1 and err == ""
    assert messages(out) == [
        "FAIL  cli-fails  (2 problems)",
        f"{FAILS}:11: step 1 (Wait for a bounce): run until swiotlb_bounce (count 1) was not reached "
        "within 50 frames (limit 50)",
        f"{FAILS}:15: check failed: only: dma_map_single == 0 failed: it is 330",
    ]


def test_check_all_lessons_by_default_and_by_id(capsys, lessons):
    code, out, _ = run(capsys, "check")
    assert code == 1 and "ok  cli-demo" in out and "cli-fails.yaml:15: check failed" in out
    code, out, _ = run(capsys, "check", "cli-demo")
    assert code == 0 and out.startswith("ok  cli-demo")


def test_check_unreadable_input_exits_2_and_goes_on(capsys, tmp_path):
    code, out, err = run(capsys, "check", str(tmp_path), DEMO, str(tmp_path / "nope.yaml"))
    assert code == 2
    assert out == "ok  cli-demo  (3 steps, 3 checks)\n"
    assert messages(err) == [f"rxviz: {tmp_path}: is a directory, expected a .yaml lesson file",
                                f"rxviz: {tmp_path / 'nope.yaml'}: no such file"]


# -- usage errors, placeholders and the last resort ----------------------------------------
@pytest.mark.parametrize("argv,expect", [
    (["bogus"], "unknown command 'bogus'; the commands are list, check, run,"),
    (["bogsu"], "; see 'rxviz --help'"),
    (["graph", "--format", "x"], "graph: argument --format: invalid choice: 'x'; choose from text, dot,"),
    (["run"], "run: the following arguments are required: LESSON; see 'rxviz run --help'"),
    (["run", DEMO, "--bogus"], "run: unrecognized arguments: --bogus; see 'rxviz run --help'"),
    (["list", "--jsn"], "list: unrecognized arguments: --jsn"),
    (["run", DEMO, "--seed", "x"], "--seed: expected a whole number"),
])
def test_usage_errors(capsys, argv, expect):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and expect in message(err)


@pytest.mark.parametrize("argv, expect", [
    (["play"], "the following arguments are required: LESSON"),
    (["play", "no-such-lesson"], "unknown lesson 'no-such-lesson'"),
    (["play", "rx-basics", "--step", "99"], "--step 99: rx-basics has 14 steps: expected 1 to 14, or 0 for its cover"),
    (["play", "rx-basics", "--step", "x"], "expected a step number"),
    (["screenshot", "rx-basics", "--size", "huge"], "--size: size must look like 160x50"),
])
def test_tui_commands_reject_bad_input_before_the_tui_starts(capsys, argv, expect):
    code, _, err = run(capsys, *argv)
    assert code == 2 and expect in message(err)


def test_screenshot_writes_an_svg(capsys, tmp_path):
    out = tmp_path / "shot.svg"
    code, stdout, err = run(capsys, "screenshot", "rx-basics", "--step", "2", "--size", "80x24", "-o", str(out))
    assert code == 0 and err == "" and stdout.strip() == str(out)
    svg = out.read_text()
    assert svg.startswith("<svg") and "step 2/14" in svg.replace("&#160;", " ")


def test_screenshot_step_is_numbered_as_the_player_numbers_it_and_0_is_the_cover(capsys, tmp_path):
    code, out, _ = run(capsys, "screenshot", "--help")
    flat = " ".join(out.split())
    assert code == 0 and "(default 0)" not in flat
    assert "numbered from 1 as in the player" in flat and "0, the default, is the lesson's cover" in flat
    lesson = shipped_lesson("rx-basics")
    for step, want in ((0, f"step 0/14 · {lesson.title}"), (1, f"step 1/14 · {lesson.steps[0].title}")):
        shot = tmp_path / f"s{step}.svg"
        assert run(capsys, "screenshot", "rx-basics", "--step", str(step), "--size", "80x24", "-o", str(shot))[0] == 0
        assert want in shot.read_text().replace("&#160;", " ").replace("&#x27;", "'")


def test_internal_error_is_one_line_70(capsys, monkeypatch):
    def boom(args):
        raise RuntimeError("model\nexploded")
    monkeypatch.setattr(cli_graph, "run", boom)
    assert cli.main(["graph"]) == 70
    assert message(capsys.readouterr().err) == "rxviz: internal error: RuntimeError: model exploded (please report)"


def test_keyboard_interrupt_is_quiet_130(capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli_graph, "run", interrupted)
    assert cli.main(["graph"]) == 130
    assert capsys.readouterr() == ("", "")


# -- real processes -------------------------------------------------------------------------
def _python_m_viz(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "viz", *argv], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60)


@pytest.mark.parametrize("argv,code,expect", [
    (["run", str(BAD / "billion-laughs.yaml")], 2, "YAML anchors and aliases are not allowed"),
    (["run", DEMO, "--frames", "0"], 2, "--frames: expected a positive whole number"),
    (["trace", DEMO, "--frames", "2", "--inject", "no-sync-for-cpu"], 3, "the checker reported"),
])
def test_subprocess_exit_codes_and_no_traceback(argv, code, expect):
    p = _python_m_viz(*argv)
    assert p.returncode == code, p.stderr
    assert expect in message(p.stderr)


# -- a `models` that is not rxviz's ----------------------------------------------------------
@pytest.fixture
def clashing(tmp_path) -> Path:
    """A project directory of someone else's, holding a package named `models` (as Django's do)."""
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text('"""Not rxviz\'s."""\n')
    return tmp_path


def _clash_said(p: subprocess.CompletedProcess, found: Path) -> str:
    assert p.returncode == 2 and p.stdout == "", p.stderr
    said = message(p.stderr)
    assert said.startswith("rxviz: another package named 'models' hides rxviz's own")
    assert f"found: {found}" in said and f"expected: {ROOT / 'models' / '__init__.py'}" in said
    return said


def test_a_models_package_in_the_current_directory_is_refused_in_one_message(clashing):
    # `python -m viz` puts the current directory first on sys.path: before, "internal error: ImportError".
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "viz", "list"], cwd=clashing, capture_output=True, text=True,
                       env=env, timeout=60)
    assert "run the `rxviz` command instead of `python -m viz`" in _clash_said(p, clashing / "models" / "__init__.py")
    shutil.rmtree(clashing / "models")
    (clashing / "models.py").write_text("x = 1\n")
    p = subprocess.run([sys.executable, "-m", "viz", "list"], cwd=clashing, capture_output=True, text=True,
                       env=env, timeout=60)
    _clash_said(p, clashing / "models.py")


def test_a_models_package_on_pythonpath_is_refused(clashing, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(clashing), str(ROOT)])}
    p = subprocess.run([sys.executable, "-m", "viz", "list"], cwd=elsewhere, capture_output=True, text=True,
                       env=env, timeout=60)
    assert f"take {clashing} off PYTHONPATH" in _clash_said(p, clashing / "models" / "__init__.py")


def test_served_pages_do_not_import_from_the_current_directory(clashing, monkeypatch):
    from viz import serve
    command = serve.app_command(None)
    assert shlex.split(command)[:4] == [sys.executable, "-P", "-m", "viz"]
    # The page's command, run from the clashing directory: `list` instead of the home screen.
    p = subprocess.run(f"{command} list", shell=True, cwd=clashing, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "rx-basics" in p.stdout, p.stderr
    # A checkout run without installing is found through PYTHONPATH, which -P still reads.
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != ROOT])
    command = serve.app_command("rx-basics")
    assert command.startswith(f"PYTHONPATH={ROOT}") and command.endswith("-P -m viz play rx-basics")


# -- shell completion ----------------------------------------------------------------------
def _complete_in_bash(script: Path, words: list[str], cwd: Path) -> list[str]:
    """What bash offers at the end of `words` with the script loaded (the last word is being typed)."""
    probe = (f"source {shlex.quote(str(script))}; COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); "
             "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _shtab_rxviz; printf '%s\\n' \"${COMPREPLY[@]}\"")
    p = subprocess.run(["bash", "--norc", "-c", probe], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return [w for w in p.stdout.splitlines() if w]


def test_bash_completion_knows_the_commands_the_lessons_and_the_faults(capsys, tmp_path):
    code, out, err = run(capsys, "completion", "bash")
    assert code == 0 and err == "" and "_shtab_rxviz" in out
    script = tmp_path / "rxviz.bash"
    script.write_text(out)
    (tmp_path / "mine.yaml").write_text("")
    (tmp_path / "notes.txt").write_text("")
    commands = set(cli.build_parser()._subparsers._group_actions[0].choices)
    assert set(_complete_in_bash(script, ["rxviz", ""], tmp_path)) == commands
    assert _complete_in_bash(script, ["rxviz", "ru"], tmp_path) == ["run"]
    assert set(_complete_in_bash(script, ["rxviz", "play", "ath1"], tmp_path)) == {"ath10k-sdio-napi",
                                                                                 "ath11k-36bit-dma-mask"}
    lessons = _complete_in_bash(script, ["rxviz", "run", ""], tmp_path)
    assert "rx-basics" in lessons and "mine.yaml" in lessons and "notes.txt" not in lessons
    assert set(_complete_in_bash(script, ["rxviz", "run", "rx-basics", "--inject", ""], tmp_path)) == set(FAULTS)
    assert set(_complete_in_bash(script, ["rxviz", "graph", ""], tmp_path)) == set(lifecycle.MACHINES)
    assert _complete_in_bash(script, ["rxviz", "graph", "--format", "me"], tmp_path) == ["mermaid"]
    assert "notes.txt" in _complete_in_bash(script, ["rxviz", "stats", ""], tmp_path)


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (Debian's zsh package)")
def test_zsh_completion_loads_from_fpath(capsys, tmp_path):
    code, out, _ = run(capsys, "completion", "zsh")
    assert code == 0 and out.startswith("#compdef rxviz")
    (tmp_path / "_rxviz").write_text(out)
    # compinit finds it in fpath and binds it to rxviz; zsh parses it (completing needs a terminal).
    probe = (f"fpath=({tmp_path} $fpath); autoload -U compinit; compinit -u -D; "
             "print -r -- $_comps[rxviz]; zsh -n $^fpath[1]/_rxviz && print parsed")
    p = subprocess.run(["zsh", "-f", "-c", probe], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["_rxviz", "parsed"]
    assert "ath11k-36bit-dma-mask" in out and "no-sync-for-cpu" in out and "rx_buffer" in out


def test_completion_wants_a_shell_it_knows(capsys):
    code, out, err = run(capsys, "completion", "fish")
    assert code == 2 and out == "" and "invalid choice: 'fish'; choose from bash, zsh" in message(err)


def test_cli_never_imports_textual():
    code = ("import sys, viz.cli; rc = viz.cli.main(['graph', 'napi']); "
            "assert rc == 0; assert 'textual' not in sys.modules, 'textual imported'; "
            "assert 'rich' not in sys.modules, 'rich imported for plain text'")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0, p.stderr
