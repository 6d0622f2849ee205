"""Physical memory, zones and the page allocator.

On x86 the firmware leaves a hole below 4 GiB for PCI; RAM beyond about
3 GiB is remapped above 4 GiB. So an 8 GiB machine has ZONE_DMA32 below
3 GiB and ZONE_NORMAL from 4 GiB to 9 GiB, and an ordinary GFP_KERNEL or
GFP_ATOMIC allocation tries ZONE_NORMAL first: most RX buffers of a large-RAM
machine sit above 4 GiB, which is what makes a 32-bit streaming mask bounce.

Placement within a zone is that of a freshly booted kernel. At boot
memblock hands every free range to the buddy allocator in increasing pfn
order, and since v5.10 `__free_pages_core()` puts those pages at the *tail*
of the free lists ("mm/page_alloc: place pages to tail in
__free_pages_core()"), so the first allocations come from the lowest free
pages of the preferred zone. The model therefore carves fresh blocks from the
bottom of each zone upwards and reuses freed blocks last-in first-out per
order. On a machine that has run for a while (page cache, fragmentation,
page shuffling with `page_alloc.shuffle=1`) buffers can sit anywhere in the
zone: the lessons say so where it matters (a 36-bit mask on an 80 GiB box).

Boot-time reservations (the SWIOTLB pool) come from memblock, which
allocates top-down below its limit (`memblock_alloc_low()`), so they sit at
the top of low memory, before the buddy allocator sees those pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mypy_extensions import mypyc_attr

PAGE_SIZE: Final = 4096
GiB = 1 << 30
MiB = 1 << 20
PCI_HOLE_START: Final = 3 * GiB      # low RAM ends here on a typical x86 PC
FOUR_GiB = 4 * GiB


def copy_ps(nbytes: int, gbs: float) -> int:
    """A memcpy of nbytes at gbs GB/s, in ps (one rounding per copy, so sums are exact).

    Here, in a module the compiled build compiles, so that a copy on the hot path (a SWIOTLB
    bounce, the reader's copy to user space) is a native call; `Costs.copy` is this function.
    """
    return rint(nbytes * 1000 / gbs)            # bytes / (GB/s) is ns; 1000 ps a ns


def rint(x: float) -> int:
    """int(round(x)): to the nearest integer, half to even, as Python rounds.

    Native arithmetic when compiled, where round() is a generic call to the builtin. For x >= 0,
    int(x) is its floor n, and x - n its fraction exactly (n <= x < n + 1), so the tie test is exact.
    """
    if x < 0:
        return int(round(x))
    n = int(x)
    frac = x - n
    if frac > 0.5 or (frac == 0.5 and n & 1):
        n += 1
    return n


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass
class Zone:
    name: str
    start: int          # physical address
    end: int            # one past the last byte of the zone
    next: int           # the next fresh block is carved at or above this address
    free: dict[int, list[int]]   # order -> stack of freed block addresses
    avail_end: int = 0  # one past the last byte the buddy allocator manages (memblock keeps the rest)

    def __post_init__(self) -> None:
        if not self.avail_end:
            self.avail_end = self.end

    @property
    def size(self) -> int:
        return self.end - self.start


@mypyc_attr(native_class=False)    # mypyc compiles no subclass of a builtin type
class OutOfMemory(RuntimeError):
    pass


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PhysMem:
    """Physical RAM in zones: as on x86-64 (ZONE_DMA, ZONE_DMA32, the PCI hole, ZONE_NORMAL above
    4 GiB), or one ZONE_NORMAL on a 32-bit board that has no DMA zones (`dma32` False)."""

    def __init__(self, ram: int, reserve_low: int = 16 * MiB, placement: str = "bottom-up",
                 dma32: bool = True) -> None:
        self.ram = ram
        # "bottom-up": v5.10+ after boot; "top-down": older kernels, whose boot-time frees
        # went to the head of the free lists (the last, highest pages freed come out first).
        self.top_down = placement == "top-down"
        self.zones: list[Zone] = []
        low_end = min(ram, PCI_HOLE_START)
        dma_end = min(16 * MiB, low_end)
        # The kernel image and early boot allocations sit at the bottom of RAM.
        if not dma32:
            # a 32-bit board's RAM below the hole is one ZONE_NORMAL, the kernel image at its bottom
            self.zones.append(Zone("Normal", 0, low_end, min(reserve_low, low_end), {}))
        else:
            self.zones.append(Zone("DMA", 0, dma_end, min(reserve_low, dma_end), {}))
        if dma32 and low_end > 16 * MiB:
            self.zones.append(Zone("DMA32", 16 * MiB, low_end, 16 * MiB, {}))
        if ram > PCI_HOLE_START:
            end = FOUR_GiB + (ram - PCI_HOLE_START)
            self.zones.append(Zone("Normal", FOUR_GiB, end, FOUR_GiB, {}))
        self.max_addr = self.zones[-1].end
        self.allocated_pages = 0
        self.reserved: list[tuple[int, int, str]] = []   # (start, size, what) taken by memblock

    def zone_of(self, addr: int) -> str:
        for z in self.zones:
            if z.start <= addr < z.end:
                return z.name
        return "hole"

    def _zones_for(self, limit: int | None) -> list[Zone]:
        """Zones wholly below an address limit, highest first (the fallback order).

        The kernel picks a zone from the mask (GFP_DMA32 for a 32-bit coherent
        mask) rather than clipping a zone, and on this layout every zone lies
        wholly below or above 4 GiB.
        """
        zones = [z for z in self.zones if limit is None or z.end <= limit]
        return list(reversed(zones))

    def alloc(self, order: int = 0, limit: int | None = None) -> int:
        """Allocate 2**order contiguous pages; returns the physical address."""
        size = PAGE_SIZE << order
        for z in self._zones_for(limit):
            stack = z.free.get(order)
            if stack:
                self.allocated_pages += 1 << order
                return stack.pop()
            if self.top_down:
                addr = (z.avail_end - size) & ~(size - 1)
                if addr >= z.next:
                    z.avail_end = addr
                    self.allocated_pages += 1 << order
                    return addr
                continue
            addr = (z.next + size - 1) & ~(size - 1)     # buddy blocks are naturally aligned
            if addr + size <= z.avail_end:
                z.next = addr + size
                self.allocated_pages += 1 << order
                return addr
        raise OutOfMemory(f"no free order-{order} block" + (f" below {limit:#x}" if limit else ""))

    def memblock_alloc_low(self, size: int, what: str) -> int:
        """A boot-time reservation below 4 GiB, top-down as memblock does (SWIOTLB's pool)."""
        for z in self._zones_for(FOUR_GiB):
            addr = (z.avail_end - size) & ~(PAGE_SIZE - 1)
            if addr >= z.next:
                z.avail_end = addr
                self.reserved.append((addr, size, what))
                return addr
        raise OutOfMemory(f"memblock: no {size} bytes below 4 GiB for {what}")

    def free(self, addr: int, order: int = 0) -> None:
        for z in self.zones:
            if z.start <= addr < z.end:
                z.free.setdefault(order, []).append(addr)
                self.allocated_pages -= 1 << order
                return
        raise ValueError(f"free of {addr:#x}: not RAM")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Slab:
    """A size-class cache for RX data buffers (kmalloc / page_frag stand-in).

    Objects are carved from order-3 slabs taken from the page allocator, and
    reused last-in first-out, as SLUB's per-CPU freelist would. What matters for
    the lessons is where the objects sit (their zone), not the slab internals.
    """

    SLAB_ORDER = 3

    def __init__(self, mem: PhysMem, size: int) -> None:
        obj = 64
        while obj < size:
            obj <<= 1
        self.obj_size = obj
        self.mem = mem
        self.freelist: list[int] = []
        self.in_use = 0

    def alloc(self) -> int:
        if not self.freelist:
            base = self.mem.alloc(self.SLAB_ORDER)
            per = (PAGE_SIZE << self.SLAB_ORDER) // self.obj_size or 1
            # push in reverse so the first object handed out is the lowest in the slab
            self.freelist.extend(base + i * self.obj_size for i in reversed(range(per)))
        self.in_use += 1
        return self.freelist.pop()

    def free(self, addr: int) -> None:
        self.in_use -= 1
        self.freelist.append(addr)
