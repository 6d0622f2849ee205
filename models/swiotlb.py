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
    __slots__ = ("base", "nslabs", "used", "index", "used_slots", "hiwater", "last_phys", "last_slot", "last_nbytes",
                 "last_back")

    def __init__(self, base: int, size: int) -> None:
        self.base = base
        self.nslabs = size >> IO_TLB_SHIFT
        self.used = bytearray(self.nslabs)
        self.index = 0
        self.used_slots = 0
        self.hiwater = 0
        # The latest copy (for the memory view), kept as its numbers: a Bounce is made when it is read.
        self.last_phys = 0
        self.last_slot = -1                   # no copy yet
        self.last_nbytes = 0
        self.last_back = False

    @property
    def size(self) -> int:
        return self.nslabs << IO_TLB_SHIFT

    @property
    def last(self) -> Bounce | None:
        """The latest swiotlb_bounce() copy, or None before the first."""
        if self.last_slot < 0:
            return None
        return Bounce(self.last_phys, self.addr(self.last_slot), self.last_nbytes, self.last_back)

    def bounced(self, phys: int, slot: int, nbytes: int, back: bool) -> None:
        """swiotlb_bounce() copied nbytes between the buffer at phys and the run at slot."""
        self.last_phys = phys
        self.last_slot = slot
        self.last_nbytes = nbytes
        self.last_back = back

    def slots_for(self, size: int) -> int:
        return (size + IO_TLB_SIZE - 1) >> IO_TLB_SHIFT

    def find(self, size: int) -> int:
        """Take a run of slots for `size` bytes; returns the first slot or -1 when full.

        Next-fit from `index`, as swiotlb_search_pool_area() searches: each candidate start
        (page-aligned for a page or more) is taken when its run stays inside one segment and
        every slot of it is free. The slots are tested one by one, with no slice or temporary:
        the usual run is one slot, free at the first place tried.
        """
        n = self.slots_for(size)
        if n > IO_TLB_SEGSIZE or self.used_slots + n > self.nslabs:
            return -1                         # too big for a segment, or fewer free slots than it needs
        stride = 2 if size >= 4096 else 1     # page-aligned runs for mappings of a page or more
        used = self.used
        total = self.nslabs
        i = self.index - (self.index % stride)
        tries = (total + stride - 1) // stride
        while tries > 0:
            tries -= 1
            if i + n > total:
                i = 0
            end = i + n
            if end <= (i // IO_TLB_SEGSIZE + 1) * IO_TLB_SEGSIZE:
                j = i
                while j < end and not used[j]:
                    j += 1
                if j == end:
                    for k in range(i, end):
                        used[k] = 1
                    self.index = end % total
                    self.used_slots += n
                    if self.used_slots > self.hiwater:
                        self.hiwater = self.used_slots
                    return i
            i += stride
        return -1

    def release(self, slot: int, size: int) -> None:
        n = self.slots_for(size)
        used = self.used
        for k in range(slot, slot + n):
            used[k] = 0
        self.used_slots -= n

    def addr(self, slot: int) -> int:
        return self.base + (slot << IO_TLB_SHIFT)
