"""Questions that hold: until a question is answered, nothing on screen gives its answer away.

For every question step of every lesson, in the player at 160x50:

- every view of every variant (the `v` key), and compare mode's columns, draw
  exactly what they drew at the step before (the issue's test: the screen
  before answering is the previous step's screen, view by view), but the
  pseudo-code, which lights the line the question's step is about (its text
  reads it), never one a question hides;
- no text on screen outside the question itself (heading, narration, status
  line, every view of every variant, the pseudo-code), nor the lesson's title
  and summary (on the home screen and the player's header), contains the words
  that set the right choice apart from the others (`giveaway`);
- a number in the right choice shows up in no view as this step's delta
  (`+4`), a per-skb figure (`4.0 segments per skb`) or a run of ACKs (`4t`)
  (`number_tells`): the views count what the question asks to predict.

Then answering shows the step's own frame.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from shipped import shipped_lessons

from viz.app import make_app, settle
from viz.views.base import ModelView
from viz.widgets.deck import ViewDeck
from viz.widgets.narration import Narration
from viz.widgets.prose import Prose
from viz.widgets.status import StatusLine

LESSONS = shipped_lessons()
QUESTIONS = [(lesson.id, s.index + 1) for lesson in LESSONS for s in lesson.steps if s.ask is not None]
SIZE = (60, 30)          # each view is drawn at this size, shown or not
CODE_VIEWS = ("v-code", "side-code", "a-code", "b-code")

STOP = set("""a an the of to in on and or is are be it its by for with from as at this that not no one
none each every all any than then there their into out up down so only does do did what which when where
who how why more most less same other another before after yes kernel frame frames""".split())


def words(text: str) -> set[str]:
    """Lower-case words and kernel names ("napi_gro_receive()" counts as "napi_gro_receive")."""
    return {w for w in re.findall(r"[a-z0-9_]+", text.lower()) if w not in STOP}


def taught(lesson, step: int) -> set[str]:
    """The words the lesson's steps used before this one: vocabulary a learner already has, no giveaway.

    Not the title or the summary: they are on screen (home, header) before any question, so
    they are checked like the narration, never taken as taught.
    """
    out: set[str] = set()
    for spec in lesson.steps[:step - 1]:
        out |= words(spec.title) | words(spec.text(True))
        if spec.ask is not None:
            out |= words(spec.ask.question) | set().union(*map(words, spec.ask.choices)) | words(spec.ask.explain)
    return out


def giveaway(lesson, step: int) -> set[str]:
    """Words of the right choice that no other choice and not the question has, that the lesson has
    not used before, and that are specific: a kernel name, a number of two digits or more, or a word
    of six letters or more."""
    ask = lesson.steps[step - 1].ask
    others = set().union(*(words(c) for i, c in enumerate(ask.choices) if i != ask.answer)) | words(ask.question)
    right = ask.choices[ask.answer]
    mine = words(right) - others - taught(lesson, step)
    out = set()
    for w in mine:
        if w.isdigit() and len(w) >= 2:
            # a number is a giveaway with what it counts ("60 s", "32 heads"), not as any 60 on screen
            m = re.search(rf"(?<![\w]){w}\s+([a-z]+)", right.lower())
            out.add(f"{w} {m.group(1)}" if m else w)
        elif w.isdigit():
            continue                 # one digit: number_tells looks for it where views count
        elif "_" in w or (w.isalpha() and len(w) >= 6):
            out.add(w)
    return out


NUMBER = re.compile(r"(?<![\w.,])(\d+)(?![\w.,%])")
# a size, a time or a rate is not a count: "2 KiB", "60 s"
UNIT = re.compile(r"\s*(b|bytes?|[kmgt]i?b|[kmg]bit|bits?|s|ms|us|µs|ns|hz|[kmg]hz|seconds?)\b", re.I)


def counts_in(text: str) -> set[str]:
    return {m.group(1) for m in NUMBER.finditer(text) if not UNIT.match(text, m.end())}


def number_tells(lesson, step: int) -> list[str]:
    """Patterns by which a view would count out the right choice's number (one digit or more).

    Only a count ("4", "about 16"), not a size or a time ("2 KiB", "60 s"); a number the
    other choices or the question also have tells nothing. Otherwise the answer
    leaks when a view shows it as what this step changed (`+4`), as a per-skb or per-segment
    figure (`4.0 segments per skb`, `4 ACK`), or as a run on the bus timeline (`4t`).
    """
    ask = lesson.steps[step - 1].ask
    others = " ".join([c for i, c in enumerate(ask.choices) if i != ask.answer] + [ask.question])
    mine = counts_in(ask.choices[ask.answer]) - set(NUMBER.findall(others))
    out = []
    for n in sorted(mine):
        out += [rf"\+{n}(?![\d.,])", rf"(?<![\w.,]){n}(\.\d+)? (segments?|skbs?|acks?)\b",
                rf"(?<![\w.,]){n}t(?![\w])"]
    if re.search(r"how many skbs", ask.question, re.I):
        # whatever the choices say, a segments-per-skb figure answers it (0.0: nothing went up yet)
        out.append(r"(?<![\d.])(?!0\.0 )\d+(\.\d+)? segments per skb")
    return out


def lines_of(view: ModelView) -> list[str]:
    return [strip.text for strip in view._build(*SIZE)]


async def screen_views(app) -> dict[str, list[str]]:
    """Every deck view (shown or not) and compare's columns, drawn at SIZE.

    The machine view lays a drawing out in a worker the first time a size is asked for (and
    shows its compact form meanwhile): ask once, let the workers finish, then draw.
    """
    views = [view for view in app.screen.query(ModelView) if view.state is not None]
    for view in views:
        lines_of(view)
    for _ in range(2):      # the layout worker starts after a refresh, then paints from its thread
        await app.workers.wait_for_complete()
        await asyncio.sleep(0.05)
    await app.workers.wait_for_complete()
    return {view.id: lines_of(view) for view in views}


async def screen_text(app) -> str:
    screen = app.screen
    narration = screen.query_one(Narration)
    parts = [screen.lesson.title, screen.lesson.summary, narration.heading(*narration.step[:2]),
             screen.query_one("#n-say", Prose).plain, screen.query_one(StatusLine).render().plain]
    for lines in (await screen_views(app)).values():
        parts.extend(lines)
    return "\n".join(parts)


async def each_variant(app, pilot):
    """Yield once per variant of the lesson, pressing v between them."""
    for _ in app.screen.lesson.variants:
        yield app.screen.variant or app.screen.frame.shown
        await pilot.press("v")
        await settle(app, pilot)


@pytest.mark.slow
@pytest.mark.parametrize("lesson,step", QUESTIONS, ids=[f"{lid}-{k}" for lid, k in QUESTIONS])
async def test_a_question_holds_the_previous_screen_and_names_no_answer(lesson, step):
    for compare in (False, True):
        app = make_app(lesson=lesson, step=step - 1, compare=compare, remember=False)
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(app, pilot)
            screen = app.screen
            spec = screen.lesson.steps[step - 1]
            if screen.holding():                 # the step before asks too: its screen is its outcome
                await pilot.press("right")
                await settle(app, pilot)
            before = {}
            async for variant in each_variant(app, pilot):
                before[variant] = await screen_views(app)
            await pilot.press("right")
            await settle(app, pilot)
            assert screen.frame.step == step and screen.holding()
            tell = giveaway(screen.lesson, step)
            counts = number_tells(screen.lesson, step)
            async for variant in each_variant(app, pilot):
                now = await screen_views(app)
                for key, lines in now.items():
                    if key in CODE_VIEWS and spec.code:
                        lit = [ln for ln in lines if ln.startswith("▶ ") and ln[2:].strip()[:1].isdigit()]
                        assert [int(ln[2:].split()[0]) for ln in lit] in ([spec.code], []), (variant, key, lit)
                        continue
                    assert lines == before[variant][key], (variant, key)
                    shown = "\n".join(lines).lower()
                    counted = [p for p in counts if re.search(p, shown)]
                    assert not counted, f"{lesson} step {step} ({variant}, {key}) counts the answer: {counted}"
                if not compare:
                    text = (await screen_text(app)).lower()
                    found = sorted(w for w in tell if re.search(rf"(?<![\w.,]){re.escape(w)}(?![\w%]|[.,]\d)", text))
                    assert not found, f"{lesson} step {step} ({variant}) shows {found} before the answer"
            await pilot.press(str(spec.ask.answer + 1))
            await settle(app, pilot)
            assert not screen.holding()
            assert screen.query_one(ViewDeck)._state.sim is screen.frame.sims[screen.frame.shown]


@pytest.mark.slow
async def test_the_figures_a_question_keeps_back_are_on_no_view_until_it_is_answered():
    """atlantic step 8 asks which way the pool's pages come back: while it waits, the recycle split
    (the pool's statistics, the counters, the log's records of the two calls, the machine's counts
    on their arrows) is kept back, at the step before as well; answering shows it."""
    lesson, step = "atlantic-page-pool", 8
    kept = ("page_pool_recycle_in_cache", "page_pool_recycle_in_ring", "page_pool_refill_alloc_cache")
    app = make_app(lesson=lesson, step=step, remember=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.holding() and screen.lesson.steps[step - 1].ask.hide_counts == kept
        views = await screen_views(app)
        assert any("recycle: kept back until you answer" in line for line in views["v-pool"])
        for key in ("v-pool", "v-counters", "v-log"):
            text = "\n".join(views[key])
            assert "recycle: cached" not in text and not any(k in text for k in kept), key
        screen.query_one("#v-machine", ModelView).machine = "pp_page"
        machine = "\n".join((await screen_views(app))["v-machine"])
        assert not re.search(r"recycle_in_(cache|ring) [\d,]+", machine), machine
        await pilot.press(str(screen.lesson.steps[step - 1].ask.answer + 1))
        await settle(app, pilot)
        views = await screen_views(app)
        assert any("recycle: cached" in line for line in views["v-pool"])
        assert re.search(r"recycle_in_cache [\d,]+", "\n".join(views["v-machine"])), views["v-machine"]


@pytest.mark.parametrize("lesson,step", [("ath11k-36bit-dma-mask", 6), ("bgmac-napi-skb-cache", 12)])
async def test_a_held_question_lights_its_own_steps_line_of_code(lesson, step):
    """The held screen is the step before's model, but its pseudo-code lights the line the question's
    step is about (ath11k 6: the two mask calls its text reads), not where the step before ended."""
    app = make_app(lesson=lesson, step=step, remember=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        spec = screen.lesson.steps[step - 1]
        assert screen.holding() and spec.focus == "code" and spec.code
        code = screen.query_one("#v-code", ModelView)
        assert code.lit_line()[0] == spec.code
        assert screen.lesson.steps[step - 2].code != spec.code      # the step before's is another line
        shown = [code.render_line(y).text for y in range(code.size.height)]
        assert any(ln.startswith("▶ ") and ln[2:].split()[0] == str(spec.code) for ln in shown), shown
