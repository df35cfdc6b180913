"""The entrances are walked on the portal and orchestrator emulator the deployments are tested
on: their fixtures, shared (a conftest's fixtures reach only the folder below it)."""

from tests.deployments.conftest import (  # noqa: F401  (fixtures, found by name)
    closed_port_url,
    emulated,
    emulated_settings,
)
