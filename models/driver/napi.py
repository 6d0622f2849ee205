"""NAPI and the descriptor rings as a driver sees them (net/core/dev.c, include/linux/netdevice.h).

The poll is the driver's: `poll(napi, budget)` reclaims finished TX descriptors,
takes at most `budget` received frames off the RX ring, hands each to GRO
(napi_gro_receive) and, when it did less than its budget, calls
napi_complete_done() and unmasks its interrupt. What net_rx_action() and
__napi_poll() do around it (the budget, the repoll, the check that a poll never
returns more than its budget) is the model's (models/driver/runtime.py).

The rings are the hardware's: the driver reads a descriptor's status
(`RxRing.next_rx`), and writes one (`RxRing.post`: address and length, then
the doorbell), keeping what it allocated for each descriptor in its own
arrays, as every driver does (bgmac's slots, atlantic's buff_ring).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from ..calls import CALL_ID as C
from ..lifecycle import EDGE_ID as E
from ..lifecycle import MACHINE
from ..lifecycle import move as lifecycle_move
from ..page_pool import Page
from ..rx_buffer import Buf
from ..skb import Skb
from .host import CPU, NO_CPU, DriverBug, Host, this_cpu

if TYPE_CHECKING:  # pragma: no cover
    from ..lifecycle import Tracked
    from ..ring import Ring

PP_FRAG: Final = MACHINE["pp_frag"]
FRAG_CARVED: Final = PP_FRAG.sid["carved"]
NAPI_POLL: Final = C["napi_poll"]
NAPI_COMPLETE: Final = C["napi_complete_done"]
TX_COMPLETE: Final = C["tx_complete"]
NAPI_CONSUME: Final = C["napi_consume_skb"]
DEV_KFREE: Final = C["dev_kfree_skb"]
E_POST: Final = E["post"]
E_COMPLETE: Final = E["napi_complete_done"]
E_TX_COMPLETE: Final = E["tx_complete"]
E_NAPI_CONSUME: Final = E["napi_consume_skb"]
E_DEV_KFREE: Final = E["dev_kfree_skb"]


@mypyc_attr(native_class=False)
class Suspend(BaseException):
    """The model stops between two frames (a lesson step ends there); the poll is called again later
    with the budget it has left. A BaseException, so a driver's `except Exception` lets it through."""


