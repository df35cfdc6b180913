"""What each row of My deployments shows, worked out once per page in Python.

A page shows fifty rows, and each row the same dozen things: the words of its status, its
template's name, when it was made, what it holds, how to reach it. Asked for from the
template, each was a filter or a property call through Jinja, and the sentences naming a row
("Delete %(name)s") a translation looked up again for every row; together they were most of
the page. Here the words every row shares are translated once, what depends on a few values
only (a status, a revision, a charge, a site) is worked out once per value, and each row's
markup is filled in Python (``row_markup``); the template places the rows whole. Nothing is
kept beyond the page: each row is read from the database, and drawn, for the request that
shows it, so a status changed or a share revoked shows at the next one.
"""

from __future__ import annotations

from flask import current_app

from app.auth.models import User
from app.deployments import access, jobs, panels, presenters, queries, row_markup, words
from app.deployments import status as statuses
from app.deployments.listed import ListedDeployment, deployments_of
from app.deployments.presenters import ShownOutput, StatusLook
from app.deployments.row_markup import escaped, text
from app.formatting import moments

# How much of a failure's reason a row shows under its status (the page shows it all), and
# by how much a reason may pass that before it is cut (Jinja's ``truncate`` and its leeway).
REASON_SHOWN = 80
REASON_LEEWAY = 5
# Outputs to copy a row shows beside its main link, at most.
COPIES_SHOWN = 2
# Statuses whose rows offer no delete: it has begun or is done.
_NOT_DELETABLE = frozenset({"deleting", "deleted"})


def _cut(reason: str, length: int = REASON_SHOWN) -> str:
    """``reason`` cut to ``length`` characters at a word, "..." marking the cut: what Jinja's
    ``truncate`` filter does with its defaults."""
    if len(reason) <= length + REASON_LEEWAY:
        return reason
    kept = reason[: length - 3].rsplit(" ", 1)[0]
    return kept + "..."


def _look(look: StatusLook, status: str) -> tuple[str, str, str, str]:
    """A badge's tone, title and words as a row places them (the status when it means
    nothing more), and the status itself, escaped."""
    return text(look.tone), text(str(look.meaning) or status), text(look.label), escaped(status)


def _site_names():
    """The name a row shows for a recorded site: the known site's (the capacity feature's
    ``known_site``, which templates are given), else the recorded one; each looked up once
    per page."""
    known_site = current_app.jinja_env.globals.get("known_site")
    names: dict[str, str] = {}

    def name(site: str) -> str:
        found = names.get(site)
        if found is None:
            known = known_site(site) if known_site else None
            found = names[site] = text(known.name if known else site)
        return found

    return name


def _job_looks(deployments: list[ListedDeployment]) -> dict[int, tuple[str, str, str, str]]:
    """The badge of each batch job among ``deployments``, by id: a job's words depend on its
    schedule, so its template is read then (one statement for the page's jobs)."""
    ids = [deployment.id for deployment in deployments if deployment.is_job]
    if not ids:
        return {}
    return {job.id: _look(jobs.job_look(job), job.status) for job in deployments_of(ids)}


