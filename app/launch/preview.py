"""The "what will be requested" box of the launch form: the cost of the values typed so far,
and whether it fits the person's quotas (priced and checked by ``app.quotas.preview``, told in
words by ``app.launch.fit_words``), with the tabs holding what does not fit."""

from flask import url_for
from flask_login import current_user
from markupsafe import Markup
from sqlalchemy import select

from app.caches import cached, remembering
from app.catalogue.forms import field_name, tab_layout
from app.catalogue.loader import Entry
from app.catalogue.models import TemplateRevision
from app.deployments.errors import LaunchError
from app.extensions import db
from app.launch import decision, fit_words, sites
from app.quotas.fit import misfit_sentence, yours_hold
from app.tosca.yamlsafe import Limits

# Loaded TOSCA documents kept per app, one per revision (revisions never change).
DOCUMENTS = 256


def template_document(revision_id: int) -> dict:
    """The loaded TOSCA of a revision. Raises TemplateError when it cannot be read."""
    return cached("launch_documents", DOCUMENTS, revision_id, lambda: _load(revision_id))


def _load(revision_id: int) -> dict:
    text = db.session.scalar(
        select(TemplateRevision.tosca_text).where(TemplateRevision.id == revision_id)
    )
    document, _lines = Limits().load(text)
    return document


def summary(
    entry: Entry,
    form,
    user=None,
    group_name: str | None = None,
    site: str | None = None,
    lease_minutes: int | None = None,
) -> dict:
    """What launching with the form's current values would cost ``user``, whether it fits
    their quota and what the launch would do (``app.launch.decision``), and at which sites
    (``sites``: a SiteOffer, or None when no site of the template's backend has been read;
    ``site`` the one picked), and against the budgets for a lease of ``lease_minutes`` (None:
    the policy's default).

    Values that are not valid yet count as the template's defaults, so the box stays useful
    while the user is still typing. Raises TemplateError when the template cannot be read.
    """
    # The box and "could it wait" ask the same quota and line checks: each is read once.
    with remembering():
        return _summary(entry, form, user, group_name, site, lease_minutes)


def _summary(entry: Entry, form, user, group_name, site, lease_minutes) -> dict:
    parameters = {}
    for name, input_field in form.input_fields.items():
        field = form[field_name(name)]
        if field.errors or input_field.is_empty(field.data):
            continue
        try:
            parameters[name] = input_field.to_tosca(field.data)
        except ValueError:
            continue
    user = user or current_user
    document = template_document(entry.revision_id)
    incomplete = any(f.errors for f in form)
    lease = {"template_slug": entry.slug, "lease_minutes": lease_minutes}
    try:
        box = decision.decide(
            user, document, parameters, group_name, incomplete=incomplete, **lease
        )
    except LaunchError:
        # Not one of the person's groups (the form says so beside the field): the box counts
        # the group the launch would charge without it.
        box = decision.decide(user, document, parameters, None, incomplete=incomplete, **lease)
    box["sites"] = sites.site_offer(entry, box["charge"], box["fits"], site)
    return with_words(box, tab_layout(entry.parsed))


def _holder_link(holder) -> Markup:
    """A deployment named in a misfit sentence, as a link to its page."""
    return Markup('<a href="{}">{}</a>').format(
        url_for("deployments.detail", deployment_id=holder.id), holder.name
    )


def with_words(box: dict, tabs: list) -> dict:
    """``box`` with what the page says of a misfit: one sentence per resource
    (``misfit_lines``, HTML), the form fields and tabs behind it (``misfit_fields``,
    ``misfit_tabs``: [(number, name)]), whether Launch is off (``blocked``: it does not fit,
    is ``kept`` for those waiting, or no site has room) and why (``reason``, empty when it is
    on). The launch page and its live box show the same."""
    fields = [field_name(name) for name in box["misfit_inputs"]]
    box["misfit_lines"] = [
        misfit_sentence(assessment, bar, link=_holder_link)
        for assessment in box["assessments"]
        for bar in assessment.misfits()
    ]
    box["misfit_fields"] = fields
    box["yours_hold"] = yours_hold(box["assessments"])
    # A form of one tab shows no tabs to name.
    shown_tabs = len(tabs) > 1 and not box["fits"]
    box["misfit_tabs"] = fit_words.misfit_tabs(tabs, fields) if shown_tabs else []
    box["blocked"] = bool(
        not box["fits"]
        or box["refusal"]
        or box.get("kept")
        or box.get("no_room")
        or box.get("over_budget")
    )
    box["reason"] = fit_words.launch_reason(box, box["misfit_tabs"]) if box["blocked"] else ""
    return box
