"""The lesson's model views: tabs on a small screen, a grid on a large one, two columns to compare.

Every view the lesson needs is composed once, so switching never rebuilds
widgets; what changes is which are displayed and in what order:

- tabs (below 140 columns): a one-line tab strip, one view below it;
- grid (140 columns and more): the step's focus view first, spanning both
  columns, then as many others as the height allows (`capacity`);
- compare: the active view twice, one column per variant, each titled,
  with the counters-difference line under them.

The active view is the step's focus view until the user tabs to another;
it stays chosen while `]` and `[` walk the calls (across a step's end too),
and the next step taken by →, ←, `g` or the map makes its own focus view
active again.

Under the views, the machine strip (viz.views.machine.strip) draws the
object the current call moved as boxes and arrows, at every size, unless
the full machine view is itself on screen.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.color import Color
from textual.containers import Container, Horizontal, Vertical
from textual.dom import DOMNode
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from viz.views.all import view_class
from viz.views.base import ModelView, ViewState
from viz.views.machine.strip import MachineStrip
from viz.widgets.compare import DiffLine
from viz.widgets.tabstrip import TabStrip

WIDE = 140        # columns from which views are laid out as a grid
STACK = 40        # rows from which a narrower screen stacks two views
TALL = 50         # rows from which the grid has three rows instead of two


class DeckViews(Container):
    """The container of the deck's views. It never scrolls: its views fill it (a grid, or one view).

    When a step brings a view that fills the deck (or the machine strip comes or goes), this
    container's size changes; Textual then sets its virtual size as a reactive that asks for a
    second layout pass, painted a frame later (some 20 ms on every such step), though the pass that
    measured the new size has already arranged the views in it. Here the virtual size is set
    without that request. `_size_updated` is private Textual API: valid because Textual is pinned
    exactly (pyproject.toml); the snapshots and layout tests guard it."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


def set_flags(widget: Widget, flags: dict[str, bool]) -> None:
    """Set or clear several classes in one go: each separate change would restyle the widget again."""
    have = set(widget.classes)
    want = (have - flags.keys()) | {name for name, on in flags.items() if on}
    if want != have:
        widget.set_classes(want)


def capacity(width: int, height: int) -> int:
    """How many views the screen shows at once."""
    if width < WIDE:
        return 2 if height >= STACK else 1
    rows = 3 if height >= TALL else 2
    return 2 * rows - 1          # the lead view spans both columns of the first row


