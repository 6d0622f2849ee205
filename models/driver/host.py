"""The driver's view of one simulated host: the per-CPU context the kernel's API functions run in.

The kernel's API keeps per-CPU state the caller never names: netdev_alloc_frag()
takes this CPU's page_frag cache, napi_build_skb() this CPU's NAPI skb cache.
The model's equivalent is the `Host` of the simulation a driver runs on;
the runtime (models/driver/runtime.py) makes it current before it calls any of
the driver's hooks. The API's functions ask `this_cpu()` for it (an attribute
read and a test, compiled); outside a hook it raises the DriverBug that says so.

Host, like the rings and the napi_struct of models/driver/napi.py, is a native
class of the compiled build (read at native speed by the API's fifteen calls a
frame), serializable for snapshots, and built by compiled code only
(napi.attach()): mypyc skips __init__ of a serializable class made by the
interpreter in some paths.

The Host also keeps what CONFIG_DMA_API_DEBUG keeps: every mapping by its
device address (dma_addr_t, the int itself: a rotated or packed key costs
more in big-int arithmetic than the dict's probes it saves), live or already unmapped, so that an unmap or a
sync given a bus address finds its entry the way kernel/dma/debug.c does
(check_unmap() needs the exact address, check_sync() takes the entry that
contains the synced range), and reports the kernel's words when it does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

from ..calls import CALL_ID as C
from ..lifecycle import EDGE_ID as E
from ..lifecycle import move as lifecycle_move
from ..memory import Slab
from ..rx_buffer import Buf
from ..rx_strategy import HEADERS
from ..scenario import Costs

if TYPE_CHECKING:  # pragma: no cover
    from ..dma import Mapping
    from ..page_pool import PagePool
    from ..ring import Ring
    from ..sim import Sim
    from ..trace import Recorder

DMA_MAPPING_ERROR: Final = (1 << 64) - 1      # include/linux/dma-mapping.h: (~(dma_addr_t)0)

KFREE: Final = C["kfree"]
SKB_FREE_FRAG: Final = C["skb_free_frag"]

TAKEN_MAX: Final = 4096                 # Host.taken is pruned past this length

NO_CPU: Final = "the driver API was called outside a driver hook (no CPU runs your driver now)"


@mypyc_attr(native_class=False)
class DriverBug(Exception):
    """A call the kernel would refuse outright (a BUG_ON or an oops), raised at the driver's line."""


