"""The launch is tested against the same portal and orchestrator emulator as the deployments:
their fixtures, shared (a conftest's fixtures reach only the folder below it)."""

from tests.deployments.conftest import (  # noqa: F401  (fixtures, found by name)
    app,
    cheap_password_hashing,
    closed_port_url,
    emulated,
    emulated_settings,
    faults,
    launch_as,
    make_deployment,
    no_orchestrator,
)
