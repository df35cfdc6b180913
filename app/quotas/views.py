"""Quotas, for operators: usage against limits, editing limits with a reason, the history of
changes, and usage over time. Researchers see their own usage on My deployments (and, in
detail, at ``/quotas/mine``)."""

from datetime import date

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import format_date
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlalchemy import select

from app.auth.groups import normalise_group
from app.auth.models import User
from app.auth.roles import role_required
from app.bounds import page_number
from app.errors import NotFound
from app.extensions import db
from app.formatting import format_decimal
from app.quotas.amounts import amount_text, charge_text
from app.quotas.bars import quota_bar_markup, quota_number
from app.quotas.editing import describe_limits, set_limits, subject_label
from app.quotas.errors import InvalidLimit
from app.quotas.fit import assess
from app.quotas.forms import LimitsForm
from app.quotas.limits import limits_for, pool_limits
from app.quotas.listing import SORTS, known_groups, users_page
from app.quotas.models import GROUP, MEMBER, SITE, USER, QuotaChange, QuotaLimit
from app.quotas.operations import usage_details_context, usage_panel_context
from app.quotas.usage import holders_of, usage_of
from app.quotas.usage_charts import months_chart

bp = Blueprint("quotas", __name__, url_prefix="/quotas")
HISTORY_SHOWN = 50


@bp.app_template_filter("month_name")
def month_name(month: str, long: bool = False) -> str:
    """``"2026-03"`` as the chart labels its bars (``"Mar"``, or ``"March 2026"`` in full)."""
    try:
        start = date.fromisoformat(month + "-01")
    except (TypeError, ValueError):
        return month
    return format_date(start, "MMMM yyyy" if long else "MMM")


bp.add_app_template_filter(quota_number, "quota_number")
bp.add_app_template_global(quota_bar_markup, "quota_bar_markup")


@bp.app_template_filter("chart_figure")
def chart_figure(value) -> str:
    """A chart's figure with the decimals its size needs: "12", "2.5", "0.3", "0.04", so that
    no bar and no scale above one reads "0"."""
    value = value or 0
    if value >= 10:
        return format_decimal(value, format="#,##0")
    if value >= 1:
        return format_decimal(value, format="#,##0.#")
    return format_decimal(value, format="#,##0.##" if value >= 0.005 or value == 0 else "#,##0.###")


@bp.app_context_processor
def _quota_helpers():
    return {
        "quota_describe": describe_limits,
        "quota_label": subject_label,
        "quota_charge": charge_text,
        "quota_amount": amount_text,
    }


def _stored(scope: str, subject: str) -> dict:
    row = db.session.scalar(
        select(QuotaLimit).where(QuotaLimit.scope == scope, QuotaLimit.subject == subject)
    )
    return dict(row.limits or {}) if row else {}


def _history(scope: str | None = None, subject: str | None = None, limit=HISTORY_SHOWN):
    query = select(QuotaChange).order_by(QuotaChange.at.desc(), QuotaChange.id.desc())
    if scope:
        query = query.where(QuotaChange.scope == scope, QuotaChange.subject == subject)
    return db.session.scalars(query.limit(limit)).all()


def _edit(scope: str, subject: str, form: LimitsForm) -> bool:
    """Save ``form`` for (scope, subject) when it was submitted and reads; flash the outcome."""
    if not form.is_submitted():
        return False
    # Every field is read even when another is wrong, so that all problems show at once.
    valid = form.validate()
    changes = form.changes(_stored(scope, subject))
    if not valid or changes is None:
        return False
    try:
        change = set_limits(current_user, scope, subject, changes, form.reason.data)
    except InvalidLimit as error:
        form.form_errors.append(error.message)
        return False
    if change is None:
        flash(_("Nothing changed: the limits were already as typed."), "info")
    else:
        flash(_("Limits saved for %(subject)s.", subject=subject_label(scope, subject)), "success")
    return True


@bp.get("/mine")
@login_required
def mine():
    """What holds the researcher's resources and their usage by month: the body of the usage
    panel on My deployments (loaded when it is opened), or a page of its own without script."""
    context = usage_details_context(current_user)
    if request.headers.get("HX-Request"):
        return render_template("quotas/_usage_details.html", **context)
    return render_template("quotas/mine.html", **usage_panel_context(current_user), **context)


