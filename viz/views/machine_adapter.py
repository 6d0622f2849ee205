"""Today's source of `machine_data`: the model as it is, read as best it can be. An approximation.

The model does not record transitions yet (issue 8, item 2), so this module
rebuilds what the views need from what it does keep, and marks every guess
(`exact=False`). The lead replaces this module with exact data; nothing
else reads the model on the views' behalf.

- Current states are exact: each object's own `state` (`sim.ring.descs[i].buf`,
  `sim.pool.pages`, skb heads, `sim.napi_state`, `sim.tasklet_state`, the GRO hold).
- Per-edge counts are APPROXIMATED from call counters (`sim.rec.counts`): an
  edge gets its call's count when no other edge of the machine has that call;
  0 when the call never ran; otherwise (shared calls, and named steps such as
  `post` or `deliver` that are not kernel calls) it is left out: not known.
  Call counters also count objects of other machines (TX mappings count as
  `dma_map_single` too).
- A history is REBUILT from the trace buffer (the last few hundred events):
  the events that name the object (or its DMA mapping) are replayed along its
  machine, stepping over named steps (`post`, `deliver`, `skb_release_data`)
  where the next call needs them, and failing that over calls whose events
  do not name the object (a ptr_ring refill names the pool, not the page).
  It starts at the oldest event still in the buffer, and the guessed steps
  get the time of the call that revealed them.
- The followed object, when none is asked for, is the newest one the trace
  names in the machine drawn; failing that, the one the driver touches next.
"""

from __future__ import annotations

import re
from collections import Counter

from models.calls import CALLS
from models.lifecycle import MACHINES, TRANSITIONS

from .machine_data import Call, MachineState, PathFacts, RxData, Transition

_STRATEGY_MACHINE = {"per-frame": "rx_buffer", "page-flip": "flip_page", "page-pool": "pp_page"}
_NAME = re.compile(r"\b(buf|page|head|skb|map)#(\d+)(?:\+(\d+))?")
def stamp(sim) -> tuple:
    """What changes whenever the model moves (a Sim only changes by running)."""
    rec = sim.rec
    return (rec.seq, sim.processed, sim.engine.now, rec.t, len(rec.violations), sum(rec.counts.values()))


def default_machine(sim) -> str:
    if sim.bus == "pcie" and sim.strategy is not None:
        return _STRATEGY_MACHINE.get(sim.strategy.name, "rx_buffer")
    return "gro_flow" if sim.napi_api and sim.stack.gro_on else "napi"


class _Obj:
    __slots__ = ("name", "machine", "ref", "where")

    def __init__(self, name: str, machine: str, ref, where: str) -> None:
        self.name, self.machine, self.ref, self.where = name, machine, ref, where

    @property
    def state(self) -> str | None:
        return getattr(self.ref, "state", None)


def _index(sim) -> dict[str, _Obj]:
    """Every object the model holds now, by its name in kernel words."""
    out: dict[str, _Obj] = {}

    def add_buf(buf, where: str) -> None:
        if buf is None:
            return
        if buf.machine:
            name = f"page#{buf.page.id}+{buf.offset}" if buf.machine == "pp_frag" else f"buf#{buf.id}"
            out.setdefault(name, _Obj(name, buf.machine, buf, where))
            out.setdefault(f"buf#{buf.id}", out[name])
        page = buf.page
        if page is not None and getattr(page, "machine", "") == "flip_page":
            out.setdefault(f"page#{page.id}", _Obj(f"page#{page.id}", "flip_page", page, where))
        if buf.head is not None:
            add_head(buf.head, f"with buf#{buf.id}")

    def add_head(head, where: str) -> None:
        out.setdefault(f"head#{head.id}", _Obj(f"head#{head.id}", "skb_head", head, where))

    def add_skb(skb, where: str) -> None:
        out.setdefault(f"skb#{skb.id}", _Obj(f"skb#{skb.id}", "", skb, where))
        add_head(skb.head, f"skb#{skb.id} {where}")
        for buf in skb.buffers():
            add_buf(buf, f"in skb#{skb.id}, {where}")
        for m in skb.frag_list:
            add_head(m.head, f"on skb#{skb.id}'s frag_list, {where}")

    if sim.bus == "pcie":
        for d in sim.ring.descs:
            add_buf(d.buf, f"at desc {d.idx}")
    st = sim.stack
    if st.held is not None:
        add_skb(st.held, "held by GRO")
    for skb in st.rx_list:
        add_skb(skb, "on napi->rx_list")
    for skb in st.sockq:
        add_skb(skb, "in the socket queue")
    for skb in st.defer:
        add_skb(skb, "on the defer list")
    for e in st.tx:
        if e.buf is not None:
            add_buf(e.buf, "on the TX ring (XDP_TX)")
    if sim.pool is not None:
        pool = sim.pool
        cache, ring = {id(p) for p in pool.cache}, {id(p) for p in pool.ring[pool.ring_head:]}
        for page in pool.pages.values():
            where = ("the pool's frag_page" if page is pool.frag_page else "in the alloc cache" if id(page) in cache
                     else "in the ptr_ring" if id(page) in ring else "")
            out.setdefault(f"page#{page.id}", _Obj(f"page#{page.id}", "pp_page", page, where))
    heads = sim.heads
    for h in heads.cache:
        add_head(h, "in the NAPI skb cache")
    for h in heads.slab[-256:]:
        add_head(h, "free in skbuff_cache")
    for m in sim.dma.live.values():
        out.setdefault(f"map#{m.id}", _Obj(f"map#{m.id}", "", m, "live"))
    out["napi"] = _Obj("napi", "napi", _State(sim.napi_state), "")
    out["rx tasklet"] = _Obj("rx tasklet", "tasklet", _State(sim.tasklet_state), "")
    held = st.held
    out["flow"] = _Obj("flow", "gro_flow", _State("held" if held else "empty"),
                       f"{held.segs} segment(s) held in skb#{held.id}" if held else "")
    return out


