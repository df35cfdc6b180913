"""Who has access to a deployment, on its page: its owner shares it with people or groups,
changes their role, or stops sharing (forms that work without scripts and by keyboard)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required

from app.deployments import access, sharing
from app.deployments.access import Action
from app.deployments.models import DeploymentEvent
from app.errors import PortalError
from app.extension_points import EVENT_WORDS

bp = Blueprint("sharing", __name__, url_prefix="/deployments")

ROLE_WORDS = {access.VIEWER: _l("viewer"), access.CO_OWNER: _l("co-owner")}


def event_words(event: DeploymentEvent) -> tuple[str, str | None] | None:
    """The timeline's words for a share made, changed or ended, and for a co-owner's reveal."""
    details = event.details or {}
    name, group = details.get("name", ""), details.get("kind") == "group"
    role = str(ROLE_WORDS.get(details.get("role"), details.get("role")))
    if event.kind == sharing.SHARED and details.get("previous_role"):
        if group:
            return _("Group %(name)s is now %(role)s", name=name, role=role), None
        return _("%(name)s is now %(role)s", name=name, role=role), None
    if event.kind == sharing.SHARED:
        if group:
            return _("Shared with group %(name)s as %(role)s", name=name, role=role), None
        return _("Shared with %(name)s as %(role)s", name=name, role=role), None
    if event.kind == sharing.UNSHARED:
        if group:
            return _("No longer shared with group %(name)s", name=name), None
        return _("No longer shared with %(name)s", name=name), None
    if event.kind == "secrets-revealed":
        return _("Passwords and credentials revealed"), None
    return None


@bp.record_once
def _set_up(state) -> None:
    EVENT_WORDS.add(state.app, event_words)
    state.app.jinja_env.globals["access_words"] = access.ACCESS_WORDS
    state.app.jinja_env.globals["share_role_words"] = ROLE_WORDS


def _back(deployment_id: int):
    return redirect(url_for("deployments.detail", deployment_id=deployment_id) + "#access")


@bp.post("/<int:deployment_id>/shares")
@login_required
def share(deployment_id: int):
    """Share with a person or group, or change their role; only those who may change shares
    (its owner, operators, admins) reach it, everyone else is answered 404."""
    deployment = access.deployment_for(current_user, deployment_id, Action.SHARE)
    kind, name = request.form.get("kind", "user"), request.form.get("name", "")
    role = request.form.get("role", access.VIEWER)
    try:
        created, _shares = sharing.share(current_user, deployment, kind, name, role)
    except PortalError as error:
        flash(error.message, "danger")
        return _back(deployment_id)
    words = str(ROLE_WORDS[role])
    name = " ".join(name.split()).strip("/")
    if created:
        flash(_("Shared with %(name)s as %(role)s.", name=name, role=words), "success")
    else:
        flash(_("%(name)s is now %(role)s.", name=name, role=words), "success")
    return _back(deployment_id)


@bp.post("/<int:deployment_id>/shares/remove")
@login_required
def unshare(deployment_id: int):
    deployment = access.deployment_for(current_user, deployment_id, Action.SHARE)
    kind, name = request.form.get("kind", "user"), request.form.get("name", "")
    if sharing.unshare(current_user, deployment, kind, name)[0]:
        flash(_("No longer shared with %(name)s.", name=name), "success")
    else:
        flash(_("It was not shared with %(name)s.", name=name), "info")
    return _back(deployment_id)
