"""PageFlip: whole pages mapped with dma_map_page(), one slice per descriptor (atlantic before page_pool).

A page whose slice is still held by the stack (page_ref_count > 1) moves to
its next slice ("flip"), a page the stack has let go is reused at offset 0,
and a page with no slice left is unmapped and freed (aq_get_rxpages()).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

from .dma import FROM_DEVICE, MAP_PAGE, UNMAP_PAGE
from .lifecycle import move
from .rx_buffer import FLIP_PAGE, Buf, FlipPage, Received
from .rx_strategy import (
    ALLOC_PAGES,
    E_ALLOC_PAGES,
    E_MAP_PAGE,
    E_PAGE_REF_INC,
    E_POST,
    E_PUT_PAGE,
    E_RING_DEINIT,
    E_SYNC_CPU,
    E_UNMAP_PAGE,
    PAGE_REF_INC,
    PUT_PAGE,
    RxParts,
    Strategy,
)

if TYPE_CHECKING:  # pragma: no cover

    from .ring import Ring
    from .scenario import Scenario


def _flip(buf: Buf) -> FlipPage:
    """The page a page-flip slice is cut from."""
    pg = buf.page
    assert isinstance(pg, FlipPage)
    return pg


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PageFlip(Strategy):
    """aq_get_rxpages(): whole pages, one 2 KiB slice (AQ_CFG_RX_FRAME_MAX) per descriptor."""
    name = "page-flip"
    SLICE = 2048

    def __init__(self, sc: Scenario, parts: RxParts, ring: Ring) -> None:
        super().__init__(sc, parts, ring)
        self.order = sc.page_order
        self.page_bytes = 4096 << self.order
        self.stats = {"pg_flips": 0, "pg_reuses": 0, "pg_losts": 0}

    def _new_page(self) -> FlipPage | None:
        rec = self.rec
        phys = self.mem.alloc(self.order)
        pg = FlipPage(self._new_id(), phys, self.order)
        rec.call(ALLOC_PAGES, self.cost.alloc_pages, "page#%s|order %s at %#x", pg.id, self.order, phys)
        move(rec, FLIP_PAGE, pg, E_ALLOC_PAGES)
        m = self.dma.map(phys, self.page_bytes, FROM_DEVICE, MAP_PAGE)
        if m is None:
            self.mem.free(phys, self.order)
            return None
        pg.map = m
        move(rec, FLIP_PAGE, pg, E_MAP_PAGE)
        return pg

    def _slice(self, pg: FlipPage) -> Buf:
        self._ids += 1
        return Buf(self._ids, pg.phys + pg.off, self.SLICE, None, 0, "slice", pg, pg.off, pg.map)

    def fill(self, i: int) -> bool:
        pg = self._new_page()
        if pg is None:
            return False
        # aq_get_rxpage() starts every page at pg_off 0, at ifup as at a refill: every
        # descriptor then flips and unmaps on the same lap as the others, as the driver's do.
        move(self.rec, FLIP_PAGE, pg, E_POST)
        self.ring.post(i, self._slice(pg))
        return True

    def receive(self, descs: list[int]) -> Received:
        bufs = []
        for i in descs:
            buf = self.ring.bufs[i]
            assert buf is not None
            pg = _flip(buf)
            assert pg.map is not None
            if "no-sync-for-cpu" in self.faults:
                self.signals.fault_hit("no-sync-for-cpu")
                self.dma.cpu_read(pg.map, "the frame in page#%s", pg.id)
            else:
                self.dma.sync_for_cpu(pg.map, buf.offset, self.ring.lens[i], self._sync_dir(FROM_DEVICE))
                self._wrong_sync()
            move(self.rec, FLIP_PAGE, pg, E_SYNC_CPU)
            pg.refs += 1                       # the skb's reference to its slice
            self.rec.call(PAGE_REF_INC, 0, "page#%s|page_ref_count %s", pg.id, pg.refs)
            move(self.rec, FLIP_PAGE, pg, E_PAGE_REF_INC)
            self._refill(i, pg)
            bufs.append(buf)
        if self.napi_alloc:
            return self.header_skb(bufs, self.ring.lens[descs[0]]), False
        return (bufs[0], bufs[1:]), False

    def _refill(self, i: int, pg: FlipPage) -> None:
        if pg.refs > 1:
            pg.off += self.SLICE
            if pg.off + self.SLICE <= self.page_bytes:
                self.stats["pg_flips"] += 1
                move(self.rec, FLIP_PAGE, pg, E_POST)
                self.ring.post(i, self._slice(pg))
                return
            self.stats["pg_losts"] += 1
            self._drop_ring_ref(pg)
            self.fill(i)
            return
        self.stats["pg_reuses"] += 1
        pg.off = 0
        move(self.rec, FLIP_PAGE, pg, E_POST)
        self.ring.post(i, self._slice(pg))

    def _drop_ring_ref(self, pg: FlipPage) -> None:
        assert pg.map is not None
        self.dma.unmap(pg.map, self.page_bytes, FROM_DEVICE, UNMAP_PAGE)
        if "double-unmap" in self.faults:
            self.signals.fault_hit("double-unmap")
            self.dma.unmap(pg.map, self.page_bytes, FROM_DEVICE, UNMAP_PAGE)
        if pg.state != "unmapped":
            move(self.rec, FLIP_PAGE, pg, E_UNMAP_PAGE)
        self._put(pg)

    def _put(self, pg: FlipPage) -> None:
        pg.refs -= 1
        self.rec.call(PUT_PAGE, self.cost.put_page if pg.refs == 0 else self.cost.pp_fast,
                      "page#%s|page_ref_count %s", pg.id, pg.refs)
        if pg.refs == 0:
            move(self.rec, FLIP_PAGE, pg, E_PUT_PAGE)
            self.mem.free(pg.phys, self.order)

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        self._put(_flip(buf))

    def deinit(self, i: int) -> None:
        buf = self.ring.bufs[i]
        assert buf is not None
        pg = _flip(buf)
        assert pg.map is not None
        move(self.rec, FLIP_PAGE, pg, E_RING_DEINIT)
        self.dma.unmap(pg.map, self.page_bytes, FROM_DEVICE, UNMAP_PAGE)
        self._put(pg)
        self.ring.bufs[i] = None

