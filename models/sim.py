"""One simulated host receiving one flow: the NIC, the CPU and the kernel between them.

The CPU runs one unit of work at a time, by priority: a hard interrupt, then
the NET_RX softirq (a NAPI poll, one descriptor per unit), then process
context (a workqueue, or the socket reader when it shares the CPU). Each unit
is one entry on the event heap, so `step()` moves the model by one scheduling
point and a lesson can stop after any frame.

    irq -> napi_schedule -> napi_poll (budget 64): TX reclaim, then per frame
        receive + refill -> build_skb -> napi_gro_receive / netif_receive_skb
    -> napi_complete_done when fewer than budget: GRO flush, IRQ unmasked

On SDIO and USB there is no descriptor ring: the host reads RX bundles over
the bus, and TCP's ACKs are written back over the same bus.
"""

from __future__ import annotations

import copy
import random
from collections import deque
from typing import Any

from . import calls, lifecycle, params as P
from .dma import DmaApi
from .engine import Engine
from .iommu import Iommu
from .scenario_checks import ScenarioError
from .kernel import Kernel, parse_version
from .memory import FOUR_GiB, PhysMem
from .ring import Ring
from .rxpath import STRATEGIES, PagePoolFrag, move
from .skb import SkbHeads
from .stack import Stack
from .swiotlb import Swiotlb
from .platform import make_platform
from .sdio import SdioBuffers, SdioHost
from .trace import Recorder
from .wire import Wire

FAULTS = tuple(calls.FAULTS)
SIM_TIME_CAP_NS = 600 * 1_000_000_000
STALL_EVENTS = 200_000


full_params = P.full


