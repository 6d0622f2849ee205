"""The driver: a class with the hooks a network driver has (struct net_device_ops and friends).

    probe(dev)            pci_driver.probe: set the DMA masks (before anything is mapped)
    open()                ndo_open: create the page_pool if any, fill the RX ring
    poll(napi, budget)    the NAPI poll: TX completion, at most `budget` frames, napi_complete_done
    stop()                ndo_stop: RX DMA stopped; give back every buffer, destroy the pool

The runtime sets, before open(): `self.dev` (struct device), `self.rx_ring`
(RxRing), `self.tx_ring` (TxRing) and `self.napi` (its napi_struct, as
netif_napi_add() made it). Everything else the driver keeps is its own: the
shadow arrays of what each descriptor holds, its page_pool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .dma_mapping import Device
    from .napi import Napi, RxRing, TxRing


class NetDriver:
    """Subclass it; the runtime calls the hooks. The defaults do nothing (a skeleton's starting point)."""

    name = "driver"
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
