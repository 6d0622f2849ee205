"""Paper versus model, labelled honestly: what each model figure is, and how far the fits move it.

Every figure set beside a published one says what it is:
  fitted     the before figure, which a platform parameter was fitted to (and an
             after figure that follows from the fitted values by arithmetic);
  predicted  an after figure a mechanism produced, which could have come out otherwise;
  bounded    an after figure a link or a bus caps, which says little about the mechanism.

A lesson may declare the kind of its after figure (with a sentence why); otherwise it
is predicted unless the run sits at the link's capacity. A lesson whose after/before
ratio does not depend on the fitted value (ath10k: the bus's busy share scales both
figures alike) compares the ratio (`compare: ratio`): the ratio is what the model
predicts, and the absolute after follows from the fitted before by that ratio. The sensitivity runs the
after variant again with each fitted value at half and at one and a half times its
value: an after figure that does not move is bounded, one that moves with a fit says
how much of the prediction rests on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .lesson.schema import Lesson
from .platform import Platform
from .wire import ETH_OVERHEAD, headers

BOUND_SHARE = 0.97          # within 3% of the link's payload capacity counts as capped by it
SENSITIVITY = (0.5, 1.5)
# Above every shipped lesson's own run length (atlantic's is 40,960): a sensitivity point is then measured
# over the frames its headline figure was, so x0.5 and x1.5 bracket that figure; a longer --frames run stops here.
SENSITIVITY_FRAMES = 65_536


def capacity_mbps(prm: dict[str, Any], platform: Platform) -> float:
    """The most payload the link (or the sender's cap) can carry, in the throughput metric's units."""
    mtu: int = prm["mtu"]
    mss = mtu - headers(prm["traffic"], prm["ip"])        # IPv6's header is 20 bytes longer than IPv4's
    bps = min(platform.link_bps, int(prm["rate"]))
    return bps * mss / (mtu + ETH_OVERHEAD) / 1e6


def after_kind(lesson: Lesson, after_value: float | None, capacity: float | None) -> str:
    paper = lesson.paper
    if paper is None:
        return ""
    if paper.after_kind:
        return paper.after_kind
    if (paper.metric == "throughput_mbps" and after_value is not None and capacity
            and after_value >= BOUND_SHARE * capacity):
        return "bounded"
    return "predicted"


def fitted_entries(lesson: Lesson) -> list[dict[str, Any]]:
    b = lesson.headline.before
    out = []
    for f in lesson.fitted:
        value = lesson.params_for(b).get(f.param) if b else None
        entry: dict[str, Any] = {"param": f.param, "value": _jsonable(value), "to": f.to, "note": f.note}
        if f.plausible is not None:
            lo, hi = f.plausible
            entry["plausible"] = [lo, hi]
            entry["basis"] = f.basis
            entry["in_plausible_range"] = value is not None and lo <= float(value) <= hi
        if f.absorbs:
            entry["absorbs"] = f.absorbs
        out.append(entry)
    return out


def compare(lesson: Lesson, metrics: dict[str, dict[str, Any]], capacity: float | None = None,
            changed: list[str] | None = None) -> dict[str, Any] | None:
    """The headline object of `rxviz run --json`: the pair, the errors, the kinds, the fits."""
    paper = lesson.paper
    if paper is None:
        return None
    b, a = lesson.headline.before, lesson.headline.after
    mb = metrics.get(b, {}).get(paper.metric)
    ma = metrics.get(a, {}).get(paper.metric)
    out: dict[str, Any] = {
        "metric": paper.metric, "unit": paper.unit, "compare": paper.compare,
        "paper": {"before": paper.before, "after": paper.after},
        "model": {"before": mb, "after": ma},
        "before_kind": "fitted" if lesson.fitted else "predicted",
        "after_kind": after_kind(lesson, ma, capacity),
        "after_note": paper.after_note,
        "fitted": fitted_entries(lesson),
        "source": paper.source,
        "changed": list(changed or []),
    }
    if capacity is not None:
        out["capacity"] = round(capacity, 2)
    if mb is None or ma is None or changed:
        out["within"] = None
        return out
    before_err = (mb - paper.before) / paper.before * 100 if paper.before else 0.0
    out["before_error_pct"] = round(before_err, 2)
    if paper.compare == "ratio":
        pr, mr = paper.after / paper.before, ma / mb
        err = (mr - pr) / pr * 100
        out["paper"]["ratio"] = round(pr, 3)
        out["model"]["ratio"] = round(mr, 3)
        out["ratio_kind"] = "predicted"
        out["ratio_error_pct"] = round(err, 2)
        out["after_error_pct"] = round((ma - paper.after) / paper.after * 100, 2)
        out["within"] = abs(before_err) <= 5 and abs(err) <= 15
        out["tolerance"] = ("before within ±5%; after/before ratio within ±15% (predicted); the after figure "
                            "follows from the fitted before and that ratio")
    elif paper.compare == "change":
        pd, md = paper.after - paper.before, ma - mb
        err = (md - pd) / pd * 100 if pd else 0.0
        out["paper"]["change"] = round(pd, 3)
        out["model"]["change"] = round(md, 3)
        out["change_error_pct"] = round(err, 2)
        out["within"] = abs(before_err) <= 5 and (md * pd > 0) and abs(err) <= 50
        out["tolerance"] = "before within ±5%; change of the same sign and within ±50% of the published change"
    else:
        err = (ma - paper.after) / paper.after * 100 if paper.after else 0.0
        out["after_error_pct"] = round(err, 2)
        out["within"] = abs(before_err) <= 5 and abs(err) <= 15
        out["tolerance"] = f"before within ±5%; after within ±15% ({out['after_kind']})"
    return out


def sensitivity(lesson: Lesson, run: Callable[[str, dict[str, Any], int], dict[str, Any]],
                frames: int) -> list[dict[str, Any]]:
    """The after figure with each fitted value at 0.5x and 1.5x (both headline variants re-run).

    `run(variant, params, frames)` returns the variant's metrics. For a `change` or `ratio`
    comparison both variants move with the fit, so the change (or the ratio) is reported;
    otherwise the after figure.
    """
    paper = lesson.paper
    if paper is None or not lesson.fitted or not lesson.headline.after:
        return []
    b, a = lesson.headline.before, lesson.headline.after
    frames = min(frames, SENSITIVITY_FRAMES)
    out = []
    for f in lesson.fitted:
        base = lesson.params_for(a).get(f.param)
        if not isinstance(base, (int, float)) or isinstance(base, bool):
            continue
        row: dict[str, Any] = {"param": f.param, "value": base, "frames": frames, "points": []}
        for factor in SENSITIVITY:
            value = _scaled(f.param, base * factor)
            ma = run(a, {**lesson.params_for(a), f.param: value}, frames)[paper.metric]
            point: dict[str, Any] = {"factor": factor, "value": value, "after": ma}
            applied = value / base if base else factor
            if abs(applied - factor) > 1e-3:        # the value was capped: say what was really applied
                point["applied_factor"] = round(applied, 3)
                point["capped_at"] = value
            if paper.compare in ("change", "ratio"):
                mb = run(b, {**lesson.params_for(b), f.param: value}, frames)[paper.metric]
                if paper.compare == "change":
                    point["change"] = round(ma - mb, 3)
                else:                               # both figures move with the fit; the ratio is the claim
                    point["before"] = mb
                    point["ratio"] = round(ma / mb, 4) if mb else None
            out_value = point.get("change", point.get("ratio", ma))
            point["figure"] = out_value
            row["points"].append(point)
        out.append(row)
    return out


def _scaled(name: str, value: float) -> float:
    """The moved value as the parameter can take it; a share is capped at the whole (the point
    then carries the factor really applied, `applied_factor`, and `capped_at`)."""
    if name == "sdio_duty":
        return min(1.0, value)          # a share cannot exceed the whole
    return int(round(value)) if name.endswith("_ns") or name.endswith("_bps") else value


def _jsonable(v: Any) -> Any:
    return v if isinstance(v, (int, float, str, bool)) or v is None else str(v)