class ViewDeck(Widget):
    """Shows the views in `keys`; state comes down through `show()`, tab changes through `active`."""

    class LeadAside(Message):
        """The step's focus view now is (or no longer is) the one shown beside the deck."""

        def __init__(self, aside: bool) -> None:
            super().__init__()
            self.aside = aside

    class WantsWidth(Message):
        """Comparing a view that needs the width (two machine drawings): the screen may give it more."""

        def __init__(self, wants: bool) -> None:
            super().__init__()
            self.wants = wants

    active: reactive[str] = reactive("", init=False)
    lead: reactive[str] = reactive("", init=False)
    compare: reactive[bool] = reactive(False, init=False)
    zoomed: reactive[bool] = reactive(False, init=False)     # z: the active view alone, on the whole screen
    crowded: reactive[bool] = reactive(False, init=False)    # a question's or the payoff's panel takes rows

    def __init__(self, keys: tuple[str, ...], aside: tuple[str, ...] = (), **kw: Any) -> None:
        super().__init__(**kw)
        self.keys = keys
        self.aside = aside          # views the screen shows elsewhere when the grid is on
        self.cap = 1
        self.tabbed = False         # the user picked the active view since the step changed
        self._was_aside = False
        self._wanted = False
        self._slots: list[str] = []         # the views after the lead's, as last laid out
        self._slots_lead = ""
        self._laid_out: dict[str, tuple[int, int, tuple[int, int]]] = {}   # shown view -> (slot, cap, size) it got
        # (cap, screen size) -> each slot's size
        self._slot_sizes: dict[tuple[int, tuple[int, int]], list[tuple[int, int]]] = {}
        self._state: ViewState | None = None
        self._pair: tuple[ViewState, ViewState] | None = None
        self._marked: dict[ModelView, Color | None] = {}       # the accent each view was given (see _mark)

    def compose(self) -> ComposeResult:
        yield TabStrip(self.keys, id="deck-tabs")      # not focusable: ←/→ step the lesson
        with DeckViews(id="deck-views"):
            for key in self.keys:
                yield view_class(key)(id=f"v-{key}", classes="-hidden")
        if "machine" in self.keys:
            yield MachineStrip(id="deck-strip")
        with Vertical(id="deck-pair"):
            with Horizontal(id="pair-cols"):
                for side in ("a", "b"):
                    with Vertical(classes="pair-col", id=f"col-{side}"):
                        yield Static(id=f"title-{side}", classes="pair-title", markup=False)
            yield DiffLine(id="pair-diff")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._restyle_marks)
        self.set_reactive(ViewDeck.lead, self.keys[0])
        self.set_reactive(ViewDeck.active, self.keys[0])
        self._relayout()

    # -- state coming down ----------------------------------------------------
    def show(self, state: ViewState, pair: tuple[ViewState, ViewState] | None, lead: str,
             keep: bool = False) -> None:
        """New model state for every view; `lead` is the step's focus view. `keep`: a move by call
        (`]`, `[`): the view the learner chose stays chosen."""
        self._state, self._pair = state, pair
        lead = lead if lead in self.keys else self.keys[0]
        before = self._laid_out
        self.set_reactive(ViewDeck.lead, lead)
        if not (keep and self.tabbed):
            self.set_reactive(ViewDeck.active, lead)
            self.tabbed = False
        self._relayout()
        for strip in self.query(MachineStrip):
            strip.state = state
        after = self._laid_out
        for view in self.query_one("#deck-views").query_children(ModelView):
            key = (view.id or "")[2:]
            if key not in after or before.get(key) != after[key]:
                view.forget()          # it moves, resizes or hides: no point diffing its old lines
            view.state = state
        if pair is not None:
            a, b = pair
            self._build_pair(a, b)
            self.query_one("#title-a", Static).update(a.variant)
            self.query_one("#title-b", Static).update(b.variant)
            for view in self.query_one("#col-a").query_children(ModelView):
                view.state = a
            for view in self.query_one("#col-b").query_children(ModelView):
                view.state = b
            self.query_one(DiffLine).pair = pair
            self._relayout()            # compare's columns may have just been mounted

    def views(self) -> list[ModelView]:
        """The deck's views (not compare's columns)."""
        return list(self.query_one("#deck-views").query_children(ModelView))

    def next_sizes(self, lead: str) -> dict[str, tuple[int, int]] | None:
        """The size of each view once `show()` makes `lead` the lead, for the views built ahead.

        Each slot of a layout keeps its size; only the views in them change, as
        `_arrange` moves them. The slots' sizes are those measured the last time the
        deck had that shape (as many slots, this screen size), and None when it never
        had it yet, or shows compare, or zoomed.
        """
        if not self._laid_out or self.compare or self.zoomed or self.tabbed:
            return None
        grid = self.query_one("#deck-views")
        width, height = self.screen.size
        size = (width, height)
        now = sorted(self._laid_out, key=lambda k: self._laid_out[k][0])
        # What each slot of this layout measures, kept by shape: a step that goes back to a shape
        # seen before (the grid again after a view that fills the deck) knows its sizes too.
        measured = (grid.query_one(f"#v-{k}").size for k in now)
        self._slot_sizes[(self.cap, size)] = [(s.width, s.height) for s in measured]
        lead = lead if lead in self.keys else self.keys[0]
        fills = size[0] >= WIDE and getattr(view_class(lead), "FILLS_DECK", False)
        cap = 1 if fills else capacity(*size)
        slots = self._slot_sizes.get((cap, size))
        keys = self.pool()
        lead = lead if lead in keys else keys[0]
        later = ([lead] + self._arrange(lead, keys, cap))[:cap]
        if slots is None or len(later) != len(slots):
            return None
        return dict(zip(later, slots, strict=True))

    def pool(self) -> list[str]:
        """The views the deck itself shows in its current layout."""
        if self.screen.size.width >= WIDE and not self.zoomed:
            return [k for k in self.keys if k not in self.aside] or list(self.keys)
        return list(self.keys)

    def _build_pair(self, a: ViewState, b: ViewState) -> None:
        """Compare's two columns of views, built the first time compare is used (most sessions never do)."""
        for side, state in (("a", a), ("b", b)):
            col = self.query_one(f"#col-{side}")
            if col.query_children(ModelView):
                continue
            views = []
            for key in self.keys:
                view = view_class(key)(id=f"{side}-{key}", classes="-hidden")
                view.set_reactive(ModelView.state, state)
                views.append(view)
            col.mount_all(views)

    def cycle(self, delta: int = 1) -> None:
        """Make the next (or previous) view active: tab / shift+tab.

        The next view *not on screen* is taken: with two or more views shown,
        the next one in order is often already visible, and a Tab that only
        moves the highlight looks like a Tab that did nothing. Only when every
        view is on screen does Tab just move the highlight.
        """
        keys = self.pool()
        i = keys.index(self.active) if self.active in keys else 0
        order = [keys[(i + delta * j) % len(keys)] for j in range(1, len(keys) + 1)]
        shown = self.shown_keys()
        self.tabbed = True
        self.active = next((k for k in order if k not in shown), order[0])

    def watch_active(self) -> None:
        self._relayout()

    def watch_compare(self) -> None:
        self._relayout()

    def watch_crowded(self) -> None:
        self._relayout()

    def watch_zoomed(self) -> None:
        for view in self.query(ModelView):
            view.forget()
        self._relayout()

    def on_resize(self) -> None:
        self._relayout()

    def on_tab_strip_picked(self, event: TabStrip.Picked) -> None:
        event.stop()
        if event.key in self.keys and event.key != self.active:
            self.tabbed = True
            self.active = event.key

    # -- layout -----------------------------------------------------------------
    def shown_keys(self) -> list[str]:
        """The views on screen, in order: the lead first, then the others, the active one always."""
        keys = self.pool()
        lead = self._lead(keys)
        return self._shown(lead, self._arrange(lead, keys), keys)

    def _lead(self, keys: list[str]) -> str:
        return self.lead if self.lead in keys else keys[0]

    def _shown(self, lead: str, slots: list[str], keys: list[str]) -> list[str]:
        shown = ([lead] + slots)[: self.cap]
        if self.active in keys and self.active not in shown:
            shown[-1] = self.active
        return shown

    def _arrange(self, lead: str, keys: list[str], cap: int | None = None) -> list[str]:
        """The views in the slots after the lead's, moving as few as possible from the last layout.

        When a step brings a new lead, it leaves its slot and the previous lead
        takes that slot; every other view stays where it was. On a projector a
        grid that reshuffles at every step is hard to follow, and each view that
        moves must be repainted.
        """
        want = max(0, (self.cap if cap is None else cap) - 1)
        slots = [k for k in self._slots if k in keys]
        prev = self._slots_lead
        if lead in slots:
            i = slots.index(lead)
            if prev in keys and prev != lead and prev not in slots:
                slots[i] = prev
            else:
                del slots[i]
        slots += [k for k in keys if k != lead and k not in slots]
        return slots[:want]

    def _shape(self, wide: bool, tall: bool) -> None:
        """The views' grid (two columns wide, three rows tall; one column stacked; one view alone) or
        compare's columns. Set on the two containers' own styles, not as classes of the deck: a class
        change restyles the deck and every view and component class in it (~200 nodes, 30 ms on a
        step whose focus view fills the deck), where a style of one container only lays it out again."""
        views, pair = self.query_one("#deck-views"), self.query_one("#deck-pair")
        if self.cap > 1:
            views.styles.layout = "grid"
            views.styles.grid_size_columns = 2 if wide else 1
            views.styles.grid_size_rows = 3 if wide and tall else 2
        else:
            views.styles.layout = "vertical"
        views.display = not self.compare
        pair.display = self.compare

    def _relayout(self) -> None:  # noqa: C901 (older than the complexity rule)
        if not self.is_mounted or not self.active:
            return
        size = self.screen.size
        self.cap = 1 if self.compare or self.zoomed or self._fills() else capacity(size.width, size.height)
        wide = self.cap > 1 and size.width >= WIDE
        self._shape(wide, size.height >= TALL)
        keys = self.pool()
        lead = self._lead(keys)
        if self.active not in keys:
            self.set_reactive(ViewDeck.active, lead)
        tabs = self.query_one(TabStrip)
        tabs.active = self.active
        tabs.hidden = frozenset(k for k in self.aside if k not in keys)
        grid = self.query_one("#deck-views")
        self._slots, self._slots_lead = self._arrange(lead, keys), lead
        shown = self._shown(lead, self._slots, keys)
        self._laid_out = {k: (i, self.cap, size) for i, k in enumerate(shown)}
        wants = self.compare and self._fills()
        if wants != self._wanted:
            self._wanted = wants
            self.post_message(self.WantsWidth(wants))
        aside = self.lead_aside
        if aside != self._was_aside:
            self._was_aside = aside
            self.post_message(self.LeadAside(aside))
        mark = "" if aside else self.active
        for view in grid.query_children(ModelView):
            key = (view.id or "")[2:]
            set_flags(view, {"-hidden": key not in shown})
            self._mark(view, wide and key == lead, key == mark)
        current = [(v.id or "")[2:] for v in grid.children if not v.has_class("-hidden")]
        if current != shown:
            for i, key in enumerate(shown):
                grid.move_child(grid.query_one(f"#v-{key}"), before=i)
        for side in ("a", "b"):
            for view in self.query_one(f"#col-{side}").query_children(ModelView):
                key = (view.id or "")[2:]
                set_flags(view, {"-hidden": key != self.active, "-active": key == mark})
        for strip in self.query(MachineStrip):      # the full machine on screen says it all
            # At 80x24 a question's panel (more once answered: the answer and its explanation) or the
            # payoff's headline leaves the view below it a few rows: the strip gives them up meanwhile,
            # and to a view that needs them for what its step is about (the counters a step watches).
            small = size.height < STACK and size.width < WIDE
            squeezed = small and (self.crowded or self._short_of_rows(grid, shown, strip))
            strip.display = not (self.compare or self.zoomed or squeezed or "machine" in shown)

    def _short_of_rows(self, grid: Widget, shown: list[str], strip: Widget) -> bool:
        """The one view shown would have fewer rows than it wants (ModelView.rows_wanted) beside the strip.

        Measured on the deck's own height, which the strip does not change (the narration's does:
        the deck's resize lays it out again), so the strip's display never flips back and forth.
        """
        if len(shown) != 1 or self.size.height <= 0:
            return False
        view = grid.query_one(f"#v-{shown[0]}", ModelView)
        gutter = view.styles.gutter
        rows = self.size.height - gutter.height
        tabs = self.query_one(TabStrip)
        for other in (tabs, strip) if tabs.display else (strip,):      # the strip's rows, shown or not
            height = other.styles.height
            rows -= int(height.value) if height is not None and height.is_cells else 0
        return view.rows_wanted(self.size.width - gutter.width) > rows

    def _mark(self, view: ModelView, lead: bool, active: bool) -> None:
        """Give the lead view both columns of the grid, and the active one the accent border.

        Set on the view's own inline styles, not as classes: a class change restyles the
        view and each of its component classes (some ten nodes, 10-20 ms at every step
        whose focus view changes) and makes it build its lines again; these two styles
        only move or repaint it. The accent follows the theme (`on_mount` subscribes).
        """
        styles = view.styles
        span = 2 if lead else 1
        if styles.column_span != span:
            styles.column_span = span
        accent = Color.parse(self.app.theme_variables["accent"]) if active else None
        if self._marked.get(view) == accent:
            return
        self._marked[view] = accent
        if accent is not None:
            styles.border = ("round", accent)
            styles.border_title_color = accent
            styles.auto_border_title_color = False      # the CSS's $text-muted is an "auto" colour
        else:                   # back to its CSS: the muted border, or the accent when it has focus
            for rule in ("border_top", "border_right", "border_bottom", "border_left", "border_title_color",
                         "auto_border_title_color"):
                styles.clear_rule(rule)
            view.refresh()

    def _restyle_marks(self, _theme: object = None) -> None:
        """A new theme: the active view's border takes the new accent."""
        self._marked.clear()
        self._relayout()

    def on_click(self, event: events.Click) -> None:
        """A click on a view makes it the active one (the keys never move focus into views)."""
        widget: DOMNode | None = event.widget
        while widget is not None and widget is not self and not isinstance(widget, ModelView):
            widget = widget.parent
        if isinstance(widget, ModelView):
            key = (widget.id or "")[2:]
            if key in self.keys and key != self.active:
                self.tabbed = True
                self.active = key

    def _fills(self) -> bool:
        """The active view asks for the whole deck on a wide screen (the machine drawing: see FILLS_DECK)."""
        return self.screen.size.width >= WIDE and getattr(view_class(self.active), "FILLS_DECK", False)

    @property
    def lead_aside(self) -> bool:
        """The step's focus view is shown beside the deck (the pseudo-code on a wide screen)."""
        return (self.screen.size.width >= WIDE and self.lead in self.aside and not self.tabbed
                and not self.zoomed)
