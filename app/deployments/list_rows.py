"""What each row of My deployments shows, worked out once per page in Python.

A page shows fifty rows, and each row the same dozen things: the words of its status, its
template's name, when it was made, what it holds, how to reach it. Asked for from the
template, each was a filter or a property call through Jinja, and the sentences naming a row
("Delete %(name)s") a translation looked up again for every row; together they were most of
the page. Here the words every row shares are translated once, what depends on a few values
only (a status, a revision, a charge) is worked out once per value, and the template only
places the results. Nothing is kept beyond the page: each row is read from the database for
the request that shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app
from flask_babel import gettext as _
from markupsafe import Markup, escape

from app.auth.models import User
from app.deployments import access, jobs, panels, presenters, queries, words
from app.deployments import status as statuses
from app.deployments.models import Deployment
from app.deployments.presenters import ShownOutput, StatusLook
from app.formatting import moments

# How much of a failure's reason a row shows under its status (the page shows it all), and
# by how much a reason may pass that before it is cut (Jinja's ``truncate`` and its leeway).
REASON_SHOWN = 80
REASON_LEEWAY = 5
# Outputs to copy a row shows beside its main link, at most.
COPIES_SHOWN = 2
# Statuses whose rows offer no delete: it has begun or is done.
_NOT_DELETABLE = frozenset({"deleting", "deleted"})


@dataclass(slots=True)
class Copy:
    """An output a row offers to copy: ``text`` as copied (an SSH address with its ``ssh``)."""

    label: str
    text: str
    action: Markup  # "Copy <label>", for screen readers
    number: int  # its place among the row's copies, from 1 (the button's id)


@dataclass(slots=True)
class Row:
    """One row of the list, as the template places it."""

    id: int
    deployment: Deployment
    name: str
    template: str
    look: StatusLook
    busy: bool
    reason: str | None
    reason_cut: str | None
    created: str
    resources: Markup
    link: ShownOutput | None
    open_link: Markup | None
    copy_link: Markup | None
    copies: list[Copy]
    delete: Markup | None
    url: str  # the deployment's page
    delete_url: str  # its delete confirmation
    panels: list[tuple[str, object]]  # (template, value) of each panel shown in the row
    mark: str | None = None  # how it is shared with the viewer (``access.marks``), if it is


def _cut(text: str, length: int = REASON_SHOWN) -> str:
    """``text`` cut to ``length`` characters at a word, "..." marking the cut: what Jinja's
    ``truncate`` filter does with its defaults."""
    if len(text) <= length + REASON_LEEWAY:
        return text
    kept = text[: length - 3].rsplit(" ", 1)[0]
    return kept + "..."


def _naming(sentence: str, key: str):
    """``Markup(sentence) % {key: value}`` for one value at a time, as plain string work: the
    value escaped, the portal's own words kept (Markup's ``%`` wraps every value it is given
    and cost more than the rest of a row's sentences)."""

    def named(value) -> Markup:
        return Markup(sentence % {key: escape(value)})  # noqa: S704 (the portal's own words)

    return named


def rows_for(
    deployments: list[Deployment],
    outputs: dict[int, list[ShownOutput]],
    links: dict[int, ShownOutput | None],
    in_progress: set[int],
    deployment_panels: list[tuple[panels.Panel, dict]] = (),
    marks: dict[int, str] | None = None,
) -> list[Row]:
    """The rows of ``deployments``, in their order, with ``outputs`` (each one's outputs as
    shown, none once it cannot be reached), ``links`` (its main link), ``in_progress``, the
    values of the panels shown in rows (``panels.panels_for``) and how each is shared with the
    viewer (``access.marks``)."""
    open_words = _naming(_("Open %(name)s"), "name")
    copy_link_words = _naming(_("Copy the %(name)s address"), "name")
    copy_words = _naming(_("Copy %(what)s"), "what")
    delete_words = _naming(_("Delete %(name)s"), "name")
    when = moments()
    cell = presenters.page_cells()
    detail_url = presenters.url_pattern("deployments.detail", "deployment_id")
    delete_url = presenters.url_pattern("deployments.confirm_delete", "deployment_id")
    row_panels = [(p.row_template, values) for p, values in deployment_panels if p.row_template]
    template_names: dict[tuple, str] = {}
    looks: dict[str, StatusLook] = {}
    rows = []
    for deployment in deployments:
        key = deployment.id
        busy = key in in_progress
        template_key = (deployment.revision_id, deployment.template_name)
        template = template_names.get(template_key)
        if template is None:
            shown = deployment.shown_template_name
            template = template_names[template_key] = words.said(shown) or deployment.template_slug
        if jobs.is_job(deployment):
            look = jobs.look_of(deployment)
        else:
            look = looks.get(deployment.status)
            if look is None:
                look = looks[deployment.status] = presenters.status_look(deployment.status)
        reason = None if busy else words.said(deployment.status_reason)
        link = links.get(key)
        skipped = link.name if link else ""
        copies = []
        for output in outputs.get(key, ()):
            if output.show not in ("copy", "ssh") or output.name == skipped:
                continue
            text = "ssh " + output.text if output.show == "ssh" else output.text
            copies.append(Copy(output.label, text, copy_words(output.label), len(copies) + 1))
            if len(copies) == COPIES_SHOWN:
                break
        rows.append(
            Row(
                id=key,
                deployment=deployment,
                name=deployment.name or deployment.shown_template_name,
                template=template,
                look=look,
                busy=busy,
                reason=reason,
                reason_cut=_cut(reason) if reason else None,
                created=when(deployment.created_at),
                resources=cell(deployment.charge),
                link=link,
                open_link=open_words(link.label) if link else None,
                copy_link=copy_link_words(link.label) if link else None,
                copies=copies,
                delete=(
                    None if deployment.status in _NOT_DELETABLE else delete_words(deployment.name)
                ),
                url=detail_url.format(key),
                delete_url=delete_url.format(key),
                panels=[(t, values[key]) for t, values in row_panels if key in values],
                mark=marks.get(key) if marks else None,
            )
        )
    return rows


def list_context(viewer: User, filters: queries.Filters) -> dict:
    """Everything My deployments (the page, and its rows as polled) draws for ``viewer``."""
    size = current_app.config["DEPLOYMENTS_PAGE_SIZE"]
    listed = queries.list_page(viewer, filters, size)
    outputs = presenters.shown_outputs(listed.deployments)
    for deployment in listed.deployments:
        if not statuses.reachable(deployment.status, deleted=deployment.deleted):
            outputs[deployment.id] = []
    in_progress = {d.id for d in listed.deployments if d.in_progress}
    others = [d for d in listed.deployments if d.user_id != viewer.id]
    owners = {d.user_id for d in (listed.deployments if listed.owners_shown else others)}
    empty = not listed.deployments and not filters.narrowed
    links = {key: presenters.main_link(value) for key, value in outputs.items()}
    deployment_panels = panels.panels_for(listed.deployments)
    marks = access.marks(viewer, others)
    return {
        "had_some": empty and queries.has_past_deployments(viewer, filters),
        "filters": filters,
        "listed": listed,
        "rows": rows_for(listed.deployments, outputs, links, in_progress, deployment_panels, marks),
        "owners": queries.usernames(owners),
        "access_marks": marks,
        "deployment_panels": deployment_panels,
        "polling": bool(in_progress),
        "poll_seconds": current_app.config["DEPLOYMENTS_POLL_SECONDS"],
        "status_groups": queries.STATUS_GROUPS,
    }
