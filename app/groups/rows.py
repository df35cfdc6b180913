"""The rows of the Group page's three tables (members, running deployments, waiting
requests), filled in Python as My deployments fills its rows (``app.deployments.row_markup``).

Drawn by Jinja, each row's dozen values were each looked up, filtered, escaped and wrapped as
markup again, and its sentence ("Limits of %(user)s") translated anew: a hundred rows were a
third of the page's work. Here the words every row shares are translated once per page, what
depends on a few values only (a status, a charge) is worked out once per value, and each value
is escaped as Jinja escapes it (``row_markup.text``). Nothing is kept beyond the page.
templates/groups/page.html places the rows whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from markupsafe import Markup

from app.deployments.presenters import status_look, url_pattern
from app.deployments.row_markup import escaped, named, text, translator
from app.formatting import moments, number
from app.quotas.amounts import charge_text
from app.quotas.views import chart_figure

MEMBER = (
    "    <tr>\n"
    '      <th scope="row" class="fw-normal"><span class="fw-semibold">{name}</span>'
    "{username}{disabled}</th>\n"
    '      <td class="text-end" data-label="{w_running}">{running}</td>\n'
    '      <td class="text-end" data-label="{w_core_month}">{core_hours}</td>\n'
    '      <td class="text-end" data-label="{w_gpu_month}">{gpu_hours}</td>\n'
    "{limits}    </tr>\n"
)
USERNAME = ' <span class="d-block text-body-secondary small">{username}</span>'
DISABLED = ' <span class="badge text-bg-secondary">{words}</span>'
LIMITS = '<td data-label="{w_limits}"><a href="{href}">{words}</a></td>'
RUNNING = (
    "    <tr>\n"
    '      <th scope="row" class="fw-normal"><a class="text-break" href="{url}">{name}</a>'
    '<span class="d-block small text-body-secondary">{template}</span></th>\n'
    '      <td data-label="{w_owner}">{owner}</td>\n'
    '      <td data-label="{w_status}"><span class="badge text-bg-{tone}" title="{meaning}">'
    "{label}</span></td>\n"
    '      <td class="small" data-label="{w_resources}">{resources}</td>\n'
    '      <td class="small" data-label="{w_launched}">{launched}</td>\n'
    "    </tr>\n"
)
WAITING = (
    "    <tr>\n"
    '      <th scope="row" class="fw-normal"><a class="text-break" href="{url}">{name}</a>'
    "</th>\n"
    '      <td data-label="{w_place}">{place}</td>\n'
    '      <td data-label="{w_owner}">{owner}</td>\n'
    '      <td class="small" data-label="{w_line}">{line}</td>\n'
    '      <td class="small" data-label="{w_since}">{since}</td>\n'
    "    </tr>\n"
)


def _figures() -> Callable[[int], str]:
    """``number`` for a page's counts, each count written once (a page's members run a few
    different numbers of deployments)."""
    written: dict[int, str] = {}

    def figure(count: int) -> str:
        shown = written.get(count)
        if shown is None:
            shown = written[count] = text(number(count))
        return shown

    return figure


def member_rows(members: Iterable, limits_address: Callable[[str], str] | None) -> Markup:
    """The members' rows (``members.Member``), each linking to the member's limits inside the
    group when ``limits_address`` gives the address of them."""
    _ = translator()
    words = {
        "w_running": _("Running"),
        "w_core_month": _("Core-hours this month"),
        "w_gpu_month": _("GPU-hours this month"),
    }
    disabled = DISABLED.format(words=_("disabled"))
    w_limits = _("Limits")
    limits_of = named(_("Limits of %(user)s"), "user")
    figure = _figures()
    fill = MEMBER.format_map
    rows = []
    for member in members:
        person = member.user
        username = person.username
        display_name = person.display_name
        shown = display_name and display_name != username
        quoted_name = escaped(username)
        limits = ""
        if limits_address is not None:
            href = escaped(limits_address(username))
            limits = LIMITS.format(w_limits=w_limits, href=href, words=limits_of(username))
        words.update(
            name=text(display_name or username),
            username=USERNAME.format(username=quoted_name) if shown else "",
            disabled="" if person.active else disabled,
            running=figure(member.running),
            core_hours=escaped(chart_figure(member.month.core_hours)),
            gpu_hours=escaped(chart_figure(member.month.gpu_total)),
            limits=limits,
        )
        rows.append(fill(words))
    return Markup("".join(rows))  # noqa: S704 (escaped value by value above)


def running_rows(rows: Iterable[tuple]) -> Markup:
    """The rows of the running deployments, each (deployment, owner's username)."""
    _ = translator()
    words = {
        "w_owner": _("Owner"),
        "w_status": _("Status"),
        "w_resources": _("Resources"),
        "w_launched": _("Launched"),
    }
    detail_url = escaped(url_pattern("deployments.detail", "deployment_id"))
    when = moments()
    looks: dict[str, tuple[str, str, str]] = {}
    charges: dict[str, str] = {}
    fill = RUNNING.format_map
    shown = []
    for deployment, owner in rows:
        status = deployment.status
        look = looks.get(status)
        if look is None:
            found = status_look(status)
            look = looks[status] = (text(found.tone), text(found.meaning), text(found.label))
        # The same charge, written out the same, is worded once per page.
        charge = deployment.charge
        shape = repr(charge)
        resources = charges.get(shape)
        if resources is None:
            resources = charges[shape] = text(charge_text(charge))
        words.update(
            url=detail_url.format(deployment.id),
            name=text(deployment.name or deployment.template_name),
            template=text(deployment.template_name),
            owner=escaped(owner),
            tone=look[0],
            meaning=look[1],
            label=look[2],
            resources=resources,
            launched=escaped(when(deployment.created_at)),
        )
        shown.append(fill(words))
    return Markup("".join(shown))  # noqa: S704 (escaped value by value above)


def waiting_rows(rows: Iterable) -> Markup:
    """The rows of the waiting requests (``reading.WaitingRequest``)."""
    _ = translator()
    words = {
        "w_place": _("Place"),
        "w_owner": _("Owner"),
        "w_line": _("Line"),
        "w_since": _("Waiting since"),
    }
    detail_url = escaped(url_pattern("deployments.detail", "deployment_id"))
    when = moments()
    figure = _figures()
    fill = WAITING.format_map
    shown = []
    for waiting in rows:
        deployment = waiting.deployment
        words.update(
            url=detail_url.format(deployment.id),
            name=text(deployment.name or deployment.template_name),
            place=figure(waiting.place),
            owner=escaped(waiting.owner),
            line=escaped(waiting.line_words),
            since=escaped(when(waiting.entry.enqueued_at)),
        )
        shown.append(fill(words))
    return Markup("".join(shown))  # noqa: S704 (escaped value by value above)
