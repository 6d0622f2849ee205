"""The descriptor ring as views read it: each descriptor's state in the model's words, and its buffer."""

from __future__ import annotations

from models.ring import Ring
from models.rx_buffer import Buf
from models.sim import Sim
from models.trace import Recorder


def test_a_descriptor_is_device_filled_cpu_or_empty_as_its_ownership_says():
    ring = Ring(4, Recorder())
    bufs = [Buf(i, 0x1000 * i, 2048, None, 0, "frag") for i in range(3)]
    for i, buf in enumerate(bufs):
        ring.post(i, buf)             # descriptor 3 gets none
    assert [ring.state(i) for i in range(4)] == ["device", "device", "device", "empty"]
    assert ring.device_fill(3000, 0) is not None   # a 3000-byte frame takes two 2 KiB buffers
    assert [ring.state(i) for i in range(4)] == ["filled", "filled", "device", "empty"]
    ring.stop()                                    # ifdown: every descriptor back with the driver
    assert [ring.state(i) for i in range(4)] == ["filled", "filled", "cpu", "empty"]
    assert [ring.buf(i) for i in range(4)] == [*bufs, None]


def test_the_head_and_tail_the_view_marks_follow_the_device_and_the_driver():
    sim = Sim({"ring_size": 64, "traffic": "udp"})
    ring = sim.ring
    assert all(ring.state(i) == "device" for i in range(64)) and ring.device_owned == 64
    sim.run_frames(10)
    assert ring.clean_idx == 10 and ring.dev_idx >= 10
    assert all(ring.state(i) == "filled" for i in range(ring.clean_idx, ring.dev_idx))
