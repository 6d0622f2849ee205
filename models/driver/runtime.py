"""Running a driver written with the API: the host it runs on, and NAPI's side of its poll.

`DriverSim` is the model's `Sim` with the driver in the place of the model's
RX strategy: the ring fill is the driver's open(), the NAPI poll its poll(),
the ring's release its stop(). What the kernel does around a driver stays the
model's: the interrupt, net_rx_action() and __napi_poll() (the budget, the
repoll when a poll used all of it, the message when a poll returns more than
its budget), the stack above napi_gro_receive(), the TX of TCP's ACKs, the
teardown audit.

The model stops between two frames (a lesson step, `--frames N`); a driver's
poll is a plain function, so the stop unwinds it (Suspend) and the poll is
called again with the budget it has left. TX completion then has nothing new
to reclaim, and napi_complete_done() counts the frames of both parts: a poll
written as the kernel's behaves as if it had never been stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..calls import CALL_ID as C
from ..lifecycle import EDGE_ID as E
from ..rx_strategy import Strategy
from ..sim import Sim
from .dma_mapping import Device
from .host import CPU, Host
from .napi import Suspend
from .netdev import NetDriver, attach

if TYPE_CHECKING:  # pragma: no cover
    from ..ring import Ring
    from ..rx_buffer import Buf

NAPI_POLL = C["napi_poll"]
E_POLL, E_EXHAUSTED, E_RING_DEINIT = E["napi_poll"], E["repoll"], E["ring_deinit"]


@contextmanager
def running(host: Host) -> Iterator[None]:
    """The driver's code runs on this host's CPU (this_cpu())."""
    CPU.enter(host)
    try:
        yield
    finally:
        CPU.leave()


class OwnAttributes:
    """For a subclass of one of the model's classes: its own attributes travel beside the class's.

    A snapshot is a pickle. The compiled model's classes (mypyc) pickle their own fields only,
    so a subclass's attributes (the driver, its device, the host) are given beside them;
    interpreted, the parent's state is this very __dict__ and the second part only repeats it.
    """

    def __getstate__(self) -> tuple[Any, dict[str, Any]]:
        parent = getattr(super(), "__getstate__", None)
        base = parent() if parent is not None else None
        return (base, dict(vars(self)))

    def __setstate__(self, state: tuple[Any, dict[str, Any]]) -> None:
        base, own = state
        parent = getattr(super(), "__setstate__", None)
        if parent is not None and base is not None and base is not own:
            parent(base)
        vars(self).update(own)


class DriverStrategy(OwnAttributes, Strategy):
    """Sits where the model's RX strategy sits (models/rx_strategy.py) and hands each duty to the driver.
    It does not run Strategy.__init__: it is a Strategy for the ring's calls only."""

    sim: DriverSim

    name = "driver"
    kind = "driver"

    def __init__(self, sim: DriverSim, ring: Ring) -> None:
        self.sim = sim
        sim.driver.dev = sim.device
        self.host = sim.host = attach(sim, ring, sim.driver)
        self.ring = ring
        self.slab = self.host.slabs          # what the teardown audit counts (rx_buffers_in_use)
        self.opened = self.stopped = False

    @property
    def frag(self) -> int:
        """The fragment size the driver carves pool pages into (the pool view reads the strategy's)."""
        if not self.host.frag:
            raise AttributeError("frag")          # none taken yet: the view falls back to whole pages
        return self.host.frag

    def fill(self, i: int) -> bool:
        """ifup: the driver's open() fills the ring itself, once."""
        if not self.opened:
            self.opened = True
            with running(self.host):
                self.sim.driver.open()
        return False

    def receive(self, descs: list[int]) -> Any:
        raise AssertionError("a driver of your own takes frames in its poll")

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        """An skb the stack is done with gives its data back where the driver got it (Host.give_back)."""
        self.host.give_back(buf, allow_direct)

    def deinit(self, i: int) -> None:
        """ifdown: the RX engine is stopped; every posted buffer is the driver's again; stop() frees them.

        Each buffer becomes the driver's where stop() gives it back, in the order the model's RX
        strategies have it: a buffer mapped for itself as its dma_unmap_single() ends (PerFrame.deinit),
        or as it is freed if stop() never unmaps it; a pool fragment as page_pool_put_full_page() begins
        (PagePoolFrag.deinit); what stop() keeps (a leak the audit reports) after stop()."""
        if self.stopped:
            return
        self.stopped = True
        from .host import move
        ring, host = self.ring, self.host
        for j in range(ring.size):
            buf = ring.bufs[j]
            if buf is not None:
                ring.done[j] = 0           # what the device wrote and nobody took (PcieRing.deinit does it per call)
                m = buf.map
                if buf.kind == "pp" and buf.page is not None:
                    host.unposted_frags.setdefault(buf.page.id, []).append(buf)
                elif m is not None and m.live:
                    host.unposted[m.id] = buf
                else:
                    with running(host):
                        move(buf, E_RING_DEINIT)
                ring.bufs[j] = None
        host.frags.clear()
        with running(host):
            self.sim.driver.stop()
            for buf in host.unposted.values():
                move(buf, E_RING_DEINIT)
            for frags in host.unposted_frags.values():
                for buf in frags:
                    move(buf, E_RING_DEINIT)
        host.unposted.clear()
        host.unposted_frags.clear()


