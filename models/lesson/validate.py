"""Validating a composed lesson node tree and building the `Lesson`.

Works on YAML nodes, not constructed Python objects, so each error points at
the exact key (unknown names) or value (bad values) at fault. Names are checked
against the single sources of truth (parameters: `models.params`; calls,
counters, metrics, views: `models.calls`), a near miss with a "did you mean".
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Iterable
from typing import Any, Literal, NoReturn, TypeVar

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .. import calls, params, units
from . import sanitize
from .schema import Ask, Check, Fitted, Headline, Lesson, LessonError, Paper, Patch, Run, Step
from .schema import did_you_mean as _hint

_ID = re.compile(r"[a-z0-9][a-z0-9-]{1,63}")
_VARIANT = re.compile(r"[a-z][a-z0-9-]{0,23}")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_OPS = ("==", "!=", "<", "<=", ">", ">=")
_T = "tag:yaml.org,2002:"
K = TypeVar("K", bound=str)      # one of a fixed set of keys (_one_of), kept as its Literal type
_ABSENT: Any = object()


def _null(node: Node | None) -> bool:
    return isinstance(node, ScalarNode) and node.tag == _T + "null"


class _V:
    """Checks on single nodes, bound to one file: each returns a checked value or raises."""

    def __init__(self, loader: Any, path: str) -> None:
        self.loader, self.path = loader, path
        self.problems: list[LessonError] = []     # lesson text that had to be cleaned (models.lesson.sanitize)

    def fail(self, node: Node, field: str, message: str) -> NoReturn:
        m = node.start_mark
        raise LessonError(self.path, m.line + 1, m.column + 1, field, message)

    def value(self, node: Node, field: str) -> Any:   # plain scalar tags only get here (loader._check_tree)
        if not isinstance(node, ScalarNode):
            return _ABSENT
        if node.tag in (_T + "str", _T + "value"):
            return node.value
        try:
            return self.loader.construct_object(node)
        except Exception:   # e.g. a 10 000-digit int or the date 2024-13-45
            self.fail(node, field, f"cannot read the value {node.value[:40]!r}")

    def got(self, node: Node, field: str) -> str:
        if not isinstance(node, ScalarNode):
            return "a mapping" if isinstance(node, MappingNode) else "a list"
        if _null(node):
            return "nothing"
        return repr(node.value if node.tag == _T + "timestamp" else self.value(node, field))

    def mapping(self, node: Node, field: str) -> list[tuple[Node, Node]]:
        if not isinstance(node, MappingNode):
            self.fail(node, field, f"expected a mapping, got {self.got(node, field)}")
        return list(node.value)

    def seq(self, node: Node | None, field: str, lo: int, hi: int) -> list[Node]:
        if node is None:
            return []
        if not isinstance(node, SequenceNode):
            self.fail(node, field, f"expected a list, got {self.got(node, field)}")
        if not lo <= len(node.value) <= hi:
            self.fail(node, field, f"expected {lo} to {hi} entries, got {len(node.value)}")
        return list(node.value)

    def text(self, node: Node, field: str) -> str:
        """A string as written (`commit: 0123` stays '0123', `driver: yes` stays 'yes'), cleaned.

        Every string of a lesson is taken through here, so this is where control
        and bidi characters are shown escaped and each one is noted for `rxviz check`.
        """
        if not isinstance(node, ScalarNode) or _null(node):
            self.fail(node, field, f"expected a string, got {self.got(node, field)}")
        if sanitize.has_bad(node.value):
            self._note_bad(node, field)
        return sanitize.clean(node.value)

    def _note_bad(self, node: ScalarNode, field: str) -> None:
        m = node.start_mark
        source = m.buffer or ""           # the whole lesson text: lessons are always parsed from a str
        found = sanitize.findings(source, m.index, node.end_mark.index, node.style == '"') if source else []
        # A character the scan cannot place (it never should) is reported at the scalar itself.
        at = [(sanitize.line_col(source, m.index, m.line, m.column, i), c) for i, c in found] or \
             [((m.line + 1, m.column + 1), next(c for c in node.value if sanitize.has_bad(c)))]
        for (line, col), char in at:
            self.problems.append(LessonError(self.path, line, col, field, f"{sanitize.describe(char)} in "
                                             f"lesson text; it is shown as {sanitize.escaped(char)}"))

    def number(self, node: Node, field: str, lo: int | None = None, hi: int | None = None,
               kind: type[float] | type[int] = float) -> Any:
        """A finite number (kind=float) or a whole number (kind=int), optionally bounded."""
        v, what = self.value(node, field), "a whole number" if kind is int else "a number"
        if not isinstance(v, (kind, int)) or isinstance(v, bool) or (isinstance(v, float) and not math.isfinite(v)):
            self.fail(node, field, f"expected {what}, got {self.got(node, field)}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            bound = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
            self.fail(node, field, f"expected {what} {bound}, got {v}")
        return v

    def integer(self, node: Node, field: str, lo: int, hi: int | None = None) -> int:
        n: int = self.number(node, field, lo, hi, int)
        return n

    def boolean(self, node: Node, field: str) -> bool:
        if not isinstance(v := self.value(node, field), bool):
            self.fail(node, field, f"expected true or false, got {self.got(node, field)}")
        return v

    def choice(self, node: Node, field: str, known: Iterable[str], what: str) -> str:
        name, known = self.text(node, field), list(known)
        if name not in known:
            self.fail(node, field, f"unknown {what} {name!r}{_hint(name, known)}")
        return name

    def params(self, node: Node, field: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Parameter values, each parsed by models.params, pointing at the value when bad."""
        parsed, raw = {}, {}
        for key, val in self.mapping(node, field):
            name, where = key.value, f"{field}.{key.value}"
            if name not in params.PARAMS:
                self.fail(key, field, f"unknown parameter {name!r}{_hint(name, params.PARAMS)}")
            if not isinstance(val, ScalarNode) or _null(val):
                self.fail(val, where, f"expected a value, got {self.got(val, where)}")
            # YAML 1.1 reads `iommu: off` as False; parameters want the words as
            # written (as `--set iommu=off` gives them), so only numbers and strings are constructed.
            v = self.value(val, where) if val.tag in (_T + "int", _T + "float", _T + "str") else val.value
            try:
                parsed[name] = params.parse_value(name, v)
            except Exception as e:   # parsers raise ValueError; never let anything else escape
                self.fail(val, where, str(e) or f"bad value {v!r}")
            raw[name] = sanitize.clean(v) if isinstance(v, str) else v
        return parsed, raw


