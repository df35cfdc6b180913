"""The Group page's addresses: ``/groups/`` lists the groups a person may look after,
``/groups/<group>`` one group's page. Group names may hold slashes ("physics/cms"): the page's
address carries them as they are."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, request, url_for
from flask_login import current_user, login_required
from werkzeug.routing import BuildError

from app.auth.managers import managed_groups
from app.bounds import page_number
from app.groups import access, members, reading, rows
from app.quotas.usage_charts import months_chart
from app.quotas.usage_totals import one_reading

bp = Blueprint("groups", __name__, url_prefix="/groups")
# The page each member's limits are set on, once that page exists.
MEMBER_LIMITS = "quotas.member_limits"


@bp.get("/")
@login_required
def index():
    names = access.listed_groups(current_user)
    return render_template("groups/index.html", groups=names, managed=managed_groups(current_user))


@bp.get("/<path:group>")
@login_required
def page(group: str):
    group = access.group_for(current_user, group)
    # One grouped read of what runs gives the pool's figure, the members' column and the
    # running list's length.
    limits = reading.group_limits(group)
    running = limits.running
    # The members' use, the chart and the budgets all read the group's use as of one instant.
    with one_reading():
        shown = members.members_page(
            group, page_number(request.args.get("members")), running=running
        )
        chart = months_chart(group_name=group)
        budgets = reading.group_budgets(group)
    running_page = reading.running_deployments(
        group, page_number(request.args.get("running")), total=sum(running.values())
    )
    waiting = reading.waiting_requests(group, page_number(request.args.get("waiting")))
    member_limits = _member_limits_address(group)
    return render_template(
        "groups/page.html",
        group=group,
        members=shown,
        member_limits=member_limits,
        member_rows=rows.member_rows(shown.members, member_limits),
        running=running_page,
        running_rows=rows.running_rows(running_page.rows),
        waiting=waiting,
        waiting_rows=rows.waiting_rows(waiting.rows),
        chart=chart,
        limits=limits,
        budgets=budgets,
        page_link=_page_link(group),
    )


PAGED = ("members", "running", "waiting")


def _page_link(group: str):
    """The page's address with list ``param`` on page ``number``, the other lists kept."""
    kept = {key: request.args[key] for key in PAGED if request.args.get(key)}

    def page_link(param: str, number: int) -> str:
        values = {**kept, param: number if number > 1 else None}
        return url_for("groups.page", group=group, **values)

    return page_link


def _member_limits_address(group: str):
    """A function giving each member's limits page, or None while the portal has none. One
    address is built and each name put into it as the route quotes it: a page of a hundred
    members costs one build, not a hundred."""
    if MEMBER_LIMITS not in current_app.view_functions:
        return None
    marker = "member-name"
    try:
        sample = url_for(MEMBER_LIMITS, group=group, username=marker)
    except BuildError:  # named otherwise: the address the page is known by
        sample = f"{url_for('groups.page', group=group)}/members/{marker}/limits"
    head, tail = sample.rsplit(marker, 1)
    quoted = current_app.url_map.converters["default"](current_app.url_map).to_url

    def address(username: str) -> str:
        return f"{head}{quoted(username)}{tail}"

    return address
