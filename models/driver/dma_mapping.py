"""The streaming DMA API in the kernel's names, over the model's DMA API, SWIOTLB, IOMMU and checker.

Each function does what its kernel namesake does (include/linux/dma-mapping.h,
kernel/dma/mapping.c) on the model's parts (models/dma.py): dma-direct, a
SWIOTLB bounce when the buffer ends beyond the streaming mask, an IOVA when
an IOMMU translates. Addresses are dma_addr_t integers, as in the kernel; the
checker finds a mapping by its address as CONFIG_DMA_API_DEBUG does
(kernel/dma/debug.c: check_unmap(), check_sync()) and reports in its words.

Masks: dma_set_mask() and dma_set_coherent_mask() are what a driver calls in
probe, before anything is mapped or allocated coherently, so the model reads
them when it builds the host (models/driver/runtime.py); the functions here
check the value as dma_direct_supported() does on x86 without an IOMMU.
"""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from ..dma import BIDIRECTIONAL, FROM_DEVICE, MAP_PAGE, MAP_SINGLE, TO_DEVICE, UNMAP_PAGE, UNMAP_SINGLE, Mapping
from ..lifecycle import EDGE_ID as E
from ..lifecycle import MACHINE
from ..lifecycle import move as lifecycle_move
from ..rx_buffer import Buf
from .host import CPU, DMA_MAPPING_ERROR, NO_CPU, DriverBug, Host, move

# Final: compiled, each is a C static (a driver reads them every frame), not a lookup in a module's dict
DMA_TO_DEVICE: Final = TO_DEVICE
DMA_FROM_DEVICE: Final = FROM_DEVICE
DMA_BIDIRECTIONAL: Final = BIDIRECTIONAL
_DIRS: Final = (DMA_TO_DEVICE, DMA_FROM_DEVICE, DMA_BIDIRECTIONAL)
EIO: Final = 5
ENOMEM: Final = 12
E_MAP_SINGLE: Final = E["dma_map_single"]
E_UNMAP_SINGLE: Final = E["dma_unmap_single"]
E_SYNC_CPU: Final = E["dma_sync_single_for_cpu"]
E_MAP_PAGE: Final = E["dma_map_page"]
E_UNMAP_PAGE: Final = E["dma_unmap_page"]
E_RING_DEINIT: Final = E["ring_deinit"]
PP_FRAG: Final = MACHINE["pp_frag"]
FRAG_FILLED: Final = PP_FRAG.sid["filled"]


def DMA_BIT_MASK(n: int) -> int:
    """include/linux/dma-mapping.h: the mask of an n-bit bus address."""
    return (1 << 64) - 1 if n == 64 else (1 << n) - 1


def _bits(mask: int) -> int:
    return mask.bit_length()


def _check_dir(dir: Any) -> str:
    if dir not in _DIRS:
        raise DriverBug(f"direction {dir!r}: expected DMA_TO_DEVICE, DMA_FROM_DEVICE or DMA_BIDIRECTIONAL "
                        f"(BUG_ON(!valid_dma_direction(dir)) in dma_map_page_attrs)")
    return str(dir)


@mypyc_attr(native_class=False)
class Device:
    """struct device as the DMA API sees it: the streaming and coherent masks the driver set."""

    def __init__(self, name: str = "rxviz-nic") -> None:
        self.name = name
        self.dma_mask = DMA_BIT_MASK(32)          # the PCI core's default (pci_setup_device(), pci_device_add())
        self.coherent_dma_mask = DMA_BIT_MASK(32)
        self.mask_set = False
        self.coherent_set = False

    def __repr__(self) -> str:
        return f"<device {self.name}>"


def _supported(mask: int) -> bool:
    """kernel/dma/direct.c dma_direct_supported() on x86: a mask narrower than ZONE_DMA's 24 bits cannot be
    served (with an IOMMU, dma_supported() would take any mask)."""
    return mask >= DMA_BIT_MASK(24)


def dma_set_mask(dev: Device, mask: Any) -> int:
    """kernel/dma/mapping.c dma_set_mask(): the streaming mask, 0 or -EIO when dma_supported() says no."""
    if not isinstance(mask, int) or not _supported(mask):
        return -EIO
    dev.dma_mask = mask
    dev.mask_set = True
    return 0


