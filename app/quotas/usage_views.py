"""Usage over time on pages: the operators' usage page and its exports, each person's own
usage as CSV and JSON, and the section the Account page shows."""

from __future__ import annotations

import csv
import io
from datetime import date

from flask import Response, jsonify, render_template, request
from flask_login import current_user, login_required
from sqlalchemy import select

from app.auth.models import User
from app.auth.roles import role_required
from app.bounds import whole_number
from app.extensions import db
from app.quotas.usage_charts import (
    csv_rows,
    hours_body,
    last_months,
    months_body,
    months_chart,
)
from app.quotas.usage_models import MONTH
from app.quotas.usage_totals import usage_per
from app.quotas.views import bp

CSV_HEADER = ["month", "owner_kind", "owner", "resource", "hours"]


def account_usage_context(user) -> dict:
    """The Account page's usage section: the person's last twelve months."""
    return {"chart": months_chart(user_id=user.id)}


def _month_asked(labels: list[str]) -> str:
    asked = request.args.get("month", "")
    return asked if asked in labels else labels[-1]


def _by_owner(first: date, last: date) -> tuple[list[tuple], list[tuple]]:
    """[(month, username, Hours)] and [(month, group, Hours)] from ``first`` to ``last``."""
    users = usage_per(MONTH, first, last, by="user")
    groups = usage_per(MONTH, first, last, by="group")
    ids = {user_id for user_id, _ in users}
    names = dict(db.session.execute(select(User.id, User.username).where(User.id.in_(ids))).all())
    by_user = [(m, names.get(u, f"#{u}"), hours) for (u, m), hours in users.items()]
    by_group = [(m, g, hours) for (g, m), hours in groups.items() if g]
    return sorted(by_user, key=_order), sorted(by_group, key=_order)


def _order(row: tuple):
    return row[0], -row[2].gpu_total, row[1]


@bp.route("/usage")
@role_required("operator")
def usage():
    months = max(1, min(request.args.get("months", 12, type=whole_number), 24))
    starts = last_months(months)
    labels = [m.strftime("%Y-%m") for m in starts]
    month = _month_asked(labels)
    shown = date.fromisoformat(month + "-01")
    by_user, by_group = _by_owner(shown, shown)

    def rows(found):
        return [
            {
                "owner": owner,
                "core_hours": hours.core_hours,
                "gpu_hours": hours.gpu_total,
                "gpu_hours_by_model": hours.gpu_hours,
            }
            for _, owner, hours in found
        ]

    return render_template(
        "quotas/usage.html",
        months=months,
        labels=labels,
        month=month,
        chart=months_chart(count=months),
        users=rows(by_user),
        groups=rows(by_group),
    )


@bp.route("/usage.csv")
@role_required("operator")
def usage_csv():
    months = last_months(max(1, min(request.args.get("months", 12, type=whole_number), 60)))
    by_user, by_group = _by_owner(months[0], months[-1])
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
    months = last_months(max(1, min(request.args.get("months", 12, type=whole_number), 60)))
    by_user, by_group = _by_owner(months[0], months[-1])
    return jsonify(
        {
            "months": months_body(months_chart(count=len(months))),
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
