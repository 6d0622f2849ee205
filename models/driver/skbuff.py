"""RX data areas and sk_buffs in the kernel's names (net/core/skbuff.c, include/linux/skbuff.h).

A data area is what the device writes into: a page_frag fragment
(netdev_alloc_frag), the data of an skb allocated with it (netdev_alloc_skb),
or a kmalloc() buffer. An sk_buff is built around one when the frame has
arrived (build_skb, napi_build_skb), or was allocated with it and only gets
its length (skb_put); atlantic's page_pool series builds a small header skb
(napi_alloc_skb) and attaches the page_pool fragment as a frag (skb_add_rx_frag).

The sk_buff heads come from the skbuff_cache slab or this CPU's NAPI cache
(models/skb.py), as the kernel does it; what each call costs is the model's.
"""

from __future__ import annotations

from typing import Any, Final

from ..calls import CALL_ID as C
from ..lifecycle import EDGE_ID as E
from ..lifecycle import MACHINE
from ..lifecycle import move as lifecycle_move
from ..page_pool import Page
from ..rx_buffer import Buf
from ..rx_strategy import HEADERS, SHINFO
from ..skb import Skb
from .host import CPU, NO_CPU, DriverBug, Host, move

RX_BUFFER: Final = MACHINE["rx_buffer"]
PP_FRAG: Final = MACHINE["pp_frag"]
RX_FREE: Final = RX_BUFFER.sid["free"]
FRAG_FILLED: Final = PP_FRAG.sid["filled"]
FRAG_CPU_SYNCED: Final = PP_FRAG.sid["cpu-synced"]
NETDEV_ALLOC_FRAG: Final = C["netdev_alloc_frag"]
KMALLOC: Final = C["kmalloc"]
NETDEV_ALLOC_SKB: Final = C["__netdev_alloc_skb"]
E_NETDEV_ALLOC_FRAG: Final = E["netdev_alloc_frag"]
E_KMALLOC: Final = E["kmalloc"]
E_NETDEV_ALLOC_SKB: Final = E["__netdev_alloc_skb"]
SKB_PUT: Final = C["skb_put"]
NAPI_ALLOC_SKB: Final = C["napi_alloc_skb"]
MARK: Final = C["skb_mark_for_recycle"]
BUILD: Final = C["build_skb"]
NAPI_BUILD: Final = C["napi_build_skb"]
SLAB_BUILD: Final = C["slab_build_skb"]
E_SKB_PUT: Final = E["skb_put"]
E_BUILD: Final = E["build_skb"]
E_NAPI_BUILD: Final = E["napi_build_skb"]
E_SLAB_BUILD: Final = E["slab_build_skb"]
E_ADD_FRAG: Final = E["skb_add_rx_frag"]
E_RX_DROPPED: Final = E["rx_dropped"]
E_RING_DEINIT: Final = E["ring_deinit"]


def NET_SKB_PAD() -> int:
    """include/linux/skbuff.h: max(32, L1_CACHE_BYTES) of headroom in front of received data."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    return max(32, h.cacheline)


def SKB_DATA_ALIGN(x: int) -> int:
    """include/linux/skbuff.h: x rounded up to SMP_CACHE_BYTES."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    a = h.cacheline
    return (x + a - 1) // a * a


SKB_SHINFO_SIZE: Final = SHINFO        # SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on 64-bit


def _alloc(h: Host, kind: str, size: Any, call: str) -> Buf:
    if not isinstance(size, int) or size <= 0:
        raise DriverBug(f"{call}({size!r}): the size must be a positive number of bytes")
    slab = h.slab(size)
    h.ids += 1
    buf = Buf(h.ids, slab.alloc(), size, RX_BUFFER, RX_FREE, kind)
    h.slab_of[buf.id] = slab
    return buf


def _allocated(h: Host, buf: Buf, cid: int, edge: int, asked: int) -> None:
    """The kernel call that allocated buf, counted (its trace line gives the size it was asked for)."""
    rec = h.rec
    rec.cnt[cid] += 1
    rec.t += rec.unit[cid]
    if rec.tracing:
        rec.emit(cid, rec.unit[cid], "buf#%s|%s bytes at %#x", (buf.id, asked, buf.phys))
    move(buf, edge, rec)


def netdev_alloc_frag(fragsz: Any) -> Buf:
    """include/linux/skbuff.h netdev_alloc_frag() -> net/core/skbuff.c __netdev_alloc_frag_align(): fragsz
    bytes from this CPU's page_frag cache (data only: the skb is built around it when the frame has arrived)."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    buf = _alloc(h, "frag", fragsz, "netdev_alloc_frag")
    _allocated(h, buf, NETDEV_ALLOC_FRAG, E_NETDEV_ALLOC_FRAG, fragsz)
    return buf


def kmalloc(size: Any) -> Buf:
    """include/linux/slab.h kmalloc(): a slab buffer (its skb comes from slab_build_skb: no head_frag)."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    buf = _alloc(h, "kmalloc", size, "kmalloc")
    _allocated(h, buf, KMALLOC, E_KMALLOC, size)
    return buf