class _Map:
    """One YAML mapping checked against its allowed keys, with typed getters named by key."""

    def __init__(self, v: _V, node: Node, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()):
        self.v, self.node, self.where = v, node, where
        self.keys = {k.value: k for k, _ in v.mapping(node, where)}
        self.vals = {k.value: val for k, val in v.mapping(node, where)}
        for name, key in self.keys.items():
            if name not in required + optional:
                v.fail(key, where, f"unknown key {name!r}{_hint(name, required + optional)}")
        for name in required:
            if name not in self.keys:
                v.fail(node, self.at(name), "missing required field")

    def __contains__(self, name: str) -> bool:
        return name in self.vals

    def at(self, name: str) -> str:
        return f"{self.where}.{name}" if self.where else name

    def opt(self, name: str) -> Node | None:
        """An optional section's node; null counts as absent (a section with all entries commented out)."""
        node = self.vals.get(name)
        return None if node is None or _null(node) else node

    def get(self, name: str, check: str, *args: Any, default: Any = _ABSENT) -> Any:
        if name not in self.vals and default is not _ABSENT:
            return default
        return getattr(self.v, check)(self.vals[name], self.at(name), *args)

    def fail(self, name: str, message: str, key: bool = False) -> NoReturn:
        self.v.fail((self.keys if key else self.vals)[name], self.at(name) if not key else self.where, message)


