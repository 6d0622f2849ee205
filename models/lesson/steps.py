"""A lesson's steps, their runs and questions, and its checks, validated node by node.

What a step may run is bounded (models.lesson.limits): its frames, an
`until`'s count and limit, a teardown's wait, and all the steps' frames
together, so a lesson cannot make the player or `rxviz check` run for hours.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from yaml.nodes import Node

from .. import calls, units
from ..machines import MACHINES
from .figures import FIGURES
from .limits import MAX_LESSON_FRAMES, MAX_STEP_FRAMES, MAX_UNTIL_COUNT, MAX_UNTIL_LIMIT, MAX_WAIT_NS
from .nodes import Map, V, one_of, short
from .schema import Ask, Check, Run, Step

_OPS = ("==", "!=", "<", "<=", ">", ">=")


_WATCHABLE = (*calls.COUNTERS, *(c for c in calls.CALLS if c not in calls.COUNTERS), *calls.METRICS)


def step(v: V, i: int, node: Node, variants: dict[str, Any], pseudocode: dict[str, tuple[str, ...]]) -> Step:
    s = Map(v, node, f"steps[{i}]", ("title", "say"),
             ("show", "focus", "code", "run", "ask", "reveal", "watch", "notes", "payoff"))
    first = next(iter(variants), "")
    show = s.take("show", "choice", variants, "variant", default=first, bad=first)
    lines = len(pseudocode.get(show, ()))
    code = s.take("code", "integer", 1, 10_000, default=0)
    if code and show in pseudocode and code > lines:
        v.record(v.error(s.vals["code"], s.at("code"), f"line {code} is past the end of pseudocode.{show} "
                         f"({lines} lines)"))
    ask = v.keep(_ask, v, s, show, pseudocode) if "ask" in s else None
    if "reveal" in s and ask is None and "ask" not in s:
        v.record(v.error(s.keys["reveal"], s.where, "'reveal' is said after a question is answered: this step asks "
                         "none (put it in 'say')"))
    watch = _names(v, s, "watch")
    run = v.keep(_run, v, s.vals["run"], s.at("run")) if "run" in s else None
    step = Step(i, s.take("title", "text", bad=""), s.take("say", "text", bad=""), show,
                s.take("focus", "choice", calls.VIEWS, "view", default=""), code or 0,
                run, ask, node.start_mark.line + 1,
                reveal=s.take("reveal", "text", default=""), watch=watch,
                notes=s.take("notes", "text", default=""), payoff=s.take("payoff", "boolean", default=False))
    return step


def _names(v: V, s: Map, key: str, known: Iterable[str] = _WATCHABLE,
           kind: str = "counter or metric") -> tuple[str, ...]:
    """`key`'s list of counters and metrics (models.calls names), or of other `known` names, each once."""
    out: list[str] = []
    for j, n in enumerate(v.keep(v.seq, s.opt(key), s.at(key), 1, 12, default=[])):
        name = v.keep(v.choice, n, f"{s.at(key)}[{j}]", known, kind)
        if name in out:
            v.record(v.error(n, f"{s.at(key)}[{j}]", f"{name!r} is listed twice"))
        elif name is not None:
            out.append(name)
    return tuple(out)


def _ask(v: V, s: Map, show: str, pseudocode: dict[str, tuple[str, ...]]) -> Ask:
    a = Map(v, s.vals["ask"], s.at("ask"), ("question", "choices", "answer", "explain"),
            ("hide_code", "hide_counts", "hide_figures"))
    items = v.keep(v.seq, a.get("choices", "node"), a.at("choices"), 2, 6, default=[])
    choices = tuple(c for j, n in enumerate(items) if (c := v.keep(v.text, n, f"{a.at('choices')}[{j}]")) is not None)
    lines = len(pseudocode.get(show, ()))
    hide = []
    for j, n in enumerate(v.keep(v.seq, a.opt("hide_code"), a.at("hide_code"), 1, 100, default=[])):
        if show not in pseudocode:
            v.fail(n, a.at("hide_code"), f"variant {show!r} has no pseudocode to hide lines of")
        hide.append(v.keep(v.integer, n, f"{a.at('hide_code')}[{j}]", 1, lines, f"pseudocode.{show} has {lines} lines"))
    return Ask(a.take("question", "text", bad=""), choices,
               a.take("answer", "integer", 0, max(0, len(choices) - 1), bad=0,
                      why=f"the index of one of its {len(choices)} choices, from 0"),
               a.take("explain", "text", bad=""), tuple(h for h in hide if h is not None), _names(v, a, "hide_counts"),
               _names(v, a, "hide_figures", FIGURES, "figure"))


