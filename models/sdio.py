"""SDIO and USB: a bus the host drives, shared by RX bundles and TX writes.

There is no descriptor ring. The firmware queues received frames in its
mailbox; the host's SDIO interrupt handler reads the mailbox status (a 24-byte
CMD53, ath10k_sdio_mbox_read_int_status), then reads up to `bundle`
messages in one CMD53 (HTC_HOST_MAX_MSG_PER_RX_BUNDLE, 32, since v5.6) and
copies each into its own skb; TCP's ACKs go back as writes on the same bus,
one CMD53 each (the 2019 driver had no TX bundling). Every transfer pays a
fixed cost plus its bytes at the bus rate, in whole 256-byte mailbox blocks.

What one received message carries over the bus: the HTC header (8 bytes),
the HTT RX indication (56), the firmware's RX descriptor (about 20), the
802.11 QoS header (26) and LLC/SNAP (8) in front of the IP packet: at MTU
1500 that is 1618 bytes, padded to 1792 (7 blocks), which is also the
firmware's default HTC credit size. An ACK fits one 256-byte block.

The rates come from the transfer table Wen Gong's RX-bundle patch published
(QCA6174 SDIO; 256 bytes in 28 us to 57,344 in 660 us): about 23 us fixed per
CMD53 and about 730 Mbit/s while data moves, which only SDR104 (200 MHz x 4
bits, 800 Mbit/s raw) can carry. The bus is not busy all the time: interrupt
latency, the copies out of the bounce buffer and the firmware refilling its
mailbox leave it idle between transfers. That share is not published; the
lesson fits it (`sdio_duty`) to the before figure.

Before ath10k's NAPI patch the RX work delivered each frame from process
context (ieee80211_rx_ni: no GRO); after it, frames queue for
ath10k_sdio_napi_poll. Simplification: the MMC core's own DMA mapping of the
transfer buffers is not modelled.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from .calls import CALL_ID as C
from .link import Link
from .memory import Slab, copy_ps, rint
from .rx_buffer import Buf, RxBuffers
from .scenario import Costs

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Engine
    from .host_signals import HostSignals
    from .lifecycle import Tracked
    from .memory import PhysMem
    from .scenario import Scenario
    from .skb import SkbHeads
    from .skb_head import Head
    from .stack import Stack
    from .trace import Recorder
    from .wire import Wire

SDIO_BLOCK: Final = 256                  # ATH10K_HIF_MBOX_BLOCK_SIZE
HTC_HDR: Final = 8                       # struct ath10k_htc_hdr
HTT_RX_IND_HL: Final = 56                # htt_resp_hdr + rx indication hdr, ppdu, prefix, fw_rx_desc_hl, mpdu range
RX_DESC_HL: Final = 20                   # the firmware's HL RX descriptor (its length is the firmware's)
WIFI_HDR: Final = 26 + 8                 # 802.11 QoS data header + LLC/SNAP
INT_STATUS_BYTES: Final = 24             # struct ath10k_sdio_irq_proc_regs
RX_MSG_OVERHEAD: Final = HTC_HDR + HTT_RX_IND_HL + RX_DESC_HL + WIFI_HDR
SDIO_WRITE: Final = C["ath10k_sdio_write"]
INT_STATUS: Final = C["ath10k_sdio_mbox_read_int_status"]
READ_BUNDLE: Final = C["ath10k_sdio_mbox_rx_fetch_bundle"]
PUT_DATA: Final = C["skb_put_data"]
NETDEV_ALLOC_SKB: Final = C["__netdev_alloc_skb"]
FREE_FRAG: Final = C["skb_free_frag"]
NAPI_POLL: Final = C["napi_poll"]


def padded(nbytes: int) -> int:
    """ath10k_sdio_calc_txrx_padded_len(): whole mailbox blocks."""
    return (nbytes + SDIO_BLOCK - 1) // SDIO_BLOCK * SDIO_BLOCK


class Xfer(NamedTuple):
    """One CMD53 on the bus, as the bus view draws it: when, which way, and for RX how many frames."""
    start_ns: int
    end_ns: int
    kind: str            # "status" (the mailbox registers), "rx" (a bundle) or "tx" (an ACK)
    frames: int = 0      # messages in an RX bundle


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SdioMailbox(Link):
    """The host's side of an SDIO (or USB) device: the mailbox, the bus it drives, the RX work.
    The stack it hands frames to is connected once both exist (`connect`)."""

    def __init__(self, sc: Scenario, rec: Recorder, costs: Costs, mem: PhysMem, heads: SkbHeads, engine: Engine,
                 wire: Wire, signals: HostSignals) -> None:
        super().__init__()
        self.signals = signals
        self.rec = rec
        self.engine = engine          # the bus's transfers complete as events
        self.wire = wire
        self.heads = heads
        self.stack: Stack | None = None
        self.napi = sc.delivery == "napi"
        self.napi_added = sc.napi_added
        self.kind = sc.bus
        self.bundle = sc.bundle
        self.frame_len = sc.mtu + 14
        self.per_msg = padded(sc.mtu + RX_MSG_OVERHEAD)
        self.xfer_ps = costs.sdio_xfer
        self.bps = sc.cost.sdio_bps
        self.duty = sc.cost.sdio_duty
        self.memcpy_gbs = costs.memcpy_gbs
        self.driver_rx = costs.driver_rx
        self.fw_q: deque[int] = deque()       # frames in the firmware's mailbox, by arrival time
        self.rx_ind: deque[tuple[Buf, int]] = deque()    # read, queued on htt->rx_indication_head for NAPI
        self.proc_rx: deque[tuple[Buf, int]] = deque()   # read, for the RX work to deliver (no NAPI)
        self.reading = False                  # the IRQ thread is reading: the interrupt stays masked
        self.free_at = 0                      # the bus is idle from here (ps)
        self.busy = 0                         # ps the bus spent transferring
        self.log: deque[Xfer] = deque(maxlen=64)          # the latest transfers
        self.slab = Slab(mem, sc.mtu + 64)
        self.strategy = SdioBuffers(rec, heads, self.slab)

    def connect(self, stack: Stack) -> None:
        """The stack the RX work hands its skbs to (it is built after the bus, around it)."""
        self.stack = stack

    def _stack(self) -> Stack:
        stack = self.stack
        assert stack is not None
        return stack

    def fill(self) -> None:
        """Nothing to post: the host reads into buffers it allocates per bundle."""

    # -- the device ----------------------------------------------------------------------
    def advance(self, t: int) -> None:
        """Every frame that has arrived by t waits in the firmware's mailbox."""
        wire = self.wire
        while (ta := wire.take_by(t)) >= 0:
            self.frames += 1
            self.fw_q.append(ta)

    def next_irq(self, now: int) -> int | None:
        if self.reading:
            return None
        return self.fw_q[0] if self.fw_q else self.wire.next_arrival(now)

    def has_frames(self) -> bool:
        return bool(self.fw_q)

    def on_irq(self) -> None:
        """The SDIO interrupt's threaded handler does the reading, in process context."""
        self.signals.queue_work(self._irq_thread)

    def rearm(self) -> None:
        """The RX work is done; the IRQ thread re-enables the interrupt when it finds nothing."""

    # -- the bus ---------------------------------------------------------------------------
    def submit(self, nbytes: int, fn: Callable[[Any], None], arg: Any, kind: str, frames: int = 0) -> None:
        """One CMD53 of `nbytes` (padded): busy for its fixed cost plus its bytes, then idle a while."""
        busy = self.xfer_ps + rint(nbytes * 8 * 10**12 / self.bps)
        start = max(self.engine.now, self.free_at)
        self.busy += busy
        # made as a plain tuple is made: Xfer(...) would run the NamedTuple's Python __new__
        self.log.append(tuple.__new__(Xfer, (start // 1000, (start + busy) // 1000, kind, frames)))
        self.free_at = start + rint(busy / self.duty)
        self.engine.at(start + busy, fn, arg)

    def xmit(self, tx: Tracked, head: Head, data: int, nbytes: int) -> None:
        self.submit(padded(nbytes + HTC_HDR + WIFI_HDR), self._write_done, (tx, head, data), "tx")

    def _write_done(self, obj: Any) -> None:
        """The CMD53 finished: the HIF's TX completion frees the skb on the host CPU (process context)."""
        self.rec.device(SDIO_WRITE, self.engine.now, "|ACK written")
        self.signals.in_process(self._stack().tx.ack_written, obj)

    def _irq_thread(self) -> None:
        """ath10k_sdio_irq_handler: read the mailbox status, then the bundle it announces."""
        self.advance(self.rec.t)
        self._read_status()

    def _read_status(self) -> None:
        if self.signals.queue_stopped():
            self.reading = False
            return
        self.reading = True
        self.submit(INT_STATUS_BYTES, self._status_done, None, "status")

    def _status_done(self, _: Any) -> None:
        if self.signals.queue_stopped():
            return
        self.rec.device(INT_STATUS, self.engine.now, "|%d message(s) waiting", len(self.fw_q))
        self.advance(self.engine.now)
        n = min(len(self.fw_q), self.bundle)
        if n == 0:
            # nothing pending: the handler returns and the interrupt is re-enabled
            self.reading = False
            self.signals.irq_unmasked()
            return
        for _ in range(n):
            self.fw_q.popleft()
        self.submit(n * self.per_msg, self._read_done, n, "rx", n)

    def _read_done(self, n: int) -> None:
        """The bundle is in host memory: hand it to the RX work and go back to the status registers."""
        if self.signals.queue_stopped():      # the read finished after ifdown: the firmware's frames are dropped
            return
        self.rec.device(READ_BUNDLE, self.engine.now, "|%d frames", n)
        self.signals.queue_work(partial(self._rx_bundle, n))
        self.signals.kick()
        self._read_status()

    def _rx_bundle(self, n: int) -> bool:
        """The async RX work: one skb per message, the data copied out of the bundle buffer."""
        bufs = [self.strategy.alloc() for _ in range(n)]
        # skb_put_data() from the bounce buffer ath10k_sdio_mbox_rx_fetch_bundle() read into
        self.rec.call(PUT_DATA, copy_ps(n * self.per_msg, self.memcpy_gbs),
                      "|%s message(s) copied out of the bundle", n)
        length = self.frame_len
        if self.napi:
            # queued on htt->rx_indication_head for the NAPI poll; only a driver that added its
            # NAPI (netif_napi_add) has a poll that drains it
            self.rx_ind.extend((b, length) for b in bufs)
            if self.napi_added:
                self.signals.napi_schedule()
            return True
        self.proc_rx.extend((b, length) for b in bufs)
        return self.signals.rx_work_now()

    # -- the driver's delivery ------------------------------------------------------------------
    def rx_one(self, in_napi: bool) -> bool:
        """Deliver the next message read: from rx_indication_head in the NAPI poll, else the RX work's list."""
        q = self.rx_ind if in_napi else self.proc_rx
        if not q:
            return False
        buf, length = q.popleft()
        rec = self.rec
        rec.charge(NAPI_POLL, self.driver_rx)
        self.signals.frame_taken()
        stack = self._stack()
        stack.gro.rx(stack.builder.build(buf, [], length, in_napi, False), in_napi)
        return True

    # -- ifdown ----------------------------------------------------------------------------------
    def deinit(self) -> None:
        if self.rx_ind and not self.napi_added:
            # nothing ever polled htt->rx_indication_head, and ath10k_htt_rx_free() does not purge it
            self.rec.violate("leak-at-teardown",
                             f"{len(self.rx_ind)} skb(s) left on htt->rx_indication_head: the bus driver never "
                             "added the NAPI that would drain it, and teardown does not free them")
            self.rx_ind.clear()
        for queue in (self.rx_ind, self.proc_rx):
            while queue:
                buf, _ = queue.popleft()
                self.strategy.free_buf(buf, False)
                if buf.head is not None:
                    self.heads.free(buf.head, in_napi=False)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SdioBuffers(RxBuffers):
    """ath10k_sdio_mbox_rx_alloc(): one dev_alloc_skb() per message (the MMC core's DMA is not modelled)."""

    name = "sdio"

    def __init__(self, rec: Recorder, heads: SkbHeads, slab: Slab) -> None:
        self.rec = rec
        self.heads = heads
        self.slab = slab
        self._ids = 0

    def alloc(self) -> Buf:
        self._ids += 1
        phys = self.slab.alloc()
        buf = Buf(self._ids, phys, self.slab.obj_size, None, 0, "skb")
        buf.head = self.heads.alloc_slab()
        self.rec.call(NETDEV_ALLOC_SKB, -1, "buf#%s|RX skb for one message", self._ids)
        return buf

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        self.rec.call(FREE_FRAG, -1, "buf#%s", buf.id)
        self.slab.free(buf.phys)

