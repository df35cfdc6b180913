"""Usage over time as people see it: months of core-hours and GPU-hours stacked by GPU model
(for the charts and their tables), and the same figures for export (CSV, JSON) and for the
API's days. Everything reads the running totals (``app.quotas.usage_totals``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime

from app.auth.groups import normalise_group
from app.auth.managers import manages
from app.clock import utcnow
from app.quotas.usage_models import DAY, MONTH
from app.quotas.usage_site import SiteUsage
from app.quotas.usage_totals import Hours, usage_per

MONTHS_SHOWN = 12
# How many GPU models get a colour of their own; the rest share the last one.
SERIES = 8


def may_see_group_usage(person, group: str) -> bool:
    """Whether ``person`` may see the usage of ``group``: operators and admins every group's,
    members their own group's, managers the groups they manage (named or by membership). The
    one place every page and the API ask."""
    if person.is_operator or person.is_admin:
        return True
    group = normalise_group(group)
    return group in (person.groups or []) or manages(person, group)


def last_months(count: int = MONTHS_SHOWN, now: datetime | None = None) -> list[date]:
    """The first days of the last ``count`` months (UTC), oldest first, this month included."""
    now = now or utcnow()
    year, month = now.year, now.month
    found = []
    for _ in range(count):
        found.append(date(year, month, 1))
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return found[::-1]


@dataclass
class Segment:
    series: int
    model: str
    y: float
    height: float
    hours: float


@dataclass
class ChartMonth:
    month: str  # "2026-11"
    hours: Hours
    x: float = 0.0
    width: float = 0.0
    core_height: float = 0.0
    segments: list[Segment] = field(default_factory=list)


@dataclass
class UsageChart:
    """Months of use with their bars laid out (a 100 × 36 plot), GPU models in a fixed order."""

    months: list[ChartMonth]
    models: list[str]
    top_gpu: float
    top_core: float

    @property
    def empty(self) -> bool:
        return not (self.top_gpu or self.top_core)

    def series_of(self, model: str) -> int:
        return min(self.models.index(model), SERIES - 1)


PLOT_HEIGHT = 34.0
AXIS = 36.0


def chart_of(per_month: dict[date, Hours], months: list[date]) -> UsageChart:
    """The chart of ``months`` from hours keyed by month (missing months: nothing used)."""
    rows = [ChartMonth(m.strftime("%Y-%m"), per_month.get(m) or Hours()) for m in months]
    used: dict[str, float] = {}
    for row in rows:
        for model, hours in row.hours.gpu_hours.items():
            used[model] = used.get(model, 0.0) + hours
    # The most used model at the bottom of each bar, and first in the legend.
    models = sorted(used, key=lambda m: (-used[m], m))
    top_gpu = max((row.hours.gpu_total for row in rows), default=0.0)
    top_core = max((row.hours.core_hours for row in rows), default=0.0)
    width = 100 / max(len(rows), 1)
    for index, row in enumerate(rows):
        row.x, row.width = index * width + width * 0.15, width * 0.7
        row.core_height = PLOT_HEIGHT * row.hours.core_hours / top_core if top_core else 0.0
        bottom = AXIS
        for model in models:
            hours = row.hours.gpu_hours.get(model, 0.0)
            if hours <= 0:
                continue
            height = PLOT_HEIGHT * hours / top_gpu
            bottom -= height
            row.segments.append(
                Segment(min(models.index(model), SERIES - 1), model, bottom, height, hours)
            )
    return UsageChart(rows, models, top_gpu, top_core)


def months_chart(
    *, user_id: int | None = None, group_name: str | None = None, count: int = MONTHS_SHOWN
) -> UsageChart:
    """The last ``count`` months of one person's, one group's, or everyone's use."""
    months = last_months(count)
    per_month = usage_per(MONTH, months[0], months[-1], user_id=user_id, group_name=group_name)
    return chart_of(per_month, months)


def hours_body(hours: Hours) -> dict:
    """Hours as the API and the JSON export give them (rounded to the second's share)."""
    return {
        "core_hours": round(hours.core_hours, 4),
        "memory_gb_hours": round(hours.memory_gb_hours, 4),
        "gpu_hours": round(hours.gpu_total, 4),
        "gpu_hours_by_model": {m: round(h, 4) for m, h in sorted(hours.gpu_hours.items())},
    }


def total_of(hours: Iterable[Hours]) -> Hours:
    total = Hours()
    for one in hours:
        total.core_hours += one.core_hours
        total.memory_gb_hours += one.memory_gb_hours
        for model, value in one.gpu_hours.items():
            total.gpu_hours[model] = total.gpu_hours.get(model, 0.0) + value
    return total


def days_body(first: date, last: date, **who) -> dict:
    """Per day (only days with use) and in total, from ``first`` to ``last`` included."""
    per_day = usage_per(DAY, first, last, **who)
    days = [{"date": day.isoformat(), **hours_body(per_day[day])} for day in sorted(per_day)]
    return {"days": days, "total": hours_body(total_of(per_day.values()))}


def months_body(chart: UsageChart) -> list[dict]:
    return [{"month": row.month, **hours_body(row.hours)} for row in chart.months]


def csv_rows(month: str, kind: str, owner: str, hours: Hours) -> Iterable[list]:
    """Rows for a CSV export: month, owner kind, owner, resource, hours (two decimals)."""
    yield [month, kind, owner, "cores", f"{hours.core_hours:.2f}"]
    yield [month, kind, owner, "memory_gb", f"{hours.memory_gb_hours:.2f}"]
    for model, value in sorted(hours.gpu_hours.items()):
        yield [month, kind, owner, f"gpu:{model}", f"{value:.2f}"]


@dataclass
class Ranked:
    """One page of owners (user ids or group names) ranked by use: GPU-hours, then
    core-hours, heaviest first; ``total`` owners in all, on ``pages`` pages."""

    rows: list[tuple]  # (owner, Hours)
    page: int
    pages: int
    total: int

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages


def owners_in(site: SiteUsage, month: date) -> tuple[dict[int, Hours], dict[str, Hours]]:
    """Hours per person and per group (charged to one) in ``month``, from ``site``'s owners."""
    users: dict[int, Hours] = {}
    groups: dict[str, Hours] = {}
    for (user_id, group, start), hours in site.owners.items():
        if start != month:
            continue
        add_to(users, user_id, hours)
        if group:
            add_to(groups, group, hours)
    return users, groups


def add_to(found: dict, key, hours: Hours) -> None:
    """Add ``hours`` to ``found[key]`` (a copy of them when there is none yet)."""
    total = found.get(key)
    if total is None:
        found[key] = Hours(hours.core_hours, hours.memory_gb_hours, dict(hours.gpu_hours))
        return
    total.core_hours += hours.core_hours
    total.memory_gb_hours += hours.memory_gb_hours
    for model, value in hours.gpu_hours.items():
        total.gpu_hours[model] = total.gpu_hours.get(model, 0.0) + value


def _by_use(item: tuple) -> tuple:
    owner, hours = item
    return -hours.gpu_total, -hours.core_hours, owner


def ranked(per_owner: dict, page: int, size: int) -> Ranked:
    """Page ``page`` (past the last: the last) of ``size`` owners of ``per_owner`` by use."""
    order = sorted(per_owner.items(), key=_by_use)
    pages = max((len(order) + size - 1) // size, 1)
    page = min(max(page, 1), pages)
    return Ranked(order[(page - 1) * size : page * size], page, pages, len(order))
