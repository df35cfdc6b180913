"""The sites the portal knows: listed, added, changed and removed by operators (``flask
sites``), and named where a deployment's site is shown."""

from __future__ import annotations

from flask import g
from sqlalchemy import select

from app.capacity.models import Site
from app.extensions import db


def all_sites() -> list[Site]:
    """Every known site, by name."""
    return list(db.session.scalars(select(Site).order_by(Site.name)))


def known_site(name: str | None) -> Site | None:
    """The known site a deployment's recorded site names (by its name, else its placement, else
    a recorded name ending in ``-<name>``: backends report sites with prefixes of their own,
    ``provider-RECAS-BARI``), or None. The sites are read once per request, however many rows
    a page shows."""
    if not name:
        return None
    known = g.get("capacity_sites")
    if known is None:
        sites = all_sites()
        # A name wins over a placement that happens to be spelt the same.
        known = {site.placement: site for site in sites if site.placement}
        known.update({site.name: site for site in sites})
        g.capacity_sites = known
    found = known.get(name)
    if found is None and "-" in name:
        for site_name, site in known.items():
            if name.casefold().endswith("-" + site_name.casefold()) and site.name == site_name:
                return site
    return found
