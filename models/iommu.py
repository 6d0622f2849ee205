"""An IOMMU behind the DMA API (drivers/iommu/dma-iommu.c).

Each map allocates an IOVA (below 4 GiB first, as `iommu_dma_alloc_iova`
does for PCI devices) and writes the page table; each unmap clears it. What
happens next depends on the domain:

- strict (`IOMMU_DOMAIN_DMA`): `iommu_iotlb_sync()` on every unmap, and the
  CPU waits for the invalidation; untrusted devices are always strict;
- lazy (`IOMMU_DOMAIN_DMA_FQ`): the IOVA goes into a per-CPU flush queue of
  256 entries (IOVA_DEFAULT_FQ_SIZE); a full queue, or its 10 ms timer
  (IOVA_DEFAULT_FQ_TIMEOUT), flushes the whole IOTLB once and frees them.

Simplification: IOVAs are handed out by a bump pointer with per-size reuse
(the kernel's rcache magazines), one flush queue (one CPU).
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

IOVA_GRANULE: Final = 4096
FQ_SIZE: Final = 256
FQ_TIMEOUT_NS: Final = 10_000_000
IOVA_32BIT_TOP: Final = 1 << 32


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Iommu:
    __slots__ = ("strict", "next_iova", "free", "fq", "mapped_pages", "fq_deadline")

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.next_iova = IOVA_32BIT_TOP       # grows down from 4 GiB
        self.free: dict[int, list[int]] = {}  # pages -> reusable IOVAs (rcache)
        self.fq: list[tuple[int, int]] = []   # (iova, pages) waiting for a flush
        self.mapped_pages = 0
        self.fq_deadline = -1

    @staticmethod
    def pages_for(phys: int, size: int) -> int:
        off = phys & (IOVA_GRANULE - 1)
        return (off + size + IOVA_GRANULE - 1) // IOVA_GRANULE

    def alloc_iova(self, pages: int) -> int:
        stack = self.free.get(pages)
        if stack:
            return stack.pop()
        self.next_iova -= pages * IOVA_GRANULE
        return self.next_iova

    def map(self, phys: int, size: int) -> tuple[int, int]:
        """Returns (dma address, pages)."""
        pages = self.pages_for(phys, size)
        iova = self.alloc_iova(pages)
        self.mapped_pages += pages
        return iova + (phys & (IOVA_GRANULE - 1)), pages

    def unmap(self, dma: int, pages: int) -> bool:
        """Clear the PTEs. Returns True when the caller must flush the whole queue now."""
        iova = dma & ~(IOVA_GRANULE - 1)
        self.mapped_pages -= pages
        if self.strict:
            self.free.setdefault(pages, []).append(iova)
            return False
        self.fq.append((iova, pages))
        return len(self.fq) >= FQ_SIZE - 1       # fq_full(): the ring keeps one slot free

    def flush_queue(self) -> int:
        """One IOTLB flush for everything queued; the IOVAs become reusable."""
        n = len(self.fq)
        for iova, pages in self.fq:
            self.free.setdefault(pages, []).append(iova)
        self.fq.clear()
        return n
