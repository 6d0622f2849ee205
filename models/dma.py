"""The streaming DMA API: dma-direct, SWIOTLB and the IOMMU, with a debug checker.

`map()` decides as `dma_map_phys()` and, with an IOMMU, `iommu_dma_map_phys()` do
(iommu_dma_map_page() before v6.18):
  - translated IOMMU: allocate an IOVA and map it; an untrusted device's
    buffer that is not aligned to the IOVA granule is first bounced through
    SWIOTLB, so the device cannot see the rest of the page;
  - swiotlb=force, or the buffer ends above the streaming mask: bounce through
    SWIOTLB, copying the whole buffer in at map time even for
    DMA_FROM_DEVICE (the kernel does, so unwritten bytes are not clobbered);
  - otherwise the bus address is the physical address; a non-coherent CPU
    pays cache maintenance per line unless DMA_ATTR_SKIP_CPU_SYNC.
`unmap()` copies the whole mapping back when it is called with DMA_FROM_DEVICE
or DMA_BIDIRECTIONAL (the direction passed decides, as in
swiotlb_tbl_unmap_single()) unless SKIP_CPU_SYNC, then frees the slots;
`sync_for_cpu()` copies `len` bytes.

The checker is what CONFIG_DMA_API_DEBUG would say: freeing a mapping twice,
with another direction or size, a bus address beyond the mask, a sync or a
device write past the end of a mapping, and the CPU reading a buffer it does
not own. Named faults (`faults`) switch off one piece of the driver's
discipline so the checker has something to report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .host_signals import HostSignals
    from .memory import PhysMem
    from .trace import Recorder

from .calls import CALL_ID as C
from .iommu import FQ_TIMEOUT_NS, Iommu
from .lifecycle import EDGE_ID as E
from .lifecycle import MACHINE, Tracked
from .memory import FOUR_GiB, copy_ps
from .scenario import Costs, Scenario
from .swiotlb import Swiotlb

TO_DEVICE: Final = "to_device"
FROM_DEVICE: Final = "from_device"
BIDIRECTIONAL: Final = "bidirectional"


def dir_name(dir: str) -> str:
    """A direction as the kernel prints it (dir2name in kernel/dma/debug.c): DMA_FROM_DEVICE."""
    return f"DMA_{dir.upper()}"

MAP_SINGLE: Final = C["dma_map_single"]
UNMAP_SINGLE: Final = C["dma_unmap_single"]
MAP_PAGE: Final = C["dma_map_page"]
UNMAP_PAGE: Final = C["dma_unmap_page"]
SYNC_CPU: Final = C["dma_sync_single_for_cpu"]
SYNC_DEV: Final = C["dma_sync_single_for_device"]
BOUNCE: Final = C["swiotlb_bounce"]
TBL_MAP: Final = C["swiotlb_tbl_map_single"]
TBL_UNMAP: Final = C["swiotlb_tbl_unmap_single"]
IOMMU_MAP: Final = C["iommu_map"]
IOMMU_UNMAP: Final = C["iommu_unmap"]
IOTLB_SYNC: Final = C["iotlb_sync"]
FQ_FLUSH: Final = C["fq_flush_iotlb"]
FQ_TIMEOUT_PS: Final = FQ_TIMEOUT_NS * 1000
SLOTS: Final = MACHINE["swiotlb_slot"]
IOVA: Final = MACHINE["iova"]
E_TBL_MAP: Final = E["swiotlb_tbl_map_single"]
E_BOUNCE: Final = E["swiotlb_bounce"]
E_TBL_UNMAP: Final = E["swiotlb_tbl_unmap_single"]
E_IOMMU_MAP: Final = E["iommu_map"]
E_IOMMU_UNMAP: Final = E["iommu_unmap"]
E_IOTLB_SYNC: Final = E["iotlb_sync"]
E_FQ_FLUSH: Final = E["fq_flush_iotlb"]


# The checker's messages as %-formats: Recorder.report() builds one only when the report is kept
# or traced, so a fault that fires every frame formats nothing past the first reports.
MAP_OBJ: Final = "map#%s"
DOUBLE_UNMAP: Final = ("DMA-API: device driver tries to free DMA memory it has not allocated "
                       "[device address=%#018x] [size=%s bytes]")
WRONG_SIZE: Final = ("DMA-API: device driver frees DMA memory with different size "
                     "[device address=%#018x] [map size=%s bytes] [unmap size=%s bytes]")
WRONG_DIR_UNMAP: Final = ("DMA-API: device driver frees DMA memory with different direction "
                          "[device address=%#018x] [size=%s bytes] [mapped with %s] [unmapped with %s]")
WRONG_DIR_SYNC: Final = ("DMA-API: device driver syncs DMA memory with different direction "
                         "[device address=%#018x] [size=%s bytes] [mapped with %s] [synced with %s]")
SYNC_NOT_ALLOCATED: Final = ("DMA-API: device driver tries to sync DMA memory it has not allocated "
                             "[device address=%#018x] [size=%s bytes]")
WROTE_BEYOND: Final = ("the device wrote %s bytes at offset %s of a %s-byte mapping "
                       "[device address=%#018x]: %s bytes past its end")
CPU_READ: Final = "CPU reads %s while the device still owns it (no dma_sync_single_for_cpu or dma_unmap first)"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Mapping:
    __slots__ = ("id", "dma", "phys", "size", "dir", "slot", "pages", "live", "cpu_owned", "kind", "bsize", "run",
                 "iova", "debug")

    def __init__(self, id: int, dma: int, phys: int, size: int, dir: str, slot: int, pages: int, kind: str):
        self.id = id
        self.dma = dma
        self.phys = phys
        self.size = size
        self.dir = dir
        self.slot = slot          # first SWIOTLB slot, or -1 when not bounced
        self.pages = pages        # IOVA pages, 0 without an IOMMU
        self.live = True
        self.cpu_owned = False
        self.kind = kind          # "single" or "page"
        self.bsize = size         # bytes of SWIOTLB slots held (granule-padded for untrusted devices)
        self.run: Tracked | None = None     # its SWIOTLB slots, in the swiotlb_slot machine
        self.iova: Tracked | None = None    # its IOVA range, in the iova machine
        self.debug = False        # a driver's dma-debug table holds it at its address (models/driver/host.py)

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.id, self.dma, self.phys, self.size, self.dir, self.slot, self.pages, self.live, self.cpu_owned,
                self.kind, self.bsize, self.run, self.iova, self.debug)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (self.id, self.dma, self.phys, self.size, self.dir, self.slot, self.pages, self.live, self.cpu_owned,
         self.kind, self.bsize, self.run, self.iova, self.debug) = state

    @property
    def bounced(self) -> bool:
        return self.slot >= 0


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class DmaApi:
    """The streaming DMA API of one device, and the policy that decides which path a map takes."""

    def __init__(self, sc: Scenario, rec: Recorder, costs: Costs, mem: PhysMem, signals: HostSignals,
                 faults: frozenset[str]) -> None:
        self.signals = signals
        self.rec = rec
        self.cost: Costs = costs
        p = sc.cost
        # An untrusted (external-facing) device forces a strict DMA domain, but only where there
        # is an IOMMU domain at all (iommu_get_default_domain_type() in drivers/iommu/iommu.c);
        # with the IOMMU off the device uses dma-direct and the flag changes nothing.
        untrusted = sc.untrusted
        iommu_mode = sc.iommu
        if untrusted and iommu_mode in ("lazy", "passthrough"):
            iommu_mode = "strict"      # no flush queue and no identity domain for untrusted devices
        self.iommu_mode = iommu_mode
        translated = iommu_mode in ("lazy", "strict")
        untrusted = untrusted and translated    # dev_use_swiotlb() bounces only inside dma-iommu
        # swiotlb_init(): the bounce pool exists when forced, or when some RAM is beyond a 32-bit
        # device's reach (or, behind an IOMMU, for untrusted devices' unaligned buffers)
        want_swiotlb = (sc.swiotlb == "force"
                        or (sc.swiotlb == "auto" and (untrusted or mem.max_addr > FOUR_GiB)))
        self.swiotlb: Swiotlb | None = None
        if want_swiotlb:
            self.swiotlb = Swiotlb(mem.memblock_alloc_low(sc.swiotlb_size, "SWIOTLB"), sc.swiotlb_size)
        self.iommu: Iommu | None = Iommu(strict=iommu_mode == "strict") if translated else None
        # the mask-violation fault: the driver claims 64 bits; the device still drives only its own
        self.lying = "mask-violation" in faults
        mask_bits = sc.dma_mask if not self.lying else 64
        self.mask = (1 << mask_bits) - 1 if mask_bits < 64 else (1 << 64) - 1
        self.untrusted = untrusted
        self.force_bounce = sc.swiotlb == "force"
        self.live: dict[int, Mapping] = {}
        self._ids = 0
        self.coherent = p.coherent
        self.cacheline = p.cacheline
        self.line_ps = self.cost.cache_line_op
        self.bounce_gbs = self.cost.swiotlb_gbs
        self.faults = faults
        self.real_mask = (1 << sc.dma_mask) - 1 if sc.dma_mask < 64 else (1 << 64) - 1
        self.fq: list[Tracked] = []       # lazy mode: IOVA ranges unmapped, waiting for the flush
        # CONFIG_DMA_API_DEBUG's console (kernel/dma/debug.c): every error counted in error_count,
        # only the first num_errors printed (show_num_errors, 1 at boot) unless all_errors is set
        self.debug_all = sc.dma_debug_all_errors
        self.debug_quota = self.debug_num = sc.dma_debug_num_errors
        self.error_count = 0
        self.errors_printed = 0
        self.read_fmts: dict[str, str] = {}     # cpu_read()'s message format for each `what` format

    # -- helpers -------------------------------------------------------------
    def debug_error(self, name: str, message: str, obj: str = "") -> None:
        """err_printk(): count the error; print it while num_errors lasts (or with all_errors)."""
        self.rec.violate(name, message, obj, self._err_printk())

    def _err_printk(self) -> bool:
        """err_printk()'s accounting: count the error; whether it is printed (num_errors left, or all_errors)."""
        self.error_count += 1
        printed = self.debug_all or self.debug_quota > 0
        if not self.debug_all and self.debug_quota > 0:
            self.debug_quota -= 1
        self.errors_printed += printed
        return printed

    def _debug_report(self, name: str, fmt: str, args: tuple[Any, ...], m: Mapping) -> None:
        """debug_error() about mapping m, its message fmt % args built only when kept or traced."""
        self.rec.report(name, fmt, args, MAP_OBJ, m.id, self._err_printk())

    def debug_state(self) -> dict[str, object]:
        """What /sys/kernel/debug/dma-api/ would show: the settings, error_count, and how many were printed."""
        return {"all_errors": self.debug_all, "num_errors": self.debug_num, "error_count": self.error_count,
                "printed": self.errors_printed}

    def _cache_maint(self, size: int) -> int:
        """Write back or invalidate `size` bytes line by line (non-coherent CPUs only)."""
        return ((size + self.cacheline - 1) // self.cacheline) * self.line_ps

    def _bounce(self, m: Mapping, nbytes: int, back: bool) -> None:
        rec = self.rec
        cost = rec.add(BOUNCE, copy_ps(nbytes, self.bounce_gbs))
        if rec.tracing:
            rec.emit(BOUNCE, cost, "map#%s|%s bytes %s",
                     (m.id, nbytes, "back to the original" if back else "to bounce buffer"))
        rec.bounce_bytes += nbytes
        sw = self.swiotlb
        assert sw is not None             # only a mapping with a slot bounces
        sw.bounced(m.phys, m.slot, nbytes, back)
        if m.run is not None:
            m.run.go(rec, E_BOUNCE)

    # -- map / unmap -----------------------------------------------------------
    def map(self, phys: int, size: int, dir: str, call: int = MAP_SINGLE,  # noqa: C901 (older than the complexity rule)
            skip_cpu_sync: bool = False) -> Mapping | None:
        rec = self.rec
        self._ids += 1
        mid = self._ids
        slot = -1
        pages = 0
        target = phys
        bsize = size
        rec.cnt[call] += 1
        rec.t += rec.unit[call]
        if rec.tracing:
            rec.emit(call, rec.unit[call], "map#%s|phys %#x len %s %s", (mid, phys, size, dir))
        if self.iommu is not None:
            if self.untrusted and ((phys | size) & 4095) and self.swiotlb is not None:
                # iommu_dma_map_swiotlb(): the bounce buffer is a whole IOVA granule, padded with
                # zeroes, so the device cannot see anything else in its page
                bsize = ((phys & 4095) + size + 4095) & ~4095
                slot = self._take_slots(bsize, mid)
                if slot < 0:
                    return None
                run = self._run(slot)
                target = self.swiotlb.addr(slot)
            dma, pages = self.iommu.map(target, size)
            cost = rec.add(IOMMU_MAP)
            if rec.tracing:
                rec.emit(IOMMU_MAP, cost, "map#%s|iova %#x pages %s", (mid, dma, pages))
            iova = Tracked(IOVA, "iova %#x", dma & ~4095)
            iova.go(rec, E_IOMMU_MAP)
        elif not self.force_bounce and phys + size - 1 <= self.mask:
            dma = phys                 # dma-direct: the bus address is the physical address
            if self.lying and phys + size - 1 > self.real_mask:
                self.signals.fault_hit("mask-violation")     # the true mask would have bounced it
        else:                          # forced, or the buffer ends beyond the mask: bounce it
            if self.swiotlb is not None and not self.lying:
                slot = self._take_slots(size, mid)
                if slot < 0:
                    return None
                run = self._run(slot)
                target = self.swiotlb.addr(slot)
            elif self.swiotlb is None and not self.lying:
                rec.warn("dma-mapping-error",
                         f"DMA addr {phys:#x}+{size} overflow (mask {self.mask:#x}) and no SWIOTLB")
                return None
            dma = target
        m = Mapping(mid, dma, phys, size, dir, slot, pages, "page" if call == MAP_PAGE else "single")
        m.bsize = bsize
        if pages:
            m.iova = iova
        if slot >= 0:
            m.run = run
            # The map-time copy happens for every direction (swiotlb_tbl_map_single).
            self._bounce(m, size, False)
        elif not skip_cpu_sync and not self.coherent:
            rec.charge(call, self._cache_maint(size))
        if pages == 0 and dma + size - 1 > self.mask:
            rec.violate("mask-violation",
                        f"bus address {dma:#x}+{size} is beyond the {self.mask.bit_length()}-bit streaming mask",
                        f"map#{mid}")
        self.live[mid] = m
        return m

    def _run(self, slot: int) -> Tracked:
        """The slots swiotlb_tbl_map_single() just took, as an object of the swiotlb_slot machine."""
        run = Tracked(SLOTS, "slot %d", slot)
        run.go(self.rec, E_TBL_MAP)
        return run

    def _take_slots(self, size: int, mid: int) -> int:
        sw = self.swiotlb
        assert sw is not None
        slot = sw.find(size)
        rec = self.rec
        cost = rec.add(TBL_MAP)
        if rec.tracing:
            rec.emit(TBL_MAP, cost, "map#%s|%s slot(s) at %s",
                     (mid, sw.slots_for(size), slot if slot >= 0 else "none: buffer is full"))
        if slot < 0:
            rec.warn("swiotlb-full",
                          f"swiotlb buffer is full (sz: {size} bytes), total {sw.nslabs} (slots), "
                          f"used {sw.used_slots} (slots)")
        return slot

    def unmap(self, m: Mapping, size: int, dir: str, call: int = UNMAP_SINGLE,  # noqa: C901 (older than the complexity rule)
              skip_cpu_sync: bool = False) -> None:
        rec = self.rec
        rec.cnt[call] += 1
        rec.t += rec.unit[call]
        if rec.tracing:
            rec.emit(call, rec.unit[call], "map#%s|dma %#x len %s %s", (m.id, m.dma, size, dir))
        if not m.live:
            self._debug_report("double-unmap", DOUBLE_UNMAP, (m.dma, size), m)
            return
        # check_unmap() reports the size first, then the direction, each with the device address
        if size != m.size:
            self._debug_report("wrong-size", WRONG_SIZE, (m.dma, m.size, size), m)
        if dir != m.dir:
            self._debug_report("wrong-direction", WRONG_DIR_UNMAP, (m.dma, size, dir_name(m.dir), dir_name(dir)), m)
        io = self.iommu
        if io is not None and m.pages:
            cost = rec.add(IOMMU_UNMAP)
            if rec.tracing:
                rec.emit(IOMMU_UNMAP, cost, MAP_OBJ, (m.id,))
            iova = m.iova
            assert iova is not None
            iova.go(rec, E_IOMMU_UNMAP)
            flush = io.unmap(m.dma, m.pages)
            if io.strict:
                cost = rec.add(IOTLB_SYNC)
                if rec.tracing:
                    rec.emit(IOTLB_SYNC, cost, "map#%s|strict: invalidate and wait", (m.id,))
                iova.go(rec, E_IOTLB_SYNC)
            else:
                self.fq.append(iova)
            if flush:
                self.flush_queue("")
            elif not io.strict and io.fq_deadline < 0:
                io.fq_deadline = rec.t + FQ_TIMEOUT_PS
                self.signals.arm_fq_timer(io.fq_deadline)
        if m.slot >= 0:
            # the direction passed to the unmap decides (swiotlb_tbl_unmap_single): FROM_DEVICE and
            # BIDIRECTIONAL copy back, TO_DEVICE does not, whatever the mapping was made with
            if dir != TO_DEVICE and not skip_cpu_sync:
                self._bounce(m, m.size, True)
            cost = rec.add(TBL_UNMAP)
            if rec.tracing:
                rec.emit(TBL_UNMAP, cost, MAP_OBJ, (m.id,))
            assert self.swiotlb is not None and m.run is not None
            m.run.go(rec, E_TBL_UNMAP)
            self.swiotlb.release(m.slot, m.bsize)
        elif not skip_cpu_sync and not self.coherent:
            rec.charge(call, self._cache_maint(size))
        m.live = False
        m.cpu_owned = True
        del self.live[m.id]

    def flush_queue(self, why: str) -> int:
        """Lazy mode: one IOTLB flush for every IOVA queued; they become reusable (fq_flush_iotlb)."""
        io = self.iommu
        assert io is not None
        n = io.flush_queue()
        rec = self.rec
        rec.call(FQ_FLUSH, -1, "|%s%s IOVAs freed", why, n)
        for iova in self.fq:
            iova.go(rec, E_FQ_FLUSH)
        self.fq.clear()
        return n

    # -- sync --------------------------------------------------------------------
    def _check_range(self, m: Mapping, offset: int, length: int) -> None:
        """A sync that runs past its mapping's end: check_sync() looks for an entry that contains the
        whole synced range (bucket_find_contain()), finds none, and reports what it looks up."""
        self._debug_report("sync-beyond-mapping", SYNC_NOT_ALLOCATED, (m.dma + offset, length), m)

    def _sync_unmapped(self, m: Mapping, length: int) -> None:
        """A sync of a mapping already unmapped: check_sync() finds no entry. Nothing is copied:
        swiotlb_bounce() finds no original address for a released slot (INVALID_PHYS_ADDR)."""
        self._debug_report("sync-unmapped", SYNC_NOT_ALLOCATED, (m.dma, length), m)

    def device_wrote_beyond(self, m: Mapping, offset: int, length: int, where: str, where_id: int = -1) -> None:
        """The device wrote offset+length bytes into a mapping of m.size: reported, never silent.
        `where` names the place, or is a %-format of the number where_id ("desc %s")."""
        self.rec.report("dma-beyond-mapping", WROTE_BEYOND, (length, offset, m.size, m.dma, offset + length - m.size),
                        where, None if where_id < 0 else where_id)

    def sync_for_cpu(self, m: Mapping, offset: int, length: int, dir: str | None = None) -> None:
        rec = self.rec
        rec.cnt[SYNC_CPU] += 1
        rec.t += rec.unit[SYNC_CPU]
        if rec.tracing:
            rec.emit(SYNC_CPU, rec.unit[SYNC_CPU], "map#%s|len %s", (m.id, length))
        if not m.live:
            self._sync_unmapped(m, length)
            return
        if offset + length > m.size:
            self._check_range(m, offset, length)    # no entry found: check_sync() checks nothing more
        # check_sync() accepts any direction on a BIDIRECTIONAL mapping
        elif dir is not None and dir != m.dir and m.dir != BIDIRECTIONAL:
            self._debug_report("wrong-direction", WRONG_DIR_SYNC,
                               (m.dma + offset, m.size, dir_name(m.dir), dir_name(dir)), m)
        if m.slot >= 0 and (dir or m.dir) != TO_DEVICE:
            self._bounce(m, length, True)
        elif not self.coherent:
            rec.charge(SYNC_CPU, self._cache_maint(length))
        m.cpu_owned = True

    def sync_for_device(self, m: Mapping, offset: int, length: int) -> None:
        rec = self.rec
        rec.cnt[SYNC_DEV] += 1
        rec.t += rec.unit[SYNC_DEV]
        if rec.tracing:
            rec.emit(SYNC_DEV, rec.unit[SYNC_DEV], "map#%s|len %s", (m.id, length))
        if not m.live:
            self._sync_unmapped(m, length)
            return
        if offset + length > m.size:
            self._check_range(m, offset, length)
        if m.slot >= 0 and m.dir != FROM_DEVICE:
            self._bounce(m, length, False)
        elif not self.coherent:
            rec.charge(SYNC_DEV, self._cache_maint(length))
        m.cpu_owned = False

    # -- checks --------------------------------------------------------------------
    def cpu_read(self, m: Mapping | None, what: str, what_id: int = -1) -> None:
        """The driver is about to read a buffer: it must own it (synced or unmapped).

        `what` names what it reads, or is a %-format of the number what_id ("the frame in buf#%s"):
        the message is built only when the report is kept or traced."""
        if m is not None and m.live and not m.cpu_owned:
            if what_id < 0:
                self.rec.report("no-sync-for-cpu", CPU_READ, (what,), MAP_OBJ, m.id)
            else:
                self.rec.report("no-sync-for-cpu", self._read_fmt(what), (what_id,), MAP_OBJ, m.id)

    def _read_fmt(self, what: str) -> str:
        """CPU_READ around a format `what` (one per call site, made once)."""
        fmt = self.read_fmts.get(what)
        if fmt is None:
            fmt = self.read_fmts[what] = CPU_READ % what       # CPU_READ's own text has no other %
        return fmt