def _run(v: V, node: Node, where: str) -> Run:
    forms = {"frames": (), "until": ("count", "limit", "from"), "teardown": ("wait",)}
    r = Map(v, node, where, (), ("frames", "until", "count", "limit", "from", "teardown", "wait"))
    kind = one_of(r, tuple(forms))
    for name in r.keys:
        if name != kind and name not in forms[kind]:
            r.fail(name, f"{name!r} does not go with {kind!r}", key=True)
    if kind == "frames":
        return Run("frames", frames=r.get("frames", "integer", 1, MAX_STEP_FRAMES,
                                          why="a step is something to watch; a long run is `rxviz run`'s"))
    if kind == "until":
        call = r.take("until", "choice", calls.CALLS, "kernel call", bad="")
        source = _until_from(v, r, call) if "from" in r else ""
        return Run("until", call=call,
                   count=r.take("count", "integer", 1, MAX_UNTIL_COUNT, default=1),
                   limit=r.take("limit", "integer", 1, MAX_UNTIL_LIMIT, default=100_000,
                                why="frames to give up after"), source=source)
    if not r.get("teardown", "boolean"):
        r.fail("teardown", "expected true (leave the step's run out instead)")
    try:
        wait = units.parse_time(r.get("wait", "text")) if "wait" in r else 0
    except Exception as e:   # ValueError from the parser; OverflowError for a 400-digit time
        r.fail("wait", str(e) if isinstance(e, ValueError) else "expected a time such as 61s")
    if not 0 <= wait <= MAX_WAIT_NS:
        r.fail("wait", f"expected a time of at most {MAX_WAIT_NS // 10**9}s (simulated; page_pool retries its "
               f"shutdown every second and warns after 60s), got {short(r.vals['wait'].value)}")
    return Run("teardown", wait_ns=wait)


def _until_from(v: V, r: Map, call: str) -> str:
    """`from: STATE`: the lifecycle state (models/machines.py) the call must move an object out of.

    One call can stand for two moments (kmem_cache_free_bulk empties a full NAPI cache, and frees
    a frag_list); the state its objects leave tells them apart. Counted by moves, not calls, so
    it stops at the first such call: `count` does not go with it.
    """
    if "count" in r:
        r.fail("count", "'count' does not go with 'from' (the run stops at the first call that moves an "
               "object out of that state)", key=True)
    states = sorted({src for _, _, edges in MACHINES.values() for src, edge, _ in edges if edge == call})
    if call and not states:
        r.fail("from", f"{call} moves no object of a lifecycle machine (rxviz graph): leave 'from' out")
    state = r.get("from", "text")
    if call and state not in states:
        r.fail("from", f"expected a state {call} moves an object out of ({', '.join(states)}), got {short(state)}")
    return state if call else ""


def lesson_frames(v: V, steps: tuple[Step, ...], nodes: list[Node]) -> None:
    """Every step's frames (and each `until`'s limit, what it may run) together, per variant: bounded."""
    total = 0
    for st in steps:
        run, node = st.run, nodes[st.index]
        total += 0 if run is None else run.frames if run.kind == "frames" else run.limit if run.kind == "until" else 0
        if total > MAX_LESSON_FRAMES:
            v.record(v.error(node, f"steps[{st.index}].run", f"the steps run {total:,} frames per variant up to here "
                             f"(frames, and each until's limit); a lesson may run at most {MAX_LESSON_FRAMES:,}"))
            return


def check(v: V, i: int, node: Node, variants: dict[str, Any]) -> Check:
    c = Map(v, node, f"checks[{i}]", ("variant",), ("counter", "metric", "violation", "op", "value", "present"))
    kind: Literal["counter", "metric", "violation"] = one_of(c, ("counter", "metric", "violation"))
    variant = c.get("variant", "choice", variants, "variant")
    line = node.start_mark.line + 1
    if kind == "violation":
        name = c.get("violation", "choice", calls.VIOLATIONS, "violation")
        for extra in ("op", "value"):
            if extra in c:
                c.fail(extra, f"{extra!r} does not go with 'violation' (use present: true/false)", key=True)
        return Check(variant, "violation", name, present=c.get("present", "boolean", default=True), line=line)
    name = c.get(kind, "choice", (*calls.CALLS, *calls.COUNTERS) if kind == "counter" else calls.METRICS, kind)
    if "present" in c:
        c.fail("present", f"'present' goes with 'violation', not {kind!r}", key=True)
    if missing := [k for k in ("op", "value") if k not in c]:
        v.fail(node, c.at(missing[0]), "missing required field")
    return Check(variant, kind, name, c.get("op", "choice", _OPS, "comparison"), c.get("value", "number"), True, line)