def rows_for(
    deployments: list[ListedDeployment],
    outputs: dict[int, list[ShownOutput]],
    links: dict[int, ShownOutput | None],
    in_progress: set[int],
    deployment_panels: list[tuple[panels.Panel, dict]] = (),
    marks: dict[int, str] | None = None,
    owners: dict[int, str] | None = None,
) -> list:
    """The rows of ``deployments``, in their order, as the pieces ``_rows.html`` places: the
    rows' markup, and between a row's two halves (``row_markup.head`` and ``tail``) a
    (template, value) for each panel shown in it. ``outputs`` are each one's outputs as shown
    (none once it cannot be reached), ``links`` its main link, then ``in_progress``, the
    values of the panels shown in rows (``panels.panels_for``), how each is shared with the
    viewer (``access.marks``) and, when the list has an owner column, ``owners``' usernames."""
    page = row_markup.page_words()
    marked = page.pop("marks")
    no_group, no_site = page["w_no_group"], page["w_no_site"]
    nothing_busy = row_markup.nothing_yet(page["w_when_ready"])
    nothing = row_markup.nothing_yet("—")
    _ = row_markup.translator()
    open_words = row_markup.named(_("Open %(name)s"), "name")
    copy_link_words = row_markup.named(_("Copy the %(name)s address"), "name")
    copy_words = row_markup.named(_("Copy %(what)s"), "what")
    delete_words = row_markup.named(_("Delete %(name)s"), "name")
    when = moments()
    cell = presenters.page_cells()
    cells: dict[int, str] = {}
    # Each address as what comes before and after the id.
    detail_url = escaped(presenters.url_pattern("deployments.detail", "deployment_id"))
    detail_before, detail_after = detail_url.split("{}")
    delete_url = escaped(presenters.url_pattern("deployments.confirm_delete", "deployment_id"))
    delete_before, delete_after = delete_url.split("{}")
    row_panels = [(p.row_template, values) for p, values in deployment_panels if p.row_template]
    site_names = _site_names()
    marks = marks or {}
    template_names: dict[tuple, str] = {}
    labels: dict[str, tuple[str, str]] = {}
    looks: dict[str, tuple[str, str, str, str]] = {}
    head, tail = row_markup.head, row_markup.tail
    pieces: list = []
    job_looks = _job_looks(deployments)
    for deployment in deployments:
        key = deployment.id
        status = deployment.status
        busy = key in in_progress
        mark = marks.get(key)
        template_key = (deployment.revision_id, deployment.template_name)
        template = template_names.get(template_key)
        if template is None:
            shown = words.said(deployment.shown_template_name) or deployment.template_slug
            template = template_names[template_key] = text(shown)
        if deployment.is_job:
            tone, meaning, label, shown_status = job_looks[key]
        else:
            found = looks.get(status)
            if found is None:
                found = looks[status] = _look(presenters.status_look(status), status)
            tone, meaning, label, shown_status = found
        reason = deployment.status_reason
        reason = words.said(reason) if reason and not busy else None
        uuid = deployment.uuid
        link = links.get(key)
        reach = []
        if link:
            href = escaped(link.text)
            reach.append(
                row_markup.link_part(
                    page, key, href, open_words(link.label), copy_link_words(link.label)
                )
            )
        skipped = link.name if link else ""
        number = 0
        for output in outputs.get(key, ()):
            if output.show not in ("copy", "ssh") or output.name == skipped:
                continue
            number += 1
            copied = "ssh " + output.text if output.show == "ssh" else output.text
            # Rows name the same few outputs: each label is worded once per page.
            named = output.label
            worded = labels.get(named)
            if worded is None:
                worded = labels[named] = (text(named), copy_words(named))
            reach.append(
                row_markup.copy_part(page, key, number, worded[0], escaped(copied), worded[1])
            )
            if number == COPIES_SHOWN:
                break
        if not reach:
            reach.append(nothing_busy if busy else nothing)
        # A charge's figures are read once per page (``page_cells``); the rows holding the same
        # charge hold the one value (``listed``), found again by its identity without reading
        # it (every value stays alive, in ``deployments``, while the page is drawn).
        charge = deployment.charge
        resources = cells.get(id(charge))
        if resources is None:
            resources = cells[id(charge)] = cell(charge)
        group = deployment.group_name
        site = deployment.site
        region = deployment.region
        pieces.append(
            head(
                page,
                id=key,
                status=shown_status,
                url=f"{detail_before}{key}{detail_after}",
                name=escaped(deployment.name or deployment.shown_template_name),
                mark=marked.get(mark, ""),
                template=template,
                uuid=row_markup.uuid_part(page, key, escaped(uuid), escaped(uuid[:8]))
                if uuid
                else "",
                owner=row_markup.owner_cell(page, escaped(owners.get(deployment.user_id, "—")))
                if owners is not None
                else "",
                tone=tone,
                meaning=meaning,
                spinner=row_markup.SPINNER if busy else "",
                label=label,
                reason=row_markup.reason_part(escaped(reason), escaped(_cut(reason)))
                if reason
                else "",
            )
        )
        for row_template, shown_values in row_panels:
            if key in shown_values:
                pieces.append((row_template, shown_values[key]))
        pieces.append(
            tail(
                page,
                group=escaped(group) if group else no_group,
                site=site_names(site) if site else no_site,
                region=" · " + escaped(region) if region else "",
                created=escaped(when(deployment.created_at)),
                resources=resources,
                access="".join(reach),
                delete=row_markup.delete_part(
                    page, key, f"{delete_before}{key}{delete_after}", delete_words(deployment.name)
                )
                if status not in _NOT_DELETABLE and mark != access.VIEWER
                else "",
            )
        )
    return row_markup.joined(pieces)


def list_context(viewer: User, filters: queries.Filters) -> dict:
    """Everything My deployments (the page, and its rows as polled) draws for ``viewer``."""
    size = current_app.config["DEPLOYMENTS_PAGE_SIZE"]
    listed = queries.list_page(viewer, filters, size, plain=True)
    outputs = presenters.shown_outputs(listed.deployments)
    for deployment in listed.deployments:
        if not statuses.reachable(deployment.status, deleted=deployment.deleted):
            outputs[deployment.id] = []
    in_progress = {d.id for d in listed.deployments if d.in_progress}
    viewer_id = viewer.id
    others = [d for d in listed.deployments if d.user_id != viewer_id]
    owners = None
    if listed.owners_shown:
        owners = queries.usernames({d.user_id for d in listed.deployments}, known=viewer)
    empty = not listed.deployments and not filters.narrowed
    links = {key: presenters.main_link(value) for key, value in outputs.items()}
    deployment_panels = panels.panels_for(listed.deployments)
    marks = access.marks(viewer, others)
    return {
        "had_some": empty and queries.has_past_deployments(viewer, filters),
        "filters": filters,
        "listed": listed,
        "row_pieces": rows_for(
            listed.deployments, outputs, links, in_progress, deployment_panels, marks, owners
        ),
        "polling": bool(in_progress),
        "poll_seconds": current_app.config["DEPLOYMENTS_POLL_SECONDS"],
        "status_groups": queries.STATUS_GROUPS,
    }
