"""The sites the portal knows: listed, added, changed and removed by operators (``flask
sites``), and named where a deployment's site is shown."""

from __future__ import annotations

from flask import g
from sqlalchemy import Row, select

from app.capacity.models import Site
from app.extensions import db


def all_sites() -> list[Site]:
    """Every known site, by name."""
    return list(db.session.scalars(select(Site).order_by(Site.name)))


# What naming a deployment's site needs of the sites, read from the table as plain rows (no
# Site objects to build and track): a list page asks at every request. Built once; it holds
# no value.
_TABLE = Site.__table__
_NAMES = select(_TABLE.c.name, _TABLE.c.placement).order_by(_TABLE.c.name)


def known_site(name: str | None) -> Row | None:
    """The known site a deployment's recorded site names (by its name, else its placement, else
    a recorded name ending in ``-<name>``: backends report sites with prefixes of their own,
    ``provider-RECAS-BARI``), as its ``name`` and ``placement``, or None. The sites are read
    once per request, however many rows a page shows."""
    if not name:
        return None
    known = g.get("capacity_sites")
    if known is None:
        sites = db.session.execute(_NAMES).all()
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