def netdev_alloc_skb(dev: Any, length: int) -> Skb:
    """net/core/skbuff.c __netdev_alloc_skb(): an sk_buff and a data area of NET_SKB_PAD + length bytes
    (plus skb_shared_info), skb->data after the headroom. dma_map_single(dev, skb, ...) maps skb->data."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    a = h.cacheline
    size = (max(32, a) + length + a - 1) // a * a + SKB_SHINFO_SIZE    # SKB_DATA_ALIGN(NET_SKB_PAD + length)
    buf = _alloc(h, "skb", size, "netdev_alloc_skb")
    buf.head = h.heads.alloc_slab()
    # the trace line gives the call's argument (ath11k: dev_alloc_skb(DP_RX_BUFFER_SIZE + DP_RX_BUFFER_ALIGN_SIZE))
    _allocated(h, buf, NETDEV_ALLOC_SKB, E_NETDEV_ALLOC_SKB, length)
    return Skb(0, buf.head, buf, [], 0, 0)      # id 0: not received yet (skb_put gives it one)


def skb_free_frag(data: Any) -> None:
    """include/linux/skbuff.h skb_free_frag() (page_frag_free), or kfree() / kfree_skb() for the other kinds:
    a data area that never carried a frame goes back (a failed map, the ring freed at stop)."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    skb = data if isinstance(data, Skb) else None
    buf = data.data if skb is not None else data
    if not isinstance(buf, Buf) or buf.kind not in ("frag", "skb", "kmalloc"):
        raise DriverBug(f"skb_free_frag(): {type(data).__name__} is not a data area netdev_alloc_frag(), "
                        f"netdev_alloc_skb() or kmalloc() returned")
    free = "kfree" if buf.kind == "kmalloc" else "skb_free_frag"
    h.rec.call(C[free], -1, "buf#%s", buf.id)
    m = buf.map
    if h.unposted and m is not None and h.unposted.pop(m.id, None) is not None:
        move(buf, E_RING_DEINIT)           # ifdown: freed still mapped (a leak the audit reports), yet the driver's
    move(buf, E[free])
    h.free_data(buf)
    if buf.head is not None and buf.state != "in-skb":
        h.heads.free(buf.head, in_napi=False)
        buf.head = None


dev_kfree_skb_any = skb_free_frag


def cpu_reads(h: Any, buf: Buf) -> None:
    """The CPU is about to read what the device wrote: the checker wants the buffer synced or unmapped."""
    if buf.kind == "pp":          # a fragment shares its page's mapping: its own state says if it was synced
        if buf.m is PP_FRAG and buf.st == FRAG_FILLED:
            page = buf.page
            h.rec.violate("no-sync-for-cpu", f"CPU reads fragment buf#{buf.id} of page#{getattr(page, 'id', '?')} "
                          f"without dma_sync_single_for_cpu: it may see stale cache lines or bounce data",
                          f"buf#{buf.id}")
        return
    m = buf.map
    if m is not None and m.live and not m.cpu_owned:
        h.dma.cpu_read(m, f"the frame in buf#{buf.id}")


def _new_skb(h: Host, data: Buf, head: Any, call: int, edge: int, frag_size: int) -> Skb:
    cpu_reads(h, data)
    rec = h.rec
    rec.cnt[call] += 1
    rec.t += rec.unit[call]
    if rec.tracing:
        rec.emit(call, rec.unit[call], "buf#%s|head#%s from the %s",
                 (data.id, head.id, "NAPI cache" if call == NAPI_BUILD else "slab"))
    move(data, edge, rec)
    h.heads._skb_ids += 1
    return Skb(h.heads._skb_ids, head, data, [], 0, rec.t)


def _received(data: Any, what: str) -> Buf:
    if not isinstance(data, Buf) or data.kind not in ("frag", "kmalloc", "pp"):
        raise DriverBug(f"{what}(): {type(data).__name__} is not a received data area")
    return data


def build_skb(data: Any, frag_size: int) -> Skb:
    """net/core/skbuff.c build_skb(): an sk_buff from the skbuff_cache slab around a filled data area.
    skb_put() sets the length. For a kmalloc() buffer the kernel wants slab_build_skb(data) (build_skb()
    with frag_size 0 still works but warns once); the model takes this call as that one."""
    buf = _received(data, "build_skb")
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    if buf.kind == "kmalloc":
        return _new_skb(h, buf, h.heads.alloc_slab(), SLAB_BUILD, E_SLAB_BUILD, frag_size)
    return _new_skb(h, buf, h.heads.alloc_slab(), BUILD, E_BUILD, frag_size)


