"""The capacity page, for operators: every known site, what it had free per GPU model, which
source told it, how old that is, and the last refresh's failure; then each configured source
with its last usable read and its last failure (also one that never gave a usable answer).
It reads the snapshot only: no source is called while the page loads."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, render_template

from app.auth.roles import role_required
from app.capacity import refresh, snapshot
from app.capacity.sites import all_sites
from app.capacity.verdicts import source_text
from app.clock import utcnow

bp = Blueprint("capacity", __name__, url_prefix="/capacity")


@dataclass(frozen=True)
class SiteRow:
    """One row of the page: a site, and what was last read of it (None: nothing yet)."""

    name: str
    backend: str
    placement: str
    free: snapshot.SiteFree | None
    stale: bool


@bp.get("/")
@role_required("operator")
def index():
    now = utcnow()
    read = {free.site: free for free in snapshot.current()}
    rows = [
        SiteRow(
            site.name,
            site.backend,
            site.placement,
            read.get(site.name),
            site.name in read and snapshot.is_stale(read[site.name], now),
        )
        for site in all_sites()
    ]
    return render_template(
        "capacity/index.html",
        rows=rows,
        sources=refresh.source_overview(),
        source_text=source_text,
        now=now,
    )
