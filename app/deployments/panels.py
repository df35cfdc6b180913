"""What other features show on the deployment pages, without this package knowing them.

A feature plugs a ``Panel`` into ``app.extension_points.DEPLOYMENT_PANELS`` at start-up: the
templates to include in a list row and on a deployment's page, and
``load(deployments) -> {deployment id: value}``, called once per page with the deployments
shown (one query, not one per row). Views pass them on as ``deployment_panels``; templates
include each panel's template with ``item`` set to the value for the deployment at hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.deployments.models import Deployment
from app.extension_points import DEPLOYMENT_PANELS


@dataclass(frozen=True)
class Panel:
    name: str
    load: Callable[[list[Deployment]], dict[int, object]]
    row_template: str | None = None
    detail_template: str | None = None


def panels_for(deployments: Iterable[Deployment]) -> list[tuple[Panel, dict[int, object]]]:
    """Each panel plugged in with its values for ``deployments``."""
    shown = list(deployments)
    return [(panel, panel.load(shown) if shown else {}) for panel in DEPLOYMENT_PANELS.each()]
