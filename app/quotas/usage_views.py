"""Usage over time on pages: the operators' usage page and its exports, each person's own
usage as CSV and JSON, and the section the Account page shows."""

from __future__ import annotations

import csv
import io
from datetime import date

from babel import numbers
from flask import Response, current_app, jsonify, render_template, request
from flask_babel import get_locale
from flask_login import current_user, login_required
from sqlalchemy import select

from app.auth.models import User
from app.auth.roles import role_required
from app.bounds import page_number, whole_number
from app.extensions import db
from app.quotas.usage_charts import (
    Ranked,
    add_to,
    chart_of,
    csv_rows,
    hours_body,
    last_months,
    months_body,
    months_chart,
    owners_in,
    ranked,
)
from app.quotas.usage_site import SiteUsage, site_usage
from app.quotas.usage_totals import Hours
from app.quotas.views import bp

CSV_HEADER = ["month", "owner_kind", "owner", "resource", "hours"]


def account_usage_context(user) -> dict:
    """The Account page's usage section: the person's last twelve months."""
    return {"chart": months_chart(user_id=user.id)}


def _month_asked(labels: list[str]) -> str:
    asked = request.args.get("month", "")
    return asked if asked in labels else labels[-1]


def _names(ids) -> dict[int, str]:
    ids = list(ids)
    if not ids:
        return {}
    return dict(db.session.execute(select(User.id, User.username).where(User.id.in_(ids))).all())


def _by_owner(site: SiteUsage) -> tuple[list[tuple], list[tuple]]:
    """[(month, username, Hours)] and [(month, group, Hours)] of ``site``'s owners, by month,
    then GPU-hours (heaviest first), then name."""
    users: dict[tuple, Hours] = {}
    groups: dict[tuple, Hours] = {}
    for (user_id, group, month), hours in site.owners.items():
        add_to(users, (month, user_id), hours)
        if group:
            add_to(groups, (month, group), hours)
    names = _names({user_id for _, user_id in users})
    by_user = [(m, names.get(u, f"#{u}"), hours) for (m, u), hours in users.items()]
    by_group = [(m, g, hours) for (m, g), hours in groups.items()]
    return sorted(by_user, key=_order), sorted(by_group, key=_order)


def _order(row: tuple):
    return row[0], -row[2].gpu_total, row[1]


def _figure_writer():
    """What ``quota_number(value, 1)`` writes ("1,234.5", "1.234,5"), for a table's many
    figures: Python rounds a float to one decimal exactly as that filter does before Babel
    writes it, so only the separators need the language, looked up once, not per figure."""
    locale = get_locale()
    marks = {",": numbers.get_group_symbol(locale), ".": numbers.get_decimal_symbol(locale)}
    table = str.maketrans(marks)
    return lambda value: f"{value or 0:,.1f}".translate(table)


def _table(shown: Ranked, names: dict | None = None) -> list[dict]:
    """The rows of one page of owners, their figures written out (one decimal)."""
    figure = _figure_writer()
    rows = []
    for owner, hours in shown.rows:
        models = sorted(hours.gpu_hours.items(), key=lambda item: item[0].lower())
        rows.append(
            {
                "owner": owner if names is None else names.get(owner, f"#{owner}"),
                "core_hours": figure(hours.core_hours),
                "gpu_hours": figure(hours.gpu_total),
                "gpu_hours_by_model": [(model, figure(value)) for model, value in models],
            }
        )
    return rows


@bp.route("/usage")
@role_required("operator")
def usage():
    """The whole site's use per month, and who used what in one month: people and groups
    ranked by use, a page of each at a time."""
    months = max(1, min(request.args.get("months", 12, type=whole_number), 24))
    starts = last_months(months)
    labels = [m.strftime("%Y-%m") for m in starts]
    month = _month_asked(labels)
    shown = date.fromisoformat(month + "-01")
    site = site_usage(starts[0], starts[-1], owners_from=shown, owners_to=shown)
    users, groups = owners_in(site, shown)
    size = current_app.config["QUOTA_USERS_PAGE_SIZE"]
    users = ranked(users, page_number(request.args.get("page")), size)
    groups = ranked(groups, page_number(request.args.get("groups_page")), size)
    return render_template(
        "quotas/usage.html",
        months=months,
        labels=labels,
        month=month,
        chart=chart_of(site.months, starts),
        users=users,
        user_rows=_table(users, _names(owner for owner, _ in users.rows)),
        groups=groups,
        group_rows=_table(groups),
    )


def _exported(count: int) -> tuple[list[date], SiteUsage]:
    months = last_months(max(1, min(count, 60)))
    return months, site_usage(months[0], months[-1], owners_from=months[0], owners_to=months[-1])


@bp.route("/usage.csv")
@role_required("operator")
def usage_csv():
    _, site = _exported(request.args.get("months", 12, type=whole_number))
    by_user, by_group = _by_owner(site)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    for kind, found in (("user", by_user), ("group", by_group)):
        for month, owner, hours in found:
            writer.writerows(csv_rows(month.strftime("%Y-%m"), kind, owner, hours))
    return _csv(out.getvalue(), "usage.csv")


@bp.route("/usage.json")
@role_required("operator")
def usage_json():
    months, site = _exported(request.args.get("months", 12, type=whole_number))
    by_user, by_group = _by_owner(site)
    return jsonify(
        {
            "months": months_body(chart_of(site.months, months)),
            "users": [_owned(row, "user") for row in by_user],
            "groups": [_owned(row, "group") for row in by_group],
        }
    )


def _owned(row: tuple, kind: str) -> dict:
    month, owner, hours = row
    return {"month": month.strftime("%Y-%m"), kind: owner, **hours_body(hours)}


@bp.route("/mine/usage.csv")
@login_required
def my_usage_csv():
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    for row in months_chart(user_id=current_user.id).months:
        writer.writerows(csv_rows(row.month, "user", current_user.username, row.hours))
    return _csv(out.getvalue(), "my-usage.csv")


@bp.route("/mine/usage.json")
@login_required
def my_usage_json():
    chart = months_chart(user_id=current_user.id)
    return jsonify({"user": current_user.username, "months": months_body(chart)})


def _csv(text: str, name: str) -> Response:
    return Response(
        text, mimetype="text/csv", headers={"Content-Disposition": f"attachment; filename={name}"}
    )
