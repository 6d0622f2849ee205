"""`rxviz exercise check`: mutants of the reference drivers fail with the kernel's report at their line;
a skeleton fails with a hint; a runaway driver is stopped; an exception shows only the learner's lines."""

from __future__ import annotations

import json

import pytest

from models.calls import VIOLATIONS
from viz.exercises.catalog import BY_ID, COMMON, hint
from viz.exercises.child import figures
from viz.exercises.grade import grade, run_child

FRAMES = 1500


def mutate(tmp_path, ex_id, old, new, count=1):
    ex = BY_ID[ex_id]
    src = ex.solution_text()
    assert src.count(old) >= count, old
    f = tmp_path / "driver.py"
    f.write_text(src.replace(old, new, count))
    last = new.strip().splitlines()[-1] if new.strip() else None
    line = max((i for i, text in enumerate(f.read_text().splitlines(), 1) if last and last in text), default=0)
    return ex, f, line


def check(ex, f, **kw):
    r = run_child(ex, f, FRAMES, **kw)
    return r, grade(ex, r)


UNMAP_RX = "        dma_unmap_single(self.dev, old_dma, RX_BUF_SIZE, DMA_FROM_DEVICE)\n"
MUTANTS = [
    # (id, exercise, old, new, failure kind, words the report must hold, reported at the new line)
    ("unmap-removed", "rx-refill", UNMAP_RX, "        pass  # no unmap\n", "no-sync-for-cpu",
     "while the device still owns it", False),
    ("double-unmap", "rx-refill", UNMAP_RX, UNMAP_RX + UNMAP_RX.replace("\n", "  # again\n"),
     "double-unmap", "device driver tries to free DMA memory it has not allocated", True),
    # check_unmap() looks the address up exactly: an address inside the mapping is one never mapped
    ("unmap-inside", "rx-refill", UNMAP_RX, UNMAP_RX.replace("old_dma, RX_BUF_SIZE", "old_dma + 64, RX_BUF_SIZE - 64"),
     "double-unmap", "device driver tries to free DMA memory it has not allocated", True),
    ("wrong-direction", "rx-refill", UNMAP_RX, UNMAP_RX.replace("DMA_FROM_DEVICE", "DMA_TO_DEVICE"),
     "wrong-direction", "[mapped with DMA_FROM_DEVICE] [unmapped with DMA_TO_DEVICE]", True),
    ("missing-sync", "page-pool-frags",
     "        dma_sync_single_range_for_cpu(self.dev, page_pool_get_dma_addr(page), off, length, DMA_FROM_DEVICE)\n",
     "        pass  # no sync\n", "no-sync-for-cpu", "without dma_sync_single_for_cpu", False),
    ("no-napi-complete", "rx-refill",
     "        if work_done < budget and napi_complete_done(napi, work_done):\n            driver_irq_enable(napi)\n",
     "        pass\n", "napi-stuck", "without napi_complete_done()", False),
    ("leak-at-stop", "rx-refill",
     "                dma_unmap_single(self.dev, self.dma[i], RX_BUF_SIZE, DMA_FROM_DEVICE)\n", "",
     "leak-at-teardown", "pending DMA allocations while released from device", False),
    ("budget-ignored", "rx-refill", "        while work_done < budget:\n            got",
     "        while True:\n            got", "over-budget", "exceeding its budget of 2", False),
]


@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m[0])
def test_a_mutant_fails_with_the_kernels_report(tmp_path, mutant):
    _, ex_id, old, new, kind, words, at_line = mutant
    ex, f, line = mutate(tmp_path, ex_id, old, new)
    r, v = check(ex, f)
    assert not v.passed
    assert kind in v.failures
    text = "\n".join(v.lines)
    assert words in text
    assert f"hint ({kind}):" in text
    assert "correct but slower" not in text          # a failing driver is never told it is correct
    if at_line:
        assert f"driver.py:{line} in rx_frame" in text


@pytest.mark.slow
def test_the_leak_is_reported_where_the_buffer_was_mapped(tmp_path):
    ex, f, _ = mutate(tmp_path, "rx-refill",
                      "                dma_unmap_single(self.dev, self.dma[i], RX_BUF_SIZE, DMA_FROM_DEVICE)\n", "")
    _, v = check(ex, f)
    map_line = next(i for i, t in enumerate(f.read_text().splitlines(), 1) if "addr = dma_map_single" in t)
    assert f"mapped at driver.py:{map_line} in alloc_mapped" in "\n".join(v.lines)


