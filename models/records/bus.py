"""The records of the bus view: an SDIO or USB bus's latest transfers, and the scale to draw them at.

On SDIO the host moves every byte with CMD53 transfers, each paying a fixed
cost before any data moves. `BusRecord` holds the latest transfers (when,
which way, how many frames), the fixed cost, and the span a timeline of them
should cover: about three full bundles (the fixed cost plus a bundle of
MTU-sized frames at the bus's data rate), from the scenario rather than the
traffic, so the before and after variants side by side share one scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

ETH_HLEN = 14           # the Ethernet header each frame of a bundle carries (include/uapi/linux/if_ether.h)


class Transfer(NamedTuple):
    """One transfer on the bus."""
    start_ns: int
    end_ns: int
    kind: str               # "status" (the mailbox registers), "rx" (a bundle) or "tx" (an ACK)
    frames: int             # messages in an RX bundle


@dataclass(frozen=True, slots=True)
class BusRecord:
    bus: str                # "sdio", "usb" or "pcie"
    now_ns: int
    log: tuple[Transfer, ...]       # the latest transfers, oldest first
    xfer_ns: float          # the fixed cost of one transfer
    bundle_ns: float        # one full bundle: the fixed cost and `bundle` MTU-sized frames at the data rate


def bus_record(sim: Any) -> BusRecord:
    p = sim.platform
    prm = sim.params
    bundle_ns = p.sdio_xfer_ns + prm["bundle"] * (prm["mtu"] + ETH_HLEN) * 8e9 / p.sdio_bps
    return BusRecord(sim.bus, sim.now_ns, tuple(Transfer(x.start_ns, x.end_ns, x.kind, x.frames) for x in sim.bus_log),
                     p.sdio_xfer_ns, bundle_ns)
