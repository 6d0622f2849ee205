"""A PCIe NIC's side of the host: the RX descriptor ring the device fills and the driver cleans.

The device DMAs each arriving frame into the next descriptor it owns (one
or, for a jumbo frame, several) and marks it done; with none free it drops
the frame (`rx_missed_errors`). The driver's clean loop takes done descriptors
in order, hands each frame to its RX strategy (models/rx_strategy.py: how the
buffer is synced, unmapped or recycled and the descriptor refilled) and
builds the skb. TX (TCP's ACKs) goes out through a DMA-mapped TX ring.

Arrivals are computed lazily (models/wire.py): the ring is brought up to
date whenever the CPU looks at it, so the model needs no event per frame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

from .calls import CALL_ID as C
from .dma import MAP_SINGLE, TO_DEVICE
from .lifecycle import EDGE_ID as E
from .lifecycle import move
from .memory import FOUR_GiB
from .nic import NICS
from .ring import Ring

if TYPE_CHECKING:  # pragma: no cover
    from .dma import DmaApi, Mapping
    from .host_signals import HostSignals
    from .lifecycle import Tracked
    from .memory import PhysMem
    from .scenario import Costs, Scenario
    from .skb_head import Head
    from .stack import Stack
    from .trace import Recorder
    from .wire import Wire
from .link import Link
from .page_pool_frag import PagePoolFrag
from .rx_buffer import FLIP_PAGE, FlipPage
from .rx_strategy import Strategy

RX_FRAME: Final = C["rx_frame"]
RX_MISSED: Final = C["rx_missed_errors"]
NAPI_POLL: Final = C["napi_poll"]
E_RX_FRAME: Final = E["rx_frame"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PcieRing(Link):
    """The RX ring and its driver's clean loop; `strategy(ring)` makes the RX strategy that fills it.
    The stack it hands frames to is connected once both exist (`connect`)."""
    kind = "pcie"

    def __init__(self, sc: Scenario, rec: Recorder, costs: Costs, mem: PhysMem, dma: DmaApi, wire: Wire,
                 signals: HostSignals, faults: frozenset[str], strategy: Callable[[Ring], Strategy]) -> None:
        super().__init__()
        self.signals = signals
        self.rec = rec
        self.wire = wire
        self.dma = dma
        # Coherent memory (descriptor rings) follows the coherent mask: ZONE_DMA32 when <= 32 bits.
        self.ring_phys = mem.alloc(1, limit=FOUR_GiB if sc.coherent_mask <= 32 else None)
        self.ring = Ring(sc.ring_size, rec)
        self.frame_len = sc.mtu + 14
        self.driver_rx = costs.driver_rx
        self.strategy: Strategy = strategy(self.ring)
        self.pool = self.strategy.pool if isinstance(self.strategy, PagePoolFrag) else None
        self.pp = self.pool is not None         # the skbs it builds are marked for page_pool recycling
        self.stack: Stack | None = None
        # Only a driver that lies about its mask can make the device write beyond its reach.
        self.check_reach = "mask-violation" in faults
        self.device_reach = (1 << min(sc.dma_mask, 32 if self.check_reach else 64)) - 1
        # the driver's own call that unmasks its RX interrupt (a generic one for a platform without it)
        self.unmask = C[NICS[sc.platform].irq_unmask or "irq_unmask"]

    def connect(self, stack: Stack) -> None:
        """The stack the driver hands its skbs to (it is built after the ring, around it)."""
        self.stack = stack

    def fill(self) -> None:
        """ifup: the driver posts a buffer on every descriptor (or as many as it can map)."""
        self.strategy.fill_ring()
        self.ring.posted_at_start()    # all of it happens before the NIC starts receiving, at t=0

    # -- the device --------------------------------------------------------------------
    def advance(self, t: int) -> None:
        """Bring the NIC up to time t: every frame that arrived lands in a descriptor or is dropped.

        The frames that arrived back to back while the window stayed open are taken off the wire
        together (Wire.take_run) and written together (Ring.fill_run), up to the first that finds no
        descriptor. Traced, a frame at a time (_advance_each): a run stopped at any of its calls
        (models.call_cursor) leaves the ring as it was at that call."""
        rec = self.rec
        if rec.tracing:
            self._advance_each(t)
            return
        wire, ring = self.wire, self.ring
        length, ser = self.frame_len, wire.ser_ns
        bufs, lens, size = ring.bufs, ring.lens, ring.size       # the ring's arrays: the same objects throughout
        check_reach = self.check_reach
        # next_t only grows while the sender waits: past t, nothing more can have arrived by t
        while wire.next_t <= t and (n := wire.take_run(t, size)) > 0:
            self.frames += n
            ta = wire.run_t
            while n:
                i = ring.dev_idx
                if n > 1:
                    k = ring.fill_run(length, ta, ser, n)      # frames written
                    d = ring.written                           # the descriptors they took
                else:                                          # one frame: no loop to set up
                    d = ring.device_fill(length, ta)
                    k = 1 if d else 0
                rec.cnt[RX_FRAME] += d
                while d:
                    d -= 1
                    buf = bufs[i]
                    assert buf is not None            # fill_run writes only descriptors with a buffer
                    if buf.m is not None:
                        move(rec, buf.m, buf, E_RX_FRAME)
                    elif isinstance(buf.page, FlipPage):
                        move(rec, FLIP_PAGE, buf.page, E_RX_FRAME)
                    m = buf.map
                    off = buf.offset if buf.page is not None else 0
                    if m is not None and (check_reach or off + lens[i] > m.size):
                        self._check_write(m, off, lens[i], i)
                    i = i + 1 if i + 1 < size else 0
                if k == n:
                    break
                ta += k * ser                            # the next frame found no descriptor: dropped
                self.dropped += 1
                wire.on_drop()
                rec.device(RX_MISSED, ta, "|no free descriptor")
                n -= k + 1
                ta += ser

    def _advance_each(self, t: int) -> None:
        """advance() a frame at a time, each descriptor's line in the trace as it is written."""
        wire, ring, rec = self.wire, self.ring, self.rec
        length = self.frame_len
        bufs, lens, size = ring.bufs, ring.lens, ring.size       # the ring's arrays: the same objects throughout
        while (ta := wire.take_by(t)) >= 0:
            self.frames += 1
            first = ring.dev_idx
            k = ring.device_fill(length, ta)
            if not k:
                self.dropped += 1
                wire.on_drop()
                rec.device(RX_MISSED, ta, "|no free descriptor")
                continue
            i = first
            while k:                                  # the k descriptors the frame took
                k -= 1
                buf = bufs[i]
                assert buf is not None            # device_fill takes only descriptors with a buffer
                n = lens[i]
                rec.cnt[RX_FRAME] += 1
                rec.emit(RX_FRAME, 0, "desc %d|%d bytes into buf#%d%s",
                         (i, n, buf.id, "" if ring.eop[i] else " (more descriptors follow)"), ctx="device", t=ta)
                if buf.m is not None:
                    move(rec, buf.m, buf, E_RX_FRAME)
                elif isinstance(buf.page, FlipPage):
                    move(rec, FLIP_PAGE, buf.page, E_RX_FRAME)
                m = buf.map
                if m is not None:
                    self._check_write(m, buf.offset if buf.page is not None else 0, n, i)
                i = i + 1 if i + 1 < size else 0

    def _check_write(self, m: Mapping, off: int, n: int, i: int) -> None:
        """The device wrote n bytes at off into mapping m for descriptor i: past its end, or (a driver
        that lies about its mask) beyond the addresses the device can drive, it is reported."""
        if off + n > m.size:
            self.dma.device_wrote_beyond(m, off, n, "desc %d", i)
        if self.check_reach and m.dma + off + n - 1 > self.device_reach:
            self.rec.violate("mask-violation",
                             f"device writes to bus address {m.dma:#x}, beyond the "
                             f"{self.device_reach.bit_length()} address bits it drives",
                             f"desc {i}")

    def next_irq(self, now: int) -> int | None:
        """When the next RX interrupt is due: a frame already done, else the next arrival."""
        t = self.ring.next_done_t()
        return t if t is not None else self.wire.next_arrival(now)

    def has_frames(self) -> bool:
        return self.ring.next_done_t() is not None

    def on_irq(self) -> None:
        """The hard IRQ handler masked the interrupt: the driver's bottom half takes it from here."""
        self.signals.schedule_rx()

    def rearm(self) -> None:
        """The driver is done for now: it unmasks its RX interrupt with its own call."""
        self.rec.call(self.unmask, 0, "|the driver unmasks its RX interrupt")
        self.signals.irq_unmasked()

    # -- the driver's clean loop -----------------------------------------------------------
    def rx_one(self, in_napi: bool) -> bool:
        """Clean the next frame if the device has finished one; False when none is ready."""
        rec = self.rec
        if self.wire.next_t <= rec.t:          # a frame may have arrived (cheap test first)
            self.advance(rec.t)
        ring = self.ring
        i = ring.clean_idx
        if not ring.done[i]:
            return False
        # The driver cleans one frame: its descriptors up to end-of-packet, refilled as it goes.
        rec.extra[NAPI_POLL] += self.driver_rx
        rec.t += self.driver_rx
        if ring.eop[i]:
            descs = [i]
            ring.clean_idx = (i + 1) % ring.size
            length = ring.lens[i]
        else:
            descs = ring.take_frame()
            length = sum(ring.lens[j] for j in descs)
        got, xdp = self.strategy.receive(descs)
        self.signals.frame_taken()
        if got is None:
            self.dropped += 1
            return True
        data, frags = got
        stack = self.stack
        assert stack is not None
        if xdp:
            stack.tx.xdp_tx(data, length)
            return True
        stack.gro.rx(stack.builder.build(data, frags, length, in_napi, self.pp), in_napi)
        return True

    # -- TX -------------------------------------------------------------------------------
    def xmit(self, tx: Tracked, head: Head, data: int, nbytes: int) -> None:
        """An skb for the TX ring: mapped TO_DEVICE, reclaimed by the next poll's TX clean."""
        stack = self.stack
        assert stack is not None
        m = self.dma.map(data, nbytes, TO_DEVICE, MAP_SINGLE)
        if m is None:           # dma_mapping_error(): the driver drops the frame
            stack.tx.dropped(tx, head, data)
        else:
            stack.tx.posted(tx, head, data, m)

    # -- ifdown ------------------------------------------------------------------------------
    def deinit(self) -> None:
        """RX DMA is stopped before the buffers are taken back; every buffer goes back where it came from."""
        self.rec.call(C["ring_deinit"], 0, "rx")
        self.ring.stop()
        ring = self.ring
        for i in range(ring.size):
            if ring.bufs[i] is not None:
                ring.done[i] = 0
                self.strategy.deinit(i)
