"""GRO (net/core/gro.c): how a NAPI driver's skbs go up, and the held chain skb_gro_receive() builds.

- napi_gro_receive(): a TCP segment is merged into its flow's held chain (below);
  with GRO off (netif_elide_gro) or not TCP it is queued alone (GRO_NORMAL).
- A completed chain (napi_gro_complete), and every GRO_NORMAL skb, is queued
  by gro_normal_one() on napi->rx_list and handed to the stack
  (netif_receive_skb_list_internal) by gro_normal_list() once
  gro_normal_batch (8) segments wait, and at napi_complete_done() or the end
  of a full poll, after napi_gro_flush(). Since v6.15 the held lists and
  rx_list are one struct gro_node; here, one `Gro`.
- A driver without NAPI (a tasklet or a work) hands its skbs to
  netif_receive_skb() directly; a Wi-Fi driver through mac80211 first
  (ieee80211_rx_napi, ieee80211_rx or ieee80211_rx_ni).

The held skb `p` collects the flow's segments until the next would make it
reach GRO_LEGACY_MAX_SIZE (64 KiB, counted from the network header). Each
new segment goes into the *last* skb of the chain (NAPI_GRO_CB(p)->last):

  - its payload already in page frags (napi_alloc_skb + frags: the linear part
    holds only the headers): the frags move to `last`, and the segment's
    sk_buff and header are freed (NAPI_GRO_FREE);
  - its linear data a page fragment (skb->head_frag: build_skb,
    napi_build_skb, __netdev_alloc_skb): the data itself becomes a frag of
    `last` and only the sk_buff is freed (NAPI_GRO_FREE_STOLEN_HEAD);
  - `last` has no room (MAX_SKB_FRAGS, 17), or the data is kmalloc'd
    (slab_build_skb: head_frag = 0): the segment is chained on p's frag_list,
    keeps its sk_buff, and becomes the new `last`.

Freed shells go to the NAPI skb cache (napi_skb_free_stolen_head,
__napi_kfree_skb) from v5.12, to the slab before. At MTU 1500 with stolen
heads a 45-segment super-packet keeps 3 sk_buffs (p and two chained
containers) and frees 42.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from .host_signals import HostSignals
    from .kernel import Kernel
    from .netif_receive import NetifReceive
    from .scenario import Scenario
    from .skb import Skb, SkbHeads
    from .skb_free import SkbFree
    from .trace import Recorder

from .calls import CALL_ID as C
from .lifecycle import EDGE_ID as E
from .lifecycle import MACHINE, Stateful, move

GRO_LEGACY_MAX_SIZE: Final = 65536
MAX_SKB_FRAGS: Final = 17
ETH_HLEN: Final = 14
NAPI_KFREE: Final = C["__napi_kfree_skb"]
KFREE: Final = C["__kfree_skb"]
STOLEN: Final = C["napi_skb_free_stolen_head"]
RX_NAPI: Final = C["ieee80211_rx_napi"]
RX_TASKLET: Final = C["ieee80211_rx"]
RX_NI: Final = C["ieee80211_rx_ni"]
GRO_RECEIVE: Final = C["napi_gro_receive"]
GRO_COMPLETE: Final = C["napi_gro_complete"]
GRO_FLUSH: Final = C["napi_gro_flush"]
NORMAL_LIST: Final = C["gro_normal_list"]
FLOW: Final = MACHINE["gro_flow"]
EMPTY = FLOW.sid["empty"]
E_RECEIVE: Final = E["napi_gro_receive"]
E_COMPLETE: Final = E["napi_gro_complete"]
E_FLUSH: Final = E["napi_gro_flush"]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Gro(Stateful):
    """The GRO state of one NAPI instance (struct gro_node): at most one held flow (the model has
    one flow) and napi->rx_list. The flow is an object of the gro_flow machine (`st`), labelled "flow".
    """
    label = "flow"

    def __init__(self, sc: Scenario, rec: Recorder, heads: SkbHeads, kernel: Kernel, hdrs: int,
                 netif: NetifReceive, free: SkbFree, signals: HostSignals) -> None:
        self.rec = rec
        self.heads = heads
        self.netif = netif            # where rx_list goes up (netif_receive_skb)
        self.free = free              # a merged segment's header goes back here
        self.signals = signals
        self.stolen_to_cache = kernel.stolen_heads_to_napi_cache
        self.held: Skb | None = None
        self.hdrs = hdrs          # IP + TCP headers of each segment
        self.st = EMPTY
        # How the driver hands frames up (the scenario's delivery): through GRO (napi_gro_receive),
        # from a tasklet or a work; a napi_struct never added (netif_napi_add) has no GRO lists.
        self.napi_api = sc.napi_api
        self.tasklet = sc.delivery == "tasklet"
        self.napi_added = sc.napi_added
        self.wifi = sc.wifi
        self.merge = sc.gro and sc.traffic == "tcp"     # GRO merges only TCP, and only when on
        self.batch = sc.gro_normal_batch
        self.rx_list: list[Skb] = []       # napi->rx_list: skbs gro_normal_one() queued
        self.rx_count = 0             # segments on it (counted in segments since v5.11)
        self.jiffy = 10**12 // sc.cost.hz
        self.gro_warned = False

    @property
    def state(self) -> str:
        return FLOW.states[self.st]

    def tag(self) -> str:
        return self.label

    def rx(self, skb: Skb, in_napi: bool) -> None:
        """Hand one skb up: mac80211 for Wi-Fi, then GRO, or straight to the stack."""
        if self.wifi:
            if self.napi_api:
                call = RX_NAPI
            else:
                call = RX_TASKLET if self.tasklet else RX_NI
            self.rec.call(call, -1, "skb#%s", skb.id)
        if self.napi_api:
            self.napi_gro_receive(skb, in_napi)
        else:
            self.netif.netif_receive_skb(skb)

    def napi_gro_receive(self, skb: Skb, in_napi: bool) -> None:
        """napi_gro_receive() -> dev_gro_receive() -> tcp_gro_receive() -> skb_gro_receive(), one call:
        the segment is merged into the held chain, starts one, or (GRO off) is queued alone."""
        rec = self.rec
        rec.cnt[GRO_RECEIVE] += 1
        rec.t += rec.unit[GRO_RECEIVE]
        if rec.tracing:
            held = self.held
            rec.emit(GRO_RECEIVE, rec.unit[GRO_RECEIVE], "skb#%s|%s segment(s) of the flow held before it",
                     (skb.id, held.segs if held else 0))
        if not (self.merge and self.napi_added and (in_napi or self.gro_warned)) and not self._unmerged(skb, in_napi):
            return
        move(rec, FLOW, self, E_RECEIVE)
        held = self.held
        if held is None:
            self.held = skb
            return
        payload = skb.len - ETH_HLEN - self.hdrs
        # p->len counts from the network header: the Ethernet header was pulled.
        if held.len - ETH_HLEN + payload >= GRO_LEGACY_MAX_SIZE:
            self.held = skb                # -E2BIG: complete the chain, the segment starts a new one
            self.gro_complete(held)
            move(rec, FLOW, self, E_COMPLETE)
            return
        lp = held.last or held
        data = skb.data
        kind = data.kind
        # Its data can go into lp's frags unless kmalloc'd (head_frag = 0) or lp has no room for them:
        # the copied header's frags alone (NAPI_GRO_FREE), or the head page too (..._STOLEN_HEAD).
        room = MAX_SKB_FRAGS - len(lp.frags) - len(skb.frags)
        if room > 0 and kind != "kmalloc" or room == 0 and kind == "hdr":
            stolen = self.stolen_to_cache and in_napi
            if kind == "hdr":
                # The linear part is the copied headers only: the payload frags move to lp.
                lp.frags.extend(skb.frags)
                # NAPI_GRO_FREE: the header and the shell go
                cid = NAPI_KFREE if stolen else KFREE
                rec.cnt[cid] += 1
                if rec.tracing:
                    rec.emit(cid, 0, "skb#%s|frags moved into skb#%s", (skb.id, lp.id))
                self.free.free_data(data, in_napi)
            else:
                # head_frag: the head is a page fragment GRO can steal; the data itself becomes a frag of lp
                lp.frags.append(data)
                lp.frags.extend(skb.frags)
                # NAPI_GRO_FREE_STOLEN_HEAD: only the shell goes
                rec.cnt[STOLEN] += 1
                if rec.tracing:
                    rec.emit(STOLEN, 0, "skb#%s|data now frag %s of skb#%s, shell to the %s",
                             (skb.id, len(lp.frags), lp.id, "NAPI cache" if stolen else "slab"))
            self.heads.free(skb.head, stolen)
            if lp is not held:
                lp.len += payload
        else:
            # merge: chained on the frag_list, keeping its sk_buff; it becomes the new last
            held.frag_list.append(skb)
            held.last = skb
        held.len += payload
        held.segs += 1

    def _unmerged(self, skb: Skb, in_napi: bool) -> bool:
        """napi_gro_receive() for what is not a merge in the NAPI poll: on a napi_struct never added
        (the RX worker dies with the skb in hand), outside the poll (reported once), with GRO off or
        not TCP (GRO_NORMAL: queued alone). True: it goes on to dev_gro_receive()."""
        rec = self.rec
        if not self.napi_added:
            # The napi_struct was never set up: its GRO lists are zeroed memory, and walking one
            # (gro_list_prepare) dereferences NULL. The RX worker dies with the skb in hand.
            rec.warn("rx-outside-softirq", "WARNING in ieee80211_rx_napi(): WARN_ON_ONCE(softirq_count() == 0)",
                     f"skb#{skb.id}")
            rec.violate("napi-not-added",
                        "BUG: kernel NULL pointer dereference in gro_list_prepare(): napi_gro_receive() on a "
                        "napi_struct netif_napi_add() never initialised; the RX worker dies", f"skb#{skb.id}")
            self.signals.rx_oops()
            return False
        if not in_napi and not self.gro_warned:
            self.gro_warned = True
            rec.violate("gro-outside-napi",
                        "napi_gro_receive() called from process context: GRO state belongs to the NAPI poll, is "
                        "unlocked outside it, and nothing flushes what it holds", f"skb#{skb.id}")
        if not self.merge:
            # GRO_NORMAL: queued alone (netif_elide_gro, or not TCP), as gro_normal_one() does
            self.rx_list.append(skb)
            self.rx_count += skb.segs
            if self.rx_count >= self.batch:
                self.gro_normal_list()
            return False
        return True

    def gro_complete(self, skb: Skb) -> None:
        """napi_gro_complete(): the finished chain goes onto rx_list like any other skb."""
        self.rec.call(GRO_COMPLETE, 0, "skb#%s|%s segment(s), %s bytes, %s frags, %s on frag_list",
                      skb.id, skb.segs, skb.len, len(skb.frags), len(skb.frag_list))
        self.gro_normal_one(skb)

    def gro_flush(self, old_only: bool = False) -> None:
        """napi_gro_flush(): the held chain is completed (with old_only, only one a jiffy old)."""
        held = self.held
        if held is None:
            return
        if old_only and self.rec.t - held.t_rx < self.jiffy:
            return
        self.rec.call(GRO_FLUSH, 0, "skb#%s|%s segment(s), %s bytes", held.id, held.segs, held.len)
        self.held = None
        move(self.rec, FLOW, self, E_FLUSH)
        self.gro_complete(held)

    def gro_normal_one(self, skb: Skb) -> None:
        """Queue on napi->rx_list; at gro_normal_batch segments the list goes up."""
        self.rx_list.append(skb)
        self.rx_count += skb.segs
        if self.rx_count >= self.batch:
            self.gro_normal_list()

    def gro_normal_list(self) -> None:
        """netif_receive_skb_list_internal() for what rx_list holds."""
        if not self.rx_list:
            return
        batch, self.rx_list, self.rx_count = self.rx_list, [], 0
        self.rec.call(NORMAL_LIST, -1, "|%s skb(s) to netif_receive_skb_list_internal", len(batch))
        netif = self.netif
        for skb in batch:
            netif.netif_receive_skb(skb)
