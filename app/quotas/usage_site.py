"""Everyone's use at once, for the operators' usage page and its exports: the running totals
summed in the database per month (and per person and group in the months asked for), and the
open intervals (``open_intervals``) read once for every figure, where ``usage_per`` reads them
once per call.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from flask import current_app
from sqlalchemy import bindparam, case, func, or_, select

from app.clock import utcnow
from app.extension_points import StateKey
from app.quotas.usage_marks import month_of
from app.quotas.usage_models import CORES_ROW, MONTH, WHOLE_GROUP, UsageTotal
from app.quotas.usage_reading import kept, run
from app.quotas.usage_totals import Hours, first_day_after, open_intervals

HOUR = timedelta(hours=1)
# The GPU models the totals held when last read, per application: the sums name each in a
# column of its own, so that they are summed in the order the rows are read (``_summed``).
_MODELS = StateKey("GPU models of the usage totals")


@dataclass
class SiteUsage:
    """Everyone's hours per month (first days as keys), and per (user id, group, month) in the
    months asked for (group ``""``: charged to no group)."""

    months: dict[date, Hours]
    owners: dict[tuple[int, str, date], Hours]


def site_usage(
    first: date,
    last: date,
    *,
    owners_from: date | None = None,
    owners_to: date | None = None,
    now: datetime | None = None,
) -> SiteUsage:
    """Everyone's hours in each month from ``first``'s to ``last``'s included, and per person
    and group in each month from ``owners_from``'s to ``owners_to``'s (none when not given),
    exact to the second at ``now``: the figures ``usage_per`` gives by MONTH (everyone, and
    ``by`` user or group), the open intervals read once for all of them."""
    now = now or utcnow()
    first, last = month_of(first), month_of(last)
    found = SiteUsage({}, {})
    values = {"span": MONTH, "first": first, "last": last}
    models, rows = _summed_months(values)
    for start, *sums in rows:
        _add_sums(_hours_of(found.months, start), sums, models)
    owned = None
    if owners_from is not None:
        owned = (max(month_of(owners_from), first), min(month_of(owners_to or last), last))
        values.update(first=owned[0], last=owned[1])
        for start, user_id, group, *sums in run(_summed(len(models), by_owner=True), values):
            _add_sums(_hours_of(found.owners, (user_id, group, start)), sums, models)
    window_end = datetime.combine(first_day_after(MONTH, last), datetime.min.time())
    window = (datetime.combine(first, datetime.min.time()), min(window_end, now))
    for interval in open_intervals(now=now):
        start, end = max(interval.start, window[0]), min(interval.end, window[1])
        while start < end:
            month = month_of(start.date())
            stop = min(end, datetime.combine(first_day_after(MONTH, month), datetime.min.time()))
            hours = (stop - start) / HOUR
            cores, memory = interval.cores * hours, interval.memory_gb * hours
            gpus = [(model, count * hours) for model, count in interval.gpu_models.items()]
            _plus(_hours_of(found.months, month), cores, memory, gpus)
            if owned and owned[0] <= month <= owned[1]:
                owner = (interval.user_id, interval.group_name, month)
                _plus(_hours_of(found.owners, owner), cores, memory, gpus)
            start = stop
    return found


def _plus(hours: Hours, cores: float, memory: float, gpus: list[tuple[str, float]]) -> None:
    hours.core_hours += cores
    hours.memory_gb_hours += memory
    for model, value in gpus:
        hours.gpu_hours[model] = hours.gpu_hours.get(model, 0.0) + value


def _add_sums(hours: Hours, sums: list, models: list[str]) -> None:
    """Add a row of ``_summed`` (core-hours, memory GB-hours, then each model's GPU-hours)."""
    cores, memory, *gpus = sums
    hours.core_hours += cores or 0.0
    hours.memory_gb_hours += memory or 0.0
    for model, value in zip(models, gpus, strict=True):
        if value:
            hours.gpu_hours[model] = hours.gpu_hours.get(model, 0.0) + value


def _hours_of(found: dict, key) -> Hours:
    hours = found.get(key)
    if hours is None:
        hours = found[key] = Hours()
    return hours


def _summed_months(values: dict) -> tuple[list[str], list]:
    """The GPU models summed and the totals summed per month, ``values`` given the models'
    names. The models last found are tried first: a sum of rows of any other model tells
    that one is new, and the models are read again (one reading more of the totals' key)."""
    models = current_app.extensions.get(_MODELS, [])
    for fresh in (False, True):
        if fresh:
            found = run(kept(("site models",), _models), values)
            models = current_app.extensions[_MODELS] = [model for (model,) in found]
        values.update({f"model_{index}": model for index, model in enumerate(models)})
        rows = run(_summed(len(models), by_owner=False), values).all()
        if not any(row[-1] for row in rows):
            break
    return models, [row[:-1] for row in rows]


def _span(t) -> list:
    return [
        t.span == bindparam("span"),
        t.start >= bindparam("first"),
        t.start <= bindparam("last"),
        t.user_id != WHOLE_GROUP,  # the groups' own rows repeat their members'
    ]


def _models():
    """The GPU models of the totals of the span: the columns ``_summed`` sums them in."""
    t = UsageTotal
    return select(t.gpu_model).distinct().where(*_span(t), t.gpu_model != CORES_ROW)


def _summed(models: int, *, by_owner: bool):
    """The totals summed per month (and per person and group: ``by_owner``): core-hours,
    memory GB-hours, each model's GPU-hours in a column of its own (the models bound as
    ``model_0``...), then, per month only, how many rows are of a model not named (none,
    unless one is new). Grouped in the order of the totals' key (span, start, user, group,
    model), the rows are summed as they are read: nothing is sorted, as a grouping by model
    would need."""
    t = UsageTotal

    def build():
        owners = [t.user_id, t.group_name] if by_owner else []
        named = [t.gpu_model == bindparam(f"model_{index}") for index in range(models)]
        sums = [func.sum(t.core_hours), func.sum(t.memory_gb_hours)]
        sums += [func.sum(case((model, t.gpu_hours), else_=0.0)) for model in named]
        if not by_owner:
            sums.append(func.sum(case((or_(t.gpu_model == CORES_ROW, *named), 0), else_=1)))
        return select(t.start, *owners, *sums).where(*_span(t)).group_by(t.start, *owners)

    return kept(("site sums", models, by_owner), build)
