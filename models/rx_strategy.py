"""A driver's RX strategy: what the driver does with each received descriptor (the base class).

A strategy fills each descriptor with a buffer, takes a received frame's
descriptors off the ring (refilling them as it goes) and takes back what
the stack is done with. One module each:
- models/per_frame.py    PerFrame: a buffer allocated and mapped per frame;
- models/page_flip.py    PageFlip: whole pages, one slice per descriptor;
- models/page_pool_frag.py  PagePoolFrag: page_pool fragments.

The page strategies build the skb either around the buffer (`rx_build:
build_skb`) or as atlantic's aq_ring_rx_clean() does, with
napi_alloc_skb() of a small header, the headers copied into it and the page
slice attached as a frag (`rx_build: napi_alloc_skb`). A frame longer than
one descriptor's buffer (a jumbo frame) spans several descriptors; the
driver attaches the later ones as frags of the first (skb_add_rx_frag).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

from .calls import CALL_ID as C
from .dma import BIDIRECTIONAL, FROM_DEVICE, TO_DEVICE
from .lifecycle import EDGE_ID as E
from .lifecycle import move
from .rx_buffer import PP_FRAG, RX_BUFFER, Buf, Received, RxBuffers
from .scenario import Costs

if TYPE_CHECKING:  # pragma: no cover
    from .dma import DmaApi
    from .host_signals import HostSignals
    from .memory import PhysMem
    from .ring import Ring
    from .scenario import Scenario
    from .skb import SkbHeads
    from .trace import Recorder

E_POST: Final = E["post"]
E_MAP_SINGLE: Final = E["dma_map_single"]
E_SYNC_CPU: Final = E["dma_sync_single_for_cpu"]
E_UNMAP_SINGLE: Final = E["dma_unmap_single"]
E_RING_DEINIT: Final = E["ring_deinit"]
E_ALLOC_PAGES: Final = E["alloc_pages"]
E_MAP_PAGE: Final = E["dma_map_page"]
E_UNMAP_PAGE: Final = E["dma_unmap_page"]
E_PAGE_REF_INC: Final = E["page_ref_inc"]
E_PUT_PAGE: Final = E["put_page"]
E_RX_FRAME: Final = E["rx_frame"]
E_RX_DROPPED: Final = E["rx_dropped"]
NAPI_ALLOC_SKB: Final = C["napi_alloc_skb"]
RX_DROPPED: Final = C["rx_dropped"]
ALLOC_PAGES: Final = C["alloc_pages"]
PAGE_REF_INC: Final = C["page_ref_inc"]
PUT_PAGE: Final = C["put_page"]
RX_FREE: Final = RX_BUFFER.sid["free"]
FRAG_CARVED: Final = PP_FRAG.sid["carved"]
FRAG_CPU_SYNCED: Final = PP_FRAG.sid["cpu-synced"]

AQ_CFG_RX_HDR_SIZE: Final = 256      # atlantic: napi_alloc_skb() size for the copied headers
SHINFO: Final = 320                  # SKB_DATA_ALIGN(sizeof(struct skb_shared_info)), as on 64-bit
HEADERS: Final = 14 + 52            # Ethernet + IPv4 + TCP with timestamps: what eth_get_headlen() finds


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
        self.dir = BIDIRECTIONAL if sc.dma_dir == "bidirectional" else FROM_DEVICE
        self.size = sc.rx_buf_size
        self.faults = parts.faults
        self.napi_alloc = sc.rx_build == "napi_alloc_skb"
        self.hdr_cost = self.cost.kmalloc + Costs.copy(HEADERS, self.cost.memcpy_gbs)
        self._ids = 0

    def fill_ring(self) -> None:
        """ifup: a buffer on every descriptor (or as many as can be allocated and mapped)."""
        for i in range(self.ring.size):
            if not self.fill(i):
                break

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
        hdr.head = self.heads.alloc_napi("napi_alloc_skb")     # positional: a keyword call is not specialised
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
class RxParts:
    """What an RX strategy works with: the clock and counters, the DMA API, memory, skb heads, the host."""

    def __init__(self, rec: Recorder, costs: Costs, dma: DmaApi, mem: PhysMem, heads: SkbHeads,
                 signals: HostSignals, faults: frozenset[str]) -> None:
        self.rec = rec
        self.costs = costs
        self.dma = dma
        self.mem = mem
        self.heads = heads
        self.signals = signals
        self.faults = faults

