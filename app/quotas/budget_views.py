"""Budgets on the operators' Quotas pages: each group's and each person's budgets with what is
used and left of them now, and the form that sets or removes one (with a reason)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from flask import flash, redirect, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm
from wtforms import SelectField, StringField
from wtforms.validators import DataRequired, Length

from app.auth.groups import normalise_group
from app.auth.roles import role_required
from app.clock import utcnow
from app.errors import NotFound
from app.quotas.budgets import (
    budgets_of,
    model_of,
    parse_period,
    period_of,
    period_text,
    resource_key,
    set_budget,
)
from app.quotas.editing import check_model
from app.quotas.errors import InvalidLimit
from app.quotas.models import GROUP, IN_GROUP, USER
from app.quotas.usage_models import CORE_HOURS, GPU_HOURS
from app.quotas.usage_totals import used_since
from app.quotas.views import bp
from app.text import OneLine

try:
    from wtforms import SelectChoice as Choice  # WTForms >= 3.3 deprecates plain tuples
except ImportError:  # pragma: no cover - older WTForms
    from app.auth.forms import Choice

KINDS = [
    Choice(GPU_HOURS, _l("GPU-hours, any model")),
    Choice("model", _l("GPU-hours of one model")),
    Choice(CORE_HOURS, _l("Core-hours")),
]


class BudgetForm(FlaskForm):
    kind = SelectField(_l("What it counts"), choices=KINDS, default=GPU_HOURS)
    gpu_model = StringField(
        _l("GPU model"), description=_l("Only for GPU-hours of one model, e.g. A100.")
    )
    hours = StringField(
        _l("Hours per period"), description=_l("A number of hours; empty removes the budget.")
    )
    period = StringField(
        _l("Period"),
        default="month",
        description=_l("“month” (renewed on the 1st, UTC) or a rolling window such as “30d”."),
    )
    reason = StringField(
        _l("Reason for the change"),
        validators=[
            DataRequired(_l("Say why the budget changes.")),
            Length(max=500, message=_l("At most %(max)d characters.")),
            OneLine(),
        ],
    )


@dataclass
class BudgetRow:
    resource: str
    model: str | None
    hours: float
    period: str
    used: float
    renews_on: date | None
    reason: str
    actor_name: str

    @property
    def left(self) -> float:
        return self.hours - self.used

    @property
    def share(self) -> float:
        """Used, as a percentage of the budget (capped for the bar; 100 for a zero budget)."""
        return min(100.0, 100.0 * self.used / self.hours) if self.hours else 100.0


def budget_rows(scope: str, subject: str) -> list[BudgetRow]:
    """The budgets of (scope, subject), each with what is used of it in the current period."""
    now = utcnow()
    if scope == IN_GROUP:
        user_id, _sep, group = subject.partition(":")
        owner = {"user_id": int(user_id), "group_name": group}
    else:
        owner = {"group_name": subject} if scope == GROUP else {"user_id": int(subject)}
    rows, used_cache = [], {}
    for budget in budgets_of(scope, subject):
        start, renewal = period_of(budget.period_days, now)
        if start not in used_cache:
            used_cache[start] = used_since(start, now=now, **owner)
        used = used_cache[start]
        model = model_of(budget.resource)
        rows.append(
            BudgetRow(
                resource=budget.resource,
                model=model,
                hours=budget.hours,
                period=period_text(budget.period_days),
                used=used.core_hours if budget.resource == CORE_HOURS else used.gpu(model),
                renews_on=renewal.date() if renewal else None,
                reason=budget.reason,
                actor_name=budget.actor_name,
            )
        )
    return rows


def read_budget(form: BudgetForm) -> tuple[str, float | None, int]:
    """What ``form`` asks for: the resource, the hours (None: remove the budget) and the
    period. Raises InvalidLimit, naming the field, for what cannot be read."""
    model = None
    if form.kind.data == "model":
        if not (form.gpu_model.data or "").strip():
            raise InvalidLimit(_("Name the GPU model the hours are of."), field="gpu_model")
        try:
            model = check_model(form.gpu_model.data)
        except InvalidLimit as error:
            raise InvalidLimit(error.message, field="gpu_model") from None
    resource = CORE_HOURS if form.kind.data == CORE_HOURS else resource_key(model)
    text = (form.hours.data or "").strip().replace(",", ".")
    try:
        hours = float(text) if text else None
    except ValueError:
        raise InvalidLimit(_("Hours are a number, such as 2000."), field="hours") from None
    if hours is not None and not (0 <= hours < 1e12):
        raise InvalidLimit(_("A budget is zero hours or more."), field="hours")
    try:
        period_days = parse_period(form.period.data)
    except InvalidLimit as error:
        raise InvalidLimit(error.message, field="period") from None
    return resource, hours, period_days


def budget_context(scope: str, subject: str) -> dict:
    return {
        "budgets": budget_rows(scope, subject),
        "budget_form": BudgetForm(formdata=None, prefix="budget"),
        "budget_action": url_for("quotas.set_budget", scope=scope, subject=subject),
    }


@bp.post("/budgets/<scope>", endpoint="set_budget")
@role_required("operator")
def set_budget_view(scope: str):
    subject = request.args.get("subject", "")
    if scope not in (USER, GROUP) or not subject:
        raise NotFound(_("There is no such budget."))
    if scope == GROUP:
        subject = normalise_group(subject)
        back = url_for("quotas.group", name=subject)
    else:
        back = url_for("quotas.user", user_id=int(subject) if subject.isdigit() else 0)
    form = BudgetForm(prefix="budget")
    if not form.validate():
        for errors in form.errors.values():
            for error in errors:
                flash(error, "danger")
        return redirect(back + "#budgets")
    try:
        resource, hours, period_days = read_budget(form)
        set_budget(current_user, scope, subject, resource, hours, period_days, form.reason.data)
    except InvalidLimit as error:
        flash(error.message, "danger")
    else:
        flash(_("Budget saved."), "success")
    return redirect(back + "#budgets")
