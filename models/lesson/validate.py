"""Validating a composed lesson node tree and building the `Lesson`.

Works on YAML nodes, not constructed Python objects, so each error points at
the exact key (unknown names) or value (bad values) at fault. Names are checked
against the single sources of truth (parameters: `models.params`; calls,
counters, metrics, views: `models.calls`), a near miss with a "did you mean".

A file's problems are reported together, up to MAX_ERRORS: each field is
checked on its own (`_V.keep`), a bad one is noted and the rest of the file
is still looked at, so an author fixes a file in one pass, not one error a run.

Lessons are untrusted, so every number has an upper bound and the work a
lesson can ask of the model is bounded: frames per step, an `until`'s count
and limit, the frames of the whole lesson, the headline's frames, the
teardown's wait. `rxviz check` enforces them with file:line:col, so a
lesson that passes it cannot make `run`, `export` or the player loop for
hours or overflow a float.
"""

from __future__ import annotations

import datetime
import difflib
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

MAX_ERRORS = 20                  # problems reported for one file before the validator stops looking
# Bounds on what a lesson can ask for (each also has a reason in the message that refuses it).
MAX_NUMBER = 1e12                # a published figure, a fitted target, a check's value
MAX_STEP_FRAMES = 100_000        # `run: {frames: N}`
MAX_UNTIL_COUNT = 10_000         # `run: {until: call, count: N}`
MAX_UNTIL_LIMIT = 100_000        # `run: {until: call, limit: N}` (frames)
MAX_LESSON_FRAMES = 2_000_000    # every step's frames and until limits together, per variant
MAX_HEADLINE_FRAMES = 200_000    # `headline.frames`
MAX_WAIT_NS = 600 * 10**9        # `run: {teardown: true, wait: T}`: ten minutes of simulated time
MAX_FITTED = 8                   # each fitted value re-runs the headline pair twice (sensitivity)
MAX_CHECKS = 200


class _TooMany(Exception):
    """MAX_ERRORS problems found: stop looking."""


def _null(node: Node | None) -> bool:
    return isinstance(node, ScalarNode) and node.tag == _T + "null"


