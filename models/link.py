"""The device's side of the host, as the Sim and the stack see it: a PCIe ring or an SDIO/USB bus.

`Link` is what the host schedules (when is the next interrupt, take one
frame), and what the stack transmits through. It is a native base when
compiled, so the per-frame calls go through a vtable.

The link counts what the device saw, as a driver's net_device statistics do:
`frames` arrived at the NIC (or the firmware), `dropped` were lost (no free
descriptor, no replacement buffer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .lifecycle import Tracked
    from .skb_head import Head


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Link:
    kind = ""

    def __init__(self) -> None:
        self.frames = 0          # frames that reached the NIC (or the firmware)
        self.dropped = 0         # frames lost: no free descriptor, or no replacement buffer
        self.ring_phys = -1      # the descriptor ring's coherent memory (-1: no ring)

    def fill(self) -> None:
        """ifup: the driver posts its RX buffers."""
        raise NotImplementedError

    def advance(self, t: int) -> None:
        """Bring the device up to time t: every frame that arrived by then is taken in (or dropped)."""
        raise NotImplementedError

    def next_irq(self, now: int) -> int | None:
        """When the next RX interrupt is due, or None."""
        raise NotImplementedError

    def has_frames(self) -> bool:
        raise NotImplementedError

    def on_irq(self) -> None:
        """The hard IRQ handler masked the interrupt: the driver's bottom half takes it from here."""
        raise NotImplementedError

    def rearm(self) -> None:
        """The driver is done for now."""
        raise NotImplementedError

    def rx_one(self, in_napi: bool) -> bool:
        """Deliver the next frame the driver can take; False when none is ready."""
        raise NotImplementedError

    def xmit(self, tx: Tracked, head: Head, data: int, nbytes: int) -> None:
        """An skb (TCP's ACK) for the device."""
        raise NotImplementedError

    def deinit(self) -> None:
        """ifdown: every RX buffer goes back where it came from."""
        raise NotImplementedError
