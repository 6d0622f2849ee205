"""The records of the physical memory view: zones, the streaming mask, SWIOTLB, the IOMMU, live mappings.

`MemoryRecord` is what the map draws against (the zones and the top of RAM,
the mask's limit), what sits in it (every live DMA mapping, the SWIOTLB pool,
the ring) and what the last bounce copied. A SWIOTLB slot's address is
arithmetic on the pool's base (`SwiotlbRecord.addr`), as in swiotlb.c.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from ..iommu import FQ_SIZE
from ..memory import FOUR_GiB, GiB, MiB
from ..swiotlb import IO_TLB_SHIFT

# What the memory map draws against, re-exported for the views (models.read): the 4 GiB line
# (ZONE_DMA32's top), the sizes its labels use, and the IOMMU flush queue's capacity.
__all__ = ["FOUR_GiB", "FQ_SIZE", "GiB", "MiB", "Bounce", "IommuRecord", "Mapped", "MemoryRecord", "SwiotlbRecord",
           "Zone", "memory_record"]


@dataclass(frozen=True, slots=True)
class Zone:
    name: str
    start: int
    end: int


class Mapped(NamedTuple):
    """One live streaming DMA mapping."""
    id: int
    phys: int
    size: int
    slot: int           # first SWIOTLB slot when bounced, else -1
    pages: int          # IOMMU pages of its IOVA range (0: not translated)


@dataclass(frozen=True, slots=True)
class Bounce:
    """One swiotlb_bounce() copy: the driver's buffer, the slot, how many bytes, which way."""
    phys: int
    slot_addr: int
    nbytes: int
    back: bool          # slot -> buffer (sync for the CPU, unmap); else buffer -> slot


@dataclass(frozen=True, slots=True)
class SwiotlbRecord:
    base: int
    nslabs: int
    used_slots: int
    hiwater: int
    size: int
    last: Bounce | None     # the latest bounce copy

    def addr(self, slot: int) -> int:
        """Where slot `slot` sits (swiotlb.c: mem->start + (index << IO_TLB_SHIFT))."""
        return self.base + (slot << IO_TLB_SHIFT)


@dataclass(frozen=True, slots=True)
class IommuRecord:
    strict: bool
    mapped_pages: int
    flush_queue: int        # IOVA ranges waiting in the flush queue


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    ram: int
    coherent_mask: int
    mask_bits: int          # the streaming mask's width
    max_addr: int           # the top of RAM
    zones: tuple[Zone, ...]
    ring_phys: int          # where the descriptor ring sits (-1: no ring)
    # Where the live streaming mappings' data sits, by how the device reaches it, sorted (ath11k
    # holds thousands: addresses only, so a record built at every step stays cheap).
    bounced: tuple[int, ...]        # through a SWIOTLB slot
    translated: tuple[int, ...]     # through an IOMMU
    direct: tuple[int, ...]         # at its own address
    latest_bounced: Mapped | None   # the newest mapping through SWIOTLB
    swiotlb: SwiotlbRecord | None
    iommu: IommuRecord | None
    bounces: int            # swiotlb_bounce calls so far
    bounce_bytes: int       # bytes they copied


def memory_record(sim: Any) -> MemoryRecord:
    sw = sim.swiotlb
    swiotlb = None
    if sw is not None:
        b = sw.last
        swiotlb = SwiotlbRecord(sw.base, sw.nslabs, sw.used_slots, sw.hiwater, sw.size,
                                None if b is None else Bounce(b.phys, b.slot_addr, b.nbytes, b.back))
    io = sim.iommu
    iommu = None if io is None else IommuRecord(io.strict, io.mapped_pages, len(io.fq))
    bounced: list[int] = []
    translated: list[int] = []
    direct: list[int] = []
    latest = None
    for m in sim.dma.live.values():
        if m.slot >= 0:
            bounced.append(m.phys)
            if latest is None or m.id > latest.id:
                latest = m
        elif m.pages:
            translated.append(m.phys)
        else:
            direct.append(m.phys)
    newest = None if latest is None else Mapped(latest.id, latest.phys, latest.size, latest.slot, latest.pages)
    mem = sim.mem
    return MemoryRecord(sim.params["ram"], sim.params["coherent_mask"], sim.dma.mask.bit_length(), mem.max_addr,
                        tuple(Zone(z.name, z.start, z.end) for z in mem.zones), sim.ring_phys,
                        tuple(sorted(bounced)), tuple(sorted(translated)), tuple(sorted(direct)), newest,
                        swiotlb, iommu, sim.rec.counts.get("swiotlb_bounce", 0), sim.rec.bounce_bytes)
