"""What a part may ask of the host: the calls that reach the CPU's scheduler.

The parts (the DMA API, the ring and its RX strategy, the SDIO bus, the
stack, ...) are built from the `Scenario` and the parts they work with; none
knows the `Sim`. When something they do concerns scheduling (the device may
raise its interrupt again, the reader has data, a timer is due, an injected
fault changed what the driver did), they say so through this interface,
which the Sim implements, the way a SimPy resource is given its
environment and not the simulation. A part never writes the host's state.

The class is a native base when compiled, so these calls go through a vtable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mypy_extensions import mypyc_attr

# A unit of process-context work (the SDIO IRQ thread, the RX work, the reader): False stops the CPU
# between two frames (a lesson step ends there), anything else lets it carry on.
Work = Callable[[], bool | None]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class HostSignals:
    """The host's side of every part (models/sim.py implements it)."""

    # -- the device and its interrupt ---------------------------------------------------
    def device_wake(self) -> None:
        """Something changed (an ACK or a read opened the window): when is the next interrupt?"""
        raise NotImplementedError

    def irq_unmasked(self) -> None:
        """The driver re-enabled its RX interrupt (with its own call, already recorded)."""
        raise NotImplementedError

    def frame_taken(self) -> None:
        """The driver took one frame off the ring or the bus (counted before the stack sees it)."""
        raise NotImplementedError

    def schedule_rx(self) -> None:
        """The hard IRQ handler hands over to the driver's bottom half (NAPI, tasklet or workqueue)."""
        raise NotImplementedError

    def napi_schedule(self) -> None:
        raise NotImplementedError

    def queue_work(self, work: Work) -> None:
        """Process-context work for the CPU (the caller kicks it, or the IRQ path does)."""
        raise NotImplementedError

    def kick(self) -> None:
        """The CPU has work: run it when it is free."""
        raise NotImplementedError

    def rx_work_now(self) -> bool:
        """The RX work delivers what is queued, now unless it is already queued (False: a step ended)."""
        raise NotImplementedError

    def in_process(self, fn: Callable[[Any], None], arg: Any) -> None:
        """Run fn(arg) in process context as soon as the CPU is free (an SDIO write's completion)."""
        raise NotImplementedError

    def queue_stopped(self) -> bool:
        """ifdown has begun: the queue is stopped, the device is not running."""
        raise NotImplementedError

    # -- the stack ------------------------------------------------------------------------
    def wake_reader(self) -> None:
        raise NotImplementedError

    def kick_defer(self) -> None:
        """The reader's defer list reached half of skb_defer_max: an IPI raises NET_RX_SOFTIRQ here."""
        raise NotImplementedError

    def pp_direct_ok(self) -> bool:
        """page_pool_napi_local() for a free happening now: the lockless cache may take the page."""
        raise NotImplementedError

    def rx_oops(self) -> None:
        """The RX worker oopsed: nothing it would have done happens any more."""
        raise NotImplementedError

    # -- timers -------------------------------------------------------------------------------
    def arm_delack(self, t: int) -> None:
        """TCP's delayed-ACK timer, due at t (ps)."""
        raise NotImplementedError

    def arm_fq_timer(self, t: int) -> None:
        """The IOMMU flush queue's timer, due at t (ps)."""
        raise NotImplementedError

    # -- faults -----------------------------------------------------------------------------
    def fault_hit(self, name: str) -> None:
        """An injected fault just changed what the driver did (Sim.fault_hits)."""
        raise NotImplementedError