@pytest.mark.slow
@pytest.mark.parametrize("ex_id", ["rx-refill", "page-pool-frags", "dma-masks", "napi-skb-cache", "dma-bugs"])
def test_a_skeleton_as_written_fails_with_a_hint(tmp_path, ex_id):
    ex = BY_ID[ex_id]
    f = tmp_path / "driver.py"
    f.write_text(ex.skeleton_text())
    _, v = check(ex, f)
    assert not v.passed and v.failures
    assert any(line.startswith("  hint (") for line in v.lines)


@pytest.mark.slow
def test_the_dma_bugs_skeleton_shows_its_three_bugs_at_their_lines(tmp_path):
    ex = BY_ID["dma-bugs"]
    f = tmp_path / "driver.py"
    f.write_text(ex.skeleton_text())
    _, v = check(ex, f)
    assert {"wrong-direction", "dma-beyond-mapping", "leak-at-teardown"} <= set(v.failures)


def test_an_endless_loop_is_stopped_with_a_message(tmp_path):
    ex, f, _ = mutate(tmp_path, "rx-refill", "    def open(self) -> None:\n",
                      "    def open(self) -> None:\n        while True:\n            pass\n")
    r, v = check(ex, f, cpu=2)
    assert not v.passed and v.failures == ["timeout"]
    assert "never gave the CPU back" in v.lines[0]


def test_an_exception_shows_only_the_learners_lines(tmp_path):
    ex, f, _ = mutate(tmp_path, "rx-refill", "        skb_put(skb, length)\n", "        skb_put(skb, 'x')\n")
    _, v = check(ex, f)
    text = "\n".join(v.lines)
    assert v.failures == ["exception"]
    assert 'File "driver.py"' in text and "in rx_frame" in text
    assert "models/" not in text and "viz/" not in text


def test_a_bad_argument_gets_the_apis_message_at_the_learners_line(tmp_path):
    ex, f, _ = mutate(tmp_path, "rx-refill", UNMAP_RX,
                      "        dma_unmap_single(self.dev, old, RX_BUF_SIZE, DMA_FROM_DEVICE)\n")
    _, v = check(ex, f)
    text = "\n".join(v.lines)
    assert "DriverBug: dma_unmap_single(): dma_addr must be the integer dma_map_single() returned" in text


def test_start_never_overwrites_and_hint_waits_for_an_attempt(tmp_path, monkeypatch, capsys):
    from viz import cli
    monkeypatch.setenv("RXVIZ_STATE_DIR", str(tmp_path / "state"))
    d = tmp_path / "mine"
    assert cli.main(["exercise", "start", "rx-refill", str(d)]) == 0
    (d / "driver.py").write_text("# my work\n")
    assert cli.main(["exercise", "start", "rx-refill", str(d)]) == 0
    assert (d / "driver.py").read_text() == "# my work\n"
    assert "left as it is" in capsys.readouterr().out
    assert cli.main(["exercise", "hint", "rx-refill"]) == 1
    assert "try it first" in capsys.readouterr().err
    assert cli.main(["exercise", "start", "no-such"]) == 2
    assert "no such exercise" in capsys.readouterr().err


def test_check_of_a_directory_that_is_not_there_names_it(tmp_path, monkeypatch, capsys):
    from viz import cli
    monkeypatch.setenv("RXVIZ_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["exercise", "check", "typo-dir"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rxviz: exercise check: typo-dir: no such directory") and "Traceback" not in err
    (tmp_path / "empty").mkdir()
    assert cli.main(["exercise", "check", "empty"]) == 2
    assert "empty was not made by `rxviz exercise start`" in capsys.readouterr().err


@pytest.mark.parametrize("kind", sorted({*VIOLATIONS, "leak", "pool-inflight", "napi-stuck", "over-budget",
                                         "no-frames", "timeout", "exception"}))
def test_every_failure_gets_a_hint_of_its_own(kind):
    """Each report a failing driver can get (the checker's kinds, the grader's own) has a hint about it,
    never the "correct but slower" one (an unmap left out ends in an illegal-transition report too)."""
    for ex in BY_ID.values():
        text = hint(ex, kind)
        assert text and text != COMMON["slower"] and "correct but slower" not in text