def dma_set_coherent_mask(dev: Device, mask: Any) -> int:
    """kernel/dma/mapping.c dma_set_coherent_mask(): the mask for dma_alloc_coherent() memory (the rings)."""
    if not isinstance(mask, int) or not _supported(mask):
        return -EIO
    dev.coherent_dma_mask = mask
    dev.coherent_set = True
    return 0


def dma_set_mask_and_coherent(dev: Device, mask: Any) -> int:
    """include/linux/dma-mapping.h: both masks to the same value (the coherent one only if the first worked)."""
    rc = dma_set_mask(dev, mask)
    if rc == 0:
        dma_set_coherent_mask(dev, mask)
    return rc


def _data(ptr: Any) -> Any:
    """What a pointer names: an RX data area (Buf), or an skb's data (netdev_alloc_skb)."""
    data = getattr(ptr, "data", ptr)
    if not hasattr(data, "phys") or not hasattr(data, "st"):
        raise DriverBug(f"dma_map_single(): {type(ptr).__name__} is no buffer; map what netdev_alloc_frag(), "
                        f"netdev_alloc_skb() or kmalloc() returned")
    return data


def dma_map_single(dev: Device, ptr: Any, size: int, dir: Any, offset: int = 0) -> int:
    """include/linux/dma-mapping.h dma_map_single(): map size bytes at ptr+offset for the device.

    Returns the bus address, or DMA_MAPPING_ERROR (test it with dma_mapping_error()) when SWIOTLB is
    full or the IOMMU has no IOVA left. `offset` stands for the pointer arithmetic a C driver does
    (bgmac: buf + BGMAC_RX_BUF_OFFSET).
    """
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    buf = ptr if type(ptr) is Buf else _data(ptr)
    if buf is not ptr:                     # an skb: skb->data is past its NET_SKB_PAD of headroom
        offset += max(32, h.cacheline)
    m = h.dma.map(buf.phys + offset, size, dir if dir in _DIRS else _check_dir(dir), MAP_SINGLE)
    if m is None:
        return DMA_MAPPING_ERROR
    buf.map = m
    move(buf, E_MAP_SINGLE, h.rec)
    return h.remember(m, buf)


def dma_map_page(dev: Device, page: Any, offset: int, size: int, dir: Any) -> int:
    """include/linux/dma-mapping.h dma_map_page(): map a page (or part of it) for the device."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    m = h.dma.map(page.phys + offset, size, _check_dir(dir), MAP_PAGE)
    if m is None:
        return DMA_MAPPING_ERROR
    page.map = m
    move(page, E_MAP_PAGE)
    return h.remember(m, page)


def dma_mapping_error(dev: Device, dma_addr: Any) -> int:
    """include/linux/dma-mapping.h dma_mapping_error(): -ENOMEM for the error address, else 0."""
    return -ENOMEM if dma_addr == DMA_MAPPING_ERROR else 0


def _entry(dma_addr: Any, size: int, what: str, exact: bool = False) -> Mapping:
    """The dma-debug entry for an address; a stand-in that is not live when nothing was mapped there."""
    if not isinstance(dma_addr, int):
        raise DriverBug(f"{what}(): dma_addr must be the integer dma_map_single() returned, "
                        f"not {type(dma_addr).__name__}")
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    m = h.find(dma_addr, max(1, size), exact)
    if m is None:
        m = Mapping(0, dma_addr, 0, size, "", -1, 0, "single")
        m.live = False
    return m


def _unmap(dev: Device, dma_addr: Any, size: int, dir: Any, call: int, edge: int, what: str) -> None:
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    # check_unmap()'s exact lookup; _entry() says what is wrong when it finds nothing
    if type(dma_addr) is int:
        addr: int = dma_addr
        m = h.last_map if addr == h.last_addr else h.maps.get(addr)
    else:
        m = h.maps.get(dma_addr) if isinstance(dma_addr, int) else None
    if m is None:
        m = _entry(dma_addr, size, what, exact=True)
    was_live = m.live
    h.dma.unmap(m, size, dir if dir in _DIRS else _check_dir(dir), call)
    owner = h.owner.get(m.id)
    if was_live and owner is not None:
        # at ifdown a buffer the ring held is the driver's again as its unmap ends (PerFrame.deinit's order)
        if h.unposted and h.unposted.pop(m.id, None) is not None:
            edge = E_RING_DEINIT
        move(owner, edge, h.rec)


def dma_unmap_single(dev: Device, dma_addr: Any, size: int, dir: Any) -> None:
    """include/linux/dma-mapping.h dma_unmap_single(): the buffer is the CPU's again; size and dir must be
    those of the map (check_unmap() reports any difference, and an address not mapped)."""
    _unmap(dev, dma_addr, size, dir, UNMAP_SINGLE, E_UNMAP_SINGLE, "dma_unmap_single")


def dma_unmap_page(dev: Device, dma_addr: Any, size: int, dir: Any) -> None:
    """include/linux/dma-mapping.h dma_unmap_page()."""
    _unmap(dev, dma_addr, size, dir, UNMAP_PAGE, E_UNMAP_PAGE, "dma_unmap_page")


def _synced(h: Host, dma_addr: Any, offset: int, size: int, call: str) -> tuple[Mapping, int]:
    """The mapping a sync names and where in it [offset, offset+size) starts (check_sync() finds the entry
    containing the range); an address it cannot find gets the kernel's report (_entry)."""
    if type(dma_addr) is int:
        addr: int = dma_addr
        m = h.maps.get(addr)
        if m is None:
            m = _entry(addr, size, call)
        return m, offset + addr - m.dma if m.live else offset
    m = _entry(dma_addr, size, call)        # an int subclass (a bool), or the report
    return m, offset + (dma_addr - m.dma if m.live else 0)


