"""The Infrastructure Manager (IM 2.0) as a backend: its REST client (``client``), its states
(``states``), why its infrastructures failed (``reasons``) and its refusals (``answers``) in
sentences for people, the template it is sent (``template``), deletes one at a time
(``deletes``), which templates it can take (``compatibility``) and the backend itself
(``backend``).

IM's words (its states, its contextualisation log, its auth lines) stay inside this package.
IM is GPL-3.0: the portal talks to it over HTTP only and never imports it.
"""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from app.backends.base import N_, Words

__all__ = ["WORDS", "im_backend", "make_backend", "placement_problem", "template_problem"]

# Its words are known without loading the rest of the package (a page naming it loads no client).
WORDS = Words(
    label=_l("Infrastructure Manager"),
    asked_from=_l("From the Infrastructure Manager"),
    slow_to_answer=_l("Loaded when you ask; the Infrastructure Manager may take a few seconds."),
    heard_from=_l("Last heard from the Infrastructure Manager"),
    said=_l("What the Infrastructure Manager said"),
    places_it=_l("The Infrastructure Manager deploys it on the clouds this portal is set up for."),
    places_it_unless_chosen=_l(
        "Unless you choose a site above, the Infrastructure Manager deploys it on the clouds this "
        "portal is set up for."
    ),
    placement=_l("The id of the site's cloud line in IM_CLOUDS, such as recas."),
    unconfirmed_launch=_l(
        "The Infrastructure Manager did not confirm the launch of %(name)s in time. It may have "
        "started anyway: the portal is checking and will not submit it twice, so there is no "
        "need to launch again."
    ),
    pending_launch=_l(
        "Your earlier launch \u201c%(name)s\u201d with the same settings is still being "
        "confirmed with the Infrastructure Manager; launching again could create it twice. "
        "Follow it in My deployments; it is settled within a few minutes."
    ),
    named=N_("the Infrastructure Manager"),
    # IM reads every template with tosca-parser and refuses it on any finding.
    refuses_findings=N_(
        "%(finding)s The Infrastructure Manager runs this same check (tosca-parser) on the "
        "template and refuses it on this finding, so it cannot be launched there."
    ),
)


def template_problem(node_types: tuple[str, ...]) -> str | None:
    """Why IM cannot take a template of ``node_types``; None when it can."""
    from app.backends.im.compatibility import template_problem as problem

    return problem(node_types)


def im_backend(*, access_token: str | None = None):
    """The IM backend of the current app (see ``backend.im_backend``)."""
    from app.backends.im.backend import im_backend as made

    return made(access_token=access_token)


def make_backend(caller, token_provider, timeout=None):
    """IM acting for ``caller`` with their own access token (people who log in through an
    identity provider), or for the portal's service identity (IM_USERNAME and IM_PASSWORD)
    when ``caller`` is None or logged in locally or through LDAP. ``timeout`` is IM_TIMEOUT's
    business: IM's calls have their own."""
    from app.auth import oidc

    if caller is not None and oidc.find_provider(caller.provider) is not None:
        return im_backend(access_token=token_provider())
    return im_backend()


def placement_problem(placement: str) -> str | None:
    """Why IM could never deploy at cloud ``placement``: no line of IM_CLOUDS has that id (IM
    would hold such a launch pending for ever). None when one has, or while IM_CLOUDS names
    no cloud at all (a site may be recorded before IM is set up)."""
    from flask import current_app

    from app.backends.im.backend import cloud_lines
    from app.backends.im.client import cloud_id_of

    clouds = [cloud_id_of(line) for line in cloud_lines(current_app.config.get("IM_CLOUDS"))]
    clouds = [cloud for cloud in clouds if cloud]
    if not clouds or placement in clouds:
        return None
    return _(
        "IM_CLOUDS sets up no cloud with the id “%(placement)s”, so the Infrastructure Manager "
        "could never deploy there. Give the id of one of its cloud lines: %(clouds)s.",
        placement=placement,
        clouds=", ".join(clouds),
    )


def configured() -> bool:
    """Whether this portal is set up to deploy through IM (IM_URL is set)."""
    from flask import current_app

    return bool(current_app.config.get("IM_URL"))


def free_capacity(placement: str, url: str | None = None) -> dict:
    """What cloud line ``placement`` has left under its quotas (see ``capacity``)."""
    from app.backends.im.capacity import free_capacity as read

    return read(placement, url)


def capabilities():
    from app.backends.im.backend import ImBackend

    return ImBackend.capabilities


def check() -> tuple[bool, str, str]:
    """Whether the configured IM answers the portal's service identity: (answers, who, what
    it said). Raises ValueError when IM is not configured."""
    from flask import current_app

    from app.backends.base import BackendError

    who = f"service identity {current_app.config.get('IM_USERNAME') or '(no IM_USERNAME)'}"
    with im_backend() as backend:
        try:
            version = backend.client.version()
            count = len(backend.client.list_ids())
        except BackendError as error:
            return False, who, error.message
    return True, who, f"IM {version}; {count} infrastructures held by this identity"
