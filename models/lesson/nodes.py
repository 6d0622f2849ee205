"""Checks on single YAML nodes of a lesson, each bound to its file: the validator's vocabulary.

`V` checks one node (a string, a number within bounds, a choice among known
names, parameter values) and either returns the checked value or raises a
`LessonError` at the node's line and column. `V.keep` runs a check and notes
its error instead, so one bad field does not hide the next: a file's problems
are reported together, up to MAX_ERRORS. `Map` is one YAML mapping checked
against its allowed keys. Every string goes through `V.text`, where control,
bidi and invisible characters and markup are noted for `rxviz check`
(models.lesson.sanitize).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from typing import Any, NoReturn, TypeVar

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .. import params
from . import sanitize
from .limits import MAX_ERRORS, MAX_NUMBER
from .schema import LessonError
from .schema import did_you_mean as _hint

T = "tag:yaml.org,2002:"
K = TypeVar("K", bound=str)      # one of a fixed set of keys (one_of), kept as its Literal type
_ABSENT: Any = object()


class TooMany(Exception):
    """MAX_ERRORS problems found: stop looking."""


def null(node: Node | None) -> bool:
    return isinstance(node, ScalarNode) and node.tag == T + "null"


class V:
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
            raise TooMany

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
        if node.tag in (T + "str", T + "value"):
            return node.value
        if node.tag == T + "int" and len(node.value) > 40:     # never build a 4000-digit int to refuse it
            self.fail(node, field, f"expected a number of at most {num(MAX_NUMBER)}, got {short(node.value)}")
        try:
            return self.loader.construct_object(node)
        except Exception:   # e.g. a 10 000-digit int or the date 2024-13-45
            self.fail(node, field, f"cannot read the value {short(node.value)}")

    def got(self, node: Node, field: str) -> str:
        if not isinstance(node, ScalarNode):
            return "a mapping" if isinstance(node, MappingNode) else "a list"
        if null(node):
            return "nothing"
        if node.tag in (T + "int", T + "float") and len(node.value) > 24:
            return short(node.value)
        return short(node.value if node.tag == T + "timestamp" else self.value(node, field))

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
        if not isinstance(node, ScalarNode) or null(node):
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
            bound = f"between {num(lo)} and {num(hi)}" if lo > -MAX_NUMBER else f"of at most {num(hi)}"
            self.fail(node, field, f"expected {what} {bound}{f' ({why})' if why else ''}, got {short(v)}")
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
            self.fail(node, field, f"unknown {what} {short(name)}{_hint(name, known)}")
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
            self.fail(key, field, f"unknown parameter {short(name)}{_hint(name, params.PARAMS)}")
        if not isinstance(val, ScalarNode) or null(val):
            self.fail(val, where, f"expected a value, got {self.got(val, where)}")
        # YAML 1.1 reads `iommu: off` as False; parameters want the words as
        # written (as `--set iommu=off` gives them), so only numbers and strings are constructed.
        v = self.value(val, where) if val.tag in (T + "int", T + "float", T + "str") else val.value
        try:
            parsed[name] = params.parse_value(name, v)
        except Exception as e:   # parsers raise ValueError; never let anything else escape
            self.fail(val, where, str(e) or f"bad value {short(v)}")
        raw[name] = sanitize.clean(v) if isinstance(v, str) else v


def short(v: Any) -> str:
    """A value as a message shows it: its repr, within a line (a 400-digit number is said to be one)."""
    digits = v.lstrip("+-") if isinstance(v, str) else str(abs(v)) if isinstance(v, int) and abs(v) >= 10**24 else ""
    if len(digits) > 24 and digits.isdigit():
        return f"a {len(digits)}-digit number"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "…'"


def num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) <= MAX_NUMBER else f"{x:g}"


class Map:
    """One YAML mapping checked against its allowed keys, with typed getters named by key.

    An unknown key and a missing field are each noted (`V.record`) and the mapping is
    still read: `get` of a missing field raises its error again, for its caller's `keep`.
    """

    def __init__(self, v: V, node: Node, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()):
        self.v, self.node, self.where = v, node, where
        pairs = v.mapping(node, where)
        self.keys = {k.value: k for k, _ in pairs}
        self.vals = {k.value: val for k, val in pairs}
        self.unknown: list[LessonError] = []
        meant: set[str] = set()              # the known names the unknown keys look like
        for name, key in list(self.keys.items()):
            if name not in required + optional:
                meant.update(difflib.get_close_matches(name, required + optional, n=1, cutoff=0.6))
                self.unknown.append(v.error(key, where, f"unknown key {short(name)}"
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
        return None if node is None or null(node) else node

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


def one_of(m: Map, kinds: tuple[K, ...]) -> K:   # the one of `kinds` given; a second is pointed at
    found = [k for k in kinds if k in m]
    if not found and m.unknown:        # `frame: 8`: the unknown key says it all
        raise m.unknown[0]
    if len(found) != 1:
        m.v.fail(m.keys[found[1]] if found else m.node, m.where, f"expected exactly one of {', '.join(kinds[:-1])} "
                 f"or {kinds[-1]}" + (f", got {' and '.join(found)}" if found else ""))
    return found[0]
