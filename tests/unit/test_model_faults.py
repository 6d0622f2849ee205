"""Named faults: each breaks one rule and the checker reports it by name; without faults, nothing.

Also the teardown audit: every mapping, bounce slot, pool page, skb head and RX buffer is
accounted for after ifdown, unless a driver bug (a budgeted TX clean) strands some.
"""

from __future__ import annotations

import pytest

from models.calls import FAULT_SHOWS, VIOLATIONS
from models.sim import FAULTS, Sim

TEN_G = 10 * 10**9
ZERO = {"live_mappings": 0, "swiotlb_used_slots": 0, "pool_inflight": 0, "skb_heads_in_use": 0,
        "tx_pending": 0, "socket_queue": 0, "iommu_mapped_pages": 0, "rx_buffers_in_use": 0}
ATLANTIC = {"platform": "x86-strix-halo-tb", "iommu": "strict", "untrusted": True, "strategy": "page-pool",
            "xdp": "tx", "traffic": "udp", "rate": TEN_G}


def run(params: dict, frames: int, **kw) -> Sim:
    sim = Sim(params, **kw)
    sim.run_frames(frames)
    assert sim.processed == frames
    return sim


def names(sim: Sim) -> set[str]:
    return {v.name for v in sim.rec.violations}


def test_the_fault_list():
    assert FAULTS == ("no-sync-for-cpu", "double-unmap", "wrong-direction", "mask-violation", "leak-at-teardown",
                      "dma-beyond-mapping", "missing-unmap")
    # each fault provokes a violation of the checker's vocabulary
    assert set(FAULT_SHOWS) == set(FAULTS) and set(FAULT_SHOWS.values()) <= set(VIOLATIONS)


@pytest.mark.parametrize("fault", FAULTS)
def test_every_reported_name_is_in_the_vocabulary(fault):
    # a short mapping is a per-frame driver's bug (a page_pool maps whole pages itself)
    strategy = "per-frame" if fault in ("dma-beyond-mapping", "missing-unmap") else "page-pool"
    # an XDP_TX pool maps DMA_BIDIRECTIONAL, and check_sync() accepts any direction on such a mapping
    extra = {"xdp": "tx"} if strategy == "page-pool" and fault != "wrong-direction" else {}
    sim = run({"strategy": strategy, "traffic": "udp", "ram": 16 << 30, **extra}, 200, faults=(fault,))
    sim.teardown()
    assert FAULT_SHOWS[fault] in names(sim)
    assert names(sim) <= set(VIOLATIONS)


# ---------------------------------------------------------------------------- each fault, where it applies
@pytest.mark.parametrize("strategy", ["per-frame", "page-pool", "page-flip"])
@pytest.mark.parametrize("extra", [{}, {"ram": 16 << 30, "dma_mask": 32}, {"dma_dir": "bidirectional"}])
def test_no_sync_for_cpu_is_reported_for_every_frame(strategy, extra):
    sim = run({"strategy": strategy, "traffic": "udp", **extra}, 300, faults=("no-sync-for-cpu",))
    assert names(sim) == {"no-sync-for-cpu"}
    assert len(sim.rec.violations) == 300          # the CPU reads each frame without a sync
    assert sim.rec.counts["dma_sync_single_for_cpu"] == 0 or strategy == "per-frame"


@pytest.mark.parametrize("strategy", ["per-frame", "page-pool", "page-flip"])
def test_double_unmap_is_reported(strategy):
    sim = run({"strategy": strategy, "traffic": "udp"}, 300, faults=("double-unmap",))
    if strategy == "per-frame":
        assert len(sim.rec.violations) == 300      # every frame's buffer is unmapped twice
    elif strategy == "page-flip":
        # a page with no slice left is unmapped (twice) and freed
        assert sim.rec.counts["dma_unmap_page"] > 0
        assert len(sim.rec.violations) == sim.rec.counts["dma_unmap_page"] // 2
    else:
        # the driver unmaps pages the pool mapped (PP_FLAG_DMA_MAP): the next sync of a fragment of
        # such a page finds no mapping (check_sync), and the pool's own unmap, when the page leaves
        # at destroy, is the second one
        assert names(sim) == {"sync-unmapped"}
        sim.teardown()
        # every page the driver unmapped (once each: a dead mapping is not unmapped again by it) is
        # unmapped a second time by the pool as it leaves
        assert sim.rec.violations.counts["double-unmap"] == sim.fault_hits["double-unmap"] > 100
        assert names(sim) == {"double-unmap", "sync-unmapped"}
    if strategy != "page-pool":
        assert names(sim) == {"double-unmap"}
    v = next(v for v in sim.rec.violations if v.name == "double-unmap")
    assert "device driver tries to free DMA memory it has not allocated" in v.message


