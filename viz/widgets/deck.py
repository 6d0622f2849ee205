"""The lesson's model views: tabs on a small screen, a grid on a large one, two columns to compare.

Every view the lesson needs is composed once, so switching never rebuilds
widgets; what changes is which are displayed and in what order:

- tabs (below 140 columns): a one-line tab strip, one view below it;
- grid (140 columns and more): the step's focus view first, spanning both
  columns, then as many others as the height allows (`capacity`);
- compare: the active view twice, one column per variant, each titled,
  with the counters-difference line under them.

The active view is the step's focus view until the user tabs to another;
the next step makes its own focus view active again.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Container, Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static, Tab, Tabs

from viz.views.all import view_class
from viz.views.base import ModelView, ViewState
from viz.widgets.compare import DiffLine

WIDE = 140        # columns from which views are laid out as a grid
STACK = 40        # rows from which a narrower screen stacks two views
TALL = 50         # rows from which the grid has three rows instead of two


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

    active: reactive[str] = reactive("", init=False)
    lead: reactive[str] = reactive("", init=False)
    compare: reactive[bool] = reactive(False, init=False)

    def __init__(self, keys: tuple[str, ...], aside: tuple[str, ...] = (), **kw) -> None:
        super().__init__(**kw)
        self.keys = keys
        self.aside = aside          # views the screen shows elsewhere when the grid is on
        self.cap = 1
        self.tabbed = False         # the user picked the active view since the step changed
        self._was_aside = False
        self._state: ViewState | None = None
        self._pair: tuple[ViewState, ViewState] | None = None

    def compose(self) -> ComposeResult:
        tabs = Tabs(*[Tab(key, id=f"tab-{key}") for key in self.keys], id="deck-tabs")
        tabs.can_focus = False          # ←/→ step the lesson; tab and clicks switch views
        yield tabs
        with Container(id="deck-views"):
            for key in self.keys:
                yield view_class(key)(id=f"v-{key}", classes="-hidden")
        with Vertical(id="deck-pair"):
            with Horizontal(id="pair-cols"):
                for side in ("a", "b"):
                    with Vertical(classes="pair-col", id=f"col-{side}"):
                        yield Static(id=f"title-{side}", classes="pair-title", markup=False)
            yield DiffLine(id="pair-diff")

    def on_mount(self) -> None:
        self.set_reactive(ViewDeck.lead, self.keys[0])
        self.set_reactive(ViewDeck.active, self.keys[0])
        self._relayout()

    # -- state coming down ----------------------------------------------------
    def show(self, state: ViewState, pair: tuple[ViewState, ViewState] | None, lead: str) -> None:
        """New model state for every view; `lead` is the step's focus view."""
        self._state, self._pair = state, pair
        lead = lead if lead in self.keys else self.keys[0]
        self.set_reactive(ViewDeck.lead, lead)
        self.set_reactive(ViewDeck.active, lead)
        self.tabbed = False
        for view in self.query_one("#deck-views").query_children(ModelView):
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
        self._relayout()

    def pool(self) -> list[str]:
        """The views the deck itself shows in its current layout."""
        if self.screen.size.width >= WIDE:
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
        """Make the next (or previous) view active: tab / shift+tab."""
        keys = self.pool()
        i = keys.index(self.active) if self.active in keys else 0
        self.tabbed = True
        self.active = keys[(i + delta) % len(keys)]

    def watch_active(self) -> None:
        self._relayout()

    def watch_compare(self) -> None:
        self._relayout()

    def on_resize(self) -> None:
        self._relayout()

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        key = (event.tab.id or "").removeprefix("tab-")
        if key in self.keys and key != self.active:
            self.active = key

    # -- layout -----------------------------------------------------------------
    def shown_keys(self) -> list[str]:
        """The views on screen, in order: lead first, then the others, the active one always."""
        keys = self.pool()
        lead = self.lead if self.lead in keys else keys[0]
        order = [lead] + [k for k in keys if k != lead]
        shown = order[: self.cap]
        if self.active in keys and self.active not in shown:
            shown[-1] = self.active
        return shown

    def _relayout(self) -> None:
        if not self.is_mounted or not self.active:
            return
        size = self.screen.size
        self.cap = 1 if self.compare else capacity(size.width, size.height)
        self.set_class(self.cap > 1 and size.width >= WIDE, "-grid")
        self.set_class(self.cap > 1 and size.width < WIDE, "-stack")
        self.set_class(size.height >= TALL, "-rows-3")
        self.set_class(self.compare, "-compare")
        if self.active not in self.pool():
            self.set_reactive(ViewDeck.active, self.shown_keys()[0])
        tabs = self.query_one(Tabs)
        with tabs.prevent(Tabs.TabActivated):
            if tabs.active != f"tab-{self.active}":
                tabs.active = f"tab-{self.active}"
            for key in self.aside:
                if key in self.keys:
                    (tabs.show if key in self.pool() else tabs.hide)(f"tab-{key}")
        grid = self.query_one("#deck-views")
        shown = self.shown_keys()
        for view in grid.query_children(ModelView):
            key = (view.id or "").removeprefix("v-")
            view.set_class(key not in shown, "-hidden")
            view.set_class(key == shown[0] and self.cap > 1 and size.width >= WIDE, "-lead")
        current = [(v.id or "").removeprefix("v-") for v in grid.children if not v.has_class("-hidden")]
        if current != shown:
            for i, key in enumerate(shown):
                grid.move_child(grid.query_one(f"#v-{key}"), before=i)
        for side in ("a", "b"):
            for view in self.query_one(f"#col-{side}").query_children(ModelView):
                view.set_class((view.id or "")[2:] != self.active, "-hidden")
        aside = self.lead_aside
        if aside != self._was_aside:
            self._was_aside = aside
            self.post_message(self.LeadAside(aside))
        mark = "" if aside else self.active
        for view in self.query(ModelView):
            view.set_class((view.id or "")[2:] == mark, "-active")

    def on_click(self, event) -> None:
        """A click on a view makes it the active one (the keys never move focus into views)."""
        widget = event.widget
        while widget is not None and widget is not self and not isinstance(widget, ModelView):
            widget = widget.parent
        if isinstance(widget, ModelView):
            key = (widget.id or "")[2:]
            if key in self.keys and key != self.active:
                self.tabbed = True
                self.active = key

    @property
    def lead_aside(self) -> bool:
        """The step's focus view is shown beside the deck (the pseudo-code on a wide screen)."""
        return self.screen.size.width >= WIDE and self.lead in self.aside and not self.tabbed
