"""A widget's component styles are worked out again only when something they match on changed.

Textual styles each of a widget's COMPONENT_CLASSES (the colours a Line API view
draws with) through a throwaway node and a full selector match, every time it
styles the widget: at mount, and again on each screen resume, resize, theme change
and class change anywhere above it, even when nothing those selectors can see has
changed. The player holds about 180 of them (the machine view and its strip 28
each), so restyling the screen costs four times what its 60 widgets cost.

A component's styles depend on the stylesheet's rules and on what the selectors
that can reach the component see of the widget and its ancestors: their type, id
and classes, and the pseudo-classes those rules name (`:focus-within`, `:dark`,
...). `KeptComponentStyles` keeps that key from the last time Textual worked them
out; while it is the same, it tells Textual the widget has no component classes
this time, so the styles it has stay (Textual clears and rebuilds them only
when there are classes to process). Any change in the key, a new stylesheet (a
theme or CSS change), or styles cleared at unmount, and Textual works them out
as before.
"""

from __future__ import annotations

from typing import Any

from textual.css.model import RuleSet
from textual.widget import Widget

# The rules a component's throwaway node can match: its class, "*" and its type (DOMNode).
_OWN_NAMES = ("*", "DOMNode")
# (the rules' list, the component classes) -> the pseudo-classes those rules name, sorted.
_NAMED: dict[tuple[int, frozenset[str]], tuple[list[RuleSet], tuple[str, ...]]] = {}


def _pseudo_classes(rules: list[RuleSet], rules_map: dict[str, list[RuleSet]],
                    components: frozenset[str]) -> tuple[str, ...]:
    key = (id(rules), components)
    got = _NAMED.get(key)
    if got is not None and got[0] is rules:
        return got[1]
    named: set[str] = set()
    for name in (*_OWN_NAMES, *(f".{c}" for c in components)):
        for rule in rules_map.get(name, ()):
            named |= rule.pseudo_classes
    if len(_NAMED) > 64:
        _NAMED.clear()
    _NAMED[key] = rules, tuple(sorted(named))
    return _NAMED[key][1]


class KeptComponentStyles(Widget):
    """Mix in after the widget class (`class X(Static, KeptComponentStyles)`), as OnePass is."""

    _kept_key: tuple[Any, ...] | None = None

    def _get_component_classes(self) -> frozenset[str]:  # type: ignore[override]
        components: frozenset[str] = super()._get_component_classes()
        if not components:
            return components
        sheet = self.app.stylesheet
        rules = sheet.rules
        pseudo = _pseudo_classes(rules, sheet.rules_map, components)
        path = tuple((node, node._id, frozenset(node._classes), tuple(map(node.has_pseudo_class, pseudo)))
                     for node in self.css_path_nodes)
        key = (rules, path)
        if self._component_styles and self._kept_key is not None and _same(self._kept_key, key):
            return frozenset()
        self._kept_key = key
        return components


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    # the rules compared by identity (a list of RuleSets: a new one after every reparse), the path by value
    return a[0] is b[0] and a[1] == b[1]

