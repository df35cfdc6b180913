"""Launching a deployment's settings again: the catalogue entry of the revision it was launched
from, and a new request with its values (its generated secrets generated anew)."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import ngettext

from app.auth.models import User
from app.catalogue.loader import Entry
from app.catalogue.models import TemplateRevision
from app.deployments import identity
from app.deployments.errors import LaunchError
from app.deployments.models import Deployment
from app.deployments.secrets import secret_inputs
from app.extensions import db
from app.launch.request import LaunchRequest
from app.launch.workflow import launch
from app.tosca.parsed import ParsedTemplate


def entry_of(deployment: Deployment) -> Entry:
    """The catalogue entry of the revision ``deployment`` was launched from.

    Raises LaunchError when that revision no longer exists (or it was adopted).
    """
    revision = (
        db.session.get(TemplateRevision, deployment.revision_id)
        if deployment.revision_id is not None
        else None
    )
    if revision is None:
        raise LaunchError(
            _(
                "The application this deployment was launched from is no longer in the "
                "catalogue; launch it anew from the catalogue."
            )
        )
    return Entry(
        deployment.template_slug,
        revision.id,
        revision.number,
        ParsedTemplate.from_json(revision.parsed),
        revision.created_at,
    )


def relaunch(actor: User, deployment: Deployment, *, name: str | None = None) -> Deployment:
    """Launch ``deployment``'s template again with the same settings, for ``actor``.

    Generated secrets are generated anew. Raises LaunchError when a secret the user typed is
    required (the portal did not keep it: edit and relaunch instead), or as ``launch`` does.
    """
    entry = entry_of(deployment)
    typed = [
        spec.label or spec.name
        for spec in entry.parsed.inputs
        if spec.name in secret_inputs(entry.parsed)
        and not spec.generate
        and spec.required
        and not spec.has_default
    ]
    if typed:
        raise LaunchError(
            ngettext(
                "%(inputs)s was typed at launch and the portal does not keep it; use "
                "\u201cEdit and relaunch\u201d to type it again.",
                "%(inputs)s were typed at launch and the portal does not keep them; use "
                "\u201cEdit and relaunch\u201d to type them again.",
                len(typed),
                inputs=", ".join(typed),
            )
        )
    group = deployment.group_name if deployment.group_name in identity.groups_for(actor) else None
    # The same site as before, when one was picked (checked again: sites come and go).
    site = (deployment.request_options or {}).get("site")
    return launch(
        LaunchRequest(
            actor, entry, dict(deployment.parameters or {}), name=name, group=group, site=site
        )
    )
