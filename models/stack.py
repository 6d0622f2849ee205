"""The host's network stack above the driver, as the parts it is made of.

Each part is a small module named for what it does, built here from the
`Scenario` and the parts it works with, once per Sim:

- `builder` (models/skb_build.py): build_skb() and its kin wrap what the driver received;
- `gro` (models/gro.py): napi_gro_receive(), the held chain, napi->rx_list;
- `netif` (models/netif_receive.py): netif_receive_skb() -> ip_rcv() -> tcp_v4_rcv() / udp_rcv() / ip_forward();
- `reader` (models/reader.py): tcp_recvmsg() / udp_recvmsg() and skb_attempt_defer_free();
- `tx` (models/tx.py): tcp_send_ack() and XDP_TX on the TX ring, and their completion;
- `free` (models/skb_free.py): skb_release_data() and the sk_buff's free, for all of them;
- `sock` (models/sock.py): the receiving socket's state they share.

The driver's side (models/pcie.py, models/sdio.py) calls the builder, GRO and TX;
the Sim's scheduling calls the reader, GRO's flush and TX's clean. None of the
parts knows the Sim: each signals the host through `HostSignals`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .dma import DmaApi
    from .host_signals import HostSignals
    from .kernel import Kernel
    from .link import Link
    from .memory import PhysMem
    from .rx_buffer import RxBuffers
    from .scenario import Costs, Scenario
    from .skb import SkbHeads
    from .trace import Recorder
    from .wire import Wire

from .gro import Gro
from .netif_receive import NetifReceive
from .reader import Reader
from .skb_build import SkbBuild
from .skb_free import SkbFree
from .sock import Sock
from .tx import Tx


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Stack:
    """The stack's parts, wired to each other once."""

    def __init__(self, sc: Scenario, rec: Recorder, costs: Costs, kernel: Kernel, mem: PhysMem, heads: SkbHeads,
                 dma: DmaApi, wire: Wire, link: Link, rx_buffers: RxBuffers, signals: HostSignals) -> None:
        self.sock = sock = Sock()
        self.free = free = SkbFree(rec, heads, rx_buffers)
        self.tx = tx = Tx(sc, rec, mem, heads, dma, wire, link, rx_buffers, sock, signals)
        self.netif = netif = NetifReceive(sc, rec, costs, wire, sock, free, tx, signals)
        self.gro = Gro(sc, rec, heads, kernel, wire.hdrs, netif, free, signals)
        self.reader = Reader(sc, rec, costs, kernel, wire, sock, free, signals)
        self.builder = SkbBuild(sc, rec, heads)