class DriverSim(OwnAttributes, Sim):
    """The model's host with a driver of the API in the RX strategy's place (NAPI delivery only)."""

    host: Host

    def __init__(self, driver: NetDriver, values: dict[str, Any] | None = None, *, seed: int = 0,
                 trace: int = 0) -> None:
        self.driver = driver
        self.device = Device()
        self.probe_rc = driver.probe(self.device)
        self.napi_stuck = False
        self.over_budget: list[tuple[int, int]] = []       # (returned, budget) of polls that went over
        values = dict(values or {})
        values["dma_mask"] = self.device.dma_mask.bit_length()
        values["coherent_mask"] = self.device.coherent_dma_mask.bit_length()
        self.driver_strategy: Callable[[DriverSim, Ring], DriverStrategy] = DriverStrategy
        super().__init__(values, seed=seed, trace=trace)
        if not self.napi_polled:
            raise ValueError("a driver of your own runs under NAPI (delivery: napi)")
        pools = self.host.pools
        self.pool = pools[0] if pools else None

    def _softirq_pending(self) -> bool:
        return not self.napi_stuck and super()._softirq_pending()

    def _poll(self) -> bool:
        """__napi_poll() around the driver's poll (models/sim.py Sim._poll for the model's strategies)."""
        rec = self.rec
        budget = self.budget
        napi = self.napi
        stack = self.stack
        api = self.host.napi
        if napi.state == "scheduled":
            self.defer_kick = False
            if stack.reader.defer:
                stack.reader.defer_flush()
            self.polls += 1
            self.work = 0
            rec.call(NAPI_POLL, -1, "napi|budget %s", budget)
            napi.go(rec, E_POLL)
            api.tx_now = rec.t
            api.resumed = False
            api.taken = 0
            api.complete_calls = 0
        else:
            api.resumed = True
        api.base = self.work
        try:
            with running(self.host):
                ret = self.driver.poll(api, budget - self.work)
        except Suspend:
            return self._suspend(self._poll)
        if not isinstance(ret, int):
            ret = -1
        work = api.base + ret
        self.poll_work.append(self.work)
        if work > budget or self.work > budget:
            self.over_budget.append((max(work, self.work), budget))
        if napi.state == "idle":
            return True
        if work >= budget or self.work >= budget:
            napi.go(rec, E_EXHAUSTED)
            stack.gro.gro_flush(old_only=self.platform.hz >= 1000)
            stack.gro.gro_normal_list()
        else:
            # Fewer than budget and no napi_complete_done(): NAPI_STATE_SCHED stays set, nothing polls it
            # again and the interrupt stays masked. RX stops.
            self.napi_stuck = True
        return True