class _State:
    __slots__ = ("state",)

    def __init__(self, state: str) -> None:
        self.state = state


def _owner_of(index: dict[str, _Obj], name: str, machine: str) -> _Obj | None:
    """The object of `machine` an event's name stands for (a mapping stands for what it maps)."""
    o = index.get(name)
    if o is None:
        return None
    if o.machine == machine:
        return o
    if o.name.startswith("map#"):
        for other in index.values():
            ref = other.ref
            if other.machine == machine and getattr(ref, "map", None) is o.ref:
                return other
    if o.name.startswith("skb#") and machine in ("rx_buffer", "pp_frag", "flip_page"):
        buf = o.ref.data
        return index.get(f"buf#{buf.id}") if buf.machine == machine else (
            index.get(f"page#{buf.page.id}") if buf.page is not None and machine == "flip_page" else None)
    if o.name.startswith("buf#") and machine == "pp_page" and getattr(o.ref, "page", None) is not None:
        return index.get(f"page#{o.ref.page.id}")
    return None


def _names(ev) -> list[str]:
    """The objects an event names, in its obj field first, then in its detail."""
    out = []
    for text in (ev.obj, ev.detail):
        for kind, n, off in _NAME.findall(text or ""):
            out.append(f"{kind}#{n}" + (f"+{off}" if off else ""))
            if off:
                out.append(f"{kind}#{n}")
    if ev.obj in ("napi", "rx tasklet"):
        out.append(ev.obj)
    return out


def _aliases(o: _Obj) -> set[str]:
    ref = o.ref
    names = {o.name}
    if getattr(ref, "map", None) is not None:
        names.add(f"map#{ref.map.id}")
    if o.machine in ("rx_buffer", "pp_frag"):
        names.add(f"buf#{ref.id}")
    if o.machine == "gro_flow":
        names = {"flow"}
    return names


def _history(sim, o: _Obj) -> list[Transition]:
    """The object's transitions rebuilt from the trace buffer (see the module docstring).

    The state before the oldest event is unknown, so every state is a
    candidate; each event moves each candidate along its machine (a candidate
    it cannot move is dropped, an event no candidate can take is skipped), and
    the candidate that ends in the object's real state wins.
    """
    machine = o.machine
    table = TRANSITIONS[machine]
    steps = {c for _, c, _ in MACHINES[machine][2] if c not in CALLS}
    all_calls = {c for _, c, _ in MACHINES[machine][2]}
    aliases = _aliases(o)
    gro = machine == "gro_flow"
    states = list(dict.fromkeys(s for e in MACHINES[machine][2] for s in (e[0], e[2])))
    cands: dict[str, list[Transition]] = {}         # state -> the history that leads there
    for ev in sim.rec.events or ():
        if gro:
            if ev.call not in ("napi_gro_receive", "napi_gro_flush"):
                continue
        elif not aliases.intersection(_names(ev)):
            continue
        # Named steps first; failing that, calls whose events do not name the object (a refill
        # from the ptr_ring names the pool, not the page) are guessed the same way.
        for guess in (steps, all_calls):
            moved: dict[str, list[Transition]] = {}
            for s, hist in (cands.items() if cands else ((s, []) for s in states)):
                path = _walk(table, guess, s, ev.call)
                if path:
                    new = hist + [Transition(ev.seq, ev.t_ns, c, machine, o.name, a, b) for a, c, b in path]
                    old = moved.get(path[-1][2])
                    if old is None or len(new) < len(old):     # the fewest guessed steps
                        moved[path[-1][2]] = new
            if moved:
                cands = moved
                break
    now = o.state
    if now in cands:
        return cands[now]
    for s, hist in cands.items():
        tail = _walk(table, steps, s, None, goal=now) if now is not None and hist else []
        if tail:
            return hist + [Transition(hist[-1].seq, hist[-1].t_ns, c, machine, o.name, a, b) for a, c, b in tail]
    return next(iter(cands.values()), [])


