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

from typing import TYPE_CHECKING, Any, ClassVar

from mypy_extensions import mypyc_attr

from .host import Host
from .napi import Napi, RxRing, TxRing

if TYPE_CHECKING:  # pragma: no cover
    from ..ring import Ring
    from ..sim import Sim
    from .dma_mapping import Device


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


def attach(sim: Sim, ring: Ring, driver: NetDriver) -> Host:
    """The host a driver runs on, with its rings and napi_struct set on the driver (before open()).
    Compiled code builds them: they are serializable native classes (models/driver/host.py)."""
    host = Host(sim)
    driver.rx_ring = RxRing(host, ring)
    driver.tx_ring = TxRing(host)
    driver.napi = host.napi = Napi(host)
    return host
