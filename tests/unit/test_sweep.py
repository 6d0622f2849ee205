"""`rxviz sweep` and models.sweep: parsing, refusals before any run, determinism, JSON, the plot.

The runs are a few hundred frames: the tests check what the sweep does with
its runs (order, shape, the direction a metric moves), not the model's
figures, which tests/unit/test_fits.py and the lessons' checks hold. Most
use one worker (this process); the pool is started only where it is the
point, since each start costs a fresh forkserver.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_message import message
from shipped import shipped_lesson

from models import sweep as S
from models.runner import BadSetting
from models.scenario_checks import ScenarioError
from viz import cli
from viz.cli import plot as cli_plot

ROOT = Path(__file__).resolve().parents[2]
ATH11K = "ath11k-36bit-dma-mask"
ATLANTIC = "atlantic-page-pool"
FRAMES = "400"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["sweep", *argv])
    out, err = capsys.readouterr()
    assert code != cli.EXIT_INTERNAL, err
    return code, out, err


@pytest.fixture
def no_runs(monkeypatch):
    """Fails the test if any run starts: refusals must come before the first one."""
    def refuse(*a, **kw):
        raise AssertionError("a run started before the input was refused")
    monkeypatch.setattr(S, "run_params", refuse)


# -- parsing and bad input ------------------------------------------------------------------
def test_values_are_parsed_by_the_parameters_own_parser_and_kept_as_written():
    assert S.parse_values("ram", "2GiB, 8GiB") == [("2GiB", 2 << 30), ("8GiB", 8 << 30)]
    assert S.parse_values("iotlb_sync_ns", "2us,10us") == [("2us", 2000), ("10us", 10_000)]
    assert S.parse_values("iommu", "off,strict") == [("off", "off"), ("strict", "strict")]
    with pytest.raises(BadSetting, match="4096MiB is the same value as 4GiB"):
        S.parse_values("ram", "4GiB,4096MiB")


@pytest.mark.parametrize("argv, says", [
    (["--set", "ram=2GiB,3XB"], "--set ram=3XB: expected a size"),
    (["--set", "ram=2GiB,,8GiB"], "an empty value between commas"),
    (["--set", "rma=2GiB,8GiB"], "did you mean 'ram'?"),
    (["--set", "ram=8GiB"], "give the parameter to sweep as --set KEY=V1,V2"),
    ([], "give the parameter to sweep"),
    (["--set", "ram=2GiB,8GiB", "--set", "iommu=off,strict"], "one parameter at a time"),
    (["--set", "ram=2GiB,8GiB", "--set", "ram=4GiB"], "given one value and several"),
    (["--set", "ram=2GiB,8GiB", "--set", "iommu=bogus"], "--set iommu=bogus: expected one of"),
    (["--set", "ram=2GiB,8GiB", "--metric", "cpu_pct"], "did you mean 'cpu_percent'?"),
    (["--set", "ram=2GiB,8GiB", "--variant", "beefore"], "did you mean 'before'?"),
    (["--set", "ram=2GiB,8GiB", "--workers", "0"], "--workers: expected a positive whole number"),
])
def test_bad_input_is_one_line_and_exit_2_before_anything_runs(capsys, no_runs, argv, says):
    code, out, err = run(capsys, ATH11K, *argv)
    assert code == 2 and out == ""
    assert says in message(err)


def test_a_value_the_kernel_would_refuse_is_named_before_any_run(capsys, no_runs):
    # 64 MiB of RAM leaves no room in low memory for the default 64 MiB SWIOTLB pool.
    code, out, err = run(capsys, ATH11K, "--set", "ram=8GiB,64MiB")
    line = message(err)
    assert code == 2 and out == ""
    assert "ram=64MiB" in line and "SWIOTLB pool does not fit" in line
    with pytest.raises(ScenarioError, match="ram=64MiB"):
        S.plan(shipped_lesson(ATH11K), "ram", "8GiB,64MiB")


def test_defaults_are_the_headline_pair_the_papers_metric_and_a_short_run():
    atlantic = shipped_lesson(ATLANTIC)
    p = S.plan(atlantic, "iotlb_sync_ns", "2us,5us")
    assert p.variants == ["before", "after"]              # not after-no-fix and after-xdp
    assert p.metric == "throughput_mbps" and p.frames == S.MAX_DEFAULT_FRAMES
    assert p.runs == 4
    basics = shipped_lesson("rx-basics")                      # no headline pair: every variant
    assert S.plan(basics, "budget", "16,64").variants == list(basics.variants)
    assert S.workers_for(None, 1) == 1 and S.workers_for(64, 100) == (os.cpu_count() or 1)


# -- determinism ----------------------------------------------------------------------------
def test_the_same_sweep_gives_the_same_numbers_on_one_worker_or_two():
    lesson = shipped_lesson(ATH11K)
    args = dict(key="ram", values="2GiB,8GiB", frames=300, seed=3)
    one = S.sweep(lesson, workers=1, **args)
    again = S.sweep(lesson, workers=1, **args)
    two = S.sweep(lesson, workers=2, **args)
    assert one == again == two


# -- JSON -----------------------------------------------------------------------------------
def test_json_is_one_object_with_values_as_written_and_parsed(capsys):
    code, out, err = run(capsys, ATH11K, "--set", "ram=2GiB,8GiB", "--set", "iommu=off",
                         "--frames", FRAMES, "--seed", "2", "--workers", "1", "--json")
    assert code == 0 and err == ""
    r = json.loads(out)
    assert set(r) == {"lesson", "parameter", "values", "metric", "frames", "seed", "sets", "variants"}
    assert (r["lesson"], r["parameter"], r["metric"], r["frames"], r["seed"]) == \
        (ATH11K, "ram", "cpu_percent", 400, 2)
    assert r["values"] == [{"text": "2GiB", "value": 2 << 30}, {"text": "8GiB", "value": 8 << 30}]
    assert r["sets"] == {"iommu": "off"}
    assert list(r["variants"]) == ["before", "after"]
    for v in r["variants"].values():
        assert len(v["metric"]) == len(v["metrics"]) == 2
        assert v["metric"] == [m["cpu_percent"] for m in v["metrics"]]
        assert {"throughput_mbps", "cpu_percent", "frames_delivered"} <= set(v["metrics"][0])


# -- the plot and the table -----------------------------------------------------------------
def test_the_report_fits_80_columns_in_plain_text_with_no_trailing_spaces(capsys):
    code, out, err = run(capsys, ATLANTIC, "--set", "iotlb_sync_ns=2us,5us,10us,20us,40us",
                         "--frames", FRAMES, "--workers", "1")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert max(map(len, lines)) <= 80
    assert [x for x in lines if x != x.rstrip()] == []
    assert "\x1b" not in out
    axis = next(i for i, x in enumerate(lines) if "└" in x)
    assert re.split(r"\s+", lines[axis + 1].strip()) == ["2us", "5us", "10us", "20us", "40us"]
    assert "o before" in out and "x after" in out                 # the legend
    assert "throughput_mbps by iotlb_sync_ns" in out              # the table under the plot


def test_the_plot_uses_a_wider_terminal_and_places_values_by_value():
    series = {"a": [1.0, 2.0, 4.0], "b": [1.0, 3.0, None]}
    wide = cli_plot.plain(cli_plot.render(["1", "2", "10"], [1, 2, 10], series, width=120, x_title="k"))
    lines = wide.splitlines()
    assert 80 < max(map(len, lines)) <= 120
    axis = next(x for x in lines if "└" in x)
    ticks = [m.start() for m in re.finditer("┬", axis)]
    assert ticks[1] - ticks[0] < (ticks[2] - ticks[1]) / 4        # 1, 2 close; 10 far
    assert "& several at one point" in wide                        # a and b meet at x=1
    log = cli_plot.plain(cli_plot.render(["1", "1000"], [1, 1000], {"a": [1, 2]}, x_title="k"))
    assert "k (log scale)" in log
    cats = cli_plot.plain(cli_plot.render(["off", "strict"], ["off", "strict"], {"a": [1, 2]}, width=40))
    assert max(map(len, cats.splitlines())) <= 40


def test_y_ticks_are_round_and_cover_the_data():
    assert cli_plot.y_ticks(18.3, 40.5) == [15, 20, 25, 30, 35, 40, 45]
    assert cli_plot.y_ticks(535, 9480) == [0, 2000, 4000, 6000, 8000, 10000]
    flat = cli_plot.y_ticks(7.0, 7.0)
    assert flat[0] < 7.0 < flat[-1]


# -- the two examples move the way the kernel says -------------------------------------------
def test_ath11k_bounces_only_with_memory_above_4gib_and_only_with_a_32_bit_mask():
    r = S.sweep(shipped_lesson(ATH11K), "ram", "2GiB,8GiB,16GiB", frames=300, workers=1)
    before, after = r["variants"]["before"]["metric"], r["variants"]["after"]["metric"]
    assert before[0] < before[1]           # all RAM below 4 GiB: nothing to bounce
    assert before[0] == pytest.approx(after[0], rel=0.02)
    assert after[1] < before[1] and after[2] < before[2]


def test_atlantic_before_slows_as_iotlb_syncs_cost_more_and_after_does_not_care():
    # before: every page starts at pg_off 0, so the ring flips on one lap of its 2,048 descriptors
    # and unmaps on the next; a run must cover whole pairs of laps (8,192 frames: two).
    # after still unmaps each TCP ACK's TX buffer (a strict IOTLB sync about every 40 frames), so
    # at 40us it loses a little; a run of a few hundred frames exaggerates that (-18% at 300
    # frames), at 2,000 frames it is within 5%.
    r = S.sweep(shipped_lesson(ATLANTIC), "iotlb_sync_ns", "2us,10us,40us", frames=8192, workers=1)
    before, after = r["variants"]["before"]["metric"], r["variants"]["after"]["metric"]
    assert before[0] > before[1] > before[2]
    assert before[0] > 10 * before[2]
    assert all(a > b for a, b in zip(after, before, strict=True))
    assert max(after) < 1.05 * min(after)


# -- progress and the pipe ------------------------------------------------------------------
def test_progress_counts_runs_up_to_the_total(capsys, monkeypatch):
    import contextlib

    from viz.cli import progress as cli_progress
    seen, labels = [], []

    @contextlib.contextmanager
    def recording(label, console=None, counted=False):
        labels.append((label, counted))
        yield lambda done, total: seen.append((done, total))

    monkeypatch.setattr(cli_progress, "progress", recording)
    code, _, _ = run(capsys, ATH11K, "--set", "ram=2GiB,8GiB,16GiB", "--frames", FRAMES, "--workers", "1")
    assert code == 0
    assert labels == [("6 runs of 400 frames", True)]
    assert seen == [(i, 6) for i in range(7)]


def test_on_a_pipe_a_parallel_sweep_prints_no_progress_and_is_pure_models():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "viz", "sweep", ATH11K, "--set", "ram=2GiB,8GiB",
                        "--frames", FRAMES, "--workers", "2"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, cwd=ROOT, timeout=120, env=env)
    assert p.returncode == 0 and p.stderr == "" and "\x1b" not in p.stdout
    assert "cpu_percent by ram" in p.stdout
    code = ("import sys, models.sweep as S\nfrom models.lesson import find_lesson\n"
            f"S.sweep(find_lesson({ATH11K!r}), 'ram', '2GiB,8GiB', frames=200, workers=1)\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'viz', 'rich', 'textual'}))")
    q = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=120, env=env)
    assert q.returncode == 0 and q.stdout.strip() == "[]", q.stderr


def test_a_violation_no_variant_expects_exits_3_naming_the_run(capsys, monkeypatch):
    from models.runner import VariantResult, run_params

    def violating(name, prm, frames, **kw):
        r = run_params(name, prm, frames, **kw)
        bad = {"mask-violation": 3} if prm["ram"] > 4 << 30 and name == "before" else {}
        return VariantResult(r.name, r.params, r.counters, r.metrics, [], [], violation_counts=bad)

    monkeypatch.setattr(S, "run_params", violating)
    code, out, err = run(capsys, ATH11K, "--set", "ram=2GiB,8GiB", "--frames", FRAMES, "--workers", "1")
    assert code == 3 and "cpu_percent by ram" in out
    assert message(err) == "rxviz: the checker reported 3 violation(s): before at ram=8GiB: mask-violation"
