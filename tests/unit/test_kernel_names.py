"""The calls are named as the kernel names them, in the kernel each lesson runs.

- Sending an ACK is tcp_send_ack() -> __tcp_send_ack(); tcp_ack() processes an incoming one.
- napi_complete_done() flushes GRO and clears NAPI_STATE_SCHED; it does not touch the device.
  The driver unmasks its interrupt with a call of its own after it returns true.
- An skb's free reaches the pool through napi_pp_put_page(): page_pool_recycle_in_cache() or
  page_pool_recycle_in_ring(); page_pool_recycle_direct() is a driver's call (XDP_DROP) and
  page_pool_release_page() is gone (pages leave through page_pool_return_netmem()).
- A frame the NIC finds no descriptor for is a hardware miss (rx_missed_errors); rx_dropped is
  the driver dropping a frame it could not refill.
"""

from __future__ import annotations

import pytest
from shipped import shipped_lesson

from models.calls import CALLS, COUNTERS
from models.sim import Sim


def lesson_sim(lesson_id: str, variant: str, frames: int, trace: int = 0, **sets) -> Sim:
    sim = Sim({**shipped_lesson(lesson_id).params_for(variant), **sets}, trace=trace)
    sim.run_frames(frames)
    return sim


def test_names_that_are_not_the_kernels_are_gone():
    for gone in ("tcp_ack", "page_pool_recycle_direct", "page_pool_recycle_ring", "page_pool_release_page"):
        assert gone not in CALLS and gone not in COUNTERS
    for name in ("tcp_send_ack", "page_pool_recycle_in_cache", "page_pool_recycle_in_ring",
                 "page_pool_return_netmem", "rx_missed_errors"):
        assert name in CALLS and name in COUNTERS


def test_an_ack_is_sent_with_tcp_send_ack():
    sim = lesson_sim("rx-basics", "no-gro", 400)
    assert sim.rec.counts["tcp_send_ack"] == sim.rec.counts["dev_queue_xmit"] > 0


@pytest.mark.parametrize("lesson_id,variant,unmask", [
    ("rx-basics", "gro", "irq_unmask"),
    ("bgmac-napi-skb-cache", "after", "bgmac_chip_intrs_on"),
    ("atlantic-page-pool", "after", "hw_atl_b0_hw_irq_enable"),
    ("ath11k-36bit-dma-mask", "before", "enable_irq"),
])
def test_the_driver_unmasks_its_interrupt_after_napi_complete_done_with_its_own_call(lesson_id, variant, unmask):
    sim = lesson_sim(lesson_id, variant, 300, trace=100_000)
    calls = [e.call for e in sim.rec.events]
    done = [i for i, c in enumerate(calls) if c == "napi_complete_done"]
    assert done and all(calls[i + 1] == unmask for i in done)
    assert sim.rec.counts[unmask] == sim.rec.counts["napi_complete_done"]
    complete = sim.rec.events[done[0]]
    assert "unmask" not in complete.detail


def test_ath9k_tasklet_ends_with_ath9k_hw_resume_interrupts():
    sim = lesson_sim("ath9k-page-pool", "before", 300)
    runs = sim.rec.counts["tasklet_action"]           # the last run may be stopped half-way, between frames
    assert runs > 0 and sim.rec.counts["ath9k_hw_resume_interrupts"] in (runs, runs - 1)


def test_ath10k_sdio_poll_never_touches_the_hardware():
    sim = lesson_sim("ath10k-sdio-napi", "after", 300)
    assert sim.rec.counts["napi_complete_done"] > 0
    assert not any(sim.rec.counts[c] for c in ("irq_unmask", "enable_irq", "bgmac_chip_intrs_on"))


def test_skb_frees_reach_the_pool_through_recycle_in_cache_and_in_ring():
    after = lesson_sim("atlantic-page-pool", "after", 2000)
    assert after.rec.counts["page_pool_recycle_in_cache"] > 0
    ath9k = lesson_sim("ath9k-page-pool", "after", 2000)
    assert ath9k.rec.counts["page_pool_recycle_in_ring"] > 0 == ath9k.rec.counts["page_pool_recycle_in_cache"]
    ath9k.teardown()
    assert ath9k.rec.counts["page_pool_return_netmem"] > 0


def test_a_frame_with_no_descriptor_is_a_hardware_miss_not_a_driver_drop():
    # a 64-descriptor ring at 10 Gbit/s of UDP and 5 us of stack work a datagram: the NIC runs out
    sim = Sim({"traffic": "udp", "rate": 10 * 10**9, "ring_size": 64, "budget": 8, "stack_skb_ns": 5000}, trace=0)
    sim.run_frames(3000)
    assert sim.rec.counts["rx_missed_errors"] == sim.dropped > 0
    assert sim.rec.counts["rx_dropped"] == 0


def test_the_sdio_and_flush_queue_calls_are_the_drivers_and_dma_iommus_own():
    for gone, name in (("sdio_read_bundle", "ath10k_sdio_mbox_rx_fetch_bundle"), ("sdio_write", "ath10k_sdio_write"),
                       ("sdio_read_int_status", "ath10k_sdio_mbox_read_int_status"),
                       ("iommu_flush_queue", "fq_flush_iotlb")):
        assert gone not in CALLS and name in CALLS
    sim = lesson_sim("ath10k-sdio-napi", "before", 300)
    c = sim.rec.counts
    assert c["ath10k_sdio_mbox_rx_fetch_bundle"] > 0 and c["ath10k_sdio_write"] > 0
    assert c["ath10k_sdio_mbox_read_int_status"] >= c["ath10k_sdio_mbox_rx_fetch_bundle"]    # a status read before each
