"""The lifecycles as state machines: one edge list each, enforced and drawn.

Each machine is a list of edges (state, kernel call, next state). The same
list builds the networkx DiGraph that `rxviz graph` exports and the TUI
draws, and the integer tables the model checks every transition against.
Every object moves through `move()`, the one transition function: a legal
edge moves it and counts the edge (Recorder.moves); an edge its machine
does not have is a checker violation, never silently allowed. (The
interpreter runs the same function over the nested tables, `_move_rows`.)

networkx is imported only when a graph is asked for, so headless runs and
`--help` do not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

from .calls import CALL_ID, CALL_NAMES
from .int_arrays import COMPILED, counters_from
from .machines import MACHINES as MACHINES  # re-exported: the machines are read through this module
from .machines import NTRANSITIONS

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from .trace import Recorder


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Stateful:
    """Anything that moves through a machine: `st` is an index into its machine's states.

    A native base when compiled, so `move()` reads and writes `st` in the object itself.
    """
    __slots__ = ("st",)
    st: int

    def tag(self) -> str:
        """What a trace line or a violation calls it: buf#7, page#3, head#12."""
        raise NotImplementedError


# -- the same machines as integer tables, for the hot path ---------------------------------
# Edge labels are kernel calls (models.calls.CALL_ID) plus a few steps that are not a call of
# their own (a descriptor handed to the device, an skb handed up); both get an id here.
def _edge_names() -> tuple[str, ...]:
    extra = sorted({c for _, _, edges in MACHINES.values() for _, c, _ in edges} - set(CALL_ID))
    return CALL_NAMES + tuple(extra)


EDGE_NAMES: Final[tuple[str, ...]] = _edge_names()
EDGE_ID: Final[dict[str, int]] = {name: i for i, name in enumerate(EDGE_NAMES)}

# Every edge of every machine, numbered: a run counts how often each was taken in a list
# indexed by these ids (Recorder.moves), whether it is traced or not.
TRANSITION_EDGES: Final[list[tuple[str, str, str, str]]] = []     # id -> (machine, from, edge, to)
DST: Final[list[int]] = []                                         # id -> the state it leads to (its machine's id)


NEDGES: Final = len(EDGE_NAMES)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Machine:
    """One lifecycle as tables: states by id, and tid[state][edge]: the transition's id, -1 where none.

    `move()` reads the same tables flattened into integer arrays indexed by state * NEDGES + edge
    (`flat_tid`, and `flat_dst`: the state the transition leads to): compiled, one native load
    each instead of two list lookups and a boxed int."""
    __slots__ = ("name", "title", "initial", "states", "sid", "tid", "flat_tid", "flat_dst")

    def __init__(self, name: str) -> None:
        title, initial, edges = MACHINES[name]
        self.name = name
        self.title = title
        self.initial = initial
        self.states: tuple[str, ...] = tuple(dict.fromkeys([initial] + [x for e in edges for x in (e[0], e[2])]))
        self.sid = {st: i for i, st in enumerate(self.states)}
        self.tid = [[-1] * len(EDGE_NAMES) for _ in self.states]
        flat_tid = [-1] * (len(self.states) * NEDGES)
        flat_dst = [0] * len(flat_tid)
        for src, call, dst in edges:
            self.tid[self.sid[src]][EDGE_ID[call]] = len(TRANSITION_EDGES)
            at = self.sid[src] * NEDGES + EDGE_ID[call]
            flat_tid[at], flat_dst[at] = len(TRANSITION_EDGES), self.sid[dst]
            TRANSITION_EDGES.append((name, src, call, dst))
            DST.append(self.sid[dst])
        self.flat_tid = counters_from(flat_tid)
        self.flat_dst = counters_from(flat_dst)

    def __reduce__(self) -> tuple[Callable[[str], Machine], tuple[str]]:
        return (_machine, (self.name,))      # one table per process: snapshots share it

    def __deepcopy__(self, _memo: dict[int, object]) -> Machine:
        return self

    def go(self, rec: Recorder, obj: Stateful, edge: int, label: str) -> bool:
        """move()'s slow path: a traced move (its line in the trace), or an edge the machine does
        not have (a checker violation)."""
        st = obj.st
        tid = self.tid[st][edge]
        if tid < 0:
            rec.violate("illegal-transition", f"{self.name}: no edge {self.states[st]} --{EDGE_NAMES[edge]}--> "
                        f"for {label}", label)
            return False
        nxt = obj.st = DST[tid]
        rec.moves[tid] += 1
        if rec.tracing:
            rec.moved(self.name, label, self.states[st], self.states[nxt], EDGE_NAMES[edge])
        return True


