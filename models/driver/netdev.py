"""The driver: a class with the hooks a network driver has (struct net_device_ops and friends).

    probe(dev)            pci_driver.probe: set the DMA masks (before anything is mapped)
    open()                ndo_open: create the page_pool if any, fill the RX ring
    poll(napi, budget)    the NAPI poll: TX completion, at most `budget` frames, napi_complete_done
    stop()                ndo_stop: RX DMA stopped; give back every buffer, destroy the pool

The runtime sets, before open(): `self.dev` (struct device), `self.rx_ring`
(RxRing), `self.tx_ring` (TxRing) and `self.napi` (its napi_struct, as
netif_napi_add() made it). Everything else the driver keeps is its own: the
shadow arrays of what each descriptor holds, its page_pool.

`NetDriver` is a native class of the compiled build (mypyc): the model's own
drivers (models/drivers/) subclass it there and their hooks call the API's
functions natively; a learner's driver subclasses it from interpreted code.
A snapshot pickles a driver: the state is the native fields of every class
in its MRO plus, for an interpreted subclass, its own __dict__ (mypyc's
generated pickling would drop the latter).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from ..lifecycle import EDGE_ID as E
from ..page_pool import Page
from ..rx_strategy import Strategy
from .host import CPU, Host, move
from .napi import Napi, RxRing, TxRing

if TYPE_CHECKING:  # pragma: no cover
    from ..ring import Ring
    from ..rx_buffer import Buf
    from ..sim import Sim
    from .dma_mapping import Device

E_RING_DEINIT: Final = E["ring_deinit"]
E_EXHAUSTED: Final = E["repoll"]


@mypyc_attr(allow_interpreted_subclasses=True)
class NetDriver:
    """Subclass it; the runtime calls the hooks. The defaults do nothing (a skeleton's starting point)."""

    name: ClassVar[str] = "driver"
    dev: Device
    rx_ring: RxRing
    tx_ring: TxRing
    napi: Napi

    def probe(self, dev: Device) -> int:
        """Set the streaming and coherent DMA masks; 0 or a negative errno."""
        return 0

    def open(self) -> None:
        """Post a buffer on every RX descriptor (stop at the first that cannot be allocated or mapped)."""

    def poll(self, napi: Napi, budget: int) -> int:
        """The NAPI poll: return the number of RX frames handled (never more than budget)."""
        return 0

    def stop(self) -> None:
        """The RX engine is stopped and every descriptor is the driver's again: free what they hold."""

    def __getstate__(self) -> dict[str, Any]:
        state: dict[str, Any] = dict(getattr(self, "__dict__", {}))
        for name in getattr(type(self), "__mypyc_attrs__", ()):
            if name != "__dict__" and hasattr(self, name):
                state[name] = getattr(self, name)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)


