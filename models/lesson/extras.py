"""The lesson fields that tie the text to the model as it runs: `code_calls` and `recap`.

`code_calls` maps each pseudo-code line of a variant to the kernel calls it
stands for, so the player can light the line of the call the screen is at
as `]` walks the calls:

    code_calls:
      gro:
        1: [irq, napi_schedule]
        3: [dma_unmap_single on tx_buffer, dev_kfree_skb]
        6: [dma_unmap_single]

An entry is a call name (`models.calls`), or `CALL on MACHINE` when the same
call stands for different lines depending on what it moves (the TX reclaim's
`dma_unmap_single` moves a `tx_buffer`, the RX one an `rx_buffer`); a call
listed on a line with and without a machine goes to the line whose machine
it moved. `CALL after PREV` stands for its line only when the call just before
it in the same context was PREV, and wins over the plain entry: since v6.19
the ACK TCP sends from inside the poll takes its head with the same
`napi_skb_cache_get` the driver's `napi_build_skb` does, and is told apart by
the `tcp_send_ack` before it. Line 0 is no line of the code: a call listed
there (the stack's, made while the driver waits in one of its lines) leaves
the ▶ on the driver's last line. `recap` is what the end screen opens with: three to five
sentences of what the lesson showed.

Kept apart from validate.py so the two grow without touching each other;
validate.build calls `code_calls` and `recap` with its own node checker.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.nodes import Node

from .. import calls
from ..lifecycle import MACHINES
from .schema import did_you_mean as _hint

# variant -> line -> ((call, machine or "", the call before or ""), ...)
CodeCalls = dict[str, dict[int, tuple[tuple[str, str, str], ...]]]
_SENTENCE = re.compile(r"[.!?](?:\s|$)")


def code_calls(v: Any, node: Node | None, variants: dict[str, Any], pseudocode: dict[str, tuple[str, ...]]) \
        -> CodeCalls:
    """Check and build `code_calls` (`v`: validate's node checker, which raises LessonError at a node)."""
    out: CodeCalls = {}
    if node is None:
        return out
    for key, lines in v.mapping(node, "code_calls"):
        variant = v.choice(key, "code_calls", variants, "variant")
        where = f"code_calls.{variant}"
        if variant not in pseudocode:
            v.fail(key, "code_calls", f"variant {variant!r} has no pseudocode to map")
        n = len(pseudocode[variant])
        per: dict[int, tuple[tuple[str, str, str], ...]] = {}
        seen: dict[tuple[str, str, str], int] = {}
        for lkey, entries in v.mapping(lines, where):
            line = v.integer(lkey, where, 0, n)
            items = []
            for j, item in enumerate(v.seq(entries, f"{where}.{line}", 1, 16)):
                at = f"{where}.{line}[{j}]"
                text = v.text(item, at)
                head, _, before = (p.strip() for p in text.partition(" after "))
                call, _, machine = (p.strip() for p in head.partition(" on "))
                for name in (call, before):
                    if name and name not in calls.CALLS:
                        v.fail(item, at, f"unknown kernel call {name!r}{_hint(name, calls.CALLS)}")
                if machine and machine not in MACHINES:
                    v.fail(item, at, f"unknown machine {machine!r}{_hint(machine, MACHINES)}")
                key = (call, machine, before)
                if key in seen:
                    v.fail(item, at, f"{text!r} is already on line {seen[key]}: a call stands for one "
                           f"line (add 'on MACHINE' or 'after CALL' to tell two apart)")
                seen[key] = line
                items.append(key)
            per[line] = tuple(items)
        out[variant] = per
    return out


def recap(v: Any, node: Node | None) -> str:
    """Check `recap`: what the lesson showed, in three to five sentences."""
    if node is None:
        return ""
    text: str = v.text(node, "recap").strip()
    n = len(_SENTENCE.findall(text + " "))
    if not 3 <= n <= 5:
        v.fail(node, "recap", f"expected three to five sentences of what the lesson showed, got {n}")
    return text


def line_of(entries: dict[int, tuple[tuple[str, str, str], ...]], call: str, moved: set[str],
            before: str = "") -> int:
    """The pseudo-code line a call stands for, given the machines its transitions moved and the
    call just before it in the same context (0: none).

    An entry naming the call before (`after`) wins when it matches (its line may be 0: no line).
    Then a line that names the machine the call moved wins over one that names the call alone. A
    call that has moved nothing yet (the screen is stopped inside it: `dma_map_single` before its
    SWIOTLB sub-calls have returned) may stand for a line that names a machine, failing a plain one.
    """
    for line, items in entries.items():
        if any(c == call and after and after == before for c, _, after in items):
            return line
    plain = unsure = 0
    for line, items in entries.items():
        for c, machine, after in items:
            if c != call or after or not line:
                continue
            if machine and machine in moved:
                return line
            if not machine and not plain:
                plain = line
            if machine and not moved and not unsure:
                unsure = line
    return plain or unsure


def before_of(events: list[Any], i: int, reach: int = 64) -> str:
    """The call just before events[i] in the same context (looking back at most `reach` events), or ''."""
    ctx = events[i].ctx
    for j in range(i - 1, max(-1, i - 1 - reach), -1):
        if events[j].ctx == ctx:
            return str(events[j].call)
    return ""
