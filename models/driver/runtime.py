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

What runs once a frame or once a poll is compiled with the API (models/driver/netdev.py:
DriverStrategy in the strategy's place, napi_poll() around the driver's poll); DriverSim
itself, an interpreted subclass of the model's Sim, only builds them and catches the stop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..rx_strategy import Strategy
from ..sim import Sim
from .dma_mapping import Device
from .host import Host
from .napi import Suspend
from .netdev import NetDriver, driver_strategy, napi_poll

if TYPE_CHECKING:  # pragma: no cover
    from ..ring import Ring

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
        self.driver_strategy: Callable[[DriverSim, Ring], Strategy] = driver_strategy
        super().__init__(values, seed=seed, trace=trace)
        if not self.napi_polled:
            raise ValueError("a driver of your own runs under NAPI (delivery: napi)")
        pools = self.host.pools
        self.pool = pools[0] if pools else None

    def _softirq_pending(self) -> bool:
        return not self.napi_stuck and super()._softirq_pending()

    def _poll(self) -> bool:
        """__napi_poll() around the driver's poll (models/driver/netdev.py napi_poll(); models/sim.py Sim._poll
        for the model's strategies)."""
        try:
            return napi_poll(self)
        except Suspend:
            return self._suspend(self._poll)