@mypyc_attr(serializable=True)
class Napi:
    """struct napi_struct as the poll sees it (the model's NAPI instance is the host's)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.base = 0            # frames this poll took before the model stopped it between two frames
        self.tx_now = 0          # when the poll began: TX descriptors finished by then are reclaimed
        self.resumed = False
        self.complete_calls = 0

    def __repr__(self) -> str:
        return "<napi_struct>"


class TxDesc(NamedTuple):
    """A finished TX descriptor: the skb the stack sent, and the bus address and length it was mapped with."""
    skb: Any
    dma: int
    len: int


@mypyc_attr(native_class=False)
class TxSkb:
    """An skb on the TX ring (one of TCP's ACKs), as the completion handler frees it."""
    __slots__ = ("obj", "head", "data", "freed")

    def __init__(self, obj: Tracked, head: Any, data: int) -> None:
        self.obj = obj
        self.head = head
        self.data = data
        self.freed = False

    def __repr__(self) -> str:
        return f"<sk_buff {self.obj.label}>"


@mypyc_attr(serializable=True)
class RxRing:
    """The RX descriptor ring: `size` descriptors the device writes frames into, in order."""

    def __init__(self, host: Host, ring: Ring) -> None:
        self.host = host
        self.hw = ring
        self.size = ring.size
        self.driver_rx = host.sim.costs.driver_rx     # the CPU time of taking one descriptor (read once)

    def post(self, i: int, data: Any, dma_addr: int, length: int) -> None:
        """Write descriptor i (bus address, length) and hand it to the device (dma_wmb(), then the doorbell).

        data is what the descriptor's buffer belongs to: the data area from netdev_alloc_frag() / kmalloc(),
        the skb from netdev_alloc_skb(), or the page_pool page the fragment at dma_addr was carved from.
        """
        h = self.host
        hw = self.hw
        if i < 0:
            raise self._outside(i)
        try:
            old = hw.bufs[i]
        except IndexError:
            raise self._outside(i) from None
        # the buffer next_rx() handed last is the device's no longer (it wrote it) and is taken: the common case
        if old is not None and old is not h.rx_buf and (hw.owner[i] or old.posted):
            self._replace(i, old)
        if isinstance(data, Page):
            pg: Page = data
            pm = pg.map
            assert pm is not None
            off = dma_addr - pm.dma
            if not 0 <= off < pm.size:
                raise DriverBug(f"post(): bus address {dma_addr:#x} is not inside page#{pg.id}'s mapping "
                                f"(page_pool_get_dma_addr(page) + offset)")
            h.ids += 1
            buf = Buf(h.ids, pg.phys + off, length, PP_FRAG, FRAG_CARVED, "pp", pg, off, pm)
            buf.posted = True
            lifecycle_move(h.rec, PP_FRAG, buf, E_POST)     # a fragment just carved: its machine has the edge
            hw.post(i, buf)
            return
        buf = data.data if isinstance(data, Skb) else data
        if not isinstance(buf, Buf):
            raise DriverBug(f"post(): {type(data).__name__} is no buffer")
        m = h.mapping(dma_addr)
        if m is None or not m.live or buf.map is not m:
            h.rec.violate("device-write-unmapped",
                          f"descriptor {i} points the device at bus address {dma_addr:#x}, which is not a "
                          f"live mapping of buf#{buf.id}: the device would write into memory the kernel "
                          f"may have handed to someone else", f"desc {i}")
            if m is None or not m.live:
                buf.map = None
        buf.size = length
        bm = buf.m                     # host.move() for a Buf, inline: one call fewer a frame
        if bm is not None and bm.tid[buf.st][E_POST] >= 0:
            lifecycle_move(h.rec, bm, buf, E_POST)
        hw.post(i, buf)

    def _outside(self, i: int) -> DriverBug:
        return DriverBug(f"post(): descriptor {i} is outside the ring (0..{self.hw.size - 1})")

    def _replace(self, i: int, old: Buf) -> None:
        """post() on a descriptor whose buffer the device still owns (refused), or that holds a pool
        fragment not attached yet (it leaves the ring: Host.find_frag() still finds it)."""
        if self.hw.owner[i]:
            raise DriverBug(f"post(): descriptor {i} still belongs to the device (it was posted and not "
                            f"written yet): take a frame off it before you post again")
        self.host.keep(old)

    def next_rx(self, napi: Napi) -> tuple[int, int] | None:
        """The next descriptor the device has written, as (index, length), or None (dma_rmb() and the
        descriptor's status word: done or not). Frames come in ring order."""
        h = self.host
        sim = h.sim
        if sim.processed >= sim.stop_at:
            raise Suspend
        rec = h.rec
        if sim.wire.next_t <= rec.t:
            sim.link.advance(rec.t)
        hw = self.hw
        i = hw.clean_idx
        if not hw.done[i]:
            return None
        if h.pools:                        # the pool fragment the driver is about to sync and attach
            prev = h.rx_buf
            buf = hw.bufs[i]
            if prev is not None and prev.posted and prev is not buf:
                h.keep(prev)               # handed and not attached yet: Host.find_frag() finds it
            h.rx_buf = buf
        driver_rx = self.driver_rx
        rec.extra[NAPI_POLL] += driver_rx
        rec.t += driver_rx
        if hw.eop[i]:
            hw.clean_idx = (i + 1) % hw.size
            length = hw.lens[i]
        else:
            descs = hw.take_frame()       # a frame over several descriptors: the driver sees the first
            length = sum(hw.lens[j] for j in descs)
        sim.processed += 1
        sim.work += 1
        return i, length

    def done(self, i: int) -> bool:
        """Whether descriptor i holds a frame the driver has not taken yet."""
        return bool(self.hw.done[i])


@mypyc_attr(serializable=True)
class TxRing:
    """The TX ring the stack's skbs (TCP's ACKs) go out on; the driver reclaims what the device sent."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def next_completed(self, napi: Napi) -> TxDesc | None:
        """The oldest TX descriptor the device had finished when the poll began, or None."""
        h = self.host
        tx = h.sim.stack.tx.ring
        if napi.resumed or not tx or tx[0].t_done > napi.tx_now:
            return None
        e = tx.popleft()
        h.rec.call(TX_COMPLETE, -1, "%s", e.kind)
        if e.kind != "skb":
            raise DriverBug("XDP_TX frames are not modelled for a driver of your own")
        obj = e.obj
        assert obj is not None and e.map is not None
        obj.go(h.rec, E_TX_COMPLETE)
        h.remember(e.map, obj)
        return TxDesc(TxSkb(obj, e.skb, e.data), e.map.dma, e.map.size)


def _free_tx(skb: TxSkb, in_napi: bool) -> None:
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    if skb.freed:
        h.rec.violate("use-after-free", f"{skb.obj.label}: the TX skb was freed twice (kfree_skb of a freed skb)",
                      skb.obj.label)
        return
    skb.freed = True
    h.rec.call(NAPI_CONSUME if in_napi else DEV_KFREE, 0, "head#%s", skb.head.id)
    skb.obj.go(h.rec, E_NAPI_CONSUME if in_napi else E_DEV_KFREE)
    h.heads.free(skb.head, in_napi=in_napi)
    h.sim.stack.tx.ack_slab.free(skb.data)


def napi_consume_skb(skb: Any, budget: int) -> None:
    """net/core/skbuff.c napi_consume_skb(): free a sent skb from the poll; its sk_buff goes to this CPU's
    NAPI cache (budget 0 means "not in NAPI": dev_consume_skb_any(), to the slab). Since 6.19 the kernel
    sends an skb another CPU allocated back to that CPU (e20dfbad8aab); the model has one CPU."""
    if isinstance(skb, TxSkb):
        _free_tx(skb, budget != 0)
        return
    if isinstance(skb, Skb) and skb.id:
        this_cpu().sim.stack.free.free_skb(skb, head="napi" if budget else "slab", allow_direct=bool(budget))
        return
    raise DriverBug(f"napi_consume_skb(): {type(skb).__name__} is no sk_buff the stack gave you")


def dev_kfree_skb_any(skb: Any) -> None:
    """include/linux/netdevice.h dev_kfree_skb_any(): free an skb from any context (to the slab)."""
    from .skbuff import skb_free_frag
    if isinstance(skb, TxSkb):
        _free_tx(skb, False)
    elif isinstance(skb, Skb) and skb.id:
        this_cpu().sim.stack.free.free_skb(skb, head="slab", allow_direct=False)
    else:
        skb_free_frag(skb)


def napi_gro_receive(napi: Napi, skb: Any) -> None:
    """include/linux/netdevice.h napi_gro_receive() -> net/core/gro.c gro_receive_skb(): hand a received skb
    to GRO, which merges it with the flow's held segments or queues it for the stack."""
    if not isinstance(skb, Skb) or not skb.id:
        raise DriverBug(f"napi_gro_receive(): {type(skb).__name__} is no received sk_buff "
                        f"(build one with build_skb()/napi_build_skb() and skb_put(), or skb_put() the skb "
                        f"from netdev_alloc_skb())")
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    h.sim.stack.gro.napi_gro_receive(skb, True)


def ieee80211_rx_napi(napi: Napi, skb: Any) -> None:
    """net/mac80211/rx.c ieee80211_rx_napi(): a Wi-Fi driver's frame goes through mac80211 (802.11 to
    Ethernet, the station's state), which hands it to napi_gro_receive(). The kernel's takes
    (hw, sta, skb, napi); the model keeps only the napi and the skb."""
    if not isinstance(skb, Skb) or not skb.id:
        raise DriverBug(f"ieee80211_rx_napi(): {type(skb).__name__} is no received sk_buff")
    sim = this_cpu().sim
    if not sim.sc.wifi:
        raise DriverBug("ieee80211_rx_napi(): this device is no Wi-Fi device (use napi_gro_receive())")
    sim.stack.gro.rx(skb, True)


def netif_receive_skb(skb: Any) -> None:
    """net/core/dev.c netif_receive_skb(): hand a received skb to the stack at once, without GRO."""
    if not isinstance(skb, Skb) or not skb.id:
        raise DriverBug(f"netif_receive_skb(): {type(skb).__name__} is no received sk_buff")
    this_cpu().sim.stack.netif.netif_receive_skb(skb)


def napi_complete_done(napi: Napi, work_done: int) -> bool:
    """net/core/dev.c napi_complete_done(): the poll is done (work_done < budget): GRO is flushed, what it
    queued goes up, NAPI_STATE_SCHED is cleared. True: the driver may unmask its interrupt. (The kernel
    also returns false under busy polling, or when an interrupt came during the poll and NAPI_STATE_MISSED
    reschedules it; the model has neither.) Called a second time in one poll the kernel warns once
    (WARN_ON_ONCE on NAPIF_STATE_SCHED) and goes on; the model reports it and refuses the second call."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    sim = h.sim
    rec = h.rec
    napi.complete_calls += 1
    if sim.napi.state != "polling":
        rec.violate("napi-complete-twice", "WARNING: at net/core/dev.c napi_complete_done(): "
                    "WARN_ON_ONCE(!(val & NAPIF_STATE_SCHED)) (napi_complete_done() called twice in one poll)",
                    "napi")
        return False
    gro = sim.stack.gro
    gro.gro_flush()
    gro.gro_normal_list()
    rec.call(NAPI_COMPLETE, 0, "napi|work %s < budget %s: GRO flushed, NAPI_STATE_SCHED cleared",
             napi.base + work_done, sim.budget)
    sim.napi.go(rec, E_COMPLETE)
    return True


def driver_irq_enable(napi: Napi) -> None:
    """The driver unmasks its RX interrupt (a register write of its own: bgmac_chip_intrs_on(), atlantic's
    hw_atl_b0_hw_irq_enable(), ...), after napi_complete_done() returned true."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    h.sim.link.rearm()
