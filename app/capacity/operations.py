"""Adding, changing and removing the sites the portal knows. Each verb commits, or raises
InvalidSite with a sentence saying what to change and leaves everything as it was."""

from __future__ import annotations

import re

from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.backends import registry
from app.capacity.models import Site
from app.errors import NotFound, PortalError
from app.extensions import db
from app.text import one_line_problem

# Names people read and type: letters, digits and a few separators, as sites are usually
# written (RECAS-BARI, CNAF.INFN, cloud_veneto).
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$")


class InvalidSite(PortalError):
    """A site that cannot be recorded as given."""


def _check(name: str, backend: str, placement: str, *, except_id: int | None = None) -> None:
    if not name:
        raise InvalidSite(_("Give the site a name, such as RECAS-BARI."), field="name")
    if not _NAME.match(name):
        raise InvalidSite(
            _(
                "“%(name)s” cannot name a site: use up to 100 letters, digits, spaces, dots, "
                "hyphens or underscores, starting with a letter or digit.",
                name=name,
            ),
            field="name",
        )
    if not backend:
        raise InvalidSite(
            _(
                "Choose the backend that reaches the site: %(names)s.",
                names=", ".join(registry.NAMES),
            ),
            field="backend",
        )
    if not registry.known(backend):
        raise InvalidSite(
            _(
                "No backend is called “%(backend)s”; the backends are %(names)s.",
                backend=backend,
                names=", ".join(registry.NAMES),
            ),
            field="backend",
        )
    if not placement and registry.kind(backend).capabilities().site_needs_placement:
        raise InvalidSite(
            _(
                "Give a placement: %(backend)s reaches a site only through it.",
                backend=registry.label(backend),
            ),
            field="placement",
        )
    problem = one_line_problem(placement, _("The placement"))
    if problem:
        raise InvalidSite(problem, field="placement")
    if len(placement) > 255:
        raise InvalidSite(_("The placement is longer than 255 characters."), field="placement")
    problem = registry.kind(backend).placement_problem(placement) if placement else None
    if problem:
        raise InvalidSite(problem, field="placement")
    taken = db.session.scalar(select(Site).where(Site.name == name))
    if taken is not None and taken.id != except_id:
        raise _taken(name)


def _taken(name: str) -> InvalidSite:
    return InvalidSite(_("A site is already called “%(name)s”.", name=name), field="name")


def _commit(name: str) -> None:
    # Two operators saving the same name at once: the second meets the unique index.
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise _taken(name) from None


def find_site(name: str) -> Site:
    """The site called ``name``. Raises NotFound."""
    site = db.session.scalar(select(Site).where(Site.name == name))
    if site is None:
        raise NotFound(_("No site is called “%(name)s”.", name=name))
    return site


def add_site(name: str, backend: str, placement: str = "") -> Site:
    """Record a new site. Raises InvalidSite."""
    name, placement = (name or "").strip(), (placement or "").strip()
    _check(name, backend, placement)
    site = Site(name=name, backend=backend, placement=placement)
    db.session.add(site)
    _commit(name)
    return site


def edit_site(
    name: str,
    *,
    new_name: str | None = None,
    backend: str | None = None,
    placement: str | None = None,
) -> Site:
    """Change what is given of the site called ``name``. Raises NotFound, InvalidSite."""
    site = find_site(name)
    values = (
        (new_name if new_name is not None else site.name).strip(),
        backend if backend is not None else site.backend,
        (placement if placement is not None else site.placement).strip(),
    )
    _check(*values, except_id=site.id)
    site.name, site.backend, site.placement = values
    _commit(site.name)
    return site


def remove_site(name: str) -> None:
    """Forget the site called ``name`` and what it had free. Deployments that went there
    keep the site they recorded. Raises NotFound."""
    db.session.delete(find_site(name))
    db.session.commit()