def dma_sync_single_range_for_cpu(dev: Device, dma_addr: Any, offset: int, size: int, dir: Any) -> None:
    """include/linux/dma-mapping.h: give [offset, offset+size) of a mapping to the CPU (bounce it back,
    invalidate the cache lines) before reading what the device wrote."""
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    # check_sync() finds the entry containing the range; first the common case, inline: the address a map
    # returned just before (page_pool_get_dma_addr() of a pool page)
    m = h.last_map
    if m is not None and type(dma_addr) is int and dma_addr == h.last_addr:
        off = offset + h.last_addr - m.dma if m.live else offset
    else:
        m, off = _synced(h, dma_addr, offset, size, "dma_sync_single_for_cpu")
    h.dma.sync_for_cpu(m, off, size, dir if (dir is DMA_FROM_DEVICE or dir in _DIRS) else _check_dir(dir))
    if m.live:
        frag = h.rx_buf                # the pool fragment posted there: the one next_rx() handed, or another
        if frag is None or not frag.posted or frag.map is not m or frag.offset != off:
            frag = h.find_frag(m, off) if h.pools else None     # no page_pool: no pool fragment
        if frag is not None:
            if frag.st == FRAG_FILLED:      # written by the device, as it should be: its machine has the edge
                lifecycle_move(h.rec, PP_FRAG, frag, E_SYNC_CPU)
            else:
                move(frag, E_SYNC_CPU, h.rec)
            return
        owner = h.owner.get(m.id)
        if owner is not None:
            move(owner, E_SYNC_CPU, h.rec)


def dma_sync_single_for_cpu(dev: Device, dma_addr: Any, size: int, dir: Any) -> None:
    """include/linux/dma-mapping.h dma_sync_single_for_cpu()."""
    dma_sync_single_range_for_cpu(dev, dma_addr, 0, size, dir)


def dma_sync_single_range_for_device(dev: Device, dma_addr: Any, offset: int, size: int, dir: Any) -> None:
    """include/linux/dma-mapping.h: give [offset, offset+size) back to the device before it writes again."""
    if dir is not DMA_FROM_DEVICE and dir not in _DIRS:
        _check_dir(dir)
    h = CPU.host
    if h is None:
        raise DriverBug(NO_CPU)
    m = h.last_map
    if m is not None and type(dma_addr) is int and dma_addr == h.last_addr:
        off = offset + h.last_addr - m.dma if m.live else offset
    else:
        m, off = _synced(h, dma_addr, offset, size, "dma_sync_single_for_device")
    h.dma.sync_for_device(m, off, size)


def dma_sync_single_for_device(dev: Device, dma_addr: Any, size: int, dir: Any) -> None:
    """include/linux/dma-mapping.h dma_sync_single_for_device()."""
    dma_sync_single_range_for_device(dev, dma_addr, 0, size, dir)