def test_calls_per_frame_count_the_frames_the_nic_received():
    """A driver that takes no frame off the ring (the skeleton) misses every frame: 1 a frame, not the
    run's total divided by nothing."""
    class NoFrames:
        processed = 0
    metrics = {"throughput_mbps": 0.0, "cpu_ns_per_frame": 0.0, "frames_delivered": 0, "frames_dropped": 0}
    out = figures(NoFrames(), metrics, {"rx_missed_errors": 24_000, "dma_map_single": 256})
    assert out["calls"]["rx_missed_errors"] == 1.0
    assert out["maps_per_frame"] == round(256 / 24_000, 3)

    class Taking:
        processed = 20_000
    out = figures(Taking(), metrics, {"dma_map_single": 25_000})
    assert out["maps_per_frame"] == 1.25 and "rx_missed_errors" not in out["calls"]


@pytest.mark.parametrize("junk", ["[1,2", '{"rx-refill": 5}', "\udcff"])
def test_an_unusable_progress_file_is_set_aside_not_written_over(tmp_path, monkeypatch, capsys, junk):
    """exercises.json that cannot be used is kept as exercises.json.corrupt-<time> with one line on
    stderr, as progress.json is; it was silently written over by the next `exercise start`."""
    from viz import cli
    state = tmp_path / "state"
    monkeypatch.setenv("RXVIZ_STATE_DIR", str(state))
    state.mkdir()
    f = state / "exercises.json"
    f.write_bytes(junk.encode("utf-8", "surrogateescape"))
    assert cli.main(["exercise", "start", "rx-refill", str(tmp_path / "mine")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("rxviz: note: exercise progress file was unusable") and "Traceback" not in err
    aside = list(state.glob("exercises.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == junk.encode("utf-8", "surrogateescape")
    assert "rx-refill" in json.loads(f.read_text())["exercises"]      # a new file, for the one started
    assert cli.main(["exercise", "list"]) == 0
    assert not capsys.readouterr().err


def test_what_exercise_prints_fits_80_columns(tmp_path, monkeypatch, capsys):
    """A projector shows 80 columns: the list cuts a task at a word (`start` says it whole), and a
    check's kernel reports and hints wrap, indented under their first line (they ran to 200)."""
    from viz import cli
    monkeypatch.setenv("RXVIZ_STATE_DIR", str(tmp_path / "state"))
    d = tmp_path / "mine"
    assert cli.main(["exercise", "list"]) == 0
    assert cli.main(["exercise", "start", "dma-bugs", str(d)]) == 0
    assert cli.main(["exercise", "check", str(d), "--frames", "300"]) == 1
    assert cli.main(["exercise", "hint", "dma-bugs"]) == 0
    out = capsys.readouterr().out
    too_wide = [line for line in out.splitlines() if len(line) > 80 and " " in line.strip()]
    assert not too_wide, too_wide
    assert "[unmapped with DMA_TO_DEVICE]" in out and "hint (wrong-direction):" in out
    rows = [line for line in out.splitlines() if line.startswith("rx-refill ")]
    assert rows and rows[0].endswith(" …")


TAKE_ONE = "            i, length = got\n            self.rx_frame(napi, i, length)\n            work_done += 1\n"
TAKE_TWO = ("            i, length = got\n"
            "            nxt = self.rx_ring.next_rx(napi) if work_done + 1 < budget else None\n"
            "            self.rx_frame(napi, i, length)\n            work_done += 1\n"
            "            if nxt is not None:\n                self.rx_frame(napi, nxt[0], nxt[1])\n"
            "                work_done += 1\n")


@pytest.mark.slow
def test_a_fragment_synced_and_attached_after_the_next_frame_is_taken_is_found(tmp_path):
    # the sync and the attach name a fragment that is not the one next_rx() handed last (Host.find_frag)
    ex, f, _ = mutate(tmp_path, "page-pool-frags", TAKE_ONE, TAKE_TWO)
    _, v = check(ex, f)
    assert v.passed, v.lines


@pytest.mark.slow
def test_a_fragment_attached_at_an_offset_never_posted_gets_the_apis_message(tmp_path):
    ex, f, line = mutate(tmp_path, "page-pool-frags", "skb_add_rx_frag(skb, 0, page, off, length",
                         "skb_add_rx_frag(skb, 0, page, off + 64, length")
    _, v = check(ex, f)
    text = "\n".join(v.lines)
    assert v.failures == ["exception"]
    assert f'File "driver.py", line {line}, in rx_frame' in text
    assert "DriverBug: skb_add_rx_frag(): no received fragment at offset 64 of that page" in text