@bp.route("/")
@role_required("operator")
def index():
    query = request.args.get("q", "").strip()
    sort = request.args.get("sort", "name")
    sort = sort if sort in SORTS else "name"
    page = page_number(request.args.get("page"))
    size = current_app.config["QUOTA_USERS_PAGE_SIZE"]
    rows, total = users_page(query, sort, page, size)
    context = {
        "rows": rows,
        "total": total,
        "query": query,
        "sort": sort,
        "sorts": SORTS,
        "page": page,
        "pages": max((total + size - 1) // size, 1),
    }
    if request.headers.get("HX-Request"):
        return render_template("quotas/_users.html", **context)
    return render_template("quotas/index.html", **context)


@bp.route("/users/<int:user_id>", methods=["GET", "POST"])
@role_required("operator")
def user(user_id: int):
    person = db.session.get(User, user_id)
    if person is None:
        raise NotFound(_("There is no such user."))
    subject = str(person.id)
    stored = _stored(USER, subject)
    form = LimitsForm() if request.method == "POST" else LimitsForm.showing(stored)
    if _edit(USER, subject, form):
        return redirect(url_for("quotas.user", user_id=user_id))
    limits = limits_for(person)
    used = usage_of(user_id=person.id, models=limits.gpu_models)
    panel = assess(None, limits, used, {"gpu_models": {}}, lambda: [], show_unlimited=True)
    from app.quotas.budget_views import budget_context  # its routes live on this blueprint

    return render_template(
        "quotas/user.html",
        **budget_context(USER, subject),
        person=person,
        form=form,
        limits=limits,
        panel=panel,
        holders=holders_of(user_id=person.id),
        history=_history(USER, subject),
        chart=months_chart(user_id=person.id, count=6),
    ), 400 if form.errors else 200


@bp.route("/groups/")
@role_required("operator")
def groups():
    opening = normalise_group(request.args.get("name", ""))
    if opening:
        return redirect(url_for("quotas.group", name=opening))
    query = " ".join(request.args.get("q", "").split())[:100]
    shown = []
    for name in known_groups(query):
        shown.append(
            {
                "name": name,
                "member": _stored(MEMBER, name),
                "pool": _stored(GROUP, name),
                "usage": usage_of(group_name=name),
            }
        )
    return render_template(
        "quotas/groups.html", groups=shown, describe=describe_limits, query=query
    )


@bp.get("/groups/<path:name>")
@role_required("operator")
def group_by_path(name: str):
    """Earlier addresses of a group's page, kept working."""
    return redirect(url_for("quotas.group", name=normalise_group(name)), 301)


# The name travels in the query string: group names from Keycloak and INDIGO IAM can start
# with "/" ("/physics/cms"), which a path segment cannot carry (proxies merge the slashes).
@bp.route("/group", methods=["GET", "POST"])
@role_required("operator")
def group():
    typed = request.args.get("name", "")
    name = normalise_group(typed)
    if not name:
        return redirect(url_for("quotas.groups"))
    if name != typed and request.method == "GET":
        # "/physics/cms" and "physics/cms" are one group: show it under the portal's form.
        return redirect(url_for("quotas.group", name=name))
    editing = request.form.get("scope") if request.method == "POST" else None
    forms = {}
    for scope in (MEMBER, GROUP):
        stored = _stored(scope, name)
        submitted = editing == scope
        forms[scope] = (
            LimitsForm(prefix=scope) if submitted else LimitsForm.showing(stored, prefix=scope)
        )
        if submitted and _edit(scope, name, forms[scope]):
            return redirect(url_for("quotas.group", name=name))
    limits = pool_limits(name)
    used = usage_of(group_name=name, models=limits.gpu_models)
    pool = assess(name, limits, used, {"gpu_models": {}}, lambda: [], show_unlimited=True)
    history = sorted(
        [*_history(MEMBER, name), *_history(GROUP, name)], key=lambda c: (c.at, c.id), reverse=True
    )
    failed = any(f.errors for f in forms.values())
    from app.quotas.budget_views import budget_context  # its routes live on this blueprint

    return render_template(
        "quotas/group.html",
        **budget_context(GROUP, name),
        name=name,
        forms=forms,
        pool=pool,
        history=history,
        holders=holders_of(group_name=name),
    ), 400 if failed else 200


@bp.route("/site", methods=["GET", "POST"])
@role_required("operator")
def site():
    stored = _stored(SITE, "")
    form = LimitsForm() if request.method == "POST" else LimitsForm.showing(stored)
    if _edit(SITE, "", form):
        return redirect(url_for("quotas.site"))
    return render_template(
        "quotas/site.html", form=form, history=_history(SITE, "")
    ), 400 if form.errors else 200


@bp.route("/history")
@role_required("operator")
def history():
    changes = _history(limit=200)
    return render_template(
        "quotas/history.html", changes=changes, label=subject_label, describe=describe_limits
    )