class Sim(SdioHost):
    def __init__(self, values: dict[str, Any] | None = None, *, seed: int = 0, trace: int = 0,
                 faults: tuple[str, ...] | list[str] = ()) -> None:
        self.params = prm = full_params(values)
        problems = P.check(prm)
        if problems:
            raise ScenarioError(problems)
        self.seed = seed
        self.faults = frozenset(faults)
        self.platform = p = make_platform(prm)
        self.rec = rec = Recorder(trace)
        self.engine = Engine()
        self.mem = PhysMem(prm["ram"], placement=prm["page_placement"])
        self.bus = prm["bus"]
        untrusted = prm["untrusted"]
        # An untrusted (external-facing) device forces a strict DMA domain, but only where there
        # is an IOMMU domain at all (iommu_get_default_domain_type() in drivers/iommu/iommu.c);
        # with the IOMMU off the device uses dma-direct and the flag changes nothing.
        iommu_mode = prm["iommu"]
        if untrusted and iommu_mode in ("lazy", "passthrough"):
            iommu_mode = "strict"      # no flush queue and no identity domain for untrusted devices
        self.iommu_mode = iommu_mode
        translated = iommu_mode in ("lazy", "strict")
        untrusted = untrusted and translated    # dev_use_swiotlb() bounces only inside dma-iommu
        want_swiotlb = (prm["swiotlb"] == "force"
                        or (prm["swiotlb"] == "auto" and (untrusted or self.mem.max_addr > FOUR_GiB)))
        self.swiotlb = None
        if want_swiotlb:
            size = prm["swiotlb_size"]
            self.swiotlb = Swiotlb(self.mem.memblock_alloc_low(size, "SWIOTLB"), size)
        self.iommu = Iommu(strict=iommu_mode == "strict") if translated else None
        self.dma = DmaApi(self, mask_bits=prm["dma_mask"] if "mask-violation" not in self.faults else 64,
                          swiotlb=self.swiotlb, iommu=self.iommu, untrusted=untrusted,
                          force_bounce=prm["swiotlb"] == "force")
        self.device_reach = (1 << min(prm["dma_mask"], 32 if "mask-violation" in self.faults else 64)) - 1
        # Only a driver that lies about its mask can make the device write beyond its reach.
        self.check_reach = "mask-violation" in self.faults
        self.kernel = kernel = Kernel(parse_version(prm["kernel"]))
        size, bulk, free_n = kernel.napi_skb_cache
        self.heads = SkbHeads(self, prm["napi_skb_cache_size"] or size, prm["napi_skb_cache_bulk"] or bulk,
                              prm["napi_skb_cache_free"] or free_n)
        # Coherent memory (descriptor rings) follows the coherent mask: ZONE_DMA32 when <= 32 bits.
        limit = FOUR_GiB if prm["coherent_mask"] <= 32 else None
        self.ring_phys = self.mem.alloc(1, limit=limit) if self.bus == "pcie" else -1
        self.ring = Ring(prm["ring_size"])
        rcvbuf = max(prm["window"], 2 * prm["ring_size"])
        self.wire = Wire(prm["traffic"], prm["mtu"], p.link_bps, prm["rate"], p.rtt_ns, prm["window"], rcvbuf)
        self.delivery = prm["delivery"]
        self.napi_added = prm["napi_added"]              # netif_napi_add() was called: ar->napi.dev set
        self.napi_polled = self.delivery == "napi" and self.napi_added
        self.rx_dead = False          # the RX worker oopsed: nothing it would have done happens
        # Whether frames are handed to napi_gro_receive() (GRO's entry point) at all.
        if self.platform.mac80211_ns > 0:
            rx_api = prm["mac80211_rx"]
            self.napi_api = rx_api == "ieee80211_rx_napi" or self.napi_polled
        else:
            self.napi_api = self.napi_polled
        self.napi_state = "idle"
        self.tasklet_state = "idle"
        self.defer_kick = False
        self.irq_on = True
        self.irq_pending = False
        self.dev_running = True
        self.torn_down = False
        self.final_metrics: dict[str, Any] | None = None
        self.cpu_free = 0.0
        self.cpu_queued = False
        self.app_free = 0.0
        self.app_queued = False
        self.proc_q: deque = deque()
        self.proc_reader_queued = False
        self.work = 0
        self.frames = 0          # frames that reached the NIC (or the firmware)
        self.processed = 0       # frames the driver took off the ring / the bus
        self.dropped = 0
        self.polls = 0
        self.poll_work: deque[int] = deque(maxlen=64)
        # SDIO / USB
        self.fw_q: deque[float] = deque()
        self.rx_ind: deque = deque()
        self.proc_rx: deque = deque()
        self.proc_rx_queued = False
        self.sdio_reading = False
        self.bus_free = 0.0
        self.bus_busy = 0.0
        self.bus_log: deque[tuple[int, int, str]] = deque(maxlen=64)
        self.mark_state: dict[str, Any] | None = None
        self.stop_at = 1 << 62          # run_frames() stops the CPU here, between two frames
        self.suspended = None
        self.strategy = STRATEGIES[prm["strategy"]](self) if self.bus == "pcie" else None
        self.pool = self.strategy.pool if isinstance(self.strategy, PagePoolFrag) else None
        self.stack = Stack(self)
        self._bufs = 0
        self.rng = random.Random(seed)
        self.driver_rx_ns = p.driver_rx_ns
        if self.strategy is not None:
            rec.ctx = "process"
            self.filling = True
            for d in self.ring.descs:
                if not self.strategy.fill(d):
                    break
            self.filling = False
        self.sdio_slab = None
        if self.bus != "pcie":
            from .memory import Slab
            self.sdio_slab = Slab(self.mem, prm["mtu"] + 64)
            self.strategy = SdioBuffers(self)
        self.device_wake()
        # Set-up (filling the ring) happens before time 0: the clock and the metrics start here.
        rec.t = 0.0
        self.mark()

    # ------------------------------------------------------------------ device side
    def _device_call(self, name: str, t: float, fmt: str = "", *args: Any) -> None:
        rec = self.rec
        saved_ctx, saved_t = rec.ctx, rec.t
        rec.ctx, rec.t = "device", t
        rec.call(name, 0.0, fmt, *args)
        rec.ctx, rec.t = saved_ctx, saved_t

    def dev_advance(self, t: float) -> None:
        """Bring the NIC up to time t: every frame that arrived lands in a descriptor or is dropped."""
        if not self.dev_running:
            return
        wire = self.wire
        if self.bus != "pcie":
            while True:
                ta = wire.next_arrival(t)
                if ta is None or ta > t:
                    return
                wire.take()
                self.frames += 1
                self.fw_q.append(ta)
        ring = self.ring
        length = self.params["mtu"] + 14
        while True:
            ta = wire.next_arrival(t)
            if ta is None or ta > t:
                return
            wire.take()
            self.frames += 1
            chain = ring.device_fill(length, int(ta))
            if chain is None:
                self.dropped += 1
                wire.on_drop()
                self._device_call("rx_dropped", ta, "|no free descriptor")
                continue
            for desc in chain:
                buf = desc.buf
                if buf.machine:
                    move(buf, "rx_frame")
                elif buf.page is not None:
                    move(buf.page, "rx_frame")
                m = buf.map
                if m is not None:
                    off = buf.offset if buf.page is not None else 0
                    if off + desc.len > m.size:
                        self.dma.device_wrote_beyond(m, off, desc.len, f"desc {desc.idx}")
                    if self.check_reach and m.dma + off + desc.len - 1 > self.device_reach:
                        self.rec.violate("mask-violation",
                                         f"device writes to bus address {m.dma:#x}, beyond the "
                                         f"{self.device_reach.bit_length()} address bits it drives",
                                         f"desc {desc.idx}")
                if self.rec.events is not None:
                    self._device_call("rx_frame", ta, "desc %d|%d bytes into buf#%d%s", desc.idx, desc.len, buf.id,
                                      "" if desc.eop else " (more descriptors follow)")
                else:
                    self.rec.counts["rx_frame"] += 1

    def device_wake(self) -> None:
        """Something changed (IRQ unmasked, an ACK or a read opened the window): when is the next interrupt?"""
        if not self.dev_running or not self.irq_on or self.irq_pending:
            return
        now = self.engine.now
        if self.bus == "pcie":
            first = self.ring.next_done()
            ta = first.t_done if first is not None else self.wire.next_arrival(now)
        elif self.sdio_reading:
            return
        else:
            ta = self.fw_q[0] if self.fw_q else self.wire.next_arrival(now)
        if ta is None:
            return
        self.irq_pending = True
        t_irq = -int(-(ta + self.params["rx_usecs"]) // 1)     # ceil: never before the frame
        self.engine.at(max(t_irq, now), self._irq, None)

    def _irq(self, _: Any) -> None:
        self.irq_pending = False
        if not self.dev_running or not self.irq_on:
            return
        now = self.engine.now
        self.dev_advance(now)
        if self.bus == "pcie" and self.ring.next_done() is None:
            self.device_wake()
            return
        if self.bus != "pcie" and not self.fw_q:
            self.device_wake()
            return
        rec = self.rec
        rec.ctx = "hardirq"
        rec.t = max(now, self.cpu_free)
        rec.call("irq", self.platform.hardirq_ns, "|mask the RX interrupt")
        self.irq_on = False
        if self.bus != "pcie":
            self.cpu_free = rec.t
            self.proc_q.append(self._sdio_irq_thread)
        elif self.napi_polled:
            self._napi_schedule()
            self.cpu_free = rec.t
        elif self.delivery == "tasklet":
            if self.tasklet_state == "idle":
                self.tasklet_state = lifecycle.step("tasklet", "idle", "tasklet_schedule")
                rec.call("tasklet_schedule", 0.0, "rx tasklet|raise TASKLET_SOFTIRQ")
            self.cpu_free = rec.t
        else:
            self.cpu_free = rec.t
            if not self.proc_rx_queued:
                self.proc_rx_queued = True
                self.proc_q.append(self._proc_rx_unit)
        self.kick()

    def _napi_schedule(self) -> None:
        if self.napi_state == "idle":
            self.napi_state = lifecycle.step("napi", self.napi_state, "napi_schedule")
            self.rec.call("napi_schedule", 0.0, "napi|raise NET_RX_SOFTIRQ")

    # ------------------------------------------------------------------ the CPU
    def kick(self) -> None:
        if self.cpu_queued:
            return
        if (self.napi_state in ("scheduled", "polling") or self.tasklet_state != "idle" or self.proc_q
                or self.defer_kick):
            self.cpu_queued = True
            self.engine.at(int(max(self.engine.now, self.cpu_free)), self._cpu, None)

    def _cpu(self, _: Any) -> None:
        self.cpu_queued = False
        if self.torn_down:          # the queue is down: scheduled work is abandoned
            self.proc_q.clear()
            return
        rec = self.rec
        rec.t = max(self.engine.now, self.cpu_free)
        if self.napi_state in ("scheduled", "polling"):
            rec.ctx = "softirq"
            if not self._poll():
                return
        elif self.tasklet_state != "idle":
            rec.ctx = "softirq"
            if not self._tasklet():
                return
        elif self.defer_kick:
            # net_rx_action() with no NAPI to poll: only skb_defer_free_flush() runs
            self.defer_kick = False
            rec.ctx = "softirq"
            self.stack.defer_flush()
        elif self.proc_q:
            rec.ctx = "process"
            if self.proc_q.popleft()() is False:
                return
        else:
            return
        self.cpu_free = rec.t
        self.kick()

    def _suspend(self, resume) -> bool:
        """Stop between two frames (a lesson step ends here); `resume` carries on exactly."""
        self.suspended = resume
        return False

    def resume(self) -> None:
        fn, self.suspended = self.suspended, None
        if fn is not None and fn() is not False:
            self.cpu_free = self.rec.t
            self.kick()

    def _poll(self) -> bool:
        """One NAPI poll, from net_rx_action's call to napi_complete_done (or the budget)."""
        rec = self.rec
        budget = self.params["budget"]
        if self.napi_state == "scheduled":
            # net_rx_action() flushes the skbs other CPUs freed back to this one before each poll
            self.defer_kick = False
            if self.stack.defer:
                self.stack.defer_flush()
            self.napi_state = lifecycle.step("napi", self.napi_state, "napi_poll")
            self.polls += 1
            self.work = 0
            rec.call("napi_poll", self.platform.napi_poll_ns, "napi|budget %s", budget)
            if self.stack.tx:
                self.stack.tx_clean(budget, rec.t)
        pcie = self.bus == "pcie"
        ring = self.ring
        descs = ring.descs
        wire = self.wire
        rx_desc = self._rx_desc
        while self.work < budget:
            if self.processed >= self.stop_at:
                rec.ctx = "softirq"
                return self._suspend(self._resume_poll)
            if pcie:
                if wire.next_t <= rec.t:          # a frame may have arrived (cheap test first)
                    self.dev_advance(rec.t)
                desc = descs[ring.clean_idx]
                if not desc.done:
                    break
                rx_desc(desc, True)
            elif self.rx_ind:
                buf, length = self.rx_ind.popleft()
                self._rx_buf(buf, length, True)
            else:
                break
            self.work += 1
        self.poll_work.append(self.work)
        if self.work < budget:
            self.stack.gro_flush()
            self.stack.gro_normal_list()
            self.napi_state = lifecycle.step("napi", self.napi_state, "napi_complete_done")
            rec.call("napi_complete_done", 0.0, "napi|work %s < budget %s: unmask the IRQ", self.work, budget)
            if pcie:
                self.irq_on = True
                self.device_wake()
        else:
            self.napi_state = lifecycle.step("napi", self.napi_state, "budget_exhausted")
            # __napi_poll(): with HZ >= 1000 only packets a jiffy old, otherwise everything
            self.stack.gro_flush(old_only=self.platform.hz >= 1000)
            self.stack.gro_normal_list()
        return True

    def _resume_poll(self) -> bool:
        self.rec.ctx = "softirq"
        return self._poll()

    def _tasklet(self) -> bool:
        """One run of the driver's RX tasklet (ath_rx_tasklet): softirq, no NAPI, no GRO.

        It takes up to `tasklet_budget` completed descriptors, then the driver re-enables its
        interrupt; frames still waiting raise the next one.
        """
        rec = self.rec
        budget = self.params["tasklet_budget"]
        if self.tasklet_state == "scheduled":
            self.tasklet_state = lifecycle.step("tasklet", "scheduled", "tasklet_action")
            self.polls += 1
            self.work = 0
            rec.call("tasklet_action", self.platform.napi_poll_ns, "rx tasklet|up to %s frames", budget)
        ring = self.ring
        descs = ring.descs
        while self.work < budget:
            if self.processed >= self.stop_at:
                return self._suspend(self._resume_tasklet)
            if self.wire.next_t <= rec.t:
                self.dev_advance(rec.t)
            desc = descs[ring.clean_idx]
            if not desc.done:
                break
            self._rx_desc(desc, False)
            self.work += 1
        self.poll_work.append(self.work)
        self.tasklet_state = lifecycle.step("tasklet", "running", "irq_unmask")
        rec.call("irq_unmask", 0.0, "|%s frames: the driver re-enables its interrupt", self.work)
        self.irq_on = True
        self.device_wake()
        return True

    def _resume_tasklet(self) -> bool:
        self.rec.ctx = "softirq"
        return self._tasklet()

    def _rx_desc(self, desc, in_napi: bool) -> None:
        """The driver cleans one frame: its descriptors up to end-of-packet, refilled as it goes."""
        self.rec.charge("napi_poll", self.driver_rx_ns)
        descs = self.ring.take_frame() if not desc.eop else [desc]
        if len(descs) == 1:
            self.ring.clean_idx = (self.ring.clean_idx + 1) % self.ring.size
        length = sum(d.len for d in descs)
        got, xdp = self.strategy.receive(descs)
        self.processed += 1
        if got is None:
            self.dropped += 1
            return
        data, frags = got
        if xdp:
            self.stack.xdp_tx(data, length)
            return
        skb = self.stack.build(data, frags, length, in_napi, self.pool is not None)
        self.stack.rx(skb, in_napi)

    def _rx_buf(self, buf, length: int, in_napi: bool) -> None:
        self.rec.charge("napi_poll", self.platform.driver_rx_ns)
        self.processed += 1
        skb = self.stack.build(buf, [], length, in_napi, False)
        self.stack.rx(skb, in_napi)

    def pp_direct_ok(self) -> bool:
        """page_pool_napi_local() for a free happening now: the lockless cache may take the page.

        Only from v6.5 (skb frees), in softirq, with the pool's NAPI on this CPU's poll list
        (napi->list_owner: from napi_schedule to napi_complete_done).
        """
        return (self.kernel.pp_direct_from_skb_free and self.pool is not None and self.pool.napi
                and self.rec.ctx in ("softirq", "process") and self.napi_state in ("scheduled", "polling"))

    def kick_defer(self) -> None:
        """The reader's defer list reached half of skb_defer_max: an IPI raises NET_RX_SOFTIRQ here."""
        if not self.defer_kick:
            self.defer_kick = True
            self.kick()

    def _proc_rx_unit(self):
        """Delivery from process context (no NAPI): a workqueue drains what the device handed over."""
        rec = self.rec
        pcie = self.bus == "pcie"
        while not self.rx_dead:
            if self.processed >= self.stop_at:
                return self._suspend(self._resume_proc)
            if pcie:
                self.dev_advance(rec.t)
                desc = self.ring.next_done()
                if desc is None:
                    break
                self._rx_desc(desc, False)
            elif self.proc_rx:
                buf, length = self.proc_rx.popleft()
                self._rx_buf(buf, length, False)
            else:
                break
        self.proc_rx_queued = False
        if pcie:
            self.irq_on = True
            self.device_wake()
        return True

    def _resume_proc(self):
        self.rec.ctx = "process"
        return self._proc_rx_unit()

    # ------------------------------------------------------------------ the socket reader
    def wake_reader(self) -> None:
        if self.platform.reader_same_cpu:
            if not self.proc_reader_queued:
                self.proc_reader_queued = True
                self.proc_q.append(self._reader_unit)
                self.kick()
        elif not self.app_queued:
            self.app_queued = True
            # The reader can start once the skb is queued (rec.t), not when the poll began.
            self.engine.at(-int(-max(self.engine.now, self.rec.t, self.app_free) // 1), self._app, None)

    def _reader_unit(self) -> None:
        self.proc_reader_queued = False
        if self.stack.read_one() and self.stack.sockq:
            self.wake_reader()

    def _app(self, _: Any) -> None:
        self.app_queued = False
        rec = self.rec
        rec.ctx = "app"
        rec.t = max(self.engine.now, self.app_free)
        self.stack.read_one()
        self.app_free = rec.t
        if self.stack.sockq:
            self.wake_reader()

    # ------------------------------------------------------------------ timers
    def delack_timer(self, _: Any) -> None:
        st = self.stack
        if self.torn_down or st.delack_t < 0 or self.engine.now < st.delack_t:
            return
        rec = self.rec
        rec.ctx = "softirq"
        rec.t = max(self.engine.now, self.cpu_free)
        st.send_ack()
        self.cpu_free = rec.t

    def fq_timer(self, _: Any) -> None:
        """fq_flush_timeout(): the 10 ms timer flushes whatever is queued, then disarms."""
        io = self.iommu
        if io is None or io.fq_deadline < 0 or self.engine.now < io.fq_deadline or self.torn_down:
            return
        io.fq_deadline = -1
        rec = self.rec
        rec.ctx = "softirq"
        rec.t = max(self.engine.now, self.cpu_free)
        n = io.flush_queue()
        rec.call("iommu_flush_queue", self.platform.iotlb_flush_all_ns, "|timer: %s IOVAs freed", n)
        self.cpu_free = rec.t

    # ------------------------------------------------------------------ running
    def run_frames(self, n: int) -> None:
        """Run until the driver has taken n more frames off the ring (or the bus)."""
        target = self.processed + n
        self.stop_at = target
        eng = self.engine
        if self.suspended is not None:
            self.resume()
        idle = 0
        last = self.processed
        while self.processed < target and self.suspended is None and eng.now < SIM_TIME_CAP_NS and eng.step():
            if self.processed != last:
                last, idle = self.processed, 0
            else:
                idle += 1
                if idle > STALL_EVENTS:     # nothing reaches the driver (every map fails, say): stop
                    break
        self.stop_at = 1 << 62

    def run_until(self, call: str, count: int = 1, limit: int = 100_000) -> bool:
        """Run frame by frame until `call` has happened `count` more times (or `limit` frames)."""
        counts = self.rec.counts
        goal = counts[call] + count
        stop = self.processed + limit
        while counts[call] < goal and self.processed < stop:
            before = (self.processed, self.engine.now, len(self.engine))
            self.run_frames(1)
            if (self.processed, self.engine.now, len(self.engine)) == before:
                break
        return counts[call] >= goal

    def snapshot(self) -> "Sim":
        """An independent copy; running it gives exactly what running this one would."""
        return copy.deepcopy(self)

    from .teardown import teardown, accounting  # noqa: E402  (methods defined in their own module)
    from .metrics import mark, metrics  # noqa: E402
