"""The SDIO bus: what each CMD53 carries and costs, and how RX bundles and ACK writes share it.

Expected numbers come from ath10k's framing (HTC 8 + HTT RX indication 56 + RX descriptor 20 +
802.11 QoS header 26 + LLC/SNAP 8 in front of the IP packet, padded to 256-byte blocks) and the
transfer table of the RX-bundle patch (23 us per CMD53, 730 Mbit/s while data moves).
"""

from __future__ import annotations

import pytest

from models.sdio import RX_MSG_OVERHEAD, padded
from models.sim import Sim

SDIO = {"bus": "sdio", "bundle": 32, "platform": "arm-qca6174-sdio"}


def run(params: dict, frames: int, **kw) -> Sim:
    sim = Sim(params, **kw)
    sim.run_frames(frames)
    return sim


@pytest.mark.parametrize("mtu,blocks", [(1500, 7), (1400, 6), (576, 3)])
def test_a_message_is_its_headers_and_packet_in_whole_blocks(mtu, blocks):
    assert RX_MSG_OVERHEAD == 118
    assert padded(mtu + RX_MSG_OVERHEAD) == blocks * 256


def test_each_cmd53_costs_its_fixed_part_plus_its_bytes():
    sim = run({**SDIO, "delivery": "napi"}, 640)
    p = sim.platform
    bundles = [(s, e) for s, e, what, n in sim.bus_log if what == "rx" and n == 32]
    acks = [(s, e) for s, e, what, _ in sim.bus_log if what == "tx"]
    status = [(s, e) for s, e, what, _ in sim.bus_log if what == "status"]
    assert bundles and acks and status
    full = p.sdio_xfer_ns + 32 * 1792 * 8 * 1e9 / p.sdio_bps          # 23 us + 628 us
    assert all(abs((e - s) - full) <= 1 for s, e in bundles)
    ack = p.sdio_xfer_ns + 256 * 8 * 1e9 / p.sdio_bps                 # one block
    assert all(abs((e - s) - ack) <= 1 for s, e in acks)
    st = p.sdio_xfer_ns + 24 * 8 * 1e9 / p.sdio_bps
    assert all(abs((e - s) - st) <= 1 for s, e in status)


def test_every_bundle_read_follows_a_status_read():
    sim = run({**SDIO, "delivery": "napi"}, 2000)
    kinds = [x.kind for x in sim.bus_log if x.kind != "tx"]      # the last 64 transfers
    reads = [i for i, what in enumerate(kinds) if what == "rx" and i > 0]
    assert len(reads) > 10
    assert all(kinds[i - 1] == "status" for i in reads)


@pytest.mark.parametrize("duty", [1.0, 0.5])
def test_a_saturated_bus_is_busy_its_duty_share_of_the_time(duty):
    sim = Sim({**SDIO, "delivery": "napi", "sdio_duty": duty})
    sim.run_frames(1000)
    sim.mark()
    sim.run_frames(4000)
    assert sim.metrics()["bus_percent"] == pytest.approx(100 * duty, abs=1.5)


def test_fewer_acks_leave_the_bus_to_rx():
    # the same bus, the same bundles: per-frame delivery writes an ACK per two segments,
    # NAPI with GRO one per bundle, and the bus time that frees goes to RX
    before = Sim({**SDIO, "delivery": "workqueue"})
    after = Sim({**SDIO, "delivery": "napi"})
    for s in (before, after):
        s.run_frames(1000)
        s.mark()
        s.run_frames(6000)
    mb, ma = before.metrics(), after.metrics()
    assert mb["acks_per_segment"] == pytest.approx(0.5, abs=0.01)
    assert ma["acks_per_segment"] == pytest.approx(1 / 32, abs=0.003)
    assert ma["throughput_mbps"] > 1.4 * mb["throughput_mbps"]
