"""Capacity: the sites the portal knows and what each has free, read by a worker pass from
the sources that tell it (a federation registry, the Infrastructure Manager's quotas, a
cluster's statistics) into one snapshot per site. Pages and the API read the snapshot
(``snapshot.current()``); nothing a person waits for ever calls a source."""


def init_capacity(app) -> None:
    """Start-up: register the tables, and let templates name a deployment's site as the
    portal knows it."""
    from app.capacity import models, sites  # noqa: F401  (registers the tables)

    app.add_template_global(sites.known_site, "known_site")
