"""INFN's Federation Registry (``/api/v1/``), read with the portal's service identity.

The registry holds, per project (one group's share of a provider), its quotas in pairs per
service (``usage: false`` the limit, ``usage: true`` what is used; ``per_user`` marks limits
per person, which say nothing of the site's room and are left out), its provider (``name``,
``status`` active / maintenance / removed / limited) and its flavours (``gpus``,
``gpu_model``). ``GET /api/v1/projects?with_conn=true`` gives all of it in one answer.

What a site has free is what its projects have left under their limits, added up. The
registry's main branch has no GPU quota; where a compute quota carries ``gpus`` (the
Kubernetes branch), the GPUs left are counted under the flavours' one GPU model when the
project's flavours name exactly one, else under the unknown model. The numbers are as fresh
as the registry's feeder's last run.

Every provider comes in that one answer, so a failure is the whole read's (every site keeps
its numbers from before, marked): there is no request of one provider's that could fail
while the others' succeed, as there is for the Infrastructure Manager's clouds.
"""

from __future__ import annotations

from collections import defaultdict

from flask import current_app
from flask_babel import gettext as _

from app.capacity.gpu_names import portal_model
from app.capacity.sources.base import (
    SiteReading,
    Source,
    SourceRefused,
    SourceUnreadable,
    free,
    get_json,
)

PATH = "/api/v1/projects"
MIB_PER_GIB = 1024
# Provider statuses under which nothing new should be sent there.
_CLOSED = {"maintenance", "removed"}
_COMPUTE, _BLOCK = "compute", "block-storage"


class FederationRegistry(Source):
    kind = "fedreg"

    def read(self) -> list[SiteReading]:
        who = _("The Federation Registry")
        answer = get_json(
            self.settings.url + PATH,
            who=who,
            timeout=self.settings.timeout,
            params={"with_conn": "true"},
            token=_token(who),
        )
        if not isinstance(answer, list):
            raise SourceUnreadable(_("%(source)s's answer is not a list of projects.", source=who))
        return _readings([project for project in answer if isinstance(project, dict)])


def _token(who: str) -> str | None:
    """The portal's service identity's token (the one its backend gets); None when the portal
    has none, and the registry then shows its public subset, without numbers."""
    from app.auth.errors import TokenUnavailable
    from app.backends import registry
    from app.errors import ConfigurationError

    try:
        return registry.service_token()
    except TokenUnavailable as error:
        raise SourceRefused(
            _("%(source)s was not asked: %(reason)s", source=who, reason=error.message)
        ) from None
    except ConfigurationError as error:
        raise SourceRefused(
            _("%(source)s was not asked: %(reason)s", source=who, reason=str(error))
        ) from None


def _pairs(quotas: list[dict], kind: str) -> tuple[dict, dict]:
    """The project-wide limit and usage quotas of ``kind`` (per-person limits left out)."""
    limit, usage = {}, {}
    for quota in quotas:
        if not isinstance(quota, dict) or quota.get("type") != kind or quota.get("per_user"):
            continue
        (usage if quota.get("usage") else limit).update(quota)
    return limit, usage


def _left(limit: dict, usage: dict, key: str) -> float | None:
    return free(limit.get(key), usage.get(key, 0)) if key in limit else None


class _Site:
    def __init__(self):
        self.status = "active"
        self.numbers: dict[str, float | None] = {}
        self.gpus: dict[str, int] = defaultdict(int)
        self.gpus_known = False
        self.regions: set[str] = set()

    def add(self, key: str, value: float | None) -> None:
        # One project without a limit on a resource makes the site's room for it unknown.
        if key in self.numbers and self.numbers[key] is None:
            return
        self.numbers[key] = None if value is None else (self.numbers.get(key) or 0) + value


def _readings(projects: list[dict]) -> list[SiteReading]:
    sites: dict[str, _Site] = {}
    names = current_app.config.get("GPU_MODEL_NAMES") or {}
    for project in projects:
        provider = project.get("provider")
        if not isinstance(provider, dict) or not provider.get("name"):
            raise SourceUnreadable(_("The Federation Registry named a project without provider."))
        site = sites.setdefault(str(provider["name"]), _Site())
        if provider.get("status") in _CLOSED:
            site.status = provider["status"]
        quotas = project.get("quotas") or []
        compute, compute_used = _pairs(quotas, _COMPUTE)
        block, block_used = _pairs(quotas, _BLOCK)
        site.add("cores", _left(compute, compute_used, "cores"))
        site.add("instances", _left(compute, compute_used, "instances"))
        ram = _left(compute, compute_used, "ram")
        site.add("memory_gib", None if ram is None else ram / MIB_PER_GIB)
        site.add("disk_gib", _left(block, block_used, "gigabytes"))
        for quota in quotas:
            service = quota.get("service") if isinstance(quota, dict) else None
            for region in (service or {}).get("regions") or []:
                if isinstance(region, dict) and region.get("name"):
                    site.regions.add(str(region["name"]))
        gpus = _left(compute, compute_used, "gpus")
        if gpus is not None:
            site.gpus_known = True
            models = {
                portal_model(flavour.get("gpu_model"), names)
                for flavour in project.get("flavors") or []
                if isinstance(flavour, dict) and (flavour.get("gpus") or 0) > 0
            }
            site.gpus[models.pop() if len(models) == 1 else ""] += int(gpus)
    return [_reading(name, site) for name, site in sorted(sites.items())]


def _reading(name: str, site: _Site) -> SiteReading:
    numbers = site.numbers

    def whole(key):
        return None if numbers.get(key) is None else int(numbers[key])

    def gib(key):
        return None if numbers.get(key) is None else round(numbers[key], 2)

    return SiteReading(
        site=name,
        maintenance=site.status in _CLOSED,
        cores=whole("cores"),
        memory_gib=gib("memory_gib"),
        disk_gib=gib("disk_gib"),
        instances=whole("instances"),
        gpus={model: n for model, n in site.gpus.items() if n > 0},
        gpus_known=site.gpus_known,
        aliases=tuple(sorted(site.regions)),
    )