@pytest.mark.parametrize("strategy", ["per-frame", "page-pool", "page-flip"])
def test_wrong_direction_is_reported(strategy):
    sim = run({"strategy": strategy, "traffic": "udp"}, 300, faults=("wrong-direction",))
    assert names(sim) == {"wrong-direction"}
    assert all("different direction" in v.message for v in sim.rec.violations)


@pytest.mark.parametrize("strategy", ["per-frame", "page-pool", "page-flip"])
def test_mask_violation_is_reported_when_buffers_sit_above_what_the_device_drives(strategy):
    # the driver claims 64 bits while the device drives only 32; RAM reaches 17 GiB
    sim = run({"strategy": strategy, "ram": 16 << 30, "traffic": "udp"}, 300, faults=("mask-violation",))
    assert names(sim) == {"mask-violation"}
    assert sim.rec.counts["swiotlb_bounce"] == 0    # nothing protects the device from itself


def test_mask_violation_does_not_apply_below_4GiB():
    sim = run({"ram": 2 << 30, "traffic": "udp"}, 300, faults=("mask-violation",))
    assert sim.rec.violations == []


def test_leak_at_teardown_stalls_the_atlantic_page_pool():
    # XDP_TX frames still on the TX ring hold page_pool fragments; the budgeted deinit
    # strands them, so the pool's release work retries every second and warns at 60 s
    sim = run(ATLANTIC, 1)
    assert [e.kind for e in sim.stack.tx.ring] == ["xdp"]
    sim.teardown()
    assert [v.name for v in sim.rec.violations] == []          # the fixed driver: clean
    assert sim.accounting() == ZERO
    bad = run(ATLANTIC, 1, faults=("leak-at-teardown",))
    bad.teardown()
    assert [v.name for v in bad.rec.violations] == ["leak-at-teardown"]
    msg = bad.rec.violations[0].message
    assert "stalled pool shutdown" in msg
    assert msg == f"page_pool_release_retry() stalled pool shutdown: id {bad.pool.id}, 1 inflight 60 sec"
    assert bad.accounting()["pool_inflight"] == 1
    # destroy at t, retries at t+1 s ... t+61 s, each one a page_pool_release_retry
    assert bad.rec.counts["page_pool_release_retry"] == 61


def test_budgeted_tx_clean_is_the_same_driver_bug():
    sim = run({**ATLANTIC, "tx_clean": "budgeted"}, 1)
    sim.teardown()
    assert [v.name for v in sim.rec.violations] == ["leak-at-teardown"]
    assert "stalled pool shutdown" in sim.rec.violations[0].message


def test_leak_at_teardown_strands_a_tcp_ack_mapping():
    # per-frame TCP at 10 Gbit/s: stop while an ACK is on the TX ring and not yet sent
    sim = Sim({"rate": TEN_G, "tx_clean": "budgeted"})
    for _ in range(200):
        sim.run_frames(1)
        if any(e.t_done > max(sim.engine.now, sim.cpu_free) for e in sim.stack.tx.ring):
            break
    else:
        pytest.fail("no ACK in flight on the TX ring")
    sim.teardown()
    acc = sim.accounting()
    assert acc["tx_pending"] >= 1
    assert acc["live_mappings"] == acc["tx_pending"] == acc["skb_heads_in_use"]
    assert [v.name for v in sim.rec.violations] == ["leak-at-teardown"]
    assert (f"DMA-API: device driver has pending DMA allocations while released from device "
            f"[count={acc['tx_pending']}]") in sim.rec.violations[0].message


def test_full_tx_clean_has_no_leak_in_the_same_place():
    sim = Sim({"rate": TEN_G, "tx_clean": "full"})
    sim.run_frames(4)
    assert sim.stack.tx.ring
    sim.teardown()
    assert sim.rec.violations == []
    assert sim.accounting() == ZERO


