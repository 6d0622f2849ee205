"""The application reading its socket, and how the skbs it read are freed.

- tcp_recvmsg() / udp_recvmsg(): one skb's data copied to user space.
- tcp_eat_recv_skb() (and skb_consume_udp() from v6.18) free the skb with
  skb_attempt_defer_free() (v5.19+): back to the CPU that allocated it, which
  frees it in its next net_rx_action with napi_consume_skb()
  (skb_defer_free_flush); on the same CPU at once, to the NAPI cache from
  v6.10 (kfree_skb_napi_cache) and to the slab before. Before v6.18
  skb_consume_udp() frees at once to the slab (__consume_stateless_skb).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .host_signals import HostSignals
    from .kernel import Kernel
    from .skb import Skb
    from .skb_free import SkbFree
    from .sock import Sock
    from .trace import Recorder
    from .wire import Wire

from .calls import CALL_ID as C
from .memory import copy_ps
from .scenario import Costs, Scenario
from .sock import truesize

RECVMSG: Final = C["tcp_recvmsg"]
UDP_RECVMSG: Final = C["udp_recvmsg"]
UDP_STATELESS: Final = C["__consume_stateless_skb"]
DEFER: Final = C["skb_attempt_defer_free"]
NAPI_CACHE_FREE: Final = C["kfree_skb_napi_cache"]
KFREE_SKB: Final = C["__kfree_skb"]
DEFER_FLUSH: Final = C["skb_defer_free_flush"]
NAPI_CONSUME: Final = C["napi_consume_skb"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Reader:
    """The reading application (process context) and the RX CPU's skb defer list it fills."""

    def __init__(self, sc: Scenario, rec: Recorder, costs: Costs, kernel: Kernel, wire: Wire, sock: Sock,
                 free: SkbFree, signals: HostSignals) -> None:
        self.rec = rec
        self.cost: Costs = costs
        self.wire = wire
        self.sock = sock
        self.free = free
        self.signals = signals
        self.tcp = sc.traffic == "tcp"
        self.copy_gbs = costs.copy_user_gbs
        self.recv = costs.recv        # read here, not from the (interpreted) Costs on every read
        self.mss = wire.mss
        self.defer: list[Skb] = []    # this CPU's skb defer list (skb_attempt_defer_free)
        k = kernel
        # what skb_attempt_defer_free() does with the reader's skbs, by kernel version
        self.defer_free = k.defer_free and not sc.cost.reader_same_cpu
        self.defer_max = k.defer_max
        self.free_to_napi_cache = k.defer_free and k.same_cpu_free_to_napi_cache and sc.cost.reader_same_cpu
        # skb_consume_udp(): through skb_attempt_defer_free() as TCP from v6.18, __consume_stateless_skb() before
        self.udp_defers = k.udp_defer_free

    def read_one(self) -> bool:
        """The application reads one skb (tcp_recvmsg) and frees it. False when the queue is empty."""
        sk = self.sock
        if not sk.sockq:
            return False
        skb = sk.sockq.popleft()
        nbytes = skb.segs * self.mss
        rec = self.rec
        cost = self.recv + copy_ps(nbytes, self.copy_gbs)
        call = RECVMSG if self.tcp else UDP_RECVMSG
        rec.cnt[call] += 1
        rec.extra[call] += cost
        rec.t += cost
        if rec.tracing:
            rec.emit(call, cost, "skb#%s|%s bytes", (skb.id, nbytes))
        if not self.tcp:
            sk.sock_mem -= truesize(skb)
        if self.tcp or self.udp_defers:
            self.reader_free(skb)
        else:                                   # skb_consume_udp() before v6.18
            rec.call(UDP_STATELESS, 0, "skb#%s", skb.id)
            self.free.free_skb(skb, head="slab", allow_direct=False)
        sk.read_segs += skb.segs
        self.wire.on_read(skb.segs)
        self.signals.device_wake()
        return True

    def reader_free(self, skb: Skb) -> None:
        """tcp_eat_recv_skb() (or skb_consume_udp()) -> skb_attempt_defer_free(), as the kernel version does it."""
        rec = self.rec
        defer = self.defer
        if self.defer_free and len(defer) < self.defer_max:
            # Back to the CPU that allocated it: freed in its next net_rx_action.
            defer.append(skb)
            rec.cnt[DEFER] += 1
            rec.t += rec.unit[DEFER]
            if rec.tracing:
                rec.emit(DEFER, rec.unit[DEFER], "skb#%s|%s on the RX CPU's defer list", (skb.id, len(defer)))
            if len(defer) == self.defer_max >> 1:
                self.signals.kick_defer()       # the IPI that raises NET_RX_SOFTIRQ over there
            return
        if self.free_to_napi_cache:
            # kfree_skb_napi_cache(): BHs off, the sk_buff into this CPU's NAPI cache.
            rec.call(NAPI_CACHE_FREE, 0, "skb#%s", skb.id)
            self.free.free_skb(skb, head="napi", allow_direct=self.signals.pp_direct_ok())
            return
        rec.call(KFREE_SKB, 0, "skb#%s", skb.id)
        self.free.free_skb(skb, head="slab", allow_direct=False)

    def defer_flush(self) -> int:
        """skb_defer_free_flush(): on the RX CPU in softirq, napi_consume_skb(skb, 1) for each."""
        batch, self.defer = self.defer, []
        if not batch:
            return 0
        rec = self.rec
        rec.call(DEFER_FLUSH, -1, "|%s skb(s) the reader freed", len(batch))
        direct = self.signals.pp_direct_ok()
        free_skb = self.free.free_skb
        cnt = rec.cnt
        for skb in batch:
            cnt[NAPI_CONSUME] += 1
            if rec.tracing:
                rec.emit(NAPI_CONSUME, 0, "skb#%s", (skb.id,))
            free_skb(skb, "napi", direct)
        return len(batch)