def napi_build_skb(data: Any, frag_size: int) -> Skb:
    """net/core/skbuff.c napi_build_skb(): as build_skb(), the sk_buff popped from this CPU's NAPI cache
    (napi_skb_cache_get(), refilled in bulk). Only in NAPI context: from the poll."""
    buf = _received(data, "napi_build_skb")
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    return _new_skb(h, buf, h.heads.alloc_napi(), NAPI_BUILD, E_NAPI_BUILD, frag_size)


def skb_put(skb: Any, length: int) -> None:
    """net/core/skbuff.c skb_put(): the frame's length; for an skb from netdev_alloc_skb() this is
    the moment its data becomes the received frame (the model counts it there)."""
    if not isinstance(skb, Skb):
        raise DriverBug(f"skb_put(): {type(skb).__name__} is no sk_buff")
    skb.len += length
    if skb.id == 0:
        h = CPU.host
        if h is None:
            raise DriverBug(NO_CPU)
        rec = h.rec
        data = skb.data
        cpu_reads(h, data)
        rec.call(SKB_PUT, 0, "head#%s|buf#%s: %s bytes", skb.head.id, data.id, length)
        data.head = None
        move(data, E_SKB_PUT)
        h.heads._skb_ids += 1
        skb.id = h.heads._skb_ids
        skb.t_rx = rec.t


def napi_alloc_skb(napi: Any, length: int) -> Skb:
    """net/core/skbuff.c napi_alloc_skb(): a small skb in NAPI context for the headers the driver copies
    (atlantic's __aq_ring_rx_clean()); the model's cost includes that copy of the protocol headers."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    rec = h.rec
    h.ids += 1
    hdr = Buf(h.ids, -1, length, None, 0, "hdr")
    heads = h.heads
    head = heads.alloc_napi("napi_alloc_skb")         # positional: a keyword call is not specialised
    cost = h.hdr_cost
    rec.cnt[NAPI_ALLOC_SKB] += 1
    rec.extra[NAPI_ALLOC_SKB] += cost
    rec.t += cost
    if rec.tracing:
        rec.emit(NAPI_ALLOC_SKB, cost, "head#%s|%s-byte header copied", (head.id, HEADERS))
    heads._skb_ids += 1
    return Skb(heads._skb_ids, head, hdr, [], 0, rec.t)


def skb_add_rx_frag(skb: Any, i: int, page: Any, off: int, size: int, truesize: int) -> None:
    """include/linux/skbuff.h skb_add_rx_frag(): attach [off, off+size) of a page as frag i."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    if not isinstance(skb, Skb):
        raise DriverBug(f"skb_add_rx_frag(): {type(skb).__name__} is no sk_buff")
    buf = h.rx_buf                     # the fragment posted there: the one next_rx() handed, or another
    if buf is None or not buf.posted or buf.page is not page or buf.offset != off:
        # any other posted fragment of the page's mapping (a page_pool page's: its pool mapped it) at off
        pm = page.map if type(page) is Page else getattr(page, "map", None)
        buf = h.find_frag(pm, off) if pm is not None else None
        if buf is None:                # none posted there (or one of a mapping that is gone)
            raise DriverBug(f"skb_add_rx_frag(): no received fragment at offset {off} of that page "
                            f"(attach the fragment you posted, at the offset page_pool_dev_alloc_frag() gave)")
    buf.posted = False                 # attached: no longer one to find (Host.find_frag)
    rec = h.rec
    if buf.st == FRAG_CPU_SYNCED:      # synced for the CPU, as it should be: its machine has the edge
        lifecycle_move(rec, PP_FRAG, buf, E_ADD_FRAG)
    else:
        if buf.st == FRAG_FILLED:      # a pool fragment (RxRing.post made it) read before its sync for the CPU
            cpu_reads(h, buf)
        move(buf, E_ADD_FRAG, rec)
    skb.frags.append(buf)
    skb.len += size
    if rec.tracing and skb.data.kind == "hdr":
        # the trace line of napi_alloc_skb() says what became of its skb, as the model's own RX path's does
        rec.retell(NAPI_ALLOC_SKB, f"head#{skb.head.id}",
                   f"{HEADERS}-byte header copied, {len(skb.frags)} frag(s) attached")


def skb_mark_for_recycle(skb: Any) -> None:
    """include/linux/skbuff.h skb_mark_for_recycle(): skb->pp_recycle = 1, so freeing the skb returns its
    page_pool pages to their pool (napi_pp_put_page) instead of put_page()."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    rec = h.rec
    rec.cnt[MARK] += 1
    if rec.tracing:
        rec.emit(MARK, 0, "head#%s", (skb.head.id,))


def netdev_rx_dropped(dev: Any, data: Any) -> None:
    """The driver had no replacement buffer: netdev stats rx_dropped++, and the same buffer goes back."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    buf = data.data if isinstance(data, Skb) else data
    h.rec.call(C["rx_dropped"], 0, "buf#%s|no replacement buffer: the frame is dropped", buf.id)
    move(buf, E_RX_DROPPED)
    h.sim.dropped += 1