# ---------------------------------------------------------------------------- no faults, no violations
CLEAN = [
    {},
    {"traffic": "udp", "rate": TEN_G},
    {"strategy": "page-pool", "rate": TEN_G},
    {"strategy": "page-flip", "rate": TEN_G},
    {"strategy": "page-pool", "xdp": "tx", "traffic": "udp"},
    {"ram": 16 << 30, "dma_mask": 32, "rate": TEN_G},
    {"ram": 80 << 30, "dma_mask": 36, "strategy": "page-pool"},
    {"iommu": "lazy", "strategy": "page-flip"},
    {"iommu": "strict", "untrusted": True, "skb_alloc": "napi_build_skb", "tx_free": "napi_consume_skb"},
    {"dma_dir": "bidirectional", "platform": "ppc464-apm82181"},
    {"platform": "mips74kc-bcm4716", "skb_alloc": "napi_build_skb", "forward": True},
    {"platform": "x86-wcn6855", "dma_mask": 36, "coherent_mask": 32, "ram": 80 << 30},
    {"delivery": "workqueue"},
    ATLANTIC,
]


@pytest.mark.parametrize("params", CLEAN)
def test_no_violation_and_everything_accounted_without_faults(params):
    sim = run(params, 1500)
    assert sim.rec.violations == []
    sim.teardown()
    assert sim.rec.violations == []
    assert sim.accounting() == ZERO


SDIO_USB = [
    {"bus": "sdio", "bundle": 32, "platform": "arm-qca6174-sdio"},
    {"bus": "sdio", "delivery": "workqueue", "bundle": 32, "platform": "arm-qca6174-sdio"},
    {"bus": "usb", "platform": "arm-qca6174-sdio"},
]


@pytest.mark.parametrize("params", SDIO_USB)
def test_sdio_and_usb_run_without_violations(params):
    sim = run(params, 1000)
    assert sim.rec.violations == []
    sim.teardown()
    assert sim.rec.violations == []
    acc = sim.accounting()
    assert ({k: v for k, v in acc.items() if k != "rx_buffers_in_use"}
            == {k: 0 for k in ZERO if k != "rx_buffers_in_use"})


@pytest.mark.parametrize("params", SDIO_USB)
def test_sdio_and_usb_teardown_returns_every_rx_buffer(params):
    sim = run(params, 100)
    sim.teardown()
    assert sim.accounting()["rx_buffers_in_use"] == 0


def test_ifdown_puts_nothing_new_on_the_tx_ring():
    sim = Sim({"tx_clean": "budgeted"}, trace=100_000)
    sim.run_frames(300)
    assert not sim.stack.tx.ring                  # nothing in flight when ifdown starts
    sim.teardown()
    calls = [e.call for e in sim.rec.events]
    after = calls[calls.index("napi_disable"):]
    assert "dma_map_single" not in after
    assert sim.rec.violations == []


# ---------------------------------------------------------------------------- past the end of a mapping
def test_device_writes_past_a_short_mapping_are_reported():
    # the driver maps 1024 of its 2048-byte buffers but tells the device 2048: every 1514-byte
    # frame ends 490 bytes past the mapping
    sim = run({"traffic": "udp", "forward": True}, 100, faults=("dma-beyond-mapping",))
    over = [v for v in sim.rec.violations if v.name == "dma-beyond-mapping"]
    assert len(over) == 100
    assert "wrote 1514 bytes at offset 0 of a 1024-byte mapping" in over[0].message
    assert "490 bytes past its end" in over[0].message


def test_syncs_past_a_mapping_are_reported():
    sim = Sim({"traffic": "udp"})
    m = sim.dma.map(0x1_0000_0000, 2048, "from_device")
    sim.dma.sync_for_cpu(m, 0, 2048)
    sim.dma.sync_for_cpu(m, 1024, 1024)
    assert sim.rec.violations == []
    sim.dma.sync_for_cpu(m, 1024, 1500)
    sim.dma.sync_for_device(m, 2000, 100)
    got = [v for v in sim.rec.violations if v.name == "sync-beyond-mapping"]
    assert len(got) == 2
    # check_sync() finds no entry holding [dma+1024, dma+2524): what it reports is the range it looked up
    assert ("tries to sync DMA memory it has not allocated [device address=0x0000000100000400] "
            "[size=1500 bytes]") in got[0].message