def move(rec: Recorder, m: Machine, obj: Stateful, edge: int, label: str = "") -> bool:
    """Move obj along `edge` of its machine m and count the edge: the one transition function.

    Untraced and legal (the common case) it is two stores; a traced move or an illegal edge goes
    through Machine.go, which names the object (`label`, else obj.tag()). False: illegal, obj stays.
    Compiled, it reads the flat int64 tables: one native load each, no list lookup, no boxed int.
    Interpreted, `_move_rows` takes its place (below).
    """
    at = obj.st * NEDGES + edge
    tid = m.flat_tid[at]
    if tid >= rec.move_floor:          # a legal edge (tid >= 0) of an untraced run (Recorder.move_floor)
        obj.st = m.flat_dst[at]
        rec.moves[tid] += 1
        return True
    return m.go(rec, obj, edge, label or obj.tag())


def _move_rows(rec: Recorder, m: Machine, obj: Stateful, edge: int, label: str = "") -> bool:
    """move() for the interpreter: the flat index would allocate two int objects a move, the
    nested rows none."""
    tid = m.tid[obj.st][edge]
    if tid >= rec.move_floor:
        obj.st = DST[tid]
        rec.moves[tid] += 1
        return True
    return m.go(rec, obj, edge, label or obj.tag())


if not COMPILED:
    # Interpreted, every module binds `move` when it imports this one, after this line has run,
    # so no call pays for choosing between the two. Compiled, this line never runs and callers
    # call the native move() directly.
    globals()["move"] = _move_rows


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Tracked(Stateful):
    """An object that is nothing but its place in a machine: a NAPI instance, a slot run, an IOVA range.

    Its label is built when it is read (a trace line, a view), not when the object is made: a
    bounced map makes one of these a frame, and nobody reads the label of an untraced run's.
    `label` is the whole label, or a %-format of the one number `num` ("slot %d", "iova %#x").
    """
    __slots__ = ("m", "fmt", "num")

    def __init__(self, m: Machine, label: str, num: int = -1) -> None:
        self.m = m
        self.st = 0               # the machine's initial state
        self.fmt = label
        self.num = num

    @property
    def label(self) -> str:
        return self.fmt % self.num if self.num >= 0 else self.fmt

    # Snapshots pickle it as one tuple, twice as fast as the default for slots (models/snapshot.py).
    def __getstate__(self) -> tuple[object, ...]:
        return (self.m, self.st, self.fmt, self.num)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.m, self.st, self.fmt, self.num = state

    @property
    def state(self) -> str:
        return self.m.states[self.st]

    def tag(self) -> str:
        return self.label

    def go(self, rec: Recorder, edge: int) -> bool:
        return move(rec, self.m, self, edge)      # a traced or illegal move names it by tag()

    def set(self, state: str) -> None:
        self.st = self.m.sid[state]


def _machine(name: str) -> Machine:
    return MACHINE[name]


MACHINE: Final[dict[str, Machine]] = {name: Machine(name) for name in MACHINES}
assert len(TRANSITION_EDGES) == NTRANSITIONS    # Recorder.moves is sized from machines.NTRANSITIONS


def edge_counts(moves: Sequence[int], machine: str) -> dict[tuple[str, str, str], int]:
    """How often each edge of `machine` was taken in a run (its Recorder.moves): (from, edge, to) -> n."""
    return {(src, call, dst): moves[i] for i, (m, src, call, dst) in enumerate(TRANSITION_EDGES) if m == machine}


def graph(machine: str) -> nx.MultiDiGraph[str]:
    import networkx as nx

    title, initial, edges = MACHINES[machine]
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph(name=machine, title=title, initial=initial)
    for src, call, dst in edges:
        g.add_edge(src, dst, call=call)
    return g


def to_text(machine: str) -> str:
    title, initial, edges = MACHINES[machine]
    width = max(len(s) for s, _, _ in edges)
    lines = [f"{machine}: {title} (starts {initial})"]
    lines += [f"  {src:<{width}} --{call}--> {dst}" for src, call, dst in edges]
    return "\n".join(lines)


def to_dot(machine: str) -> str:
    title, initial, edges = MACHINES[machine]
    out = [f'digraph "{machine}" {{', f'  label="{title}";', "  rankdir=LR;",
           f'  "{initial}" [shape=doublecircle];']
    out += [f'  "{s}" -> "{d}" [label="{c}"];' for s, c, d in edges]
    out.append("}")
    return "\n".join(out)


def to_json(machine: str) -> str:
    """networkx node-link data of the machine (what `rxviz graph --format json` prints)."""
    import json

    import networkx as nx
    data = nx.node_link_data(graph(machine), edges="edges")
    return json.dumps(data, indent=2)


def to_mermaid(machine: str) -> str:
    title, initial, edges = MACHINES[machine]
    ident = {s: f"s{i}" for i, s in enumerate(dict.fromkeys([initial] + [x for e in edges for x in (e[0], e[2])]))}
    out = ["stateDiagram-v2", f"    %% {machine}: {title}", f"    [*] --> {ident[initial]}"]
    out += [f'    {i} : {s}' for s, i in ident.items()]
    out += [f"    {ident[s]} --> {ident[d]} : {c}" for s, c, d in edges]
    return "\n".join(out)
