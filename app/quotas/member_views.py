"""A member's limits and budget inside a group, at ``/groups/<group>/members/<username>/limits``
(endpoint ``quotas.member_limits``): the group's managers, and the operators, see what the
member may use there beside the group's own figures, and set it, never above the group's
(``app.quotas.member_limits`` owns the rule). Anyone else, and a name not in the group, is
answered 404. A refused form comes back as typed, each problem beside its field."""

from __future__ import annotations

from flask import current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlalchemy import select

from app.auth.groups import normalise_group
from app.errors import NotFound
from app.extensions import db
from app.quotas import member_limits as rule
from app.quotas.budget_views import BudgetForm, budget_rows, read_budget
from app.quotas.editing import describe_limits
from app.quotas.errors import InvalidLimit
from app.quotas.forms import LimitsForm
from app.quotas.models import GROUP, IN_GROUP, QuotaChange, member_subject

HISTORY_SHOWN = 20


def _not_found() -> NotFound:
    return NotFound(_("There is no such member among the groups you manage."))


def _save_limits(group, member, form: LimitsForm) -> bool:
    """Save the limits form when it reads and stays within the group's; else put each
    problem beside its field. True when saved."""
    valid = form.validate()
    changes = form.changes(rule.stored_limits(member, group))
    if not valid or changes is None:
        return False
    _new, problems = rule.check_limits(group, member, changes)
    for problem in problems:
        form[problem.field].errors = [*form[problem.field].errors, problem.message]
    if problems:
        return False
    try:
        change = rule.set_member_limits(current_user, group, member, changes, form.reason.data)
    except InvalidLimit as error:
        form.form_errors.append(error.message)
        return False
    if change is None:
        flash(_("Nothing changed: the limits were already as typed."), "info")
    else:
        flash(
            _("Limits saved for %(name)s in group %(group)s.", name=member.username, group=group),
            "success",
        )
    return True


def _save_budget(group, member, form: BudgetForm) -> bool:
    """Save the budget form when it reads and stays within the group's budget; else put the
    problem beside its field. True when saved."""
    if not form.validate():
        return False
    try:
        resource, hours, period_days = read_budget(form)
        rule.set_member_budget(
            current_user, group, member, resource, hours, period_days, form.reason.data
        )
    except InvalidLimit as error:
        target = form._fields.get(error.field or "")
        if target is None:
            form.form_errors.append(error.message)
        else:
            target.errors = [*target.errors, error.message]
        return False
    flash(
        _("Budget saved for %(name)s in group %(group)s.", name=member.username, group=group),
        "success",
    )
    return True


def member_limits(group: str, username: str):
    """GET: the member's limits and budgets in ``group`` beside the group's own; POST
    (``form`` "limits" or "budget"): save one of them."""
    group = normalise_group(group)
    if not group or not rule.may_set(current_user, group):
        raise _not_found()
    member = rule.member_named(group, username)
    if member is None:
        raise _not_found()
    subject = member_subject(member.id, group)
    limits_form = LimitsForm.showing(rule.stored_limits(member, group), formdata=None)
    budget_form = BudgetForm(formdata=None, prefix="budget")
    status = 200
    if request.method == "POST":
        here = url_for("quotas.member_limits", group=group, username=member.username)
        if request.form.get("form") == "budget":
            budget_form = BudgetForm(prefix="budget")
            if _save_budget(group, member, budget_form):
                return redirect(here + "#member-budgets")
        else:
            limits_form = LimitsForm()
            if _save_limits(group, member, limits_form):
                return redirect(here)
        status = 400
    history = db.session.scalars(
        select(QuotaChange)
        .where(QuotaChange.scope == IN_GROUP, QuotaChange.subject == subject)
        .order_by(QuotaChange.at.desc(), QuotaChange.id.desc())
        .limit(HISTORY_SHOWN)
    ).all()
    group_page = (
        url_for("groups.group_page", group=group)
        if "groups.group_page" in current_app.view_functions
        else None
    )
    return render_template(
        "quotas/member.html",
        group=group,
        member=member,
        group_page=group_page,
        member_limits=describe_limits(rule.stored_limits(member, group)),
        group_limits=describe_limits(rule.group_limits(group)),
        member_budgets=budget_rows(IN_GROUP, subject),
        group_budgets=budget_rows(GROUP, group),
        limits_form=limits_form,
        budget_form=budget_form,
        history=history,
    ), status


def init_member_pages(app) -> None:
    """Add the page to ``app``: under the group's address rather than the blueprint's
    /quotas, as it belongs to the group, whose managers use it; its name is the quotas'
    (``quotas.member_limits``), so the blueprint's helpers serve it."""
    app.add_url_rule(
        "/groups/<group>/members/<username>/limits",
        "quotas.member_limits",
        login_required(member_limits),
        methods=["GET", "POST"],
    )
