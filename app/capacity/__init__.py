"""Capacity: the sites the portal knows and what each has free, read by a worker pass from
the sources that tell it (a federation registry, the Infrastructure Manager's quotas, a
cluster's statistics) into one snapshot per site. Pages and the API read the snapshot
(``snapshot.current()``); nothing a person waits for ever calls a source."""


def init_capacity(app) -> None:
    """Start-up: check the capacity settings, register the tables and the sites' pages, have
    declare the refresh duty, and let templates name a deployment's site as the
    portal knows it.
    Raises ConfigurationError when CAPACITY_SOURCES or GPU_MODEL_NAMES cannot be used."""
    # models: the tables; site_views: the sites' pages, on the capacity blueprint.
    from app.capacity import models, refresh, site_views, sites  # noqa: F401
    from app.capacity.sources import configured
    from app.errors import ConfigurationError
    from app.extension_points import BACKGROUND_DUTIES
    from app.worker import Duty

    configured(app.config.get("CAPACITY_SOURCES"))
    names = app.config.get("GPU_MODEL_NAMES")
    if not isinstance(names, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in names.items()
    ):
        raise ConfigurationError(
            'GPU_MODEL_NAMES must be a JSON object of names, e.g. {"NVIDIA RTX A6000": "A6000"}.'
        )
    BACKGROUND_DUTIES.add(
        app,
        Duty(
            "capacity",
            refresh.refresh_due,
            every="DEPLOYMENTS_SYNC_TICK_SECONDS",
            # A pass longer than that reads again what it read first.
            budget=lambda config: config["CAPACITY_REFRESH_SECONDS"],
            claims="sources due for a read, each moved on to its next read",
        ),
    )
    app.add_template_global(sites.known_site, "known_site")
