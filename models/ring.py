"""The RX (and TX) descriptor ring: who owns each descriptor, and where the heads are.

The device fills descriptors it owns at `dev_idx` and hands them to the driver
(marking them done); the driver cleans done descriptors at `clean_idx` and
posts a fresh buffer back to the device. A frame that finds the descriptor
at `dev_idx` still owned by the driver is dropped (the NIC's rx_missed).
"""

from __future__ import annotations

DEVICE, DRIVER = "device", "driver"


class Desc:
    __slots__ = ("idx", "owner", "buf", "done", "len", "t_done")

    def __init__(self, idx: int) -> None:
        self.idx = idx
        self.owner = DRIVER
        self.buf = None
        self.done = False
        self.len = 0
        self.t_done = 0


class Ring:
    __slots__ = ("size", "descs", "dev_idx", "clean_idx", "device_owned")

    def __init__(self, size: int) -> None:
        self.size = size
        self.descs = [Desc(i) for i in range(size)]
        self.dev_idx = 0        # next descriptor the device writes (hardware head)
        self.clean_idx = 0      # next descriptor the driver cleans (software tail)
        self.device_owned = 0

    def post(self, desc: Desc, buf) -> None:
        desc.buf = buf
        desc.owner = DEVICE
        desc.done = False
        self.device_owned += 1

    def stop(self) -> None:
        """ifdown: the driver has stopped the RX engine; every descriptor is back with the driver."""
        for d in self.descs:
            d.owner = DRIVER
        self.device_owned = 0

    def device_fill(self, length: int, t: int) -> Desc | None:
        """The device writes a frame; None when it has no descriptor (drop)."""
        d = self.descs[self.dev_idx]
        if d.owner != DEVICE:
            return None
        d.owner = DRIVER
        d.done = True
        d.len = length
        d.t_done = t
        self.device_owned -= 1
        self.dev_idx = (self.dev_idx + 1) % self.size
        return d

    def next_done(self) -> Desc | None:
        d = self.descs[self.clean_idx]
        return d if d.done else None

    def advance_clean(self) -> None:
        self.clean_idx = (self.clean_idx + 1) % self.size

    def pending(self) -> int:
        """Descriptors the device has filled and the driver has not cleaned yet."""
        n = 0
        i = self.clean_idx
        while n < self.size and self.descs[i].done:
            n += 1
            i = (i + 1) % self.size
        return n
