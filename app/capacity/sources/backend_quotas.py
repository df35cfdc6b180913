"""A backend's quotas of its own sites (the Infrastructure Manager's ``GET /clouds/<id>/quotas``):
live numbers, per site, asked of the backend (``Backend.quotas``), which reads them as the
portal's service identity. A source of this kind bears the backend's name.

Every known site of that backend is read at its placement (IM's cloud id), or only the one
the setting's ``site`` names, with one request per site. Each site answers for itself (IM
asks that cloud's own API), so one that fails, hangs or refuses is told as that site's
failure (``SiteReading.unread``): the others' fresh numbers are stored, and the failing site
keeps the numbers read before, marked with the failure, so that a half-read is never
mistaken for a whole one. When every site fails the read has failed. A backend's quotas do
not say which GPU model they count: those are the unknown model.
"""

from __future__ import annotations

from flask_babel import gettext as _

from app.backends import registry
from app.backends.base import BackendError, NotAllowed, Unavailable
from app.capacity.sources.base import (
    SiteReading,
    Source,
    SourceFailure,
    SourceRefused,
    SourceTimeout,
    SourceUnavailable,
    bounded,
    bounded_count,
    free,
)


class BackendQuotas(Source):
    """The quotas of the sites of the backend named by the setting's ``kind``."""

    @property
    def kind(self) -> str:
        return self.settings.kind

    def read(self) -> list[SiteReading]:
        from app.capacity.sites import all_sites

        wanted = self.settings.options.get("site")
        sites = [
            site
            for site in all_sites()
            if site.backend == self.kind and site.placement and (not wanted or site.name == wanted)
        ]
        return [self._reading(site.name, site.placement) for site in sites]

    def _reading(self, name: str, cloud: str) -> SiteReading:
        try:
            return self._read_one(name, cloud)
        except SourceFailure as failure:
            return SiteReading.unread(name, failure)

    def _read_one(self, name: str, cloud: str) -> SiteReading:
        backend = registry.kind(self.kind)
        who = str(backend.words.quotas_of) % {"site": name}
        try:
            quotas = backend.quotas(cloud, self.settings.url or None)
        except ValueError as error:
            raise SourceUnavailable(
                _("%(source)s cannot be read: %(reason)s", source=who, reason=str(error))
            ) from None
        except NotAllowed:
            raise SourceRefused(
                _("%(source)s: the portal's credentials were refused.", source=who)
            ) from None
        except Unavailable as error:
            if error.status_code:
                raise SourceUnavailable(
                    _("%(source)s answered HTTP %(status)d.", source=who, status=error.status_code)
                ) from None
            raise SourceTimeout(
                _("%(source)s: %(reason)s", source=who, reason=error.message)
            ) from None
        except BackendError as error:
            raise SourceUnavailable(
                _("%(source)s: %(reason)s", source=who, reason=error.message)
            ) from None
        # What is left under each limit: the capacity sources' one rule.
        numbers = {
            key: None if quota is None else free(quota.limit, quota.used)
            for key, quota in quotas.items()
        }
        gpus = numbers.get("gpus")

        def whole(key):
            return bounded_count(numbers.get(key))

        def gib(key):
            found = bounded(numbers.get(key))
            return None if found is None else round(found, 2)

        return SiteReading(
            site=name,
            cores=whole("cores"),
            memory_gib=gib("memory_gib"),
            disk_gib=gib("disk_gib"),
            instances=whole("instances"),
            gpus={"": bounded_count(gpus) or 0} if gpus else {},
            gpus_known=gpus is not None,
        )