def test_a_sync_in_the_wrong_direction_names_the_address_synced():
    sim = Sim({"traffic": "udp"})
    m = sim.dma.map(0x1_0000_0000, 2048, "from_device")
    sim.dma.sync_for_cpu(m, 512, 256, "to_device")
    got = [v for v in sim.rec.violations if v.name == "wrong-direction"]
    assert len(got) == 1
    assert "[device address=0x0000000100000200] [size=2048 bytes]" in got[0].message


@pytest.mark.parametrize("params", [
    {"strategy": "page-flip", "mtu": 9000, "platform": "x86-strix-halo-tb", "ring_size": 512},
    {"strategy": "page-pool", "mtu": 9000, "platform": "x86-strix-halo-tb", "ring_size": 512},
    {"strategy": "page-pool", "mtu": 9000, "rx_build": "napi_alloc_skb", "platform": "x86-strix-halo-tb",
     "ring_size": 512},
])
def test_a_jumbo_frame_spans_descriptors_and_never_overruns(params):
    # 9014 bytes over 2 KiB buffers: five descriptors, the last with 822 bytes; no write and no
    # sync ever reaches past a mapping
    sim = run({**params, "rx_usecs": 20_000, "rate": TEN_G}, 500, trace=1_000_000)
    assert sim.rec.violations == []
    writes = [e for e in sim.rec.events if e.call == "rx_frame"]
    per_frame = [int(e.detail.split()[0]) for e in writes]
    assert per_frame[:5] == [2048, 2048, 2048, 2048, 822]
    assert sim.rec.counts["rx_frame"] == 5 * (sim.frames - sim.dropped)


@pytest.mark.slow
def test_a_mapping_never_unmapped_fills_swiotlb_until_mapping_fails():
    # a 32-bit mask on 8 GiB bounces every buffer: each leaked mapping keeps its slot, so the
    # 64 MiB pool (32768 slots) runs out after about 32768 - 256 frames, "swiotlb buffer is full"
    # is printed and, with no replacement buffer, the frame is dropped
    sim = Sim({"ram": 8 << 30, "dma_mask": 32, "traffic": "udp", "forward": True, "rate": 10**9},
              faults=("missing-unmap",))
    sim.run_frames(34000)
    sw = sim.swiotlb
    assert sw.used_slots >= sw.nslabs - 1
    full = [w for w in sim.rec.warnings if w.name == "swiotlb-full"]
    assert full and "total 32768 (slots), used 32768 (slots)" in full[0].message
    assert sim.rec.counts["rx_dropped"] > 0
    sim.teardown()
    assert "leak-at-teardown" in names(sim)


# ---------------------------------------------------------------------------- a bug on every frame
def test_a_bug_on_every_frame_is_counted_every_time_and_kept_whole_only_at_first():
    # dma-debug counts each error and prints the first: a long run of a buggy driver must not
    # hold a report per frame (a million frames of double unmaps were 800 MB).
    from shipped import shipped_lesson

    from models.snapshot import clone
    from models.trace import KEPT_REPORTS
    lesson = shipped_lesson("dma-bugs")
    sim = Sim(lesson.params_for("bad-unmap"), faults=lesson.faults_for("bad-unmap"), trace=500)
    sim.run_frames(KEPT_REPORTS)                      # two reports a frame
    reports = sim.rec.violations
    assert reports.total == sum(reports.counts.values()) == 2 * KEPT_REPORTS
    assert len(reports) == KEPT_REPORTS and reports[0].t_ns <= reports[-1].t_ns <= reports.last.t_ns
    assert sim.rec.seq == sim.rec.calls_made()        # the event numbering counts every report
    copy = clone(sim)
    assert (copy.rec.violations.total, copy.rec.violations.counts, copy.rec.violations.last) == \
        (reports.total, reports.counts, reports.last)
    assert list(copy.rec.violations) == list(reports)


def test_a_report_taken_back_leaves_the_one_before_it_as_the_latest():
    from models.trace import Reports, Violation
    a, b = Violation("double-unmap", "first", 1), Violation("wrong-direction", "second", 2)
    reports = Reports()
    reports.append(a)
    reports.append(b)
    assert reports.pop() is b
    assert (list(reports), reports.total, reports.counts, reports.last) == ([a], 1, {"double-unmap": 1}, a)
