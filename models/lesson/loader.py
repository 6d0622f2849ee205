"""Reading lesson files safely and turning them into `Lesson` objects.

Lessons are untrusted input: anyone can hand `rxviz play` a file. So the
file is size-checked before it is read (and read with a hard cap anyway),
must be text, and is parsed by composing YAML *nodes* with a SafeLoader
subclass that refuses anchors and aliases (no alias bombs), deep nesting
and huge node counts while it composes. Nothing is ever constructed from a
tag except plain scalars (str, int, float, bool, null, date); mappings and
lists are walked by `models.lesson.validate` itself, which keeps each
node's mark so every error names file, line, column and field.
"""

from __future__ import annotations

import errno
import functools
import importlib.resources
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .schema import Lesson, LessonError, LessonNotFound
from .validate import build

MAX_BYTES = 1 << 20
MAX_DEPTH = 16
MAX_NODES = 20_000
FIRST = "rx-basics"       # the lesson every list starts with: the common RX skeleton

_T = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_T + t for t in ("str", "int", "float", "bool", "null", "timestamp", "value")}


class _Refused(yaml.MarkedYAMLError):
    """Raised from inside composition; carries the offending mark."""


class _LessonLoader(yaml.SafeLoader):
    """SafeLoader whose composer enforces the lesson limits as it goes.

    The checks run before a node is built, so an alias bomb or a
    100 000-deep `[[[[...` fails at its first offending event instead of
    after exhausting memory or the recursion limit.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        peek: Callable[[], Any] = self.peek_event     # PyYAML's stubs leave it untyped (no-untyped-call)
        event = peek()
        if isinstance(event, AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _Refused(problem="YAML anchors and aliases are not allowed in lessons",
                           problem_mark=event.start_mark)
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise _Refused(problem="lesson has too many YAML nodes", problem_mark=event.start_mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(problem="lesson is nested too deeply", problem_mark=event.start_mark)
            node = super().compose_node(parent, index)
            assert node is not None             # a node event was peeked above
            return node
        finally:
            self._depth -= 1


def _where(data: bytes, pos: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte offset `pos`."""
    start = data.rfind(b"\n", 0, pos) + 1
    return data.count(b"\n", 0, pos) + 1, len(data[start:pos].decode("utf-8", "replace")) + 1


def _read(path: str) -> bytes:  # noqa: C901 (older than the complexity rule)
    def fail(message: str) -> LessonError:      # about the file as a whole: no line or column
        return LessonError(path, 0, 0, "", message)
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise fail("is a directory, expected a .yaml file")
        if not stat.S_ISREG(st.st_mode):
            raise fail("not a regular file, expected a .yaml file")
        if st.st_size > MAX_BYTES:
            raise fail(f"file is {st.st_size} bytes; lessons are limited to 1 MiB")
        # O_NONBLOCK: if the path was swapped for a FIFO since stat, don't hang on open.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise fail("not a regular file, expected a .yaml file")
            chunks, left = [], MAX_BYTES + 1
            while left > 0:
                chunk = os.read(fd, left)
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise fail("no such file") from None
    except IsADirectoryError:
        raise fail("is a directory, expected a .yaml file") from None
    except OSError as e:
        raise fail(f"cannot read: {e.strerror or errno.errorcode.get(e.errno or 0, e)}") from None
    data = b"".join(chunks)
    if len(data) > MAX_BYTES:   # it grew after stat
        raise fail(f"file is more than {MAX_BYTES} bytes; lessons are limited to 1 MiB")
    return data


