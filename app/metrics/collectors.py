"""Figures read from the database at each scrape: deployments by status and template, how far
the sync worker is behind, and what each group pool holds against its limits.

Each is one cheap query on an index (the pools: one per group holding or limited), so a scrape
every 15–60 s costs the database little. A collector that fails is reported as down
(``portal_metrics_collector_up``) and the others are still served, so that a database hiccup
does not hide the request figures the same scrape carries.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from app.capacity import snapshot
from app.clock import utcnow
from app.deployments.models import Deployment, DeploymentListing
from app.extensions import db
from app.published import published
from app.quotas.budgets import group_budget_use
from app.quotas.holding import holding_clause
from app.quotas.limits import combine, rows_for
from app.quotas.models import GROUP, LIMIT_KEYS, QuotaLimit
from app.quotas.usage import usage_of

log = logging.getLogger(__name__)


class DatabaseCollector(Collector):
    """Reads the database when scraped; use it inside an app context (the /metrics view)."""

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily(
            "portal_metrics_collector_up",
            "Whether each of the database collectors could read its figures in this scrape.",
            labels=["collector"],
        )
        sections: dict[str, Callable[[], list[Metric]]] = {
            "deployments": deployments_by_status,
            "sync_lag": sync_lag,
            "quota": group_quotas,
            "capacity": site_capacity,
            "budget": group_budgets,
        }
        for name, section in sections.items():
            try:
                families = section()
            except SQLAlchemyError:
                log.exception("Metrics collector %s could not read the database", name)
                db.session.rollback()
                up.add_metric([name], 0)
                continue
            up.add_metric([name], 1)
            yield from families
        yield up


def deployments_by_status() -> list[Metric]:
    """Deployments not deleted, by status and template (from ix_deployments_status_template)."""
    family = GaugeMetricFamily(
        "portal_deployments",
        "Deployments the portal knows and that are not deleted, by status and template.",
        labels=["status", "template"],
    )
    rows = db.session.execute(
        select(Deployment.status, Deployment.template_slug, func.count())
        .where(Deployment.deleted.is_(False))
        .group_by(Deployment.status, Deployment.template_slug)
    )
    for status, template, count in rows:
        family.add_metric([published(status) or "", template or ""], count)
    return [family]


def sync_lag() -> list[Metric]:
    """How long the oldest check that is due has been waiting, for deployments and for
    listings; 0 when nothing is overdue. A lag that keeps growing means the sync worker is
    down or cannot keep up."""
    now = utcnow()
    # The first row in ix_deployments_next_check order: min() let the planner pick another
    # index and read every live row.
    oldest_check = db.session.scalar(
        select(Deployment.next_check_at)
        .where(
            Deployment.next_check_at <= now,
            Deployment.uuid.is_not(None),
            Deployment.deleted.is_(False),
        )
        .order_by(Deployment.next_check_at)
        .limit(1)
    )
    oldest_listing = db.session.scalar(
        select(func.min(DeploymentListing.next_at)).where(DeploymentListing.next_at <= now)
    )
    family = GaugeMetricFamily(
        "portal_sync_lag_seconds",
        "Age of the oldest due but not yet done check: a deployment's status, or an "
        "identity's listing.",
        labels=["queue"],
    )
    for queue, oldest in (("deployments", oldest_check), ("listings", oldest_listing)):
        family.add_metric([queue], (now - oldest).total_seconds() if oldest else 0.0)
    return [family]


def group_quotas() -> list[Metric]:
    """What each group pool holds, and its limits where they are finite. Groups only: the
    figures of single people are for the Quotas pages, not for a shared dashboard."""
    used = GaugeMetricFamily(
        "portal_quota_group_used",
        "Resources held by the deployments charged to a group (memory and disk in bytes); "
        "gpu_model is empty for all GPUs together.",
        labels=["group", "resource", "gpu_model"],
    )
    limit = GaugeMetricFamily(
        "portal_quota_group_limit",
        "A group pool's limit, where one is set (unlimited resources are left out).",
        labels=["group", "resource", "gpu_model"],
    )
    holding = select(Deployment.group_name).where(
        holding_clause(), Deployment.group_name.is_not(None)
    )
    limited = select(QuotaLimit.subject).where(QuotaLimit.scope == GROUP)
    groups = sorted(set(db.session.scalars(holding.distinct())) | set(db.session.scalars(limited)))
    stored = rows_for([(GROUP, name) for name in groups])
    for name in groups:
        limits = combine(stored.get((GROUP, name), {}), [], None)
        usage = usage_of(group_name=name, models=limits.gpu_models)
        for key in LIMIT_KEYS:
            used.add_metric([name, key, ""], usage.get(key))
            if limits.get(key) is not None:
                limit.add_metric([name, key, ""], limits.get(key))
        for model, value in limits.gpu_models.items():
            used.add_metric([name, "gpus", model], usage.gpu_models.get(model, 0))
            if value is not None:
                limit.add_metric([name, "gpus", model], value)
    return [used, limit]


def group_budgets() -> list[Metric]:
    """Each group budget and what is used of it in its current period (groups only)."""
    labels = ["group", "resource", "period"]
    budget = GaugeMetricFamily(
        "portal_budget_group_hours",
        "A group's budget per period: resource is cores, gpus (any model) or gpus:<model>; "
        "period is month (calendar, UTC) or <N>d (rolling).",
        labels=labels,
    )
    used = GaugeMetricFamily(
        "portal_budget_group_used_hours",
        "Hours used of a group's budget in its current period (more than the budget: overrun).",
        labels=labels,
    )
    for group, resource, period, hours, spent in group_budget_use():
        budget.add_metric([group, resource, period], hours)
        used.add_metric([group, resource, period], spent)
    return [budget, used]


def site_capacity() -> list[Metric]:
    """What each site had free when its source was last read, and how old that reading is
    (from the capacity snapshot: no source is called while scraping)."""
    gpus = GaugeMetricFamily(
        "portal_capacity_free_gpus",
        "GPUs free at a site when its source was last read, per GPU model as quotas name "
        "them (gpu_model empty: model unknown); sites whose source tells nothing of GPUs are "
        "left out.",
        labels=["site", "gpu_model"],
    )
    age = GaugeMetricFamily(
        "portal_capacity_age_seconds",
        "How old a site's capacity figures are, on the portal's clock.",
        labels=["site", "source"],
    )
    trouble = GaugeMetricFamily(
        "portal_capacity_problem",
        "1 when the last refresh of a site's source failed (its figures are older ones), or "
        "the source says the site is in maintenance; else 0.",
        labels=["site", "problem"],
    )
    now = utcnow()
    for free in snapshot.current():
        if free.gpus_known:
            for model, count in sorted(free.gpus.items()):
                gpus.add_metric([free.site, model], count)
        age.add_metric([free.site, free.source], snapshot.age_seconds(free, now))
        trouble.add_metric([free.site, "refresh_failed"], 1 if free.problem else 0)
        trouble.add_metric([free.site, "maintenance"], 1 if free.maintenance else 0)
    return [gpus, age, trouble]
