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

from typing import Any

from .calls import CALL_ID as C
from .rxpath import Buf
from .scenario import Costs

SDIO_BLOCK = 256                  # ATH10K_HIF_MBOX_BLOCK_SIZE
HTC_HDR = 8                       # struct ath10k_htc_hdr
HTT_RX_IND_HL = 56                # htt_resp_hdr + rx indication hdr, ppdu, prefix, fw_rx_desc_hl, mpdu range
RX_DESC_HL = 20                   # the firmware's HL RX descriptor (its length is the firmware's)
WIFI_HDR = 26 + 8                 # 802.11 QoS data header + LLC/SNAP
INT_STATUS_BYTES = 24             # struct ath10k_sdio_irq_proc_regs
RX_MSG_OVERHEAD = HTC_HDR + HTT_RX_IND_HL + RX_DESC_HL + WIFI_HDR
SDIO_WRITE, INT_STATUS, READ_BUNDLE, PUT_DATA = (C["sdio_write"], C["sdio_read_int_status"], C["sdio_read_bundle"],
                                                 C["skb_put_data"])
NETDEV_ALLOC_SKB, FREE_FRAG = C["__netdev_alloc_skb"], C["skb_free_frag"]


def padded(nbytes: int) -> int:
    """ath10k_sdio_calc_txrx_padded_len(): whole mailbox blocks."""
    return (nbytes + SDIO_BLOCK - 1) // SDIO_BLOCK * SDIO_BLOCK


class SdioHost:
    """The Sim's bus side (a mixin: it shares the simulation's state)."""

    def bus_submit(self, nbytes: int, fn, arg: Any, what: str) -> None:
        """One CMD53 of `nbytes` (padded): busy for its fixed cost plus its bytes, then idle a while."""
        p = self.sc.cost
        busy = self.costs.sdio_xfer + int(round(nbytes * 8 * 10**12 / p.sdio_bps))
        start = max(self.engine.now, self.bus_free)
        self.bus_busy += busy
        self.bus_log.append((start // 1000, (start + busy) // 1000, what))
        self.bus_free = start + int(round(busy / p.sdio_duty))
        self.engine.at(start + busy, fn, arg)

    def bus_write(self, nbytes: int, obj: Any) -> None:
        self.bus_submit(padded(nbytes + HTC_HDR + WIFI_HDR), self._bus_write_done, obj, "tx")

    def _bus_write_done(self, obj: Any) -> None:
        self.rec.device(SDIO_WRITE, self.engine.now, "|ACK written")
        self.stack.ack_written(obj)

    def _sdio_irq_thread(self) -> None:
        """ath10k_sdio_irq_handler: read the mailbox status, then the bundle it announces."""
        self.dev_advance(self.rec.t)
        self._sdio_read_status()

    def _sdio_read_status(self) -> None:
        if not self.dev_running:
            self.sdio_reading = False
            return
        self.sdio_reading = True
        self.bus_submit(INT_STATUS_BYTES, self._sdio_status_done, None, "status")

    def _sdio_status_done(self, _: Any) -> None:
        if self.torn_down:
            return
        self.rec.device(INT_STATUS, self.engine.now, "|%d message(s) waiting", len(self.fw_q))
        self.dev_advance(self.engine.now)
        n = min(len(self.fw_q), self.sc.bundle)
        if n == 0:
            # nothing pending: the handler returns and the interrupt is re-enabled
            self.sdio_reading = False
            self.irq_on = True
            self.device_wake()
            return
        for _ in range(n):
            self.fw_q.popleft()
        per = padded(self.sc.mtu + RX_MSG_OVERHEAD)
        self.bus_submit(n * per, self._sdio_read_done, n, f"rx bundle of {n}")

    def _sdio_read_done(self, n: int) -> None:
        """The bundle is in host memory: hand it to the RX work and go back to the status registers."""
        if self.torn_down:          # the read finished after ifdown: the firmware's frames are dropped
            return
        self.rec.device(READ_BUNDLE, self.engine.now, "|%d frames", n)
        self.proc_q.append(lambda: self._sdio_rx_bundle(n))
        self.kick()
        self._sdio_read_status()

    def _sdio_rx_bundle(self, n: int):
        """The async RX work: one skb per message, the data copied out of the bundle buffer."""
        length = self.sc.mtu + 14
        per = padded(self.sc.mtu + RX_MSG_OVERHEAD)
        bufs = [self.strategy.alloc() for _ in range(n)]
        # skb_put_data() from the bounce buffer ath10k_sdio_mbox_rx_fetch_bundle() read into
        self.rec.call(PUT_DATA, Costs.copy(n * per, self.costs.memcpy_gbs), "|%s message(s) copied out of the bundle",
                      n)
        if self.delivery == "napi":
            # queued on htt->rx_indication_head for the NAPI poll; only a driver that added its
            # NAPI (netif_napi_add) has a poll that drains it
            self.rx_ind.extend((b, length) for b in bufs)
            if self.napi_added:
                self._napi_schedule()
            return True
        self.proc_rx.extend((b, length) for b in bufs)
        if self.proc_rx_queued:
            return True
        self.proc_rx_queued = True
        return self._proc_rx_unit()


class SdioBuffers:
    """ath10k_sdio_mbox_rx_alloc(): one dev_alloc_skb() per message (the MMC core's DMA is not modelled)."""

    name = "sdio"

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self._ids = 0

    def alloc(self) -> Buf:
        self._ids += 1
        sim = self.sim
        phys = sim.sdio_slab.alloc()
        buf = Buf(self._ids, phys, sim.sdio_slab.obj_size, None, "", "skb")
        buf.head = sim.heads.alloc_slab()
        sim.rec.call(NETDEV_ALLOC_SKB, -1, "buf#%s|RX skb for one message", self._ids)
        return buf

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        self.sim.rec.call(FREE_FRAG, -1, "buf#%s", buf.id)
        self.sim.sdio_slab.free(buf.phys)

