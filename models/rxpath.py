"""Driver RX strategies: what the driver does with each received descriptor.

- PerFrame: a buffer allocated and dma_map_single()d for every frame; the
  replacement is allocated and mapped first, then the filled one is unmapped
  (ath9k, bgmac, ath11k before their patches). Where the buffer comes from is
  `rx_alloc`, and it decides how the frame becomes an skb:
    frag     netdev_alloc_frag() (a page fragment), wrapped with build_skb()
             or napi_build_skb() when the frame arrives (bgmac);
    skb      __netdev_alloc_skb(): the sk_buff exists from the refill, the
             frame only needs its length set (ath9k, ath11k);
    kmalloc  kmalloc(), wrapped with slab_build_skb() (head_frag = 0, so GRO
             cannot steal the head).
- PageFlip: whole pages mapped with dma_map_page(); a page whose slice is
  still held by the stack (page_ref_count > 1) moves to its next slice
  ("flip"), a page the stack has let go is reused at offset 0, and a page
  with no slice left is unmapped and freed (atlantic before page_pool).
- PagePoolFrag: fragments from a page_pool; the pool maps pages once; the
  driver syncs each fragment for the CPU before reading it and for the device
  when it posts it.

The page strategies build the skb either around the buffer (`rx_build:
build_skb`) or as atlantic's aq_ring_rx_clean() does, with
napi_alloc_skb() of a small header, the headers copied into it and the page
slice attached as a frag (`rx_build: napi_alloc_skb`). A frame longer than
one descriptor's buffer (a jumbo frame) spans several descriptors; the
driver attaches the later ones as frags of the first (skb_add_rx_frag).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from .calls import CALL_ID as C
from .dma import BIDIRECTIONAL, FROM_DEVICE, MAP_PAGE, MAP_SINGLE, TO_DEVICE, UNMAP_PAGE, UNMAP_SINGLE
from .lifecycle import EDGE_ID as E
from .lifecycle import MACHINE, Machine, Stateful, move
from .memory import Slab
from .page_pool import PagePool
from .scenario import Costs

if TYPE_CHECKING:  # pragma: no cover
    import random

    from .dma import DmaApi, Mapping
    from .host_signals import HostSignals
    from .memory import PhysMem
    from .page_pool import Page
    from .ring import Ring
    from .scenario import Scenario
    from .skb import Head, SkbHeads
    from .trace import Recorder

RX_BUFFER, PP_FRAG, FLIP_PAGE = MACHINE["rx_buffer"], MACHINE["pp_frag"], MACHINE["flip_page"]
E_POST, E_MAP_SINGLE, E_SYNC_CPU, E_UNMAP_SINGLE = E["post"], E["dma_map_single"], E["dma_sync_single_for_cpu"], E[
    "dma_unmap_single"]
E_RING_DEINIT, E_ALLOC_PAGES, E_MAP_PAGE, E_UNMAP_PAGE = E["ring_deinit"], E["alloc_pages"], E["dma_map_page"], E[
    "dma_unmap_page"]
E_PAGE_REF_INC, E_PUT_PAGE, E_RX_FRAME = E["page_ref_inc"], E["put_page"], E["rx_frame"]
E_RX_DROPPED = E["rx_dropped"]
NAPI_ALLOC_SKB, RX_DROPPED, ALLOC_PAGES, PAGE_REF_INC, PUT_PAGE = (C["napi_alloc_skb"], C["rx_dropped"],
                                                                  C["alloc_pages"], C["page_ref_inc"], C["put_page"])
RX_FREE, FRAG_CARVED, FRAG_CPU_SYNCED = RX_BUFFER.sid["free"], PP_FRAG.sid["carved"], PP_FRAG.sid["cpu-synced"]

AQ_CFG_RX_HDR_SIZE = 256      # atlantic: napi_alloc_skb() size for the copied headers
SHINFO = 320                  # SKB_DATA_ALIGN(sizeof(struct skb_shared_info)), as on 64-bit
HEADERS = 14 + 52             # Ethernet + IPv4 + TCP with timestamps: what eth_get_headlen() finds


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Buf(Stateful):
    """An RX data area: on a descriptor, then the linear data or one frag of an skb.

    kind says where it came from and so how it is freed and whether GRO may steal
    it as a frag (every kind but kmalloc is a page fragment: skb->head_frag).
    """
    __slots__ = ("id", "phys", "size", "map", "m", "page", "offset", "kind", "head")

    def __init__(self, id: int, phys: int, size: int, m: Machine | None, st: int, kind: str) -> None:
        self.id = id
        self.phys = phys
        self.size = size
        self.map: Mapping | None = None
        self.m = m                  # its lifecycle machine, or None (a slice of a flip page, a header)
        self.st = st                # its state in m (m.sid), 0 when it has no machine
        self.page: FlipPage | Page | None = None
        self.offset = 0
        self.kind = kind
        self.head: Head | None = None            # rx_alloc=skb: the sk_buff allocated with the buffer

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.id, self.phys, self.size, self.map, self.st, self.m, self.page, self.offset, self.kind, self.head)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.id, self.phys, self.size, self.map, self.st, self.m, self.page, self.offset, self.kind, self.head = state

    @property
    def state(self) -> str:
        return self.m.states[self.st] if self.m is not None else ""

    @property
    def machine(self) -> str:
        return self.m.name if self.m is not None else ""

    def tag(self) -> str:
        return f"buf#{self.id}"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class RxBuffers:
    """The base of every RX strategy (and of SDIO's per-message skbs): where the driver's RX data
    areas come from; the stack gives each back here when it is done."""

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        """A data area the stack is done with goes back where it came from."""
        raise NotImplementedError


Received = tuple[tuple[Buf, list[Buf]] | None, bool]


def _flip(buf: Buf) -> FlipPage:
    """The page a page-flip slice is cut from."""
    pg = buf.page
    assert isinstance(pg, FlipPage)
    return pg


def _pp(buf: Buf) -> Page:
    """The page_pool page a fragment is carved from."""
    pg = buf.page
    assert pg is not None and not isinstance(pg, FlipPage)
    return pg


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Strategy(RxBuffers):
    """One RX strategy on one ring: built from the scenario and the parts it works with."""
    name = ""

    def __init__(self, sc: Scenario, parts: RxParts, ring: Ring) -> None:
        self.signals = parts.signals
        self.ring = ring            # the descriptor ring it posts buffers on
        self.rec = parts.rec
        self.cost: Costs = parts.costs
        self.dma = parts.dma
        self.mem = parts.mem
        self.heads = parts.heads
        self.rng = parts.rng
        self.filling = False        # ifup is posting the first buffers (fill_ring)
        self.dir = BIDIRECTIONAL if sc.dma_dir == "bidirectional" else FROM_DEVICE
        self.size = sc.rx_buf_size
        self.faults = parts.faults
        self.napi_alloc = sc.rx_build == "napi_alloc_skb"
        self.hdr_cost = self.cost.kmalloc + Costs.copy(HEADERS, self.cost.memcpy_gbs)
        self._ids = 0

    def fill_ring(self) -> None:
        """ifup: a buffer on every descriptor (or as many as can be allocated and mapped)."""
        self.filling = True
        for i in range(self.ring.size):
            if not self.fill(i):
                break
        self.filling = False

    def _new_id(self) -> int:
        self._ids += 1
        return self._ids

    def _sync_dir(self, right: str) -> str:
        return TO_DEVICE if "wrong-direction" in self.faults else right

    def _wrong_sync(self) -> None:
        """A sync made with the wrong direction (the wrong-direction fault of the page strategies)."""
        if "wrong-direction" in self.faults:
            self.signals.fault_hit("wrong-direction")

    def _post(self, i: int, buf: Buf) -> None:
        move(self.rec, RX_BUFFER, buf, E_POST)
        self.ring.post(i, buf)

    def header_skb(self, bufs: list[Buf], length: int) -> tuple[Buf, list[Buf]]:
        """aq_ring_rx_clean(): napi_alloc_skb() for the headers, copy them, attach the buffers as frags."""
        rec = self.rec
        self._ids += 1
        hdr = Buf(self._ids, -1, AQ_CFG_RX_HDR_SIZE, None, 0, "hdr")
        hdr.head = self.heads.alloc_napi(via="napi_alloc_skb")
        rec.cnt[NAPI_ALLOC_SKB] += 1
        rec.extra[NAPI_ALLOC_SKB] += self.hdr_cost
        rec.t += self.hdr_cost
        if rec.tracing:
            rec.emit(NAPI_ALLOC_SKB, self.hdr_cost, "head#%s|%s-byte header copied, %s frag(s) attached",
                     (hdr.head.id, HEADERS, len(bufs)))
        return hdr, bufs

    def fill(self, i: int) -> bool:
        """Post a fresh buffer on descriptor i; False when none can be allocated or mapped."""
        raise NotImplementedError

    def receive(self, descs: list[int]) -> Received:
        """The driver takes a frame's descriptors (indices): ((data, frags), xdp_tx), or (None, False) if dropped."""
        raise NotImplementedError

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        """A data area the stack is done with goes back where it came from."""
        raise NotImplementedError

    def deinit(self, i: int) -> None:
        """ifdown: the buffer still on descriptor i goes back."""
        raise NotImplementedError


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PerFrame(Strategy):
    name = "per-frame"
    ALLOC = {"frag": "netdev_alloc_frag", "skb": "__netdev_alloc_skb", "kmalloc": "kmalloc"}
    FREE = {"frag": "skb_free_frag", "skb": "skb_free_frag", "kmalloc": "kfree"}

    def __init__(self, sc: Scenario, parts: RxParts, ring: Ring) -> None:
        super().__init__(sc, parts, ring)
        self.kind = sc.rx_alloc
        self.alloc_call, self.free_call = C[self.ALLOC[self.kind]], C[self.FREE[self.kind]]
        self.alloc_edge, self.free_edge = E[self.ALLOC[self.kind]], E[self.FREE[self.kind]]
        # The fault: map half of what the descriptor tells the device it may write.
        self.short_map = "dma-beyond-mapping" in self.faults
        self.map_size = self.size // 2 if self.short_map else self.size
        # netdev_alloc_frag() and __netdev_alloc_skb() take NET_SKB_PAD of headroom in front of the
        # data and room for skb_shared_info behind it; the driver maps only the data area between
        # them (bgmac: buf + BGMAC_RX_BUF_OFFSET; skb->data after skb_reserve(NET_SKB_PAD)).
        self.headroom = max(32, sc.cost.cacheline) if self.kind != "kmalloc" else 0     # NET_SKB_PAD
        align = sc.cost.cacheline
        alloc = (self.headroom + self.size + align - 1) // align * align + SHINFO if self.headroom else self.size
        self.slab = Slab(parts.mem, alloc)
        self.status_in_buffer = self.dir == BIDIRECTIONAL
        self.no_sync = "no-sync-for-cpu" in self.faults
        self.missing_unmap = "missing-unmap" in self.faults
        self.double_unmap = "double-unmap" in self.faults
        self.wrong_dir = "wrong-direction" in self.faults
        self.unmap_dir = TO_DEVICE if self.wrong_dir else self.dir
        self.ring_post = ring.post

    def _alloc_mapped(self) -> Buf | None:
        rec = self.rec
        phys = self.slab.alloc()
        self._ids += 1
        buf = Buf(self._ids, phys, self.size, RX_BUFFER, RX_FREE, self.kind)
        if self.kind == "skb":
            buf.head = self.heads.alloc_slab()    # the sk_buff comes with the buffer
        cid = self.alloc_call
        rec.cnt[cid] += 1
        rec.t += rec.unit[cid]
        if rec.tracing:
            rec.emit(cid, rec.unit[cid], "buf#%s|%s bytes at %#x", (buf.id, self.size, phys))
        move(rec, RX_BUFFER, buf, self.alloc_edge)
        m = self.dma.map(phys + self.headroom, self.map_size, self.dir, MAP_SINGLE)
        if m is None:
            self._free_data(buf)
            return None
        if self.short_map:
            self.signals.fault_hit("dma-beyond-mapping")
        buf.map = m
        move(rec, RX_BUFFER, buf, E_MAP_SINGLE)
        return buf

    def fill(self, i: int) -> bool:
        buf = self._alloc_mapped()
        if buf is None:
            return False
        self._post(i, buf)
        return True

    def receive(self, descs: list[int]) -> Received:
        i = descs[0]
        dma, rec = self.dma, self.rec
        old = self.ring.bufs[i]
        assert old is not None and old.map is not None      # a posted per-frame buffer is mapped
        om = old.map
        if self.no_sync:
            self.signals.fault_hit("no-sync-for-cpu")
            dma.cpu_read(om, f"the RX status in buf#{old.id}")
        elif self.status_in_buffer:
            # EDMA chips write the RX status into the buffer head: sync the whole buffer, then read it.
            dma.sync_for_cpu(om, 0, self.size)
            move(rec, RX_BUFFER, old, E_SYNC_CPU)
        new = self._alloc_mapped()
        if new is None:
            # No replacement: drop the frame and give the old buffer back to the device.
            if old.state == "cpu-synced":
                dma.sync_for_device(om, 0, self.size)
            rec.call(RX_DROPPED, 0, "buf#%s|no replacement buffer: the frame is dropped", old.id)
            move(rec, RX_BUFFER, old, E_RX_DROPPED)
            self.ring.post(i, old)
            return None, False
        if self.missing_unmap:
            # The bug: the data is synced for the CPU and used, the mapping is never given back.
            self.signals.fault_hit("missing-unmap")
            if old.state != "cpu-synced":
                dma.sync_for_cpu(om, 0, self.ring.lens[i], self.dir)
                move(rec, RX_BUFFER, old, E_SYNC_CPU)
            om.cpu_owned = True
            self._post(i, new)
            return (old, []), False
        dma.unmap(om, self.map_size, self.unmap_dir, UNMAP_SINGLE)
        if self.wrong_dir:
            self.signals.fault_hit("wrong-direction")
        if self.double_unmap:
            self.signals.fault_hit("double-unmap")
            dma.unmap(om, self.map_size, self.unmap_dir, UNMAP_SINGLE)
        move(rec, RX_BUFFER, old, E_UNMAP_SINGLE)
        # the CPU reads the frame now: an unmapped buffer is the CPU's (no check to make)
        move(rec, RX_BUFFER, new, E_POST)
        self.ring_post(i, new)
        return (old, []), False

    def _free_data(self, buf: Buf) -> None:
        """A buffer that never became an skb goes back (a failed map, ifdown)."""
        self.rec.call(self.free_call, -1, "buf#%s", buf.id)
        move(self.rec, RX_BUFFER, buf, self.free_edge)
        self.slab.free(buf.phys)
        if buf.head is not None and buf.state != "in-skb":
            self.heads.free(buf.head, in_napi=False)
            buf.head = None

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        rec = self.rec
        cid = self.free_call
        rec.cnt[cid] += 1
        rec.t += rec.unit[cid]
        if rec.tracing:
            rec.emit(cid, rec.unit[cid], "buf#%s", (buf.id,))
        self.slab.free(buf.phys)

    def deinit(self, i: int) -> None:
        buf = self.ring.bufs[i]
        assert buf is not None and buf.map is not None
        self.dma.unmap(buf.map, self.map_size, self.dir, UNMAP_SINGLE)
        move(self.rec, RX_BUFFER, buf, E_RING_DEINIT)
        self._free_data(buf)
        self.ring.bufs[i] = None


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class FlipPage(Stateful):
    __slots__ = ("id", "phys", "order", "map", "refs", "off")
    m = FLIP_PAGE

    def __init__(self, id: int, phys: int, order: int) -> None:
        self.id = id
        self.phys = phys
        self.order = order
        self.map: Mapping | None = None
        self.refs = 1
        self.st = 0            # "buddy"
        self.off = 0

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.id, self.phys, self.order, self.map, self.refs, self.st, self.off)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.id, self.phys, self.order, self.map, self.refs, self.st, self.off = state

    @property
    def state(self) -> str:
        return FLIP_PAGE.states[self.st]

    @property
    def machine(self) -> str:
        return "flip_page"

    def tag(self) -> str:
        return f"page#{self.id}"


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
        buf = Buf(self._ids, pg.phys + pg.off, self.SLICE, None, 0, "slice")
        buf.page = pg
        buf.offset = pg.off
        buf.map = pg.map
        return buf

    def fill(self, i: int) -> bool:
        pg = self._new_page()
        if pg is None:
            return False
        if self.filling and self.page_bytes > self.SLICE:
            # The ring has been running a while: its pages are at different slices, not all
            # at offset 0 (which would make every descriptor flip and unmap in lockstep).
            pg.off = self.rng.randrange(self.page_bytes // self.SLICE) * self.SLICE
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
                self.dma.cpu_read(pg.map, f"the frame in page#{pg.id}")
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


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PagePoolFrag(Strategy):
    name = "page-pool"

    def __init__(self, sc: Scenario, parts: RxParts, ring: Ring) -> None:
        super().__init__(sc, parts, ring)
        # page_pool_alloc_frag rounds to dma_get_cache_alignment(): the cache line on a
        # non-coherent CPU, 1 on x86.
        align = 1 if sc.cost.coherent else sc.cost.cacheline
        frag = sc.frag_size or self.size
        self.frag = (frag + align - 1) // align * align
        pp_dir = BIDIRECTIONAL if (self.dir == BIDIRECTIONAL or sc.xdp == "tx") else FROM_DEVICE
        self.status_in_buffer = self.dir == BIDIRECTIONAL     # the driver asked for it (ath9k EDMA)
        self.dir = pp_dir
        self.xdp_tx = sc.xdp == "tx"
        self.pool = PagePool(parts.rec, parts.costs, parts.dma, parts.mem, sc.page_order, sc.pool_size, pp_dir,
                             self.size, sync_dev=False, napi=sc.napi_polled)
        self.sync_cpu = "no-sync-for-cpu" not in self.faults
        self.sync_dir = self._sync_dir(self.dir)
        self.wrong_dir = "wrong-direction" in self.faults
        self.double_unmap = "double-unmap" in self.faults

    def fill(self, i: int) -> bool:
        got = self.pool.alloc_frag(self.frag)
        if got is None:
            return False
        page, off = got
        self._ids += 1
        buf = Buf(self._ids, page.phys + off, self.frag, PP_FRAG, FRAG_CARVED, "pp")
        buf.page = page
        buf.offset = off
        assert page.map is not None          # the pool maps every page it holds
        buf.map = page.map
        self.dma.sync_for_device(page.map, off, self.size)
        move(self.rec, PP_FRAG, buf, E_POST)
        self.ring.post(i, buf)
        return True

    def receive(self, descs: list[int]) -> Received:
        bufs = []
        rec = self.rec
        for i in descs:
            buf = self.ring.bufs[i]
            assert buf is not None and buf.map is not None
            page = _pp(buf)
            if not self.sync_cpu:
                self.signals.fault_hit("no-sync-for-cpu")
            else:
                # EDMA-style status in the buffer head: the driver syncs the whole buffer to read it.
                self.dma.sync_for_cpu(buf.map, buf.offset, self.size if self.status_in_buffer else self.ring.lens[i],
                                      self.sync_dir)
                if self.wrong_dir:
                    self.signals.fault_hit("wrong-direction")
                move(rec, PP_FRAG, buf, E_SYNC_CPU)
            if buf.st != FRAG_CPU_SYNCED:       # the fragment stays `filled`: its machine has the bug's edges
                self.rec.violate("no-sync-for-cpu",
                                 f"CPU reads fragment buf#{buf.id} of page#{page.id} without "
                                 f"dma_sync_single_for_cpu: it may see stale cache lines or bounce data",
                                 f"buf#{buf.id}")
            if self.double_unmap and buf.map.live:
                # The classic bug: the driver unmaps a page the pool mapped (PP_FLAG_DMA_MAP);
                # the pool unmaps it again when the page leaves.
                self.signals.fault_hit("double-unmap")
                self.dma.unmap(buf.map, self.pool.page_bytes, self.pool.dma_dir, UNMAP_PAGE)
            self.fill(i)
            bufs.append(buf)
        xdp_tx = self.xdp_tx
        if self.napi_alloc and not xdp_tx:
            return self.header_skb(bufs, self.ring.lens[descs[0]]), False
        return (bufs[0], bufs[1:]), xdp_tx

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        self.pool.put_frag(_pp(buf), allow_direct)

    def deinit(self, i: int) -> None:
        buf = self.ring.bufs[i]
        assert buf is not None
        move(self.rec, PP_FRAG, buf, E_RING_DEINIT)
        self.pool.put_frag(_pp(buf), allow_direct=False)
        self.ring.bufs[i] = None


STRATEGIES = {"per-frame": PerFrame, "page-flip": PageFlip, "page-pool": PagePoolFrag}


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class RxParts:
    """What an RX strategy works with: the clock and counters, the DMA API, memory, skb heads, the host."""

    def __init__(self, rec: Recorder, costs: Costs, dma: DmaApi, mem: PhysMem, heads: SkbHeads,
                 signals: HostSignals, faults: frozenset[str], rng: random.Random) -> None:
        self.rec = rec
        self.costs = costs
        self.dma = dma
        self.mem = mem
        self.heads = heads
        self.signals = signals
        self.faults = faults
        self.rng = rng              # where a page-flip page starts when the ring is filled


def new_strategy(sc: Scenario, parts: RxParts, ring: Ring) -> Strategy:
    """The scenario's RX strategy for a PCIe ring."""
    return STRATEGIES[sc.strategy](sc, parts, ring)