@mypyc_attr(serializable=True)
class DriverStrategy(Strategy):
    """Sits where the model's RX strategy sits (models/rx_strategy.py) and hands each duty to the driver.
    It does not run Strategy.__init__: it is a Strategy for the ring's calls only.

    A native class of the compiled build, built by compiled code only (driver_strategy()): the stack
    gives every freed RX data area back through free_buf(), once a frame, at native speed.
    `sim` is the runtime's DriverSim (models/driver/runtime.py), which holds the driver."""

    name = "driver"
    kind = "driver"

    def __init__(self, sim: Any, ring: Ring) -> None:
        self.sim = sim
        driver: NetDriver = sim.driver
        driver.dev = sim.device
        self.host = attach(sim, ring, driver)
        sim.host = self.host
        self.ring = ring
        self.slab = self.host.slabs          # what the teardown audit counts (rx_buffers_in_use)
        self.opened = False
        self.stopped = False

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
            driver: NetDriver = self.sim.driver
            CPU.enter(self.host)
            try:
                driver.open()
            finally:
                CPU.leave()
        return False

    def receive(self, descs: list[int]) -> Any:
        raise AssertionError("a driver of your own takes frames in its poll")

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        """An skb the stack is done with gives its data back where the driver got it: a pool fragment to the
        pool its page came from (napi_pp_put_page(): page->pp), anything else to its slab (Host.give_back)."""
        if buf.kind == "pp":
            page = buf.page
            if type(page) is Page:
                pool = page.pp
                if pool is not None:
                    pool.put_frag(page, allow_direct)
                    return
            raise AssertionError("a fragment of no pool")
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
        ring = self.ring
        host = self.host
        for j in range(ring.size):
            buf = ring.bufs[j]
            if buf is not None:
                ring.done[j] = 0           # what the device wrote and nobody took (PcieRing.deinit does it per call)
                m = buf.map
                page = buf.page
                if buf.kind == "pp" and page is not None:
                    host.unposted_frags.setdefault(page.id, []).append(buf)
                elif m is not None and m.live:
                    host.unposted[m.id] = buf
                else:
                    CPU.enter(host)
                    try:
                        move(buf, E_RING_DEINIT)
                    finally:
                        CPU.leave()
                ring.bufs[j] = None
        host.rx_buf = None
        host.taken.clear()
        driver: NetDriver = self.sim.driver
        CPU.enter(host)
        try:
            driver.stop()
            for buf in host.unposted.values():
                move(buf, E_RING_DEINIT)
            for frags in host.unposted_frags.values():
                for buf in frags:
                    move(buf, E_RING_DEINIT)
        finally:
            CPU.leave()
        host.unposted.clear()
        host.unposted_frags.clear()


def napi_poll(sim: Any) -> bool:
    """__napi_poll() around the driver's poll: the body of DriverSim._poll (models/driver/runtime.py), which
    catches the Suspend of a run stopped between two frames. Compiled, the Sim's fields are read natively;
    `sim` is the DriverSim, whose own attributes (the driver, napi_stuck, over_budget) are read as Python's."""
    s: Sim = sim
    rec = s.rec
    budget = s.budget
    napi = s.napi
    stack = s.stack
    host: Host = sim.host
    api: Napi = host.napi
    if napi.state == "scheduled":
        s.poll_starts()
        api.tx_now = rec.t
        api.resumed = False
        api.complete_calls = 0
    else:
        api.resumed = True
    api.base = s.work
    driver: Any = sim.driver          # a learner's poll may return anything: it is checked below, not unboxed
    CPU.enter(host)
    try:
        got = driver.poll(api, budget - s.work)
    finally:
        CPU.leave()
    ret: int = got if isinstance(got, int) else -1
    work = api.base + ret
    s.poll_work.append(s.work)
    if work > budget or s.work > budget:
        sim.over_budget.append((max(work, s.work), budget))
    if napi.state == "idle":
        return True
    if work >= budget or s.work >= budget:
        napi.go(rec, E_EXHAUSTED)
        stack.gro.gro_flush(old_only=s.platform.hz >= 1000)
        stack.gro.gro_normal_list()
    else:
        # Fewer than budget and no napi_complete_done(): NAPI_STATE_SCHED stays set, nothing polls it
        # again and the interrupt stays masked. RX stops.
        sim.napi_stuck = True
    return True


def driver_strategy(sim: Any, ring: Ring) -> Strategy:
    """The strategy of a DriverSim's ring (Sim._new_strategy calls it), made here in compiled code."""
    return DriverStrategy(sim, ring)


def attach(sim: Sim, ring: Ring, driver: NetDriver) -> Host:
    """The host a driver runs on, with its rings and napi_struct set on the driver (before open()).
    Compiled code builds them: they are serializable native classes (models/driver/host.py)."""
    host = Host(sim)
    host.ring = ring
    driver.rx_ring = RxRing(host, ring)
    driver.tx_ring = TxRing(host)
    driver.napi = host.napi = Napi(host)
    return host