def _walk(table, steps, state: str, call: str | None, goal: str | None = None) -> list[tuple[str, str, str]]:
    """Up to two named steps from `state`, then `call` (or until `goal`); [] when no such path."""
    frontier: list[tuple[str, list]] = [(state, [])]
    for _ in range(3):
        nxt = []
        for s, path in frontier:
            if call is not None and (s, call) in table:
                return path + [(s, call, table[(s, call)])]
            if goal is not None and s == goal and path:
                return path
            nxt += [(d, path + [(s, c, d)]) for (src, c), d in table.items() if src == s and c in steps]
        frontier = nxt
    return []


def _counts(sim, machine: str) -> dict[tuple[str, str, str], int]:
    edges = MACHINES[machine][2]
    per_call = Counter(c for _, c, _ in edges)
    counts = sim.rec.counts
    out = {}
    for edge in edges:
        call = edge[1]
        if call not in CALLS:
            continue
        n = counts.get(call, 0)
        if n == 0 or per_call[call] == 1:
            out[edge] = n
    return out


def _population(sim, index: dict[str, _Obj], machine: str) -> dict[str, int]:
    if machine == "swiotlb_slot":
        sw = sim.swiotlb
        return {"free": sw.nslabs - sw.used_slots, "mapped": sw.used_slots} if sw is not None else {}
    if machine == "skb_head":
        heads = sim.heads
        return {"slab": len(heads.slab), "napi-cache": len(heads.cache), "in-use": heads.in_use}
    seen: set[int] = set()
    pop: Counter = Counter()
    for o in index.values():
        if o.machine == machine and id(o.ref) not in seen and o.state:
            seen.add(id(o.ref))
            pop[o.state] += 1
    return dict(pop)


def _follow(sim, index: dict[str, _Obj], machine: str, follow: str | None) -> _Obj | None:
    if follow is not None:
        o = index.get(follow)
        return _owner_of(index, follow, machine) if o is not None and o.machine != machine else o
    for ev in reversed(list(sim.rec.events or ())):
        for name in _names(ev):
            o = _owner_of(index, name, machine)
            if o is not None:
                return o
    if machine in ("napi", "tasklet", "gro_flow"):
        return index[{"napi": "napi", "tasklet": "rx tasklet", "gro_flow": "flow"}[machine]]
    if machine == "pp_page" and sim.pool is not None and sim.pool.frag_page is not None:
        return index.get(f"page#{sim.pool.frag_page.id}")
    if sim.bus == "pcie":
        buf = sim.ring.descs[sim.ring.clean_idx].buf
        if buf is not None:
            return _owner_of(index, f"buf#{buf.id}", machine)
    return None


def _path(sim) -> PathFacts:
    prm = sim.params
    dma = sim.dma
    bounce = sim.swiotlb is not None and (prm["swiotlb"] == "force" or dma.untrusted
                                          or (sim.iommu is None and sim.mem.max_addr - 1 > dma.mask))
    return PathFacts(bus=sim.bus, iommu=sim.iommu_mode, bounce=bounce, delivery=sim.delivery,
                     polled=sim.napi_polled, napi=sim.napi_api, gro=bool(prm["gro"]) and sim.napi_api and sim.stack.tcp,
                     page_pool=sim.pool is not None, xdp=prm["xdp"],
                     socket=sim.stack.tcp and not sim.stack.forward)


def build(sim, follow: str | None, machine: str | None) -> RxData:
    index = _index(sim)
    if machine is None:
        picked = index.get(follow) if follow else None
        machine = picked.machine if picked is not None and picked.machine in MACHINES else default_machine(sim)
    o = _follow(sim, index, machine, follow)
    history = _history(sim, o) if o is not None else []
    state = o.state if o is not None else None
    if o is not None and state is None and history:
        state = history[-1].dst
    last = history[-1] if history and history[-1].dst == state else None
    ms = MachineState(machine, o.name if o else None, o.where if o else "", state, last, _counts(sim, machine),
                      False, _population(sim, index, machine))
    recent = sim.rec.recent(1)
    call = None
    if recent:
        ev = recent[-1]
        call = Call(ev.seq, ev.t_ns, ev.call, ev.ctx, ev.obj, ev.detail)
    from .passport_adapter import passport_of

    return RxData(call, _path(sim), ms, passport_of(sim, o, state, history) if o is not None else None)
