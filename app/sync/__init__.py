"""Keeping the deployments' record in step with the backends, without anyone waiting: the
sync duty's listing (``listing``) and polling (``polling``), their pass (``passes``), the
orchestrator's callback (``callbacks``) and ``flask deployments sync`` (``cli``). It reads and
writes the record of ``app/deployments/``, a floor below (``app.deployments.tracking``), asks
the backends what it follows through ``asking``, in the identities ``identities`` names."""


def init_sync(app) -> None:
    """Start-up: declare the sync duty (``flask worker``, ``flask deployments sync --loop``)."""
    from app.extension_points import BACKGROUND_DUTIES
    from app.sync.passes import sync_once
    from app.worker import Duty

    BACKGROUND_DUTIES.add(
        app,
        Duty(
            "sync",
            sync_once,
            every="DEPLOYMENTS_SYNC_TICK_SECONDS",
            # Beyond it, the deployments claimed first would be free for others again.
            budget=lambda config: config["DEPLOYMENTS_SYNC_LEASE_SECONDS"],
            claims="identities whose listing is due, moved on to their next listing; then "
            "deployments due for a check, each claimed for DEPLOYMENTS_SYNC_LEASE_SECONDS",
        ),
    )
