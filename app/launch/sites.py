"""Where a launch may go: the sites that reach its template's backend, each with its verdict for
the request (``app.capacity.verdicts``), and the person's choice of one of them.

The choice is checked here and only here (``chosen_site``), for the form, the API and the
launch itself; it is stored with the request (``request_options``: the site's name, and the
placement its backend sends) and the backend turns it into its own words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask_babel import gettext as _

from app.backends import registry
from app.capacity import snapshot
from app.capacity.models import Site
from app.capacity.sites import all_sites
from app.capacity.verdicts import SiteVerdict, Summary, Verdict, combined, site_verdicts
from app.catalogue.loader import Entry
from app.clock import utcnow
from app.deployments.errors import LaunchError


class SiteRefused(LaunchError):
    """The site picked for a launch cannot be used; nothing was launched."""

    status_code = 400


@dataclass
class SiteOffer:
    """What the form and the dry run show of the sites: ``summary`` (the verdicts and the one
    combined with the quota), ``choosable`` (the backend can be told where to deploy), the
    ``chosen`` site's name (None: left to the portal)."""

    summary: Summary
    choosable: bool
    chosen: str | None = None
    sites: list[SiteVerdict] = field(default_factory=list)

    def offered(self, verdict: SiteVerdict) -> bool:
        """Whether ``verdict``'s site can be picked: it fits or may fit, or it is the one
        already picked (a choice is never dropped behind the person's back)."""
        return self.choosable and (verdict.offered or verdict.site == self.chosen)


def backend_sites(backend: str) -> list[Site]:
    return [site for site in all_sites() if site.backend == backend]


def can_choose(entry: Entry) -> bool:
    """Whether a launch of ``entry`` may name its site (its backend can place)."""
    return registry.kind(entry.serving_backend).capabilities().site_choice


def chosen_site(entry: Entry, name: str | None) -> Site | None:
    """The site named ``name`` for a launch of ``entry``, or None when it is left to the portal.

    Raises SiteRefused, a LaunchError (on the field "site"), when no site has that name, when
    the site is reached through another backend, or when this template's backend cannot be
    told where to deploy. A site with no room is still a valid choice here (a launch is held
    only when no known site has room: ``constraints.room``).
    """
    name = (name or "").strip()
    if not name:
        return None
    site = next((s for s in all_sites() if s.name == name), None)
    if site is None:
        raise SiteRefused(
            _("There is no site named \u201c%(site)s\u201d; nothing was launched.", site=name),
            "site",
        )
    if site.backend != entry.serving_backend:
        raise SiteRefused(
            _(
                "Site %(site)s is not reached by the service that runs this application "
                "(%(backend)s); choose another site or leave the choice to the portal. Nothing "
                "was launched.",
                site=site.name,
                backend=registry.label(entry.serving_backend),
            ),
            "site",
        )
    if not can_choose(entry):
        raise SiteRefused(
            _(
                "The service that runs this application (%(backend)s) chooses the site itself; "
                "leave the site out. Nothing was launched.",
                backend=registry.label(entry.serving_backend),
            ),
            "site",
        )
    return site


def placement_options(site: Site | None) -> dict:
    """What a launch stores of its chosen site with its request options."""
    if site is None:
        return {}
    return {"site": site.name, "placement": site.placement or site.name}


def site_offer(
    entry: Entry, charge: dict, quota_fits: bool, chosen: str | None = None
) -> SiteOffer | None:
    """The sites of ``entry``'s backend with their verdicts for ``charge`` and one verdict
    with the quota's; None when no site of that backend has been read yet."""
    # The snapshots first: where no site has been read at all, the sites need no reading.
    frees = snapshot.current()
    names = {site.name for site in backend_sites(entry.serving_backend)} if frees else set()
    frees = [free for free in frees if free.site in names]
    if not frees:
        return None
    verdicts = site_verdicts(charge, frees, utcnow())
    choosable = can_choose(entry)
    picked = chosen if choosable and chosen in names else None
    return SiteOffer(combined(quota_fits, verdicts, picked), choosable, picked, verdicts)


def verdict_data(verdict: SiteVerdict) -> dict:
    """One site's verdict as data (the API's dry run and ``rcp``)."""
    return {
        "site": verdict.site,
        "verdict": str(verdict.verdict),
        "binding": verdict.binding_text() or None,
        "age_seconds": round(verdict.age_seconds),
        "source": verdict.source,
        "read_at": verdict.read_at,
    }


__all__ = ["SiteOffer", "Verdict", "chosen_site", "placement_options", "site_offer"]
