"""The RX (and TX) descriptor ring: who owns each descriptor, and where the heads are.

The device fills descriptors it owns at `dev_idx` and hands them to the driver
(marking them done); the driver cleans done descriptors at `clean_idx` and
posts a fresh buffer back to the device. A frame that finds the descriptor
at `dev_idx` still owned by the driver is dropped (the NIC's rx_missed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

from .int_arrays import counters, counters_from

if TYPE_CHECKING:  # pragma: no cover
    from .rx_buffer import Buf
    from .trace import Recorder

DRIVER: Final = 0
DEVICE: Final = 1        # who owns a descriptor (Ring.owner)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Ring:
    """The descriptors as arrays indexed by descriptor number: a few arrays, not an object each.

    owner[i] is DEVICE once the driver posts bufs[i] and DRIVER once the device has
    written it (done[i], lens[i] bytes, at t_done[i]) or the ring is stopped; eop[i]
    marks the last descriptor of a frame. t_post[i] is when the driver posted it.
    Compiled, the integer arrays are native arrays of int64 (models.trace.counters_from):
    a store is no boxed int and no generic item assignment.
    """
    __slots__ = ("size", "owner", "done", "bufs", "lens", "eop", "t_done", "t_post", "dev_idx", "clean_idx",
                 "device_owned", "clock", "written")

    def __init__(self, size: int, clock: Recorder) -> None:
        self.size = size
        self.clock = clock      # the CPU's clock: a descriptor is the device's from when it is posted
        self.owner = counters(size)                     # DRIVER (0) or DEVICE (1)
        self.done = counters(size)
        self.bufs: list[Buf | None] = [None] * size
        self.lens = counters(size)
        self.eop = counters_from([1] * size)
        self.t_done = counters(size)
        self.t_post = counters(size)      # when the driver gave it to the device (ps)
        self.dev_idx = 0        # next descriptor the device writes (hardware head)
        self.clean_idx = 0      # next descriptor the driver cleans (software tail)
        self.device_owned = 0
        self.written = 0        # descriptors the latest fill_run() wrote

    # A vec does not pickle: snapshots carry the arrays as lists.
    def __getstate__(self) -> tuple[Any, ...]:
        return (self.size, list(self.owner), list(self.done), self.bufs, list(self.lens), list(self.eop),
                list(self.t_done), list(self.t_post), self.dev_idx, self.clean_idx, self.device_owned, self.clock,
                self.written)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (self.size, owner, done, self.bufs, lens, eop, t_done, t_post, self.dev_idx, self.clean_idx,
         self.device_owned, self.clock, self.written) = state
        self.owner, self.done, self.lens, self.eop = (counters_from(owner), counters_from(done),
                                                      counters_from(lens), counters_from(eop))
        self.t_done, self.t_post = counters_from(t_done), counters_from(t_post)

    def post(self, i: int, buf: Buf) -> None:
        self.bufs[i] = buf
        self.owner[i] = DEVICE
        self.done[i] = 0
        self.t_post[i] = self.clock.t
        self.device_owned += 1

    def posted_at_start(self) -> None:
        """ifup's buffers were all posted before the NIC starts receiving: at t=0."""
        t_post = self.t_post
        for i in range(self.size):
            t_post[i] = 0

    # -- what views read (models.read): a descriptor by index ----------------------------------
    def state(self, i: int) -> str:
        """Descriptor i as the ring view colours it: "device" (posted, the device's), "filled"
        (written by the device, not cleaned yet), "cpu" (the driver's, holding a buffer) or "empty"."""
        if self.owner[i] == DEVICE:
            return "device"
        if self.done[i]:
            return "filled"
        return "cpu" if self.bufs[i] is not None else "empty"

    def buf(self, i: int) -> Buf | None:
        """The buffer descriptor i holds, or None."""
        return self.bufs[i]

    def stop(self) -> None:
        """ifdown: the driver has stopped the RX engine; every descriptor is back with the driver."""
        owner = self.owner
        for i in range(self.size):
            owner[i] = DRIVER
        self.device_owned = 0

    def device_fill(self, length: int, t: int) -> int:
        """The device writes a frame over as many descriptors as it needs: how many it took, the
        ones before the new dev_idx (0: it has too few, and drops the frame).

        Each descriptor takes at most its own buffer's size; the last one is marked
        end-of-packet. The hardware checks it owns them all before it writes.
        """
        first = i = self.dev_idx
        bufs = self.bufs
        buf = bufs[i]
        if buf is not None and 0 < length <= buf.size:      # the common case: one descriptor holds it
            owner = self.owner
            if owner[i] != DEVICE or self.t_post[i] > t:
                return 0
            owner[i] = DRIVER
            self.done[i] = 1
            self.lens[i] = length
            self.t_done[i] = t
            self.eop[i] = 1
            self.device_owned -= 1
            self.dev_idx = i + 1 if i + 1 < self.size else 0
            return 1
        owner, t_post, size = self.owner, self.t_post, self.size
        need, n = length, 0
        while need > 0:
            buf = bufs[i]
            # Arrivals are brought up to date lazily: a descriptor posted after the frame
            # arrived was not there for it (at that moment the ring had no free descriptor).
            if owner[i] != DEVICE or buf is None or t_post[i] > t or n == size:
                return 0
            n += 1
            need -= buf.size
            i = (i + 1) % size
        left = length
        lens, done, eop, t_done = self.lens, self.done, self.eop, self.t_done
        j = first
        for _ in range(n):
            owner[j] = DRIVER
            done[j] = 1
            buf = bufs[j]
            assert buf is not None            # every descriptor of the chain was checked above
            m = min(left, buf.size)
            lens[j] = m
            left -= m
            t_done[j] = t
            eop[j] = 1 if left <= 0 else 0
            j = (j + 1) % size
        self.device_owned -= n
        self.dev_idx = i
        return n

    def fill_run(self, length: int, t: int, ser: int, n: int) -> int:
        """The device writes up to n frames of `length` bytes that arrived from t on, ser apart: how
        many it wrote, each as device_fill() writes it, stopping at the first that finds no
        descriptor (it is dropped). `written` is how many descriptors they took."""
        i = self.dev_idx
        bufs, owner, t_post, size = self.bufs, self.owner, self.t_post, self.size
        done, lens, t_done, eop = self.done, self.lens, self.t_done, self.eop
        k = ones = chained = 0          # frames; descriptors of a frame each; descriptors of the others
        while k < n:
            buf = bufs[i]
            if buf is not None and 0 < length <= buf.size:      # one descriptor holds it
                if owner[i] != DEVICE or t_post[i] > t:
                    break
                owner[i] = DRIVER
                done[i] = 1
                lens[i] = length
                t_done[i] = t
                eop[i] = 1
                ones += 1
                i = i + 1 if i + 1 < size else 0
            else:                                               # a frame over several, or none
                self.dev_idx = i
                took = self.device_fill(length, t)
                if not took:
                    break
                chained += took
                i = self.dev_idx
            t += ser
            k += 1
        self.device_owned -= ones
        self.dev_idx = i
        self.written = ones + chained
        return k

    def next_done_t(self) -> int | None:
        """When the descriptor at clean_idx was written, or None if the device has not written it."""
        i = self.clean_idx
        return self.t_done[i] if self.done[i] else None

    def take_frame(self) -> list[int]:
        """The driver takes the frame at clean_idx: its descriptors up to end-of-packet."""
        out = []
        while True:
            i = self.clean_idx
            out.append(i)
            self.clean_idx = (i + 1) % self.size
            if self.eop[i]:
                return out
