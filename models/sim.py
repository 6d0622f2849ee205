"""One simulated host receiving one flow: the NIC, the CPU and the kernel between them.

The CPU runs one unit of work at a time, by priority: a hard interrupt, then
the NET_RX softirq (a NAPI poll, one descriptor per unit), then process
context (a workqueue, or the socket reader when it shares the CPU). Each unit
is one entry on the event heap, so `step()` moves the model by one scheduling
point and a lesson can stop after any frame.

    irq -> napi_schedule -> napi_poll (budget 64): TX reclaim, then per frame
        receive + refill -> build_skb -> napi_gro_receive / netif_receive_skb
    -> napi_complete_done when fewer than budget (GRO flushed, SCHED cleared), then the
       driver unmasks its IRQ with its own call (bgmac_chip_intrs_on, enable_irq, ...)

On SDIO and USB there is no descriptor ring: the host reads RX bundles over
the bus, and TCP's ACKs are written back over the same bus.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from . import calls
from .calls import CALL_ID as C
from .dma import DmaApi
from .engine import Engine
from .host_signals import HostSignals, Work
from .iommu import Iommu
from .lifecycle import EDGE_ID as E
from .lifecycle import MACHINE, Tracked
from .link import Link
from .memory import PhysMem
from .metrics import metrics, state
from .nic import NICS
from .page_flip import PageFlip
from .page_pool import DEFER_TIME_PS
from .page_pool_frag import PagePoolFrag
from .pcie import PcieRing
from .per_frame import PerFrame
from .ring import Ring
from .rx_buffer import Buf, RxBuffers
from .rx_strategy import RxParts, Strategy
from .scenario import Costs, Scenario, unit_costs
from .sdio import SdioMailbox, Xfer
from .skb import SkbHeads
from .snapshot import clone
from .stack import Stack
from .swiotlb import Swiotlb
from .teardown import accounting, audit
from .trace import PS, Recorder
from .wire import Wire

FAULTS: Final = tuple(calls.FAULTS)
# The RX strategies a PCIe ring can run, by the scenario's `strategy`.
STRATEGIES: Final[dict[str, type[Strategy]]] = {"per-frame": PerFrame, "page-flip": PageFlip,
                                                 "page-pool": PagePoolFrag}
SIM_TIME_CAP_PS: Final = 600 * 10**12
STALL_EVENTS: Final = 200_000

NAPI: Final = MACHINE["napi"]
TASKLET: Final = MACHINE["tasklet"]
E_SCHEDULE: Final = E["napi_schedule"]
E_POLL: Final = E["napi_poll"]
E_COMPLETE: Final = E["napi_complete_done"]
E_EXHAUSTED: Final = E["repoll"]
E_T_SCHEDULE: Final = E["tasklet_schedule"]
E_T_ACTION: Final = E["tasklet_action"]
E_T_DONE: Final = E["tasklet_done"]
IRQ: Final = C["irq"]
NAPI_SCHEDULE: Final = C["napi_schedule"]
NAPI_POLL: Final = C["napi_poll"]
NAPI_COMPLETE: Final = C["napi_complete_done"]
TASKLET_SCHEDULE: Final = C["tasklet_schedule"]
TASKLET_ACTION: Final = C["tasklet_action"]
FQ_FLUSH: Final = C["fq_flush_iotlb"]
NAPI_DISABLE: Final = C["napi_disable"]
TASKLET_KILL: Final = C["tasklet_kill"]
RING_DEINIT: Final = C["ring_deinit"]
CONSUME: Final = C["consume_skb"]
E_NAPI_DISABLE: Final = E["napi_disable"]
E_TASKLET_KILL: Final = E["tasklet_kill"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Sim(HostSignals):
    """The host: one CPU (hard IRQ, softirq, process context, and a reader on another core),
    the kernel's memory, DMA API and stack, and the device's side of the link (`link`).

    It builds each part from the Scenario and the parts it works with, and keeps what is the
    host's: the CPU's scheduling (IRQ, softirq, NAPI, tasklet, process context, timers) and run
    control. The parts signal it through HostSignals (models/host_signals.py)."""

    def __init__(self, values: dict[str, Any] | None = None, *, seed: int = 0, trace: int = 0,
                 faults: tuple[str, ...] | list[str] = ()) -> None:
        self.sc = sc = Scenario.build(values)
        self.params = sc.as_dict()
        self.platform = p = sc.cost
        self.reader_same_cpu = p.reader_same_cpu      # read per skb: a native field, not the profile's attribute
        self.costs = costs = Costs.of(p)
        self.seed = seed
        self.faults = frozenset(faults)
        # How often each injected fault changed what the driver did: 0 means it has no effect on
        # this scenario (its code path never runs here), which `rxviz run` can say
        self.fault_hits: dict[str, int] = dict.fromkeys(faults, 0)
        self.rec = rec = Recorder(trace)
        for name, unit in unit_costs(costs).items():
            rec.unit[C[name]] = unit
        self.engine = Engine()
        self.mem = PhysMem(sc.ram, placement=sc.page_placement, dma32=sc.cost.zone_dma32)
        self.bus = sc.bus
        # the DMA API decides which path a map takes (dma-direct, SWIOTLB, the IOMMU)
        self.dma = DmaApi(sc, rec, costs, self.mem, self, self.faults)
        self.kernel = kernel = sc.kernel_version
        size, bulk, free_n = kernel.napi_skb_cache
        self.heads = SkbHeads(rec, costs, kernel, sc.napi_skb_cache_size or size, sc.napi_skb_cache_bulk or bulk,
                              sc.napi_skb_cache_free or free_n)
        rcvbuf = max(sc.window, 2 * sc.ring_size)
        self.wire = Wire(sc.traffic, sc.mtu, p.link_bps, sc.rate, p.rtt_ns, sc.window, rcvbuf, sc.ip)
        self.irq_delay = sc.rx_usecs * PS
        self.budget = sc.budget
        self.delivery = sc.delivery
        self.napi_added = sc.napi_added              # netif_napi_add() was called: ar->napi.dev set
        self.napi_polled = sc.napi_polled
        self.rx_dead = False          # the RX worker oopsed: nothing it would have done happens
        self.napi_api = sc.napi_api   # whether frames are handed to napi_gro_receive() (GRO's entry point)
        self.napi = Tracked(NAPI, "napi")
        self.tasklet = Tracked(TASKLET, "rx tasklet")
        self.defer_kick = False
        self.irq_on = True
        self.irq_pending = False
        self.dev_running = True
        self.torn_down = False
        self.final_metrics: dict[str, Any] | None = None
        self.cpu_free = 0
        self.cpu_queued = False
        self.app_free = 0
        self.app_queued = False
        self.proc_q: deque[Work] = deque()
        self.proc_reader_queued = False
        self.work = 0
        self.processed = 0       # frames the driver took off the ring / the bus (frame_taken)
        self.polls = 0
        self.poll_work: deque[int] = deque(maxlen=64)
        self.proc_rx_queued = False
        self.mark_state: dict[str, Any] | None = None
        self.stop_at = 1 << 62          # run_frames() stops the CPU here, between two frames
        self.suspended: Work | None = None      # where a stopped run carries on (run_frames)
        self.rng = random.Random(seed)  # the seeded source for randomness; nothing draws from it yet
        link: PcieRing | SdioMailbox
        if self.bus == "pcie":
            link = PcieRing(sc, rec, costs, self.mem, self.dma, self.wire, self, self.faults, self._new_strategy)
            self.pool = link.pool
            self.strategy: RxBuffers = link.strategy
        else:
            link = SdioMailbox(sc, rec, costs, self.mem, self.heads, self.engine, self.wire, self)
            self.pool = None
            self.strategy = link.strategy
        self.link: Link = link
        self.stack = stack = Stack(sc, rec, costs, kernel, self.mem, self.heads, self.dma, self.wire, link,
                                   self.strategy, self)
        link.connect(stack)
        link.fill()
        self.device_wake()
        # Set-up (filling the ring) happens before time 0: the clock and the metrics start here.
        # Its calls carry the set-up's own CPU time; setup_seq is the last of them.
        self.setup_seq = rec.calls_made()
        rec.begin("process", 0)
        self.mark()

    def _new_strategy(self, ring: Ring) -> Strategy:
        """The RX strategy a PCIe ring runs: the scenario's, or a driver of the API's (models/driver/runtime.py)."""
        make: Callable[[Sim, Ring], Strategy] | None = getattr(self, "driver_strategy", None)
        if make is not None:
            return make(self, ring)
        parts = RxParts(self.rec, self.costs, self.dma, self.mem, self.heads, self, self.faults)
        return STRATEGIES[self.sc.strategy](self.sc, parts, ring)

    @property
    def now_ns(self) -> int:
        """The event clock (what the device and the timers see), in ns."""
        return self.engine.now // PS

    @property
    def clock_ns(self) -> int:
        """The latest time the model has reached: the CPU can run ahead of the event clock in a poll."""
        return max(self.engine.now, self.rec.t) // PS

    @property
    def napi_state(self) -> str:
        return self.napi.state

    # ------------------------------------------------------------------ what views read
    @property
    def frames(self) -> int:
        """Frames that reached the NIC (or the firmware)."""
        return self.link.frames

    @property
    def dropped(self) -> int:
        """Frames lost: no free descriptor (rx_missed_errors), no replacement buffer, a driver's drop."""
        return self.link.dropped

    @dropped.setter
    def dropped(self, n: int) -> None:
        self.link.dropped = n        # a driver of the API (models/driver) counts its own drops

    @property
    def swiotlb(self) -> Swiotlb | None:
        return self.dma.swiotlb

    @property
    def iommu(self) -> Iommu | None:
        return self.dma.iommu

    @property
    def iommu_mode(self) -> str:
        return self.dma.iommu_mode

    @property
    def ring(self) -> Ring | None:
        return self.link.ring if isinstance(self.link, PcieRing) else None

    @property
    def ring_phys(self) -> int:
        return self.link.ring_phys

    @property
    def bus_log(self) -> Sequence[Xfer]:
        return self.link.log if isinstance(self.link, SdioMailbox) else ()

    @property
    def sdio(self) -> SdioMailbox:
        """The SDIO (or USB) bus; asking a PCIe device for it is an error, as it always was."""
        link = self.link
        if not isinstance(link, SdioMailbox):
            raise AttributeError(f"a {self.bus} device has no SDIO mailbox")
        return link

    @property
    def fw_q(self) -> deque[int]:
        return self.sdio.fw_q

    @property
    def rx_ind(self) -> deque[tuple[Buf, int]]:
        return self.sdio.rx_ind

    @property
    def proc_rx(self) -> deque[tuple[Buf, int]]:
        return self.sdio.proc_rx

    @property
    def sdio_reading(self) -> bool:
        return self.sdio.reading

    # ------------------------------------------------------------------ the device
    def device_wake(self) -> None:
        """Something changed (IRQ unmasked, an ACK or a read opened the window): when is the next interrupt?"""
        if not self.dev_running or not self.irq_on or self.irq_pending:
            return
        now = self.engine.now
        ta = self.link.next_irq(now)
        if ta is None:
            return
        self.irq_pending = True
        self.engine.at(max(ta + self.irq_delay, now), self._irq, None)

    def _irq(self, _: Any) -> None:
        self.irq_pending = False
        if not self.dev_running or not self.irq_on:
            return
        now = self.engine.now
        link = self.link
        link.advance(now)
        if not link.has_frames():
            self.device_wake()
            return
        rec = self.rec
        rec.begin("hardirq", max(now, self.cpu_free))
        rec.call(IRQ, -1, "|mask the RX interrupt")
        self.irq_on = False
        link.on_irq()
        self.cpu_free = rec.t
        self.kick()

    def schedule_rx(self) -> None:
        """The driver's bottom half for a ring: its NAPI, its tasklet, or its workqueue."""
        rec = self.rec
        if self.napi_polled:
            self.napi_schedule()
        elif self.delivery == "tasklet":
            if self.tasklet.st == 0:
                rec.call(TASKLET_SCHEDULE, 0, "rx tasklet|raise TASKLET_SOFTIRQ")
                self.tasklet.go(rec, E_T_SCHEDULE)
        elif not self.proc_rx_queued:
            self.proc_rx_queued = True
            self.proc_q.append(self.proc_rx_unit)

    def napi_schedule(self) -> None:
        if self.napi.state == "idle":
            self.rec.call(NAPI_SCHEDULE, 0, "napi|raise NET_RX_SOFTIRQ")
            self.napi.go(self.rec, E_SCHEDULE)

    # ------------------------------------------------------------------ the CPU
    def _softirq_pending(self) -> bool:
        return self.napi.state in ("scheduled", "polling") or self.tasklet.state in ("scheduled", "running")

    def kick(self) -> None:
        if self.cpu_queued:
            return
        if self._softirq_pending() or self.proc_q or self.defer_kick:
            self.cpu_queued = True
            self.engine.at(max(self.engine.now, self.cpu_free), self._cpu, None)

    def _cpu(self, _: Any) -> None:
        self.cpu_queued = False
        if self.torn_down:          # the queue is down: scheduled work is abandoned
            self.proc_q.clear()
            return
        rec = self.rec
        t = max(self.engine.now, self.cpu_free)
        napi = self.napi.state
        if napi == "scheduled" or napi == "polling":
            rec.begin("softirq", t)
            if not self._poll():
                return
        elif self.tasklet.state in ("scheduled", "running"):
            rec.begin("softirq", t)
            if not self._tasklet():
                return
        elif self.defer_kick:
            # net_rx_action() with no NAPI to poll: only skb_defer_free_flush() runs
            self.defer_kick = False
            rec.begin("softirq", t)
            self.stack.reader.defer_flush()
        elif self.proc_q:
            rec.begin("process", t)
            if self.proc_q.popleft()() is False:
                return
        else:
            return
        self.cpu_free = rec.t
        self.kick()

    def _suspend(self, resume: Work) -> bool:
        """Stop between two frames (a lesson step ends here); `resume` carries on exactly."""
        self.suspended = resume
        return False

    def resume(self) -> None:
        fn, self.suspended = self.suspended, None
        if fn is not None and fn() is not False:
            self.cpu_free = self.rec.t
            self.kick()

    def poll_starts(self) -> None:
        """net_rx_action() calls a scheduled NAPI's poll: it first flushes the skbs other CPUs freed back to
        this one, then __napi_poll() runs (the strategies' poll and a driver's, models/driver/netdev.py)."""
        self.defer_kick = False
        reader = self.stack.reader
        if reader.defer:
            reader.defer_flush()
        self.polls += 1
        self.work = 0
        self.rec.call(NAPI_POLL, -1, "napi|budget %s", self.budget)
        self.napi.go(self.rec, E_POLL)

    def _poll(self) -> bool:
        """One NAPI poll, from net_rx_action's call to napi_complete_done (or the budget)."""
        rec = self.rec
        budget = self.budget
        napi = self.napi
        stack = self.stack
        if napi.state == "scheduled":
            self.poll_starts()
            tx = stack.tx
            if tx.ring:
                tx.clean(budget, rec.t)
        link = self.link
        stop_at = self.stop_at          # run_frames() sets it before the CPU runs; nothing in a poll moves it
        work = self.work                # the poll's own count: nothing reads it while the driver cleans
        while work < budget:
            if self.processed >= stop_at:
                self.work = work
                return self._suspend(self._poll)
            if not link.rx_one(True):
                break
            work += 1
        self.work = work
        self.poll_work.append(work)
        if work < budget:
            gro = stack.gro
            gro.gro_flush()
            gro.gro_normal_list()
            rec.call(NAPI_COMPLETE, 0, "napi|work %s < budget %s: GRO flushed, NAPI_STATE_SCHED cleared",
                     self.work, budget)
            napi.go(rec, E_COMPLETE)
            self.link.rearm()
        else:
            napi.go(rec, E_EXHAUSTED)
            # __napi_poll(): with HZ >= 1000 only packets a jiffy old, otherwise everything
            gro = stack.gro
            gro.gro_flush(old_only=self.platform.hz >= 1000)
            gro.gro_normal_list()
        return True

    def _tasklet(self) -> bool:
        """One run of the driver's RX tasklet (ath_rx_tasklet): softirq, no NAPI, no GRO.

        It takes up to `tasklet_budget` completed descriptors, then the driver re-enables its
        interrupt; frames still waiting raise the next one.
        """
        rec = self.rec
        budget = self.sc.tasklet_budget
        if self.tasklet.state == "scheduled":
            self.polls += 1
            self.work = 0
            rec.call(TASKLET_ACTION, -1, "rx tasklet|up to %s frames", budget)
            self.tasklet.go(rec, E_T_ACTION)
        link = self.link
        while self.work < budget:
            if self.processed >= self.stop_at:
                return self._suspend(self._tasklet)
            if not link.rx_one(False):
                break
            self.work += 1
        self.poll_work.append(self.work)
        rec.call(C[NICS[self.sc.platform].irq_unmask or "irq_unmask"], 0,
                 "|%s frames: the driver re-enables its interrupt", self.work)
        self.tasklet.go(rec, E_T_DONE)
        self.irq_on = True
        self.device_wake()
        return True

    def frame_taken(self) -> None:
        self.processed += 1

    def fault_hit(self, name: str) -> None:
        """An injected fault just changed what the driver did (see fault_hits)."""
        self.fault_hits[name] += 1

    def pp_direct_ok(self) -> bool:
        """page_pool_napi_local() for a free happening now: the lockless cache may take the page.

        Only from v6.5 (skb frees), in softirq, with the pool's NAPI on this CPU's poll list
        (napi->list_owner: from napi_schedule to napi_complete_done).
        """
        return (self.kernel.pp_direct_from_skb_free and self.pool is not None and self.pool.napi
                and self.rec.ctx in ("softirq", "process") and self.napi.state in ("scheduled", "polling"))

    def kick_defer(self) -> None:
        """The reader's defer list reached half of skb_defer_max: an IPI raises NET_RX_SOFTIRQ here."""
        if not self.defer_kick:
            self.defer_kick = True
            self.kick()

    def proc_rx_unit(self) -> bool:
        """Delivery from process context (no NAPI): a workqueue drains what the device handed over."""
        link = self.link
        while not self.rx_dead:
            if self.processed >= self.stop_at:
                return self._suspend(self.proc_rx_unit)
            if not link.rx_one(False):
                break
        self.proc_rx_queued = False
        self.link.rearm()
        return True

    # ------------------------------------------------------------------ what the parts signal
    def irq_unmasked(self) -> None:
        self.irq_on = True
        self.device_wake()

    def queue_work(self, work: Work) -> None:
        self.proc_q.append(work)

    def rx_work_now(self) -> bool:
        if self.proc_rx_queued:
            return True
        self.proc_rx_queued = True
        return self.proc_rx_unit()

    def in_process(self, fn: Callable[[Any], None], arg: Any) -> None:
        rec = self.rec
        rec.begin("process", max(self.engine.now, self.cpu_free))
        fn(arg)
        self.cpu_free = rec.t

    def queue_stopped(self) -> bool:
        return self.torn_down or not self.dev_running

    def rx_oops(self) -> None:
        self.rx_dead = True

    def arm_delack(self, t: int) -> None:
        # armed 40 ms ahead every other segment: in time order (Engine.at_in_order)
        self.engine.at_in_order(t, self.delack_timer, None)

    def arm_fq_timer(self, t: int) -> None:
        self.engine.at(t, self.fq_timer, None)

    # ------------------------------------------------------------------ the socket reader
    def wake_reader(self) -> None:
        if self.reader_same_cpu:
            if not self.proc_reader_queued:
                self.proc_reader_queued = True
                self.proc_q.append(self._reader_unit)
                self.kick()
        elif not self.app_queued:
            self.app_queued = True
            # The reader can start once the skb is queued (rec.t), not when the poll began.
            self.engine.at(max(max(self.engine.now, self.rec.t), self.app_free), self._app, None)

    def _reader_unit(self) -> None:
        self.proc_reader_queued = False
        if self.stack.reader.read_one() and self.stack.sock.sockq:
            self.wake_reader()

    def _app(self, _: Any) -> None:
        self.app_queued = False
        rec = self.rec
        rec.begin("app", max(self.engine.now, self.app_free))
        self.stack.reader.read_one()
        self.app_free = rec.t
        if self.stack.sock.sockq:
            self.wake_reader()

    # ------------------------------------------------------------------ timers
    def delack_timer(self, _: Any) -> None:
        st = self.stack
        if self.torn_down or st.sock.delack_t < 0 or self.engine.now < st.sock.delack_t:
            return
        rec = self.rec
        rec.begin("softirq", max(self.engine.now, self.cpu_free))
        st.tx.send_ack()
        self.cpu_free = rec.t

    def fq_timer(self, _: Any) -> None:
        """fq_flush_timeout(): the 10 ms timer flushes whatever is queued, then disarms."""
        io = self.iommu
        if io is None or io.fq_deadline < 0 or self.engine.now < io.fq_deadline or self.torn_down:
            return
        io.fq_deadline = -1
        rec = self.rec
        rec.begin("softirq", max(self.engine.now, self.cpu_free))
        self.dma.flush_queue("timer: ")
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
        while self.processed < target and self.suspended is None and eng.now < SIM_TIME_CAP_PS and eng.step():
            if self.processed != last:
                last, idle = self.processed, 0
            else:
                idle += 1
                if idle > STALL_EVENTS:     # nothing reaches the driver (every map fails, say): stop
                    break
        self.stop_at = 1 << 62

    def run_until(self, call: str, count: int = 1, limit: int = 100_000, *, goal: int | None = None,
                  stop: int | None = None) -> bool:
        """Run frame by frame until `call` has happened `count` more times (or `limit` frames).

        `goal` (the call's count to reach) and `stop` (the frame count not to pass) replace
        count and limit when a caller runs one such run in two parts (LessonRun re-running
        a long step traces only its end): frame by frame, two parts are the same run.
        """
        cnt, cid = self.rec.cnt, C[call]
        goal = cnt[cid] + count if goal is None else goal
        stop = self.processed + limit if stop is None else stop
        while cnt[cid] < goal and self.processed < stop:
            before = (self.processed, self.engine.now, len(self.engine))
            self.run_frames(1)
            if (self.processed, self.engine.now, len(self.engine)) == before:
                break
        return cnt[cid] >= goal

    def snapshot(self) -> Sim:
        """An independent copy; running it gives exactly what running this one would."""
        return clone(self)

    # ------------------------------------------------------------------ ifdown
    def teardown(self, wait_ns: int = 61 * 1_000_000_000) -> None:
        """ifdown: stop the queue, free what the rings and queues hold, destroy the pool, wait, audit
        (the order and the audit: models/teardown.py)."""
        if self.torn_down:
            return
        rec = self.rec
        # Metrics describe the traffic, not the minute spent waiting for the pool afterwards.
        self.final_metrics = self.metrics()
        self.torn_down = True
        # after whatever the CPU was doing: a poll stopped between two frames has its clock at rec.t
        rec.begin("process", max(self.engine.now, self.cpu_free, rec.t))
        self.dev_running = False
        self.irq_on = False
        # Between two poll units the poll is abandoned, so every state ends disabled.
        if self.delivery == "tasklet":
            rec.call(TASKLET_KILL, 0, "rx tasklet")
            self.tasklet.go(rec, E_TASKLET_KILL)
        else:
            rec.call(NAPI_DISABLE, 0, "napi")
            self.napi.go(rec, E_NAPI_DISABLE)
        st = self.stack
        st.gro.gro_flush()
        budgeted = self.sc.tx_clean == "budgeted" or "leak-at-teardown" in self.faults
        rec.call(RING_DEINIT, 0, "tx|%s", "one budgeted pass" if budgeted else "free every buffer")
        if budgeted:
            st.tx.clean(self.budget, rec.t)
            if st.tx.ring and self.sc.tx_clean != "budgeted" and "leak-at-teardown" in self.faults:
                self.fault_hit("leak-at-teardown")      # the fault stranded what a full clean would free
        else:
            st.tx.clean(1 << 30, rec.t, everything=True)
        self.link.deinit()                  # the RX ring's buffers, or what the SDIO RX work still holds
        st.gro.gro_normal_list()            # what napi_disable() left on rx_list goes up first
        st.netif.egress_tx_complete()       # the egress NIC sends and completes the forwarded frames it holds
        sockq = st.sock.sockq
        while sockq:                        # the socket is closed: unread skbs are freed
            skb = sockq.popleft()
            rec.call(CONSUME, 0, "skb#%s|socket closed", skb.id)
            st.free.free_skb(skb, head="slab", allow_direct=False)
        st.reader.defer_flush()                    # the RX CPU's last net_rx_action takes the deferred frees
        pool = self.pool
        if pool is not None:
            if not pool.driver_owned:
                pool.destroy()
            if pool.destroyed and pool.inflight() > 0:      # page_pool_release_retry() runs only after destroy
                self.engine.at(rec.t + DEFER_TIME_PS, self._pool_retry, None)
        self.cpu_free = rec.t
        self.engine.run_until(rec.t + wait_ns * PS)
        audit(self.accounting(), self.dma, self.pool, budgeted, self.kernel.at_least(6, 18))

    def _pool_retry(self, _: Any) -> None:
        """page_pool_release_retry(): every second until the pool's pages are back."""
        rec = self.rec
        rec.begin("process", self.engine.now)
        assert self.pool is not None
        if self.pool.release_retry(self.engine.now):
            self.engine.at(self.engine.now + DEFER_TIME_PS, self._pool_retry, None)

    def accounting(self) -> dict[str, int]:
        """What is still held (models/teardown.py)."""
        return accounting(self.dma, self.pool, self.heads, self.stack, self.strategy)

    # ------------------------------------------------------------------ metrics
    def _state(self) -> dict[str, Any]:
        rec = self.rec
        now = self.engine.now
        return state(rec, self.link, self.stack, max(now, self.cpu_free, rec.t), now, self.processed)

    def mark(self) -> None:
        """The end of the warm-up: metrics() count from here (models/metrics.py)."""
        self.mark_state = self._state()

    def metrics(self) -> dict[str, Any]:
        if self.torn_down and self.final_metrics is not None:
            return dict(self.final_metrics)
        return metrics(self._state(), self.mark_state, self.wire.mss)
