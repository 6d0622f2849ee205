"""What the host transmits while it receives: TCP's ACKs and XDP_TX frames, and their TX completion.

- tcp_send_ack() (net/ipv4/tcp_output.c): an sk_buff from alloc_skb() and
  its data, through dev_queue_xmit() to the driver. On PCIe the driver maps
  it TO_DEVICE and posts it on the TX ring (the link's xmit, then `posted`);
  the next poll's TX clean reclaims it: dma_unmap_single(), then
  napi_consume_skb() (the NAPI cache) or dev_kfree_skb() (the slab). On SDIO
  or USB it is a write on the bus, freed once written (consume_skb).
- XDP_TX: the page_pool fragment goes back out on the TX ring as it is
  (synced for the device, no skb), and returns to the pool at TX completion
  (xdp_return_frame_rx_napi), or at the ring's deinit.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .dma import DmaApi, Mapping
    from .host_signals import HostSignals
    from .link import Link
    from .memory import PhysMem
    from .rx_buffer import Buf, RxBuffers
    from .scenario import Scenario
    from .skb import SkbHeads
    from .skb_head import Head
    from .sock import Sock
    from .trace import Recorder
    from .wire import Wire

from .calls import CALL_ID as C
from .dma import TO_DEVICE, UNMAP_SINGLE
from .lifecycle import EDGE_ID as E
from .lifecycle import MACHINE, Tracked, move
from .memory import Slab

ACK_BYTES: Final = 66
TX_LATENCY_PS: Final = 2_000 * 1000

TCP_ACK: Final = C["tcp_send_ack"]
XMIT: Final = C["dev_queue_xmit"]
CONSUME: Final = C["consume_skb"]
XDP_TX: Final = C["xdp_do_tx"]
TX_COMPLETE: Final = C["tx_complete"]
DEV_KFREE: Final = C["dev_kfree_skb"]
NAPI_CONSUME: Final = C["napi_consume_skb"]

TXBUF: Final = MACHINE["tx_buffer"]
E_XDP_TX: Final = E["xdp_do_tx"]
E_TX_COMPLETE: Final = E["tx_complete"]
E_RING_DEINIT: Final = E["ring_deinit"]
E_XMIT: Final = E["dev_queue_xmit"]
E_MAP: Final = E["dma_map_single"]
E_POST: Final = E["post"]
E_UNMAP: Final = E["dma_unmap_single"]
E_NAPI_CONSUME: Final = E["napi_consume_skb"]
E_DEV_KFREE: Final = E["dev_kfree_skb"]
E_CONSUME: Final = E["consume_skb"]
E_SDIO_WRITE: Final = E["ath10k_sdio_write"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class TxEntry:
    """One TX descriptor in use: an ACK (its sk_buff, data and mapping) or an XDP_TX frame (a fragment)."""
    __slots__ = ("kind", "skb", "buf", "map", "t_done", "data", "obj")

    def __init__(self, kind: str, skb: Head | None, buf: Buf | None, m: Mapping | None, t_done: int, data: int,
                 obj: Tracked | None = None) -> None:
        self.kind = kind
        self.skb = skb
        self.buf = buf
        self.map = m
        self.t_done = t_done
        self.data = data
        self.obj = obj            # the ACK's tx_buffer object

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.kind, self.skb, self.buf, self.map, self.t_done, self.data, self.obj)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.kind, self.skb, self.buf, self.map, self.t_done, self.data, self.obj = state


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Tx:
    """The host's TX side: the ACKs it sends and the TX descriptors it has in use (`ring`)."""

    def __init__(self, sc: Scenario, rec: Recorder, mem: PhysMem, heads: SkbHeads, dma: DmaApi, wire: Wire,
                 link: Link, rx_buffers: RxBuffers, sock: Sock, signals: HostSignals) -> None:
        self.rec = rec
        self.heads = heads
        self.dma = dma
        self.wire = wire
        self.link = link              # where TCP's ACKs go out
        self.rx_buffers = rx_buffers  # where an XDP_TX fragment goes back
        self.sock = sock
        self.signals = signals
        self.tx_napi_consume = sc.tx_free == "napi_consume_skb"
        self.acks = 0                 # ACKs sent (their tx_buffer objects are ack#1, ack#2, ...)
        self.ack_slab = Slab(mem, 512)
        self.ring: deque[TxEntry] = deque()

    def send_ack(self) -> None:
        """tcp_send_ack(): one ACK for every segment received so far."""
        sk = self.sock
        if self.signals.queue_stopped():      # ifdown stopped the TX queue first: nothing is sent
            sk.unacked = 0
            return
        rec = self.rec
        sk.unacked = 0
        sk.delack_t = -1
        rec.call(TCP_ACK, -1, "|acks %s segments", sk.rcv_level)
        self.wire.on_ack(rec.t, sk.rcv_level)
        head = self.heads.alloc_skb()          # alloc_skb() in __tcp_send_ack()
        data = self.ack_slab.alloc()
        rec.call(XMIT, -1, "head#%s|%s bytes", head.id, ACK_BYTES)
        self.acks += 1
        tx = Tracked(TXBUF, "ack#%d", self.acks)
        tx.go(rec, E_XMIT)
        self.link.xmit(tx, head, data, ACK_BYTES)
        self.signals.device_wake()

    def posted(self, tx: Tracked, head: Head, data: int, m: Mapping) -> None:
        """The ACK is mapped and on the TX ring; the device is done with it TX_LATENCY later."""
        tx.go(self.rec, E_MAP)
        tx.go(self.rec, E_POST)
        self.ring.append(TxEntry("skb", head, None, m, self.rec.t + TX_LATENCY_PS, data, tx))

    def dropped(self, tx: Tracked, head: Head, data: int) -> None:
        """dma_mapping_error() on the ACK: the driver drops the frame."""
        tx.go(self.rec, E_DEV_KFREE)
        self.heads.free(head, in_napi=False)
        self.ack_slab.free(data)

    def ack_written(self, obj: tuple[Tracked, Head, int]) -> None:
        """SDIO/USB: the ACK left over the bus; the skb is freed."""
        tx, head, data = obj
        tx.go(self.rec, E_SDIO_WRITE)
        self.rec.call(CONSUME, 0, "head#%s", head.id)
        tx.go(self.rec, E_CONSUME)
        self.heads.free(head, in_napi=False)
        self.ack_slab.free(data)

    def xdp_tx(self, buf: Buf, length: int) -> None:
        """XDP_TX: the received fragment goes back out on the TX ring, synced for the device."""
        rec = self.rec
        rec.call(XDP_TX, -1, "buf#%s", buf.id)
        assert buf.map is not None
        self.dma.sync_for_device(buf.map, buf.offset, length)
        assert buf.m is not None            # an XDP_TX frame is a page_pool fragment
        move(rec, buf.m, buf, E_XDP_TX)
        self.ring.append(TxEntry("xdp", None, buf, None, rec.t + TX_LATENCY_PS, 0))
        self.sock.delivered += 1

    def clean(self, budget: int, now: float, everything: bool = False) -> int:
        """Reclaim completed TX descriptors (in the poll, or at ring deinit)."""
        done = 0
        tx = self.ring
        while tx and done < budget and (everything or tx[0].t_done <= now):
            e = tx.popleft()
            done += 1
            self.rec.call(TX_COMPLETE, -1, "%s", e.kind)
            if e.buf is not None:           # an XDP_TX frame: a page_pool fragment
                assert e.buf.m is not None
                move(self.rec, e.buf.m, e.buf, E_TX_COMPLETE if not everything else E_RING_DEINIT)
                self.rx_buffers.free_buf(e.buf, not everything)     # xdp_return_frame_rx_napi in the poll
                continue
            tx_obj, head = e.obj, e.skb
            assert tx_obj is not None and head is not None and e.map is not None
            tx_obj.go(self.rec, E_TX_COMPLETE)
            self.dma.unmap(e.map, ACK_BYTES, TO_DEVICE, UNMAP_SINGLE)
            tx_obj.go(self.rec, E_UNMAP)
            in_napi = self.tx_napi_consume and not everything
            self.rec.call(NAPI_CONSUME if in_napi else DEV_KFREE, 0, "head#%s", head.id)
            tx_obj.go(self.rec, E_NAPI_CONSUME if in_napi else E_DEV_KFREE)
            self.heads.free(head, in_napi=in_napi)
            self.ack_slab.free(e.data)
        return done