def this_cpu() -> Host:
    """The host whose CPU runs the driver now (the kernel's per-CPU context)."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    return h


@mypyc_attr(serializable=True)
class Slabs:
    """The page_frag / kmalloc caches a driver allocated from, by size; in_use sums them (teardown audit)."""

    def __init__(self) -> None:
        self.by_size: dict[int, Slab] = {}

    @property
    def in_use(self) -> int:
        return sum(s.in_use for s in self.by_size.values())


@mypyc_attr(serializable=True)
class Host:
    """One simulation as the driver API sees it: memory, DMA API, skb heads, the stack and NAPI."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim
        self.rec = sim.rec
        self.dma = sim.dma
        self.heads = sim.heads
        self.mem = sim.mem
        self.cacheline = sim.sc.cost.cacheline
        self.coherent = sim.sc.cost.coherent
        self.slabs = Slabs()
        self.maps: dict[int, Mapping] = {}           # dma_addr_t -> its latest mapping (live or unmapped)
        # the last address looked up or stored and maps[last_addr]: a sync most often takes the address the
        # driver's previous call gave (page_pool_get_dma_addr(), dma_map_single()), and finds it here
        self.last_addr = -1
        self.last_map: Mapping | None = None
        self.owner: dict[int, Any] = {}                # mapping id -> the object it maps: Buf, FlipPage, TX skb
        # A posted pool fragment (RxRing.post, Buf.posted until skb_add_rx_frag() takes it) is named by its
        # mapping and its offset in it. The one next_rx() just handed the driver (rx_buf) is the one its sync
        # for the CPU and its skb_add_rx_frag() name in every driver shaped like the kernel's: tested first.
        # Any other (a learner's order, a mistake) is looked for where it can be: find_frag().
        self.ring: Ring | None = None                  # the RX ring's descriptors (set by napi.attach())
        self.rx_buf: Buf | None = None                 # what the descriptor next_rx() last handed holds
        self.taken: list[Buf] = []                     # handed before it and posted still, or off the ring
        self.taken_cap = TAKEN_MAX                     # its length that has keep() prune it
        # ifdown: what the ring held and the driver's stop() has not given back yet (DriverStrategy.deinit)
        self.unposted: dict[int, Buf] = {}            # mapping id -> a buffer mapped for itself
        self.unposted_frags: dict[int, list[Buf]] = {}    # page id -> the pool fragments of that page, ring order
        self.slab_of: dict[int, Slab] = {}             # an allocated data area's id -> its slab
        self.pools: list[PagePool] = []
        self.ids = 0
        self.napi: Any = None                          # the driver's napi_struct (models/driver/napi.py)
        self.hdr_cost = 0
        self.frag = 0                                  # the size of the last page_pool fragment taken
        self.frag_asked = -1                           # the size it was asked for (rounded up: frag)
        # napi_alloc_skb(): the head and the copy of the protocol headers, the same for every frame
        self.hdr_cost = sim.costs.kmalloc + Costs.copy(HEADERS, sim.costs.memcpy_gbs)

    def new_id(self) -> int:
        self.ids += 1
        return self.ids

    def slab(self, size: int) -> Slab:
        s = self.slabs.by_size.get(size)
        if s is None:
            s = self.slabs.by_size[size] = Slab(self.mem, size)
        return s

    def give_back(self, buf: Buf, allow_direct: bool) -> None:
        """An skb the stack is done with gives its data back where the driver got it: a page_frag fragment
        or a kmalloc() buffer to its slab (a page_pool fragment goes to its pool: DriverStrategy.free_buf)."""
        rec = self.rec
        cid = KFREE if buf.kind == "kmalloc" else SKB_FREE_FRAG
        rec.cnt[cid] += 1
        rec.t += rec.unit[cid]
        if rec.tracing:
            rec.emit(cid, rec.unit[cid], "buf#%s", (buf.id,))
        self.free_data(buf)

    def free_data(self, buf: Buf) -> None:
        """A data area back to its slab (page_frag_free, kfree)."""
        slab = self.slab_of.pop(buf.id, None)
        if slab is None:
            self.rec.violate("double-free", f"BUG: Bad page state: buf#{buf.id} freed twice "
                             f"(page_frag_free() of a fragment already freed)", f"buf#{buf.id}")
            return
        slab.free(buf.phys)

    def keep(self, buf: Buf) -> None:
        """A pool fragment not attached yet that next_rx() handed before the last, or that left the ring:
        find_frag() looks for it here. Of several at one place only the latest posted is kept (a learner's
        driver that never attaches them does not make the list grow without end)."""
        taken = self.taken
        taken.append(buf)
        if len(taken) > self.taken_cap:
            latest: dict[tuple[int, int], Buf] = {}
            for b in taken:
                key = (id(b.map), b.offset)
                had = latest.get(key)
                if b.posted and (had is None or b.id > had.id):
                    latest[key] = b
            taken[:] = latest.values()
            self.taken_cap = max(TAKEN_MAX, 2 * len(taken))

    def find_frag(self, m: object, off: int) -> Buf | None:
        """The posted pool fragment at offset `off` of mapping m, not attached yet (the latest posted when
        several are), or None: next_rx()'s own (rx_buf) did not match, so every other is looked at."""
        if not self.pools:                 # no page_pool: no pool fragment to find
            return None
        found: Buf | None = None
        taken = self.taken
        if taken:
            taken[:] = [b for b in taken if b.posted]
        ring = self.ring
        for b in ([self.rx_buf] + taken + (list(ring.bufs) if ring is not None else [])):
            if b is not None and b.posted and b.map is m and b.offset == off and (found is None or b.id > found.id):
                found = b
        return found

    # -- the dma-debug table ---------------------------------------------------------------
    def remember(self, m: Mapping, owner: object) -> int:
        addr = m.dma
        self.maps[addr] = m
        m.debug = True
        self.last_addr = addr
        self.last_map = m
        self.owner[m.id] = owner
        return addr

    def mapping(self, addr: int) -> Mapping | None:
        """The latest mapping at exactly this bus address."""
        return self.maps.get(addr)

    def find(self, addr: int, size: int = 1, exact: bool = False) -> Mapping | None:
        """The mapping at addr; unless `exact`, else the live one containing [addr, addr+size).

        An unmap is looked up exactly (check_unmap() uses bucket_find_exact()), a sync by
        containment (check_sync() uses bucket_find_contain())."""
        m = self.maps.get(addr)
        if m is not None or exact:
            return m
        for order in range(4):               # a page's mapping, page_pool_get_dma_addr(page) + offset
            m = self.maps.get(addr & ~((4096 << order) - 1))
            if m is not None and m.live and addr + size <= m.dma + m.size:
                return m
        for m in self.dma.live.values():
            if m.dma <= addr and addr + size <= m.dma + m.size:
                return m
        return None


class Cpu:
    """Which host runs the driver now: `host` (None outside a hook), kept by `enter`/`leave` around each hook."""

    def __init__(self) -> None:
        self.host: Host | None = None
        self.stack: list[Host] = []

    def enter(self, host: Host) -> None:
        self.stack.append(host)
        self.host = host

    def leave(self) -> None:
        self.stack.pop()
        self.host = self.stack[-1] if self.stack else None


CPU: Final = Cpu()


def move(obj: Any, edge: int, rec: Recorder | None = None) -> None:
    """Move a buffer or page along `edge` when its machine has the edge; a driver's mistake that
    makes the move illegal is reported by the DMA-API checker, not as a second, model-level error.
    `rec` is this CPU's recorder when the caller holds it already."""
    if type(obj) is Buf:               # the common case, read as the native class it is (a Buf has no label)
        buf: Buf = obj
        bm = buf.m
        if bm is None or bm.tid[buf.st][edge] < 0:
            return
        lifecycle_move(rec if rec is not None else this_cpu().rec, bm, buf, edge, "")
        return
    m = obj.m
    if m is None or m.tid[obj.st][edge] < 0:
        return
    if rec is None:
        rec = this_cpu().rec
    lifecycle_move(rec, m, obj, edge, getattr(obj, "label", "") if rec.tracing else "")


def count(call: str, cost: int | None = None, fmt: str = "", *args: object) -> None:
    """Account one kernel call on this CPU (its unit cost unless `cost` is given)."""
    rec = this_cpu().rec
    cid = C[call]
    if cost is None:
        rec.cnt[cid] += 1
        rec.t += rec.unit[cid]
        if rec.tracing:
            rec.emit(cid, rec.unit[cid], fmt, args)
    else:
        rec.call(cid, cost, fmt, *args)


__all__ = ["CPU", "DMA_MAPPING_ERROR", "DriverBug", "Host", "this_cpu", "move", "count", "E"]
