"""SDIO and USB: a bus the host drives, shared by RX bundles and TX writes.

There is no descriptor ring. The firmware queues received frames; the host's
SDIO interrupt handler reads up to `bundle` of them in one CMD53 transfer
(HTC_HOST_MAX_MSG_PER_RX_BUNDLE, raised from 8 to 32 for ath10k) and hands
them to the RX work; TCP's ACKs go back as writes on the same bus. Every
transfer pays a fixed cost (command, interrupt, mailbox handling) plus its
bytes at the bus rate, padded to 256-byte blocks, so many small ACK writes
steal bus time from the RX bundles.

Before ath10k's NAPI patch the RX work delivered each frame from process
context (ieee80211_rx_ni: no GRO); after it, frames queue for
ath10k_sdio_napi_poll. Simplification: the MMC core's own DMA mapping of the
transfer buffers is not modelled.
"""

from __future__ import annotations

from typing import Any

from .rxpath import Buf

SDIO_BLOCK = 256
HTC_HDR = 8


class SdioHost:
    """The Sim's bus side (a mixin: it shares the simulation's state)."""

    def bus_submit(self, duration: float, fn, arg: Any, what: str) -> None:
        start = max(self.engine.now, self.bus_free)
        self.bus_free = start + duration
        self.bus_busy += duration
        self.bus_log.append((int(start), int(self.bus_free), what))
        self.engine.at(int(self.bus_free), fn, arg)

    def _xfer_ns(self, nbytes: int) -> float:
        blocks = (nbytes + SDIO_BLOCK - 1) // SDIO_BLOCK
        return self.platform.sdio_xfer_ns + blocks * SDIO_BLOCK * 8 * 1e9 / self.platform.sdio_bps

    def bus_write(self, nbytes: int, obj: Any) -> None:
        self.bus_submit(self._xfer_ns(nbytes + HTC_HDR), self._bus_write_done, obj, "tx")

    def _bus_write_done(self, obj: Any) -> None:
        self._device_call("sdio_write", self.engine.now, "|ACK written")
        self.stack.ack_written(obj)

    def _sdio_irq_thread(self) -> None:
        """ath10k_sdio_irq_handler: start reading a bundle of the frames the firmware holds."""
        self.dev_advance(self.rec.t)
        self._sdio_read_next()

    def _sdio_read_next(self) -> None:
        n = min(len(self.fw_q), self.params["bundle"])
        if n == 0 or not self.dev_running:
            self.sdio_reading = False
            self.irq_on = True
            self.device_wake()
            return
        self.sdio_reading = True
        for _ in range(n):
            self.fw_q.popleft()
        per = ((self.params["mtu"] + 14 + HTC_HDR + SDIO_BLOCK - 1) // SDIO_BLOCK) * SDIO_BLOCK
        self.bus_submit(self.platform.sdio_xfer_ns + n * per * 8 * 1e9 / self.platform.sdio_bps,
                        self._sdio_read_done, n, f"rx bundle of {n}")

    def _sdio_read_done(self, n: int) -> None:
        if self.torn_down:          # the read finished after ifdown: the firmware's frames are dropped
            return
        """The bundle is in host memory: hand it to the RX work and read the next one at once."""
        self._device_call("sdio_read_bundle", self.engine.now, "|%d frames", n)
        self.proc_q.append(lambda: self._sdio_rx_bundle(n))
        self.kick()
        self.dev_advance(self.engine.now)
        self._sdio_read_next()

    def _sdio_rx_bundle(self, n: int):
        """The async RX work: allocate the skbs, then deliver (before) or queue for NAPI (after)."""
        length = self.params["mtu"] + 14
        bufs = [self.strategy.alloc() for _ in range(n)]
        if self.napi_polled:
            self.rx_ind.extend((b, length) for b in bufs)
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
        buf = Buf(self._ids, phys, sim.sdio_slab.obj_size, "", "", "skb")
        buf.head = sim.heads.alloc_slab()
        sim.rec.call("__netdev_alloc_skb", sim.platform.kmalloc_ns, "buf#%s|RX skb for one message", self._ids)
        return buf

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        self.sim.rec.call("skb_free_frag", self.sim.platform.kfree_ns, "buf#%s", buf.id)
        self.sim.sdio_slab.free(buf.phys)

