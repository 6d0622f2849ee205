"""The records of the RX ring view: the descriptor ring of a PCIe NIC, or the queues of an SDIO/USB one.

A `RingRecord` is the ring's heads and every descriptor's state (one short word
each, so a 4096-entry ring costs one tuple); a `Descriptor` is what one
descriptor holds (its buffer, where the data sits, how it is mapped), built
only for the few a view describes. On SDIO and USB there is no ring:
`Queues` counts the frames in the firmware's queue and in the host's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RingRecord:
    size: int
    head: int                   # dev_idx: the next descriptor the device writes
    tail: int                   # clean_idx: the next descriptor the driver cleans
    device_owned: int
    dropped: int                # frames the device found no descriptor for
    states: tuple[str, ...]     # per descriptor: "device", "filled", "cpu" or "empty"
    to_clean: int               # descriptors written by the device that the driver has not cleaned yet

    @property
    def full(self) -> bool:
        """Every descriptor written and none cleaned yet: the device has none left (it drops)."""
        return self.to_clean == self.size

    @property
    def empty(self) -> bool:
        """Nothing written that the driver has not cleaned."""
        return self.to_clean == 0


@dataclass(frozen=True, slots=True)
class Descriptor:
    """What one descriptor holds now."""
    index: int
    state: str
    buf: int | None             # the RX buffer posted on it (Buf.id), None: no buffer
    page: int | None            # the page that buffer is a part of (page_pool or page flip), None: none
    offset: int                 # the buffer's offset in its page
    page_refs: int              # page_ref_count of a page-flip page (0: not a flip page)
    phys: int                   # physical address of the data
    zone: str                   # the memory zone it sits in
    mapped: bool                # it has a DMA mapping
    dma: int                    # the address the device writes (the mapping's, plus the offset)
    slot: int                   # first SWIOTLB slot when bounced, else -1
    iommu_pages: int            # IOMMU pages of its IOVA range (0: not translated)


@dataclass(frozen=True, slots=True)
class Queues:
    """An SDIO or USB device: no descriptor ring, the firmware's queue and the host's."""
    bus: str
    bundle: int                 # frames a bundle carries at most
    firmware: int               # frames in the firmware's queue (fw_q)
    rx_ind: int                 # read, waiting for NAPI (rx_ind)
    proc_rx: int                # read, waiting for the RX work (proc_rx)
    napi_polled: bool
    frames: int
    processed: int
    dropped: int
    reading: bool               # the bus is reading a bundle now


def to_clean(ring: Any) -> int:
    """The descriptors the device has written and the driver not cleaned: from the tail to the head.

    The device writes in ring order from `dev_idx` and the driver cleans in ring order from
    `clean_idx` (its next_to_clean). When the two indices meet, that is none of the ring or all
    of it; a kernel driver tells which as it does every time, by the descriptor at
    next_to_clean: its DD (descriptor done) bit set, here `done`, means the device has gone
    all the way round and the ring is full.
    """
    size: int = ring.size
    n: int = (ring.dev_idx - ring.clean_idx) % size
    return size if n == 0 and ring.done[ring.clean_idx] else n


def ring_record(sim: Any) -> RingRecord:
    ring = sim.ring
    state = ring.state
    return RingRecord(ring.size, ring.dev_idx, ring.clean_idx, ring.device_owned, sim.dropped,
                      tuple(state(i) for i in range(ring.size)), to_clean(ring))


def descriptor(sim: Any, i: int) -> Descriptor:
    ring = sim.ring
    name = ring.state(i)
    buf = ring.buf(i)
    if buf is None:
        return Descriptor(i, name, None, None, 0, 0, -1, "", False, 0, -1, 0)
    page = buf.page
    m = buf.map
    return Descriptor(i, name, buf.id, page.id if page is not None else None, buf.offset,
                      getattr(page, "refs", 0) if page is not None else 0, buf.phys, sim.mem.zone_of(buf.phys),
                      m is not None, m.dma + buf.offset if m is not None else 0,
                      m.slot if m is not None else -1, m.pages if m is not None else 0)


def queues(sim: Any) -> Queues:
    return Queues(sim.bus, sim.params["bundle"], len(sim.fw_q), len(sim.rx_ind), len(sim.proc_rx),
                  sim.napi_polled, sim.frames, sim.processed, sim.dropped, sim.sdio_reading)
