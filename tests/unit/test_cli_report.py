"""What the command line tells a person: counts that add up, 80 columns, no dead ends.

Each test here pins a way the output misled someone trying rxviz as a new
user: a capped count printed as the total, lines wider than the promised 80
columns or ending in blanks, a trace whose clock seems to run backwards, a
`play` that spins without a terminal, a lesson id with no suggestion.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_message import messages

from viz import cli

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
DEMO = str(DATA / "cli" / "cli-demo.yaml")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert code != cli.EXIT_INTERNAL, err
    return code, out, err


def too_wide(text: str) -> list[str]:
    """Lines over 80 columns or with trailing blanks."""
    return [line for line in text.splitlines() if len(line) > 80 or line != line.rstrip()]


# -- 1. the violation count is the total, not the listing's cap ------------------------
def test_violation_table_and_exit_line_give_the_full_count(capsys):
    argv = ("run", DEMO, "--frames", "300", "--variant", "before", "--inject", "no-sync-for-cpu")
    code, out, _ = run(capsys, *argv, "--json")
    before = json.loads(out)["variants"]["before"]
    total = before["violation_counts"]["no-sync-for-cpu"]
    assert code == 3 and total > 20           # more than the 20 listed in the JSON
    # ... and the JSON says so next to the list
    assert len(before["violations"]) == 20 < total == before["violations_total"]
    assert before["violations_truncated"] is True
    code, out, err = run(capsys, *argv)
    row = next(line for line in out.splitlines() if "no-sync-for-cpu" in line and "│" in line)
    assert f"{total:,}" in row.split("│")[3]
    assert f"reported {total:,} violation(s)" in err


@pytest.mark.parametrize("inject,listed", [([], 0), (["--inject", "missing-unmap"], 1)])
def test_a_list_under_the_cap_says_it_is_whole(capsys, inject, listed):
    _, out, _ = run(capsys, "run", DEMO, "--frames", "300", "--variant", "before", "--json", *inject)
    before = json.loads(out)["variants"]["before"]
    assert len(before["violations"]) == before["violations_total"] == listed
    assert before["violations_truncated"] is False


# -- 5. 80 columns everywhere, no trailing blanks ----------------------------------------
@pytest.mark.parametrize("argv", [
    ["run", "ath11k-36bit-dma-mask", "--frames", "2000"],
    ["run", "atlantic-page-pool", "--frames", "2000"],
    ["run", DEMO, "--frames", "300", "--inject", "double-unmap"],
    ["trace", "rx-basics", "--frames", "3"],
    ["trace", DEMO, "--frames", "3", "--inject", "no-sync-for-cpu"],
    [],
    ["list"],
    ["graph", "pp_page"],
])
def test_output_fits_80_columns(capsys, argv):
    _, out, _ = run(capsys, *argv)
    assert out and too_wide(out) == []


BAD = sorted(p.name for p in (DATA / "lessons" / "bad").glob("*.yaml"))
TOO_LONG_BEFORE = [      # each of these printed one line of 85 to 290 columns
    (["play", "rx-basics"], 2),                           # no terminal
    (["run", "nope"], 2),                                 # every lesson id listed
    (["run", "ath11k"], 2),
    (["play", "ath1"], 2),
    (["run", "rx-basics", "--inject", "nope"], 2),        # every fault listed
    (["run", "rx-basics", "--set", "iommu=maybe"], 2),
    (["run", "rx-basics", "--set", "ring_size=3"], 2),
    (["run", "rx-basics", "--set", "mtu=99999"], 2),
    (["run", "rx-basics", "--frames", "0"], 2),
    (["run", "rx-basics", "--seed", "x"], 2),
    (["bogus"], 2),                                       # every command listed
    (["graph", "nope"], 2),                               # every machine listed
    (["graph", "--format", "x"], 2),
    (["serve", "--port", "0"], 2),
    (["stats", "minimal.yaml"], 2),
    (["sweep", "rx-basics"], 2),
    (["sweep", "rx-basics", "--set", "ram=1GiB,2GiB", "--set", "mtu=1500,9000"], 2),
    (["sweep", "rx-basics", "--set", "ram=1GiB,2GiB", "--metric", "nope"], 2),   # every metric listed
    (["run", "../cli/cli-demo.yaml", "--frames", "300", "--inject", "double-unmap"], 3),
    (["run", "control-chars.yaml", "--frames", "100"], 0),       # the note on control characters
    (["check", "../cli/cli-fails.yaml"], 1),                      # on stdout
] + [(["run", f"bad/{name}"], 2) for name in BAD] + [(["check", f"bad/{name}"], 1) for name in BAD]
ALSO = [
    (["run", "rx-basics", "--variant", "nope"], 2),
    (["run", "rx-basics", "--set", "nope=1"], 2),
    (["run", "rx-basics", "--bogus"], 2),
    (["run", "ath11k-36bit-dma-mask", "--set", "ram=64MiB"], 2),
    (["trace", "rx-basics", "--variant", "a", "--variant", "b"], 2),
    (["play", "rx-basics", "--step", "99"], 2),
    (["screenshot", "rx-basics", "--size", "huge"], 2),
    (["screenshot", "rx-basics", "--size", "5x5"], 2),
    (["export", "rx-basics", "-o", "minimal.yaml"], 2),
    (["stats", "nope.txt"], 2),
    (["run", "bad"], 2),
    (["check", "nope.yaml", "bad"], 2),
]


@pytest.mark.parametrize("argv,code", TOO_LONG_BEFORE + ALSO,
                         ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_every_error_fits_80_columns_and_says_what_first(capsys, monkeypatch, argv, code):
    from viz.cli import common as cli_app
    monkeypatch.chdir(DATA / "lessons")                   # short relative paths, as a user types them
    monkeypatch.setattr(cli_app, "has_display", lambda: False)
    got, out, err = run(capsys, *argv)
    assert got == code, err
    said = out if argv[0] == "check" and code == 1 else err
    assert said
    assert [line for line in said.splitlines() if len(line) > 80 or line != line.rstrip()] == []
    messages(said)                                   # each: a first line, then lines indented by two
    for first in (line for line in said.splitlines() if not line.startswith(" ")):
        assert len(first.split()) >= 3, first        # the first line says what, not only where


def test_a_long_list_goes_below_the_first_line(capsys):
    code, _, err = run(capsys, "run", "ath11k")
    lines = err.splitlines()
    assert code == 2 and lines[0] == "rxviz: unknown lesson 'ath11k' (did you mean 'ath11k-36bit-dma-mask'?);"
    assert lines[1].startswith("  known lessons (`rxviz list`): ") and "rx-basics" in lines[1]
    assert all(line.startswith("  ") and len(line) <= 80 for line in lines[1:])
    code, _, err = run(capsys, "play", "rx-basics")
    assert err.splitlines()[0] == "rxviz: play needs a terminal (stdin and stdout are not one);"


def test_a_message_that_fits_stays_one_line():
    from viz.messages import layout
    assert layout("rxviz: nope.yaml: no such file") == ["rxviz: nope.yaml: no such file"]
    text = ("rxviz: --set ring_size=3: expected a ring size from 8 to 8192 (the model's range; the NIC's "
            "own limits are checked against the platform), got '3'; try `rxviz run --help and more`")
    lines = layout(text)
    assert lines[0].startswith("rxviz: --set ring_size=3: expected") and len(lines) == 3
    assert lines[-1] == "  try `rxviz run --help and more`"        # a `command` is never cut
    assert " ".join(line.strip() for line in lines) == text


@pytest.mark.parametrize("command", ["", "list", "check", "run", "trace", "graph", "play", "screenshot",
                                     "export", "serve", "completion"])
def test_help_fits_80_columns(command):
    # A real process: argparse reads the width from COLUMNS (or the pipe's default, 80).
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    p = subprocess.run([sys.executable, "-m", "viz", *command.split(), "--help"], capture_output=True,
                       text=True, cwd=ROOT, timeout=60, env={**env, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0, p.stderr
    assert too_wide(p.stdout) == []


def test_help_spells_booleans_as_set_takes_them(capsys):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["run", "--help"])
    out = capsys.readouterr().out
    assert not re.search(r"\b(True|False)\b", out)
    assert "x86-generic true" in out or "x86-generic false" in out


# -- 7. small things -----------------------------------------------------------------------
def test_trace_marks_the_set_up_before_t0(capsys):
    code, out, _ = run(capsys, "trace", DEMO, "--frames", "2")
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith("# set-up before t=0")
    start = next(i for i, line in enumerate(lines) if line.startswith("# t=0"))
    setup = [line for line in lines[1:start] if re.match(r"\s*[0-9.]+us ", line)]
    assert setup and all(" process " in line for line in setup)        # ifup fills the ring
    assert re.match(r"\s*0\.000us ", lines[start + 1])                # the clock starts again here


def test_trace_refuses_a_second_variant(capsys):
    code, out, err = run(capsys, "trace", DEMO, "--variant", "before", "--variant", "after")
    assert code == 2 and out == ""
    assert err.startswith("rxviz: trace: one --variant at a time, got before, after")


def test_a_missing_file_has_no_line_and_column(capsys):
    code, _, err = run(capsys, "run", "nope.yaml")
    assert code == 2 and err == "rxviz: nope.yaml: no such file\n"


def test_the_first_word_of_a_lesson_id_suggests_it(capsys):
    code, _, err = run(capsys, "run", "ath11k")
    assert code == 2 and "(did you mean 'ath11k-36bit-dma-mask'?)" in err
    code, _, err = run(capsys, "run", "ath1")
    assert "did you mean 'ath10k-sdio-napi' or 'ath11k-36bit-dma-mask'?" in " ".join(messages(err))


def test_bare_rxviz_names_every_command(capsys):
    _, out, _ = run(capsys)
    listed = set(re.findall(r"^  rxviz (\w+)", out, re.M))
    commands = {c for c in cli.build_parser()._subparsers._group_actions[0].choices}
    assert listed == commands


def test_play_without_a_terminal_says_so_and_exits_2():
    # stdin from /dev/null, output to a pipe: before, Textual spun at full CPU until killed.
    p = subprocess.run([sys.executable, "-m", "viz", "play", "rx-basics"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, cwd=ROOT, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 2 and p.stdout == ""
    (said,) = messages(p.stderr)
    assert said.startswith("rxviz: play needs a terminal") and "`rxviz run rx-basics`" in said


@pytest.mark.slow
def test_run_on_a_pipe_prints_no_progress():
    p = subprocess.run([sys.executable, "-m", "viz", "run", DEMO, "--frames", "12000"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0 and p.stderr == ""


# -- serve: localhost unless asked, and a warning when asked ----------------------------------
def test_serve_listens_on_localhost_by_default_and_warns_for_another_host(capsys, monkeypatch):
    from viz import serve
    calls = []
    monkeypatch.setattr(serve, "serve", lambda *a, **kw: calls.append((*a, kw)))
    code, _, err = run(capsys, "serve")
    assert code == 0 and err == ""
    assert calls[-1] == (None, "127.0.0.1", 8000, None, {"max_sessions": serve.MAX_SESSIONS, "resume": False})
    code, _, err = run(capsys, "serve", "rx-basics", "--host", "0.0.0.0", "--port", "8080", "--max-sessions", "3",
                       "--resume")
    assert code == 0 and calls[-1] == ("rx-basics", "0.0.0.0", 8080, None, {"max_sessions": 3, "resume": True})
    assert err.startswith("rxviz: warning: serving on 0.0.0.0:8080: anyone who can reach this address")
    assert serve.app_command("rx-basics").endswith("-P -m viz play rx-basics")
    assert serve.public_url("0.0.0.0", 8080, None).endswith(":8080")
    assert "0.0.0.0" not in serve.public_url("0.0.0.0", 8080, None)


# -- 6. progress: a bar on a terminal, nothing on a pipe ---------------------------------------
def test_progress_draws_a_bar_with_the_share_done_on_a_terminal_only():
    import io

    from rich.console import Console

    from viz.cli.progress import progress
    term = io.StringIO()
    with progress("simulating", console=Console(file=term, force_terminal=True, width=80)) as report:
        report(50, 100)
    assert "simulating" in term.getvalue() and " 50%" in term.getvalue()
    pipe = io.StringIO()
    with progress("simulating", console=Console(file=pipe)) as report:
        assert report is None
    assert pipe.getvalue() == ""


@pytest.mark.slow
def test_run_reports_its_frames_up_to_the_total(capsys, monkeypatch):
    import contextlib

    from viz.cli import progress as cli_progress
    seen = []

    @contextlib.contextmanager
    def recording(label, console=None):
        yield lambda done, total: seen.append((done, total))

    monkeypatch.setattr(cli_progress, "progress", recording)
    code, _, _ = run(capsys, "run", DEMO, "--frames", "12000")
    assert code == 0
    total = seen[-1][1]
    assert total == 2 * (1200 + 12000)                    # two variants, each a warm-up and the run
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] == total


def test_a_reader_gone_at_the_last_flush_is_a_quiet_exit_141(capsys, monkeypatch):
    import io

    class Gone(io.StringIO):
        """A pipe whose reader left after the output was written, before it was flushed."""

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            raise io.UnsupportedOperation("no descriptor")

    monkeypatch.setattr(sys, "stdout", Gone())
    assert cli.main(["graph", "napi"]) == cli.EXIT_BROKEN_PIPE
