"""Validating a composed lesson node tree and building the `Lesson`.

Works on YAML nodes, not constructed Python objects, so each error points at
the exact key (unknown names) or value (bad values) at fault. Names are checked
against the single sources of truth (parameters: `models.params`; calls,
counters, metrics, views: `models.calls`), a near miss with a "did you mean".

A file's problems are reported together, up to MAX_ERRORS: each field is
checked on its own (`V.keep`, models.lesson.nodes), a bad one is noted and the
rest of the file is still looked at, so an author fixes a file in one pass, not
one error a run. Steps and checks are validated in models.lesson.steps; the
bounds on every number and on the work a lesson asks for are
models.lesson.limits.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .. import calls, params
from ..driver_names import DRIVERS
from . import extras
from .limits import MAX_CHECKS, MAX_FITTED, MAX_HEADLINE_FRAMES
from .nodes import Map, TooMany, V, null, short
from .schema import Fitted, Headline, Lesson, LessonError, Paper, Patch
from .steps import check, lesson_frames, step

_ID = re.compile(r"[a-z0-9][a-z0-9-]{1,63}")
_VARIANT = re.compile(r"[a-z][a-z0-9-]{0,23}")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _param_key(node: Node | None, name: str) -> Node | None:
    if isinstance(node, MappingNode):
        for k, _ in node.value:
            if k.value == name:
                key: Node = k
                return key
    return None


def _check_scenario(v: V, key: Node, val: Node, scenario: Node, values: dict[str, Any]) -> None:
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


def _no_internal_notes(v: V, node: Node) -> None:
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
    v = V(loader, path)
    try:
        lesson = _build(v, root, path, stem)
    except TooMany:
        raise LessonError.several(v.errors, dropped=1) from None
    except LessonError as e:          # a section that could not be read at all
        for one in e.errors:
            v.errors.append(one)
        raise LessonError.several(v.errors) from None
    if v.errors or lesson is None:
        raise LessonError.several(v.errors) from None
    return lesson


def _build(v: V, root: MappingNode, path: str, stem: str | None) -> Lesson | None:  # noqa: C901 (older than the complexity rule)
    _no_internal_notes(v, root)
    top = Map(v, root, "", ("id", "title", "driver", "summary", "scenario", "variants", "steps"),
               ("patch", "paper", "headline", "end_pair", "fitted", "pseudocode", "checks", "code_calls", "recap"))
    lid = top.take("id", "text", bad="")
    if lid and not _ID.fullmatch(lid):
        v.record(v.error(top.vals["id"], "id", f"expected lowercase letters, digits and '-' (2 to 64), "
                         f"got {short(lid)}"))
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
    runs: dict[str, str] = {}
    entries = v.keep(v.mapping, top.vals["variants"], "variants", default=[]) if "variants" in top else []
    if entries and not 1 <= len(entries) <= 6:
        v.record(v.error(top.vals["variants"], "variants", f"expected 1 to 6 variants, got {len(entries)}"))
    for key, val in entries:
        if not _VARIANT.fullmatch(key.value):
            v.record(v.error(key, "variants", "expected a lowercase letter then up to 23 of a-z, 0-9, '-', "
                             f"got {short(key.value)}"))
        if null(val):
            variants[key.value] = {}
            continue
        overrides, shows, faults, driver_name = v.keep(_variant, v, val, f"variants.{key.value}",
                                                       default=({}, (), (), ""))
        variants[key.value] = overrides
        if shows:
            expect[key.value] = shows
        if faults:
            inject[key.value] = faults
        if driver_name:
            runs[key.value] = driver_name
    for key, val in entries:
        if "scenario" in top:
            v.keep(_check_scenario, v, key, val, top.vals["scenario"], {**scenario, **variants[key.value]})

    patch = None
    if (node := top.opt("patch")) is not None:
        patch = v.keep(_patch, v, node)
    paper = None
    if (node := top.opt("paper")) is not None:
        p = Map(v, node, "paper", ("metric", "unit", "before", "after", "source"),
                 ("compare", "note", "after_kind", "after_note"))
        paper = Paper(p.take("metric", "choice", calls.METRICS, "metric", bad=""), p.take("unit", "text", bad=""),
                      p.take("before", "number", bad=0.0), p.take("after", "number", bad=0.0),
                      p.take("compare", "choice", ("absolute", "change", "ratio"), "comparison", default="absolute"),
                      p.take("source", "text", bad=""), p.take("note", "text", default=""),
                      p.take("after_kind", "choice", ("predicted", "fitted", "bounded"), "kind of figure",
                             default=""),
                      p.take("after_note", "text", default=""))

    node = top.opt("headline")
    h = Map(v, node, "headline", (), ("frames", "before", "after")) if node else None
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
                  if (st := v.keep(step, v, i, n, variants, pseudocode)) is not None)
    lesson_frames(v, steps, step_nodes)
    payoffs = [i for i, st in enumerate(steps) if st.payoff]
    if len(payoffs) > 1:
        v.record(v.error(step_nodes[payoffs[1]], f"steps[{payoffs[1]}].payoff", f"only one step may be the payoff; "
                         f"steps[{payoffs[0]}] already is"))
    if payoffs and paper is None:
        v.record(v.error(step_nodes[payoffs[0]], f"steps[{payoffs[0]}].payoff", "a payoff step shows the "
                         "paper-vs-model headline: this lesson has no 'paper'"))
    checks = tuple(c for i, n in enumerate(v.keep(v.seq, top.opt("checks"), "checks", 0, MAX_CHECKS, default=[]))
                   if (c := v.keep(check, v, i, n, variants)) is not None)
    lines_calls = v.keep(extras.code_calls, v, top.opt("code_calls"), variants, pseudocode, default={})
    recap = v.keep(extras.recap, v, top.opt("recap"), default="")
    if v.errors:
        return None
    return Lesson(lid, title, driver, summary, patch,
                  scenario, scenario_raw, variants, paper, headline, tuple(fitted), pseudocode, steps, checks,
                  None if path == "<string>" else path, expect=expect, inject=inject, runs=runs, end_pair=end_pair,
                  problems=tuple(str(e) for e in sorted(dict.fromkeys(v.problems), key=lambda e: (e.line, e.column))),
                  code_calls=lines_calls, recap=recap)


def _patch(v: V, node: Node) -> Patch:
    p = Map(v, node, "patch", ("subject", "author"), ("date", "message_id", "commit", "url", "seed"))
    s = {k: p.take(k, "text", bad="") for k in p.vals}
    if s.get("date"):   # unknown dates are left out, never guessed
        try:   # read as written, so that YAML's own date reading never fails on 2024-02-30
            ok = bool(_DATE.fullmatch(s["date"])) and bool(datetime.date.fromisoformat(s["date"]))
        except ValueError:
            ok = False
        if not ok:
            p.fail("date", f"expected a date YYYY-MM-DD, got {short(s['date'])}")
    if not any(s.get(k) for k in ("message_id", "commit", "url", "seed")):
        v.fail(node, "patch", "needs a message_id, a commit or a url to find it by (a patch known only "
               "from a copy without mail headers: its seed)")
    return Patch(**{"subject": "", "author": "", **s})


def _end_pair(v: V, node: Node, variants: dict[str, Any]) -> tuple[str, ...]:
    pair = tuple(v.choice(n, f"end_pair[{i}]", variants, "variant")
                 for i, n in enumerate(v.seq(node, "end_pair", 2, 2)))
    if pair[0] == pair[1]:
        v.fail(node, "end_pair", "needs two different variants")
    return pair


def _fitted(v: V, i: int, node: Node, scenario: dict[str, Any], variants: dict[str, Any], hb: str,
            ha: str) -> Fitted:
    p = Map(v, node, f"fitted[{i}]", ("param", "to"), ("note", "target", "plausible", "basis", "absorbs"))
    name = p.get("param", "choice", params.PARAMS, "parameter")
    if name not in scenario and not any(name in o for o in variants.values()):
        p.fail("param", f"{name!r} is not set in scenario or variants")
    if "paper.after" in (to := p.get("to", "text")):
        p.fail("to", "only the before figure may be fitted; the after figure is the prediction")
    target: dict[str, Any] = {}
    if (tnode := p.opt("target")) is not None:
        t = Map(v, tnode, f"fitted[{i}].target", ("metric", "value", "range"), ("variant",))
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


def _variant(v: V, node: Node, where: str) -> tuple[dict[str, Any], tuple[str, ...], tuple[str, ...], str]:
    """A variant's parameter overrides, the violations it shows on purpose (`expect`), the
    faults its driver has on purpose (`inject`) and the model's driver it runs (`runs`, or "")."""
    pairs = v.mapping(node, where)
    rest = [(k, x) for k, x in pairs if k.value not in ("expect", "inject", "runs")]
    overrides = v.params(MappingNode(node.tag, rest, node.start_mark, node.end_mark), where)[0]
    lists = {"expect": (calls.VIOLATIONS, "violation"), "inject": (calls.FAULTS, "fault")}
    found: dict[str, list[str]] = {"expect": [], "inject": []}
    runs = ""
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
        elif k.value == "runs":
            runs = v.keep(v.choice, x, f"{where}.runs", DRIVERS, "model driver", default="")
    if runs and found["inject"]:
        v.record(v.error(node, f"{where}.runs", "a variant that runs a model driver injects no faults "
                         "(the strategies have the fault switches; the drivers are written without them)"))
    return overrides, tuple(found["expect"]), tuple(found["inject"]), runs
