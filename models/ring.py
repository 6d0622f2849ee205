"""The RX (and TX) descriptor ring: who owns each descriptor, and where the heads are.

The device fills descriptors it owns at `dev_idx` and hands them to the driver
(marking them done); the driver cleans done descriptors at `clean_idx` and
posts a fresh buffer back to the device. A frame that finds the descriptor
at `dev_idx` still owned by the driver is dropped (the NIC's rx_missed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .rxpath import Buf
    from .trace import Recorder

DEVICE, DRIVER = "device", "driver"


class Desc:
    __slots__ = ("idx", "owner", "buf", "done", "len", "t_done", "eop", "t_post")

    def __init__(self, idx: int) -> None:
        self.idx = idx
        self.owner = DRIVER
        self.buf: Buf | None = None
        self.done = False
        self.len = 0
        self.t_done = 0
        self.t_post = 0          # when the driver gave it to the device (ps)
        self.eop = True          # the last descriptor of its frame

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.idx, self.owner, self.buf, self.done, self.len, self.t_done, self.eop, self.t_post)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.idx, self.owner, self.buf, self.done, self.len, self.t_done, self.eop, self.t_post = state


class Ring:
    __slots__ = ("size", "descs", "dev_idx", "clean_idx", "device_owned", "clock")

    def __init__(self, size: int, clock: Recorder) -> None:
        self.size = size
        self.clock = clock      # the CPU's clock: a descriptor is the device's from when it is posted
        self.descs = [Desc(i) for i in range(size)]
        self.dev_idx = 0        # next descriptor the device writes (hardware head)
        self.clean_idx = 0      # next descriptor the driver cleans (software tail)
        self.device_owned = 0

    def post(self, desc: Desc, buf: Buf) -> None:
        desc.buf = buf
        desc.owner = DEVICE
        desc.done = False
        desc.t_post = self.clock.t
        self.device_owned += 1

    # -- what views read (models.read): a descriptor by index, never the Desc records ----------
    def state(self, i: int) -> str:
        """Descriptor i as the ring view colours it: "device" (posted, the device's), "filled"
        (written by the device, not cleaned yet), "cpu" (the driver's, holding a buffer) or "empty"."""
        d = self.descs[i]
        if d.owner == DEVICE:
            return "device"
        if d.done:
            return "filled"
        return "cpu" if d.buf is not None else "empty"

    def buf(self, i: int) -> Buf | None:
        """The buffer descriptor i holds, or None."""
        return self.descs[i].buf

    def stop(self) -> None:
        """ifdown: the driver has stopped the RX engine; every descriptor is back with the driver."""
        for d in self.descs:
            d.owner = DRIVER
        self.device_owned = 0

    def device_fill(self, length: int, t: int) -> list[Desc] | None:
        """The device writes a frame over as many descriptors as it needs; None when it has too few (drop).

        Each descriptor takes at most its own buffer's size; the last one is marked
        end-of-packet. The hardware checks it owns them all before it writes.
        """
        descs, size = self.descs, self.size
        chain: list[Desc] = []
        need, i = length, self.dev_idx
        while need > 0:
            d = descs[i]
            buf = d.buf
            # Arrivals are brought up to date lazily: a descriptor posted after the frame
            # arrived was not there for it (at that moment the ring had no free descriptor).
            if d.owner != DEVICE or buf is None or d.t_post > t or len(chain) == size:
                return None
            chain.append(d)
            need -= buf.size
            i = (i + 1) % size
        left = length
        for d in chain:
            d.owner = DRIVER
            d.done = True
            buf = d.buf
            assert buf is not None            # every descriptor of the chain was checked above
            d.len = min(left, buf.size)
            left -= d.len
            d.t_done = t
            d.eop = False
        chain[-1].eop = True
        self.device_owned -= len(chain)
        self.dev_idx = i
        return chain

    def next_done(self) -> Desc | None:
        d = self.descs[self.clean_idx]
        return d if d.done else None

    def take_frame(self) -> list[Desc]:
        """The driver takes the frame at clean_idx: its descriptors up to end-of-packet."""
        out = []
        while True:
            d = self.descs[self.clean_idx]
            out.append(d)
            self.clean_idx = (self.clean_idx + 1) % self.size
            if d.eop:
                return out
