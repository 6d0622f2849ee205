"""`rxviz exercise check`: mutants of the reference drivers fail with the kernel's report at their line;
a skeleton fails with a hint; a runaway driver is stopped; an exception shows only the learner's lines."""

from __future__ import annotations

import pytest

from viz.exercises.catalog import BY_ID
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