class _V:
    """Checks on single nodes, bound to one file: each returns a checked value or raises."""

    def __init__(self, loader: Any, path: str) -> None:
        self.loader, self.path = loader, path
        self.problems: list[LessonError] = []     # lesson text shown otherwise than written (sanitize)
        self.errors: list[LessonError] = []       # what makes the lesson unusable, all of it

    def fail(self, node: Node, field: str, message: str) -> NoReturn:
        raise self.error(node, field, message)

    def error(self, node: Node, field: str, message: str) -> LessonError:
        m = node.start_mark
        return LessonError(self.path, m.line + 1, m.column + 1, field, message)

    def record(self, e: LessonError) -> None:
        if e not in self.errors:
            self.errors.append(e)
        if len(self.errors) >= MAX_ERRORS:
            raise _TooMany

    def keep(self, fn: Any, *args: Any, default: Any = None, **kw: Any) -> Any:
        """fn(*args, **kw), or `default` with its error noted: one bad field does not hide the next."""
        try:
            return fn(*args, **kw)
        except LessonError as e:
            for one in e.errors:
                self.record(one)
            return default

    def value(self, node: Node, field: str) -> Any:   # plain scalar tags only get here (loader._check_tree)
        if not isinstance(node, ScalarNode):
            return _ABSENT
        if node.tag in (_T + "str", _T + "value"):
            return node.value
        if node.tag == _T + "int" and len(node.value) > 40:     # never build a 4000-digit int to refuse it
            self.fail(node, field, f"expected a number of at most {_num(MAX_NUMBER)}, got {_short(node.value)}")
        try:
            return self.loader.construct_object(node)
        except Exception:   # e.g. a 10 000-digit int or the date 2024-13-45
            self.fail(node, field, f"cannot read the value {_short(node.value)}")

    def got(self, node: Node, field: str) -> str:
        if not isinstance(node, ScalarNode):
            return "a mapping" if isinstance(node, MappingNode) else "a list"
        if _null(node):
            return "nothing"
        if node.tag in (_T + "int", _T + "float") and len(node.value) > 24:
            return _short(node.value)
        return _short(node.value if node.tag == _T + "timestamp" else self.value(node, field))

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

    def text(self, node: Node, field: str, code: bool = False) -> str:
        """A string as written (`commit: 0123` stays '0123', `driver: yes` stays 'yes'), cleaned.

        Every string of a lesson is taken through here, so this is where control, bidi and
        invisible characters (and entities that stand for one) are shown escaped, and each one,
        like text that markup would have read, is noted for `rxviz check` (but in `code`: pseudocode,
        where `buf[i]` is an index).
        """
        if not isinstance(node, ScalarNode) or _null(node):
            self.fail(node, field, f"expected a string, got {self.got(node, field)}")
        cleaned = sanitize.clean(node.value)
        if cleaned != node.value:
            self._note_bad(node, field)
        if "[" in node.value and not code:
            self._note_markup(node, field)
        return cleaned

    def _at(self, node: ScalarNode, pos: int) -> tuple[int, int]:
        m = node.start_mark
        return sanitize.line_col(m.buffer or "", m.index, m.line, m.column, pos)

    def _note_bad(self, node: ScalarNode, field: str) -> None:
        m = node.start_mark
        source = m.buffer or ""           # the whole lesson text: lessons are always parsed from a str
        found = sanitize.findings(source, m.index, node.end_mark.index, node.style == '"') if source else []
        # A character the scan cannot place (it never should) is reported at the scalar itself.
        at = [(self._at(node, i), c, how) for i, c, how in found] or \
             [((m.line + 1, m.column + 1), next(c for c in sanitize.clean(node.value) if c), "")]
        for (line, col), char, how in at:
            what = f"entity {how} stands for {sanitize.describe(char)}" if how.startswith("&") \
                else f"{sanitize.describe(char)} in lesson text"
            self.problems.append(LessonError(self.path, line, col, field,
                                             f"{what}; it is shown as {sanitize.escaped(char)}"))

    def _note_markup(self, node: ScalarNode, field: str) -> None:
        m = node.start_mark
        source = m.buffer or ""
        found = sanitize.markup(node.value)
        start = m.index
        for _, tag, kind in found:
            # The tag as written in the file, the first one after the last found: a tag is plain
            # text in every YAML style, so the value's order is the file's.
            pos = source.find(tag, start, node.end_mark.index) if source else -1
            line, col = self._at(node, pos) if pos >= 0 else (m.line + 1, m.column + 1)
            start = pos + len(tag) if pos >= 0 else start
            self.problems.append(LessonError(self.path, line, col, field, f"{tag} is markup ({kind}) to Textual "
                                             "and Rich; lesson text is shown as written"))

    def number(self, node: Node, field: str, lo: float = -MAX_NUMBER, hi: float = MAX_NUMBER,
               kind: type[float] | type[int] = float, why: str = "") -> Any:
        """A finite number (kind=float) or a whole number (kind=int), always bounded.

        `why` says where the upper bound comes from, in the message that refuses a value past it.
        """
        v, what = self.value(node, field), "a whole number" if kind is int else "a number"
        if not isinstance(v, (kind, int)) or isinstance(v, bool) or (isinstance(v, float) and not math.isfinite(v)):
            self.fail(node, field, f"expected {what}, got {self.got(node, field)}")
        if not lo <= v <= hi:
            bound = f"between {_num(lo)} and {_num(hi)}" if lo > -MAX_NUMBER else f"of at most {_num(hi)}"
            self.fail(node, field, f"expected {what} {bound}{f' ({why})' if why else ''}, got {_short(v)}")
        return v

    def integer(self, node: Node, field: str, lo: int, hi: int, why: str = "") -> int:
        n: int = self.number(node, field, lo, hi, int, why)
        return n

    def node(self, node: Node, field: str) -> Node:
        """The node itself, for a field read by a caller's own checks."""
        return node

    def boolean(self, node: Node, field: str) -> bool:
        if not isinstance(v := self.value(node, field), bool):
            self.fail(node, field, f"expected true or false, got {self.got(node, field)}")
        return v

    def choice(self, node: Node, field: str, known: Iterable[str], what: str) -> str:
        name, known = self.text(node, field), list(known)
        if name not in known:
            self.fail(node, field, f"unknown {what} {_short(name)}{_hint(name, known)}")
        return name

    def params(self, node: Node, field: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Parameter values, each parsed by models.params, pointing at the value when bad."""
        parsed: dict[str, Any] = {}
        raw: dict[str, Any] = {}
        for key, val in self.mapping(node, field):
            self.keep(self._param, key, val, field, parsed, raw)
        return parsed, raw

    def _param(self, key: Node, val: Node, field: str, parsed: dict[str, Any], raw: dict[str, Any]) -> None:
        name, where = key.value, f"{field}.{key.value}"
        if name not in params.PARAMS:
            self.fail(key, field, f"unknown parameter {_short(name)}{_hint(name, params.PARAMS)}")
        if not isinstance(val, ScalarNode) or _null(val):
            self.fail(val, where, f"expected a value, got {self.got(val, where)}")
        # YAML 1.1 reads `iommu: off` as False; parameters want the words as
        # written (as `--set iommu=off` gives them), so only numbers and strings are constructed.
        v = self.value(val, where) if val.tag in (_T + "int", _T + "float", _T + "str") else val.value
        try:
            parsed[name] = params.parse_value(name, v)
        except Exception as e:   # parsers raise ValueError; never let anything else escape
            self.fail(val, where, str(e) or f"bad value {_short(v)}")
        raw[name] = sanitize.clean(v) if isinstance(v, str) else v


def _short(v: Any) -> str:
    """A value as a message shows it: its repr, within a line (a 400-digit number is said to be one)."""
    digits = v.lstrip("+-") if isinstance(v, str) else str(abs(v)) if isinstance(v, int) and abs(v) >= 10**24 else ""
    if len(digits) > 24 and digits.isdigit():
        return f"a {len(digits)}-digit number"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "…'"


def _num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) <= MAX_NUMBER else f"{x:g}"


class _Map:
    """One YAML mapping checked against its allowed keys, with typed getters named by key.

    An unknown key and a missing field are each noted (`_V.record`) and the mapping is
    still read: `get` of a missing field raises its error again, for its caller's `keep`.
    """

    def __init__(self, v: _V, node: Node, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()):
        self.v, self.node, self.where = v, node, where
        pairs = v.mapping(node, where)
        self.keys = {k.value: k for k, _ in pairs}
        self.vals = {k.value: val for k, val in pairs}
        self.unknown: list[LessonError] = []
        meant: set[str] = set()              # the known names the unknown keys look like
        for name, key in list(self.keys.items()):
            if name not in required + optional:
                meant.update(difflib.get_close_matches(name, required + optional, n=1, cutoff=0.6))
                self.unknown.append(v.error(key, where, f"unknown key {_short(name)}"
                                            f"{_hint(name, required + optional)}"))
                del self.keys[name], self.vals[name]
        for e in self.unknown:
            v.record(e)
        for name in required:
            if name not in self.keys and name not in meant:     # not again for `tittle:`, said above
                v.record(v.error(node, self.at(name), "missing required field"))
        self.meant = meant

    def __contains__(self, name: str) -> bool:
        return name in self.vals

    def at(self, name: str) -> str:
        return f"{self.where}.{name}" if self.where else name

    def opt(self, name: str) -> Node | None:
        """An optional section's node; null counts as absent (a section with all entries commented out)."""
        node = self.vals.get(name)
        return None if node is None or _null(node) else node

    def get(self, name: str, check: str, *args: Any, default: Any = _ABSENT, **kw: Any) -> Any:
        if name not in self.vals:
            if default is not _ABSENT:
                return default
            if name in self.meant:
                raise self.unknown[0]
            self.v.fail(self.node, self.at(name), "missing required field")
        return getattr(self.v, check)(self.vals[name], self.at(name), *args, **kw)

    def take(self, name: str, check: str, *args: Any, default: Any = _ABSENT, bad: Any = _ABSENT, **kw: Any) -> Any:
        """`get`, its error noted rather than raised; `bad` (else `default`, else None) stands in."""
        try:
            return self.get(name, check, *args, default=default, **kw)
        except LessonError as e:
            for one in e.errors:
                self.v.record(one)
        return bad if bad is not _ABSENT else None if default is _ABSENT else default

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
                v.record(v.error(n, "", f"lesson text cites {m.group(0)!r}: cite the kernel (file, function) or the "
                                 "patch, not this project's notes or files"))
        elif isinstance(n, MappingNode):
            for k, val in reversed(n.value):
                stack.extend((val, k))
        elif isinstance(n, SequenceNode):
            stack.extend(reversed(n.value))


def build(root: MappingNode, loader: Any, path: str, stem: str | None) -> Lesson:
    """The lesson, or a LessonError carrying every problem found (up to MAX_ERRORS)."""
    v = _V(loader, path)
    try:
        lesson = _build(v, root, path, stem)
    except _TooMany:
        raise LessonError.several(v.errors, dropped=1) from None
    except LessonError as e:          # a section that could not be read at all
        for one in e.errors:
            v.errors.append(one)
        raise LessonError.several(v.errors) from None
    if v.errors or lesson is None:
        raise LessonError.several(v.errors) from None
    return lesson


def _build(v: _V, root: MappingNode, path: str, stem: str | None) -> Lesson | None:
    _no_internal_notes(v, root)
    top = _Map(v, root, "", ("id", "title", "driver", "summary", "scenario", "variants", "steps"),
               ("patch", "paper", "headline", "end_pair", "fitted", "pseudocode", "checks"))
    lid = top.take("id", "text", bad="")
    if lid and not _ID.fullmatch(lid):
        v.record(v.error(top.vals["id"], "id", f"expected lowercase letters, digits and '-' (2 to 64), "
                         f"got {_short(lid)}"))
    elif lid and stem is not None and lid != stem:
        v.record(v.error(top.vals["id"], "id", f"{lid!r} does not match the file name {stem!r}; rename one of them"))
    summary = (top.take("summary", "text", bad="") or "").strip()   # a folded `>` block ends in a newline
    if "\n" in summary or len(summary) > 200:
        v.record(v.error(top.vals["summary"], "summary", "expected one line, got several" if "\n" in summary
                         else f"expected at most 200 characters, got {len(summary)}"))
    title, driver = top.take("title", "text", bad=""), top.take("driver", "text", bad="")
    scenario, scenario_raw = v.keep(v.params, top.vals["scenario"], "scenario", default=({}, {})) \
        if "scenario" in top else ({}, {})

    variants: dict[str, dict[str, Any]] = {}
    expect: dict[str, tuple[str, ...]] = {}
    inject: dict[str, tuple[str, ...]] = {}
    entries = v.keep(v.mapping, top.vals["variants"], "variants", default=[]) if "variants" in top else []
    if entries and not 1 <= len(entries) <= 6:
        v.record(v.error(top.vals["variants"], "variants", f"expected 1 to 6 variants, got {len(entries)}"))
    for key, val in entries:
        if not _VARIANT.fullmatch(key.value):
            v.record(v.error(key, "variants", "expected a lowercase letter then up to 23 of a-z, 0-9, '-', "
                             f"got {_short(key.value)}"))
        if _null(val):
            variants[key.value] = {}
            continue
        overrides, shows, faults = v.keep(_variant, v, val, f"variants.{key.value}", default=({}, (), ()))
        variants[key.value] = overrides
        if shows:
            expect[key.value] = shows
        if faults:
            inject[key.value] = faults
    for key, val in entries:
        if "scenario" in top:
            v.keep(_check_scenario, v, key, val, top.vals["scenario"], {**scenario, **variants[key.value]})

    patch = None
    if (node := top.opt("patch")) is not None:
        patch = v.keep(_patch, v, node)
    paper = None
    if (node := top.opt("paper")) is not None:
        p = _Map(v, node, "paper", ("metric", "unit", "before", "after", "source"),
                 ("compare", "note", "after_kind", "after_note"))
        paper = Paper(p.take("metric", "choice", calls.METRICS, "metric", bad=""), p.take("unit", "text", bad=""),
                      p.take("before", "number", bad=0.0), p.take("after", "number", bad=0.0),
                      p.take("compare", "choice", ("absolute", "change"), "comparison", default="absolute"),
                      p.take("source", "text", bad=""), p.take("note", "text", default=""),
                      p.take("after_kind", "choice", ("predicted", "fitted", "bounded"), "kind of figure",
                             default=""),
                      p.take("after_note", "text", default=""))

    node = top.opt("headline")
    h = _Map(v, node, "headline", (), ("frames", "before", "after")) if node else None
    pair = ("before", "after") if {"before", "after"} <= variants.keys() else ("", "")
    hb = h.take("before", "choice", variants, "variant", default=pair[0]) if h else pair[0]
    ha = h.take("after", "choice", variants, "variant", default=pair[1]) if h else pair[1]
    if (hb or ha) and (not hb or not ha or hb == ha):
        v.record(v.error(node or root, "headline", "needs two different variants, before and after"))
    if paper and not hb:
        v.record(v.error(top.vals["paper"], "paper", "needs a headline pair: name variants before/after or set "
                         "headline.before/after"))
    frames = h.take("frames", "integer", 1, MAX_HEADLINE_FRAMES, default=100_000,
                    why="each is run for both variants, and again for each fitted value's sensitivity") if h \
        else 100_000
    headline = Headline(frames, hb or "", ha or "")

    end_pair: tuple[str, ...] = ()   # the two variants the end screen sums up
    if (node := top.opt("end_pair")) is not None:
        end_pair = v.keep(_end_pair, v, node, variants, default=())

    fitted = [f for i, node in enumerate(v.keep(v.seq, top.opt("fitted"), "fitted", 0, MAX_FITTED, default=[]))
              if (f := v.keep(_fitted, v, i, node, scenario, variants, hb, ha)) is not None]

    node = top.opt("pseudocode")   # variant -> lines, numbered from 1 by step `code`
    pseudocode: dict[str, tuple[str, ...]] = {}
    for k, t in (v.keep(v.mapping, node, "pseudocode", default=[]) if node else []):
        name = v.keep(v.choice, k, "pseudocode", variants, "variant")
        text = v.keep(v.text, t, f"pseudocode.{k.value}", code=True)
        if name is not None and text is not None:
            pseudocode[name] = tuple(text.rstrip("\n").split("\n"))

    step_nodes = v.keep(v.seq, top.vals["steps"], "steps", 1, 40, default=[]) if "steps" in top else []
    steps = tuple(st for i, n in enumerate(step_nodes)
                  if (st := v.keep(_step, v, i, n, variants, pseudocode)) is not None)
    _lesson_frames(v, steps, step_nodes)
    payoffs = [i for i, st in enumerate(steps) if st.payoff]
    if len(payoffs) > 1:
        v.record(v.error(step_nodes[payoffs[1]], f"steps[{payoffs[1]}].payoff", f"only one step may be the payoff; "
                         f"steps[{payoffs[0]}] already is"))
    if payoffs and paper is None:
        v.record(v.error(step_nodes[payoffs[0]], f"steps[{payoffs[0]}].payoff", "a payoff step shows the "
                         "paper-vs-model headline: this lesson has no 'paper'"))
    checks = tuple(c for i, n in enumerate(v.keep(v.seq, top.opt("checks"), "checks", 0, MAX_CHECKS, default=[]))
                   if (c := v.keep(_check, v, i, n, variants)) is not None)
    if v.errors:
        return None
    return Lesson(lid, title, driver, summary, patch,
                  scenario, scenario_raw, variants, paper, headline, tuple(fitted), pseudocode, steps, checks,
                  None if path == "<string>" else path, expect=expect, inject=inject, end_pair=end_pair,
                  problems=tuple(str(e) for e in sorted(dict.fromkeys(v.problems), key=lambda e: (e.line, e.column))))


def _patch(v: _V, node: Node) -> Patch:
    p = _Map(v, node, "patch", ("subject", "author"), ("date", "message_id", "commit", "url", "seed"))
    s = {k: p.take(k, "text", bad="") for k in p.vals}
    if s.get("date"):   # unknown dates are left out, never guessed
        try:   # read as written, so that YAML's own date reading never fails on 2024-02-30
            ok = bool(_DATE.fullmatch(s["date"])) and bool(datetime.date.fromisoformat(s["date"]))
        except ValueError:
            ok = False
        if not ok:
            p.fail("date", f"expected a date YYYY-MM-DD, got {_short(s['date'])}")
    if not any(s.get(k) for k in ("message_id", "commit", "url", "seed")):
        v.fail(node, "patch", "needs a message_id, a commit or a url to find it by (a patch known only "
               "from a copy without mail headers: its seed)")
    return Patch(**{"subject": "", "author": "", **s})


def _end_pair(v: _V, node: Node, variants: dict[str, Any]) -> tuple[str, ...]:
    pair = tuple(v.choice(n, f"end_pair[{i}]", variants, "variant")
                 for i, n in enumerate(v.seq(node, "end_pair", 2, 2)))
    if pair[0] == pair[1]:
        v.fail(node, "end_pair", "needs two different variants")
    return pair


def _fitted(v: _V, i: int, node: Node, scenario: dict[str, Any], variants: dict[str, Any], hb: str,
            ha: str) -> Fitted:
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
        bounds = v.seq(t.get("range", "node"), t.at("range"), 2, 2)
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
    return Fitted(name, to, p.get("note", "text", default=""), **target)


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
            for j, item in enumerate(v.keep(v.seq, x, f"{where}.{k.value}", 1, len(known), default=[])):
                name = v.keep(v.choice, item, f"{where}.{k.value}[{j}]", known, what)
                if name in names:
                    v.record(v.error(item, f"{where}.{k.value}[{j}]", f"{name!r} is listed twice"))
                elif name is not None:
                    names.append(name)
    return overrides, tuple(found["expect"]), tuple(found["inject"])


_WATCHABLE = (*calls.COUNTERS, *(c for c in calls.CALLS if c not in calls.COUNTERS), *calls.METRICS)


def _step(v: _V, i: int, node: Node, variants: dict[str, Any], pseudocode: dict[str, tuple[str, ...]]) -> Step:
    s = _Map(v, node, f"steps[{i}]", ("title", "say"),
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
    watch: list[str] = []
    for j, n in enumerate(v.keep(v.seq, s.opt("watch"), s.at("watch"), 1, 12, default=[])):
        name = v.keep(v.choice, n, f"{s.at('watch')}[{j}]", _WATCHABLE, "counter or metric")
        if name in watch:
            v.record(v.error(n, f"{s.at('watch')}[{j}]", f"{name!r} is listed twice"))
        elif name is not None:
            watch.append(name)
    run = v.keep(_run, v, s.vals["run"], s.at("run")) if "run" in s else None
    step = Step(i, s.take("title", "text", bad=""), s.take("say", "text", bad=""), show,
                s.take("focus", "choice", calls.VIEWS, "view", default=""), code or 0,
                run, ask, node.start_mark.line + 1,
                reveal=s.take("reveal", "text", default=""), watch=tuple(watch),
                notes=s.take("notes", "text", default=""), payoff=s.take("payoff", "boolean", default=False))
    return step


def _ask(v: _V, s: _Map, show: str, pseudocode: dict[str, tuple[str, ...]]) -> Ask:
    a = _Map(v, s.vals["ask"], s.at("ask"), ("question", "choices", "answer", "explain"), ("hide_code",))
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
               a.take("explain", "text", bad=""), tuple(h for h in hide if h is not None))


def _one_of(m: _Map, kinds: tuple[K, ...]) -> K:   # the one of `kinds` given; a second is pointed at
    found = [k for k in kinds if k in m]
    if not found and m.unknown:        # `frame: 8`: the unknown key says it all
        raise m.unknown[0]
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
        return Run("frames", frames=r.get("frames", "integer", 1, MAX_STEP_FRAMES,
                                          why="a step is something to watch; a long run is `rxviz run`'s"))
    if kind == "until":
        return Run("until", call=r.take("until", "choice", calls.CALLS, "kernel call", bad=""),
                   count=r.take("count", "integer", 1, MAX_UNTIL_COUNT, default=1),
                   limit=r.take("limit", "integer", 1, MAX_UNTIL_LIMIT, default=100_000,
                                why="frames to give up after"))
    if not r.get("teardown", "boolean"):
        r.fail("teardown", "expected true (leave the step's run out instead)")
    try:
        wait = units.parse_time(r.get("wait", "text")) if "wait" in r else 0
    except Exception as e:   # ValueError from the parser; OverflowError for a 400-digit time
        r.fail("wait", str(e) if isinstance(e, ValueError) else "expected a time such as 61s")
    if not 0 <= wait <= MAX_WAIT_NS:
        r.fail("wait", f"expected a time of at most {MAX_WAIT_NS // 10**9}s (simulated; page_pool retries its "
               f"shutdown every second and warns after 60s), got {_short(r.vals['wait'].value)}")
    return Run("teardown", wait_ns=wait)


def _lesson_frames(v: _V, steps: tuple[Step, ...], nodes: list[Node]) -> None:
    """Every step's frames (and each `until`'s limit, what it may run) together, per variant: bounded."""
    total = 0
    for st in steps:
        run, node = st.run, nodes[st.index]
        total += 0 if run is None else run.frames if run.kind == "frames" else run.limit if run.kind == "until" else 0
        if total > MAX_LESSON_FRAMES:
            v.record(v.error(node, f"steps[{st.index}].run", f"the steps run {total:,} frames per variant up to here "
                             f"(frames, and each until's limit); a lesson may run at most {MAX_LESSON_FRAMES:,}"))
            return


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
