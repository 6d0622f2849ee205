"""An RX data area as the driver holds it: on a descriptor, then an skb's linear data or one of its frags.

`Buf` is one data area; `FlipPage` is a whole page that page-flip slices
(`Buf`s) are cut from; a page_pool fragment's page is a `models.page_pool.Page`.
`RxBuffers` is the base of whatever hands them out and takes them back (an RX
strategy on a descriptor ring, models/rx_strategy.py; SDIO's per-message skbs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

from .lifecycle import MACHINE, Machine, Stateful

if TYPE_CHECKING:  # pragma: no cover
    from .dma import Mapping
    from .page_pool import Page
    from .skb_head import Head

# Final: compiled, each is a C static rather than a lookup in the module's dict on every use.
RX_BUFFER: Final = MACHINE["rx_buffer"]
PP_FRAG: Final = MACHINE["pp_frag"]
FLIP_PAGE: Final = MACHINE["flip_page"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Buf(Stateful):
    """An RX data area: on a descriptor, then the linear data or one frag of an skb.

    kind says where it came from and so how it is freed and whether GRO may steal
    it as a frag (every kind but kmalloc is a page fragment: skb->head_frag).
    """
    __slots__ = ("id", "phys", "size", "map", "m", "page", "offset", "kind", "head", "posted")

    def __init__(self, id: int, phys: int, size: int, m: Machine | None, st: int, kind: str,
                 page: FlipPage | Page | None = None, offset: int = 0, map: Mapping | None = None) -> None:
        self.id = id
        self.phys = phys
        self.size = size
        self.map = map              # a slice of a page comes with the page's mapping
        self.m = m                  # its lifecycle machine, or None (a slice of a flip page, a header)
        self.st = st                # its state in m (m.sid), 0 when it has no machine
        self.page = page            # the page it is a slice or fragment of
        self.offset = offset
        self.kind = kind
        self.head: Head | None = None            # rx_alloc=skb: the sk_buff allocated with the buffer
        self.posted = False         # a driver's pool fragment: posted on a descriptor and not attached yet

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.id, self.phys, self.size, self.map, self.st, self.m, self.page, self.offset, self.kind, self.head,
                self.posted)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (self.id, self.phys, self.size, self.map, self.st, self.m, self.page, self.offset, self.kind, self.head,
         self.posted) = state

    @property
    def state(self) -> str:
        return self.m.states[self.st] if self.m is not None else ""

    @property
    def machine(self) -> str:
        return self.m.name if self.m is not None else ""

    def tag(self) -> str:
        return f"buf#{self.id}"



@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class FlipPage(Stateful):
    __slots__ = ("id", "phys", "order", "map", "refs", "off")
    m = FLIP_PAGE

    def __init__(self, id: int, phys: int, order: int) -> None:
        self.id = id
        self.phys = phys
        self.order = order
        self.map: Mapping | None = None
        self.refs = 1
        self.st = 0            # "buddy"
        self.off = 0

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.id, self.phys, self.order, self.map, self.refs, self.st, self.off)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.id, self.phys, self.order, self.map, self.refs, self.st, self.off = state

    @property
    def state(self) -> str:
        return FLIP_PAGE.states[self.st]

    @property
    def machine(self) -> str:
        return "flip_page"

    def tag(self) -> str:
        return f"page#{self.id}"



@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class RxBuffers:
    """The base of every RX strategy (and of SDIO's per-message skbs): where the driver's RX data
    areas come from; the stack gives each back here when it is done."""

    def free_buf(self, buf: Buf, allow_direct: bool) -> None:
        """A data area the stack is done with goes back where it came from."""
        raise NotImplementedError




Received = tuple[tuple[Buf, list[Buf]] | None, bool]