def _param_key(node: Node | None, name: str) -> Node | None:
    if isinstance(node, MappingNode):
        for k, _ in node.value:
            if k.value == name:
                key: Node = k
                return key
    return None


def _check_scenario(v: _V, key: Node, val: Node, scenario: Node, values: dict[str, Any]) -> None:
    """A variant the kernel or its NIC would refuse, reported where the offending value is set."""
    problems = params.check(params.full(values))
    if problems:
        name, message = problems[0]
        where = _param_key(val, name)
        field = f"variants.{key.value}.{name}" if where is not None else f"scenario.{name}"
        if where is None:
            where = _param_key(scenario, name) or key
            field = f"scenario.{name}" if where is not key else f"variants.{key.value}"
        v.fail(where, field, f"{message} (in variant {key.value})")


# Lessons speak to learners: they cite the kernel and the patch, never this project's notes or files.
_INTERNAL = re.compile(r"kernel-facts|UNVERIFIED|(?<![\w.-])(?:models|viz|shared|tests)/|\.py\b")


def _no_internal_notes(v: _V, node: Node) -> None:
    """Refuse lesson text that points at our notes or repository paths, at the spot."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ScalarNode):
            m = _INTERNAL.search(n.value)
            if m:
                v.fail(n, "", f"lesson text cites {m.group(0)!r}: cite the kernel (file, function) or the patch, "
                       "not this project's notes or files")
        elif isinstance(n, MappingNode):
            for k, val in reversed(n.value):
                stack.extend((val, k))
        elif isinstance(n, SequenceNode):
            stack.extend(reversed(n.value))


def build(root: MappingNode, loader: Any, path: str, stem: str | None) -> Lesson:
    v = _V(loader, path)
    _no_internal_notes(v, root)
    top = _Map(v, root, "", ("id", "title", "driver", "summary", "scenario", "variants", "steps"),
               ("patch", "paper", "headline", "end_pair", "fitted", "pseudocode", "checks"))
    lid = top.get("id", "text")
    if not _ID.fullmatch(lid):
        top.fail("id", f"expected lowercase letters, digits and '-' (2 to 64), got {lid!r}")
    if stem is not None and lid != stem:
        top.fail("id", f"{lid!r} does not match the file name {stem!r}; rename one of them")
    summary = top.get("summary", "text").strip()   # a folded `>` block ends in a newline
    if "\n" in summary or len(summary) > 200:
        top.fail("summary", "expected one line, got several" if "\n" in summary
                 else f"expected at most 200 characters, got {len(summary)}")
    scenario, scenario_raw = v.params(top.vals["scenario"], "scenario")

    variants: dict[str, dict[str, Any]] = {}
    expect: dict[str, tuple[str, ...]] = {}
    inject: dict[str, tuple[str, ...]] = {}
    entries = v.mapping(top.vals["variants"], "variants")
    if not 1 <= len(entries) <= 6:
        top.fail("variants", f"expected 1 to 6 variants, got {len(entries)}")
    for key, val in entries:
        if not _VARIANT.fullmatch(key.value):
            v.fail(key, "variants", f"expected a lowercase letter then up to 23 of a-z, 0-9, '-', got {key.value!r}")
        if _null(val):
            variants[key.value] = {}
            continue
        overrides, shows, faults = _variant(v, val, f"variants.{key.value}")
        variants[key.value] = overrides
        if shows:
            expect[key.value] = shows
        if faults:
            inject[key.value] = faults
    for key, val in entries:
        _check_scenario(v, key, val, top.vals["scenario"], {**scenario, **variants[key.value]})

    patch = None
    if (node := top.opt("patch")) is not None:
        p = _Map(v, node, "patch", ("subject", "author"), ("date", "message_id", "commit", "url", "seed"))
        s = {k: p.get(k, "text") for k in p.vals}
        if "date" in s:   # unknown dates are left out, never guessed
            try:   # read as written, so that YAML's own date reading never fails on 2024-02-30
                ok = bool(_DATE.fullmatch(s["date"])) and bool(datetime.date.fromisoformat(s["date"]))
            except ValueError:
                ok = False
            if not ok:
                p.fail("date", f"expected a date YYYY-MM-DD, got {s['date']!r}")
        if not any(s.get(k) for k in ("message_id", "commit", "url", "seed")):
            v.fail(node, "patch", "needs a message_id, a commit or a url to find it by (a patch known only "
                   "from a copy without mail headers: its seed)")
        patch = Patch(**s)

    paper = None
    if (node := top.opt("paper")) is not None:
        p = _Map(v, node, "paper", ("metric", "unit", "before", "after", "source"),
                 ("compare", "note", "after_kind", "after_note"))
        paper = Paper(p.get("metric", "choice", calls.METRICS, "metric"), p.get("unit", "text"),
                      p.get("before", "number"), p.get("after", "number"),
                      p.get("compare", "choice", ("absolute", "change", "ratio"), "comparison", default="absolute"),
                      p.get("source", "text"), p.get("note", "text", default=""),
                      p.get("after_kind", "choice", ("predicted", "fitted", "bounded"), "kind of figure",
                            default=""),
                      p.get("after_note", "text", default=""))

    node = top.opt("headline")
    h = _Map(v, node, "headline", (), ("frames", "before", "after")) if node else None
    pair = ("before", "after") if {"before", "after"} <= variants.keys() else ("", "")
    hb = h.get("before", "choice", variants, "variant", default=pair[0]) if h else pair[0]
    ha = h.get("after", "choice", variants, "variant", default=pair[1]) if h else pair[1]
    if (hb or ha) and (not hb or not ha or hb == ha):
        v.fail(node or root, "headline", "needs two different variants, before and after")
    if paper and not hb:
        top.fail("paper", "needs a headline pair: name variants before/after or set headline.before/after")
    headline = Headline(h.get("frames", "integer", 1, 5_000_000, default=100_000) if h else 100_000, hb, ha)

    end_pair: tuple[str, ...] = ()   # the two variants the end screen sums up
    if (node := top.opt("end_pair")) is not None:
        end_pair = tuple(v.choice(n, f"end_pair[{i}]", variants, "variant")
                         for i, n in enumerate(v.seq(node, "end_pair", 2, 2)))
        if end_pair[0] == end_pair[1]:
            top.fail("end_pair", "needs two different variants")

    fitted = []
    for i, node in enumerate(v.seq(top.opt("fitted"), "fitted", 0, 1000)):
        p = _Map(v, node, f"fitted[{i}]", ("param", "to"), ("note", "target", "plausible", "basis", "absorbs"))
        name = p.get("param", "choice", params.PARAMS, "parameter")
        if name not in scenario and not any(name in o for o in variants.values()):
            p.fail("param", f"{name!r} is not set in scenario or variants")
        if "paper.after" in (to := p.get("to", "text")):
            p.fail("to", "only the before figure may be fitted; the after figure is the prediction")
        target: dict[str, Any] = {}
        if (tnode := p.opt("target")) is not None:
            t = _Map(v, tnode, f"fitted[{i}].target", ("metric", "value", "range"), ("variant",))
            target["metric"] = t.get("metric", "choice", calls.METRICS, "metric")
            target["value"] = t.get("value", "number")
            target["variant"] = t.get("variant", "choice", variants, "variant", default=hb)
            if target["variant"] == ha and ha:
                t.fail("variant", "only the before variant may be fitted; the after variant is the prediction")
            bounds = v.seq(t.vals["range"], t.at("range"), 2, 2)
            target["lo"], target["hi"] = (v.number(b, t.at("range")) for b in bounds)
        if (pnode := p.opt("plausible")) is not None:
            lo, hi = (v.number(b, p.at("plausible")) for b in v.seq(pnode, p.at("plausible"), 2, 2))
            if lo > hi:
                p.fail("plausible", f"expected [low, high], got [{lo:g}, {hi:g}]")
            target["plausible"] = (lo, hi)
            if "basis" not in p:
                p.fail("plausible", "a plausible range needs its basis: where the range comes from")
        target["basis"] = p.get("basis", "text", default="")
        target["absorbs"] = p.get("absorbs", "text", default="")
        fitted.append(Fitted(name, to, p.get("note", "text", default=""), **target))

    node = top.opt("pseudocode")   # variant -> lines, numbered from 1 by step `code`
    pseudocode = {v.choice(k, "pseudocode", variants, "variant"): tuple(v.text(t, f"pseudocode.{k.value}").rstrip("\n")
                  .split("\n")) for k, t in (v.mapping(node, "pseudocode") if node else [])}

    step_nodes = v.seq(top.vals["steps"], "steps", 1, 40)
    steps = tuple(_step(v, i, n, variants, pseudocode) for i, n in enumerate(step_nodes))
    payoffs = [i for i, st in enumerate(steps) if st.payoff]
    if len(payoffs) > 1:
        v.fail(step_nodes[payoffs[1]], f"steps[{payoffs[1]}].payoff", f"only one step may be the payoff; "
               f"steps[{payoffs[0]}] already is")
    if payoffs and paper is None:
        v.fail(step_nodes[payoffs[0]], f"steps[{payoffs[0]}].payoff", "a payoff step shows the paper-vs-model "
               "headline: this lesson has no 'paper'")
    checks = tuple(_check(v, i, n, variants) for i, n in enumerate(v.seq(top.opt("checks"), "checks", 0, 1000)))
    return Lesson(lid, top.get("title", "text"), top.get("driver", "text"), summary, patch,
                  scenario, scenario_raw, variants, paper, headline, tuple(fitted), pseudocode, steps, checks,
                  None if path == "<string>" else path, expect=expect, inject=inject, end_pair=end_pair,
                  problems=tuple(str(e) for e in sorted(v.problems, key=lambda e: (e.line, e.column))))


def _variant(v: _V, node: Node, where: str) -> tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]:
    """A variant's parameter overrides, the violations it shows on purpose (`expect`) and the
    faults its driver has on purpose (`inject`)."""
    pairs = v.mapping(node, where)
    rest = [(k, x) for k, x in pairs if k.value not in ("expect", "inject")]
    overrides = v.params(MappingNode(node.tag, rest, node.start_mark, node.end_mark), where)[0]
    lists = {"expect": (calls.VIOLATIONS, "violation"), "inject": (calls.FAULTS, "fault")}
    found: dict[str, list[str]] = {"expect": [], "inject": []}
    for k, x in pairs:
        if k.value in lists:
            known, what = lists[k.value]
            names = found[k.value]
            for j, item in enumerate(v.seq(x, f"{where}.{k.value}", 1, len(known))):
                name = v.choice(item, f"{where}.{k.value}[{j}]", known, what)
                if name in names:
                    v.fail(item, f"{where}.{k.value}[{j}]", f"{name!r} is listed twice")
                names.append(name)
    return overrides, tuple(found["expect"]), tuple(found["inject"])


_WATCHABLE = (*calls.COUNTERS, *(c for c in calls.CALLS if c not in calls.COUNTERS), *calls.METRICS)


def _step(v: _V, i: int, node: Node, variants: dict[str, Any], pseudocode: dict[str, tuple[str, ...]]) -> Step:
    s = _Map(v, node, f"steps[{i}]", ("title", "say"),
             ("show", "focus", "code", "run", "ask", "reveal", "watch", "notes", "payoff"))
    show = s.get("show", "choice", variants, "variant", default=next(iter(variants)))
    code = s.get("code", "integer", 1, default=0)
    lines = len(pseudocode.get(show, ()))
    if code and show in pseudocode and code > lines:
        s.fail("code", f"line {code} is past the end of pseudocode.{show} ({lines} lines)")
    ask = None
    if "ask" in s:
        a = _Map(v, s.vals["ask"], s.at("ask"), ("question", "choices", "answer", "explain"), ("hide_code",))
        items = v.seq(a.vals["choices"], a.at("choices"), 2, 6)
        choices = tuple(v.text(c, f"{a.at('choices')}[{j}]") for j, c in enumerate(items))
        hide = []
        for j, n in enumerate(v.seq(a.opt("hide_code"), a.at("hide_code"), 1, 100)):
            if show not in pseudocode:
                v.fail(n, a.at("hide_code"), f"variant {show!r} has no pseudocode to hide lines of")
            hide.append(v.integer(n, f"{a.at('hide_code')}[{j}]", 1, lines))
        ask = Ask(a.get("question", "text"), choices, a.get("answer", "integer", 0, len(choices) - 1),
                  a.get("explain", "text"), tuple(hide))
    if "reveal" in s and ask is None:
        s.fail("reveal", "'reveal' is said after a question is answered: this step asks none (put it in 'say')",
               key=True)
    watch = []
    for j, n in enumerate(v.seq(s.opt("watch"), s.at("watch"), 1, 12)):
        name = v.choice(n, f"{s.at('watch')}[{j}]", _WATCHABLE, "counter or metric")
        if name in watch:
            v.fail(n, f"{s.at('watch')}[{j}]", f"{name!r} is listed twice")
        watch.append(name)
    return Step(i, s.get("title", "text"), s.get("say", "text"), show,
                s.get("focus", "choice", calls.VIEWS, "view", default=""), code,
                _run(v, s.vals["run"], s.at("run")) if "run" in s else None, ask, node.start_mark.line + 1,
                reveal=s.get("reveal", "text", default=""), watch=tuple(watch),
                notes=s.get("notes", "text", default=""), payoff=s.get("payoff", "boolean", default=False))


def _one_of(m: _Map, kinds: tuple[K, ...]) -> K:   # the one of `kinds` given; a second is pointed at
    found = [k for k in kinds if k in m]
    if len(found) != 1:
        m.v.fail(m.keys[found[1]] if found else m.node, m.where, f"expected exactly one of {', '.join(kinds[:-1])} "
                 f"or {kinds[-1]}" + (f", got {' and '.join(found)}" if found else ""))
    return found[0]


def _run(v: _V, node: Node, where: str) -> Run:
    forms = {"frames": (), "until": ("count", "limit"), "teardown": ("wait",)}
    r = _Map(v, node, where, (), ("frames", "until", "count", "limit", "teardown", "wait"))
    kind = _one_of(r, tuple(forms))
    for name in r.keys:
        if name != kind and name not in forms[kind]:
            r.fail(name, f"{name!r} does not go with {kind!r}", key=True)
    if kind == "frames":
        return Run("frames", frames=r.get("frames", "integer", 1, 1_000_000))
    if kind == "until":
        return Run("until", call=r.get("until", "choice", calls.CALLS, "kernel call"),
                   count=r.get("count", "integer", 1, default=1), limit=r.get("limit", "integer", 1, default=100_000))
    if not r.get("teardown", "boolean"):
        r.fail("teardown", "expected true (leave the step's run out instead)")
    try:
        return Run("teardown", wait_ns=units.parse_time(r.get("wait", "text")) if "wait" in r else 0)
    except Exception as e:   # ValueError from the parser; OverflowError for a 400-digit time
        r.fail("wait", str(e) if isinstance(e, ValueError) else "expected a time such as 61s")


def _check(v: _V, i: int, node: Node, variants: dict[str, Any]) -> Check:
    c = _Map(v, node, f"checks[{i}]", ("variant",), ("counter", "metric", "violation", "op", "value", "present"))
    kind: Literal["counter", "metric", "violation"] = _one_of(c, ("counter", "metric", "violation"))
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
