"""The paper-vs-model headline as rows and sentences, for `rxviz run`'s table and the handouts.

`models.runner.headline` computes it; this module only words it, once, so
the terminal table and a handout can never say different things about the
same run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from models.lesson.schema import Lesson


def num(v: Any) -> str:
    """A number as the reports print it (thousands separated), '-' for none."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return format(v, ",")
    return str(v)


def pct(v: Any) -> str:
    return "-" if v is None else f"{v:+.1f}%"


def title(h: dict[str, Any]) -> str:
    if h.get("changed"):
        return f"Model: {h['metric']} ({h['unit']}), changed scenario"
    return f"Paper vs model: {h['metric']} ({h['unit']})"


def rows(h: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """(column names, rows); each row starts with its label (paper, model, error)."""
    extra = h.get("compare") if h.get("compare") in ("change", "ratio") else None   # the figure compared
    model = [num(h["model"].get(c)) if h["model"].get(c) is not None else "not run"
             for c in ("before", "after", extra or "change")]
    if h.get("changed"):           # the paper measured another scenario: nothing to set beside
        return ["before", "after"], [["model", *model[:2]]]
    cols = ["before", "after"] + ([extra] if extra else [])
    errs = [h.get("before_error_pct"), h.get("after_error_pct")] + ([h.get(f"{extra}_error_pct")] if extra else [])
    extra_kind = h.get("ratio_kind", "") if extra == "ratio" else h.get("after_kind", "")
    kinds = [h.get("before_kind", ""), h.get("after_kind", "")] + ([extra_kind] if extra else [])
    return cols, [["paper", *(num(h["paper"].get(c)) for c in cols)],
                  ["model", *model[:len(cols)]],
                  ["error", *map(pct, errs)],
                  ["kind", *kinds]]


def kind_note(h: dict[str, Any]) -> str:
    """One sentence on what the after figure is: predicted, fitted or bounded."""
    kind = h.get("after_kind")
    if kind == "bounded":
        cap = f" at most {num(round(h['capacity'], 1))} {h['unit']} of payload," if h.get("capacity") else ""
        return f"after is bounded: the link carries{cap} so the after figure says little about the mechanism"
    if kind == "fitted":
        return f"after is fitted: {h.get('after_note') or 'it follows from the fitted values'}"
    if h.get("compare") == "ratio":
        return "the after/before ratio is predicted: only the before figure was used to fit"
    if kind == "predicted":
        return "after is predicted: only the before figure was used to fit"
    return ""


def notes(h: dict[str, Any], lesson: Lesson) -> list[str]:
    """The sentences under the table: the verdict, what was fitted, the source."""
    if h.get("changed"):
        return [f"not compared with the paper: {', '.join(h['changed'])} changed, and the published "
                f"figures are for the lesson's own scenario"]
    within = h.get("within")
    verdict = "-" if within is None else ("yes" if within else "NO")
    out = [f"within tolerance: {verdict} ({h.get('tolerance') or 'run both headline variants to compare'})"]
    if kind_note(h):
        out.append(kind_note(h))
    for f in h.get("fitted") or []:
        raw = lesson.scenario_raw.get(f["param"], f.get("value"))    # as the lesson wrote it
        value = "" if raw is None else f" = {raw}"
        note = f" ({f['note']})" if f.get("note") else ""
        out.append(f"fitted: {f['param']}{value}, to {f['to']}{note}")
        if f.get("plausible"):
            lo, hi = f["plausible"]
            where = "inside" if f.get("in_plausible_range") else "OUTSIDE"
            out.append(f"a real machine: {num(lo)} to {num(hi)} ({f.get('basis', '')}); the fit is {where} it")
        if f.get("absorbs"):
            out.append(f"what {f['param']} absorbs: {f['absorbs']}")
    if not h.get("fitted"):
        out.append("fitted: nothing (every parameter comes from the platform profile)")
    for row in h.get("sensitivity") or []:
        what = h.get("compare") if h.get("compare") in ("change", "ratio") else "after"
        said = [f"x{p['factor']:g}{_capped(p)} gives {what} {num(p['figure'])}" for p in row["points"]]
        if row.get("nominal") is not None:      # the headline's own figure, between the two (same run length)
            said.insert(len(said) // 2, f"x1 (the run above) {num(row['nominal'])}")
        pts = "; ".join(said)
        out.append(f"sensitivity ({row['frames']:,} frames): {row['param']} {pts}")
    if h.get("source"):
        out.append(f"source: {h['source']}")
    return out


def _capped(point: dict[str, Any]) -> str:
    """' (applied x1.42, capped at 1.0)' when the moved value hit the parameter's limit."""
    if "applied_factor" not in point:
        return ""
    return f" (applied x{point['applied_factor']:.2f}, capped at {num(point['capped_at'])})"
