"""SWIOTLB: the bounce-buffer pool in low memory (kernel/dma/swiotlb.c).

2 KiB slots (IO_TLB_SHIFT = 11), runs that never cross a 128-slot segment
(IO_TLB_SEGSIZE), a 64 MiB default pool allocated from low memory at boot,
next-fit search from the area's index, and page alignment for mappings of a
page or more. When no run fits, the kernel prints "swiotlb buffer is full"
and the mapping fails.

Simplification: one area (the kernel has one per CPU, each with its own lock
and index; the model has one CPU).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from mypy_extensions import mypyc_attr

IO_TLB_SHIFT: Final = 11
IO_TLB_SIZE: Final = 1 << IO_TLB_SHIFT
IO_TLB_SEGSIZE: Final = 128


class Bounce(NamedTuple):
    """One swiotlb_bounce() copy: the driver's buffer, the slot, how many bytes, which way."""
    phys: int
    slot_addr: int
    nbytes: int
    back: bool           # slot -> buffer (sync for the CPU, unmap); else buffer -> slot


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Swiotlb:
    __slots__ = ("base", "nslabs", "used", "index", "used_slots", "hiwater", "last")

    def __init__(self, base: int, size: int) -> None:
        self.base = base
        self.nslabs = size >> IO_TLB_SHIFT
        self.used = bytearray(self.nslabs)
        self.index = 0
        self.used_slots = 0
        self.hiwater = 0
        self.last: Bounce | None = None       # the latest copy (for the memory view)

    @property
    def size(self) -> int:
        return self.nslabs << IO_TLB_SHIFT

    def slots_for(self, size: int) -> int:
        return (size + IO_TLB_SIZE - 1) >> IO_TLB_SHIFT

    def find(self, size: int) -> int:
        """Take a run of slots for `size` bytes; returns the first slot or -1 when full."""
        n = self.slots_for(size)
        if n > IO_TLB_SEGSIZE or self.used_slots + n > self.nslabs:
            return -1                         # too big for a segment, or fewer free slots than it needs
        stride = 2 if size >= 4096 else 1     # page-aligned runs for mappings of a page or more
        used = self.used
        total = self.nslabs
        i = self.index - (self.index % stride)
        for _ in range(0, total, stride):
            if i + n > total:
                i = 0
            seg_end = (i // IO_TLB_SEGSIZE + 1) * IO_TLB_SEGSIZE
            if i + n <= seg_end and not any(used[i:i + n]):
                used[i:i + n] = b"\x01" * n
                self.index = (i + n) % total
                self.used_slots += n
                if self.used_slots > self.hiwater:
                    self.hiwater = self.used_slots
                return i
            i += stride
        return -1

    def release(self, slot: int, size: int) -> None:
        n = self.slots_for(size)
        self.used[slot:slot + n] = bytes(n)
        self.used_slots -= n

    def addr(self, slot: int) -> int:
        return self.base + (slot << IO_TLB_SHIFT)