def _decode(data: bytes, path: str) -> str:
    nul = data.find(b"\0")
    if nul >= 0:
        line, col = _where(data, nul)
        raise LessonError(path, 1, 1, "", f"binary file (NUL byte at line {line}, column {col})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _where(data, e.start)
        raise LessonError(path, line, col, "", f"not UTF-8 (byte 0x{data[e.start]:02x})") from None


def _compose(text: str, path: str) -> tuple[MappingNode, _LessonLoader]:
    loader = None
    try:
        loader = _LessonLoader(text)        # the reader rejects control characters right here
        root = loader.get_single_node()     # what yaml.compose() does, keeping the loader
    except _Refused as e:
        m = e.problem_mark
        assert m is not None                # every refusal names where
        raise LessonError(path, m.line + 1, m.column + 1, "", str(e.problem)) from None
    except yaml.MarkedYAMLError as e:
        m = e.problem_mark or e.context_mark
        line, col = (m.line + 1, m.column + 1) if m else (1, 1)
        raise LessonError(path, line, col, "", f"YAML syntax error: {e.problem or e.context}") from None
    except yaml.reader.ReaderError as e:
        # A control character: the reader reports a character offset.
        line = text.count("\n", 0, e.position) + 1
        col = e.position - (text.rfind("\n", 0, e.position) + 1) + 1
        char = f"U+{e.character:04X}" if isinstance(e.character, int) else repr(e.character)
        raise LessonError(path, line, col, "", f"YAML syntax error: {e.reason} ({char})") from None
    except yaml.YAMLError as e:
        raise LessonError(path, 1, 1, "", f"YAML syntax error: {e}") from None
    finally:
        if loader is not None:
            loader.dispose()
    if root is None:
        raise LessonError(path, 1, 1, "", "empty file, expected a lesson mapping")
    _check_tree(root, path)
    if not isinstance(root, MappingNode):
        m = root.start_mark
        kind = "a list" if isinstance(root, SequenceNode) else "a single value"
        raise LessonError(path, m.line + 1, m.column + 1, "", f"expected a lesson mapping, got {kind}")
    return root, loader


def _check_tree(root: Node, path: str) -> None:  # noqa: C901 (older than the complexity rule)
    """Tags, key kinds and duplicate keys, everywhere, before any validation (every one found, up to a limit)."""
    from .limits import MAX_ERRORS
    errors: list[LessonError] = []

    def bad(m: Any, message: str) -> None:
        errors.append(LessonError(path, m.line + 1, m.column + 1, "", message))

    todo = [root]
    while todo and len(errors) < MAX_ERRORS:
        node = todo.pop()
        m = node.start_mark
        if isinstance(node, ScalarNode):
            ok = node.tag in _SCALAR_TAGS
        else:
            ok = node.tag == _T + ("map" if isinstance(node, MappingNode) else "seq")
        if not ok:
            bad(m, f"YAML tag {node.tag.replace(_T, '!!')[:40]!r} is not allowed in lessons")
            continue
        if isinstance(node, SequenceNode):
            todo.extend(reversed(node.value))
        elif isinstance(node, MappingNode):
            seen: set[str] = set()
            for key, _ in node.value:
                km = key.start_mark
                if not isinstance(key, ScalarNode):
                    bad(km, "mapping keys must be plain names, not lists or mappings")
                    continue
                if key.value in seen:
                    bad(km, f"duplicate key {key.value[:40]!r}")
                seen.add(key.value)
            for key, value in reversed(node.value):
                todo.extend((value, key))
    if errors:
        raise LessonError.several(errors, dropped=int(bool(todo)))


def load_lesson_text(text: str, path: str = "<string>") -> Lesson:
    """Validate lesson text; the id must match the file stem unless path is "<string>"."""
    return _parsed(text, str(path))


# A lesson is a frozen value computed from its text and path alone, and parsing one costs about
# 0.1 s of CPU (PyYAML's pure-Python composer, which keeps the marks errors need): a process that
# loads the same file again (`rxviz stats` and `check` walk all lessons; the tests call the CLI in
# process hundreds of times) gets the Lesson it built. Keyed by the text, so an edited file is
# parsed afresh; a text that fails raises every time (lru_cache keeps only results).
@functools.lru_cache(maxsize=16)
def _parsed(text: str, path: str) -> Lesson:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > MAX_BYTES:
        raise LessonError(path, 1, 1, "", f"text is {len(data)} bytes; lessons are limited to 1 MiB")
    _decode(data, path)  # NUL bytes and lone surrogates
    root, loader = _compose(text, path)
    stem = None if path == "<string>" else Path(path).stem
    return build(root, loader, path, stem)


def load_lesson(path: str | os.PathLike[str]) -> Lesson:
    """Read, check and validate one lesson file; raises LessonError."""
    path = os.fspath(path)
    return load_lesson_text(_decode(_read(path), path), path)


def lessons_dir() -> Path:
    """lessons/ shipped in the wheel as models/lessons, else the checkout's top-level lessons/."""
    try:
        packaged = importlib.resources.files("models") / "lessons"
        if packaged.is_dir() and any(p.name.endswith(".yaml") for p in packaged.iterdir()):
            return Path(str(packaged))
    except (ModuleNotFoundError, OSError, TypeError):
        pass
    import models
    return Path(models.__file__).resolve().parent.parent / "lessons"


def lesson_paths() -> list[Path]:
    """Lesson files, rx-basics first, then alphabetical by id."""
    d = lessons_dir()
    paths = [p for p in d.glob("*.yaml") if p.is_file()] if d.is_dir() else []
    return sorted(paths, key=lambda p: (p.stem != FIRST, p.stem))


def find_lesson(name: str | os.PathLike[str]) -> Lesson:
    """A lesson by id, or by path to a .yaml file; raises LessonNotFound or LessonError."""
    text = os.fspath(name)
    if text.endswith((".yaml", ".yml")) or os.sep in text or (os.altsep and os.altsep in text):
        return load_lesson(text)
    paths = lesson_paths()
    for p in paths:
        if p.stem == text:
            return load_lesson(p)
    raise LessonNotFound(text, [p.stem for p in paths])


def all_lessons() -> list[Lesson]:
    """Every lesson, in lesson_paths() order; the first invalid one raises LessonError."""
    return [load_lesson(p) for p in lesson_paths()]
