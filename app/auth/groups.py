"""Group names: the one place that says how a group is written inside the portal.

Identity providers write the same group differently: Keycloak and INDIGO IAM as paths
("/physics/cms"), LDAP and local accounts as plain names ("physics"). The portal keeps one form,
the name without the slashes at either end ("physics/cms"), which is also what the orchestrator
expects as a deployment's group. Groups are put in this form when a login records them and
wherever people type one (group pickers, quota pages, the command line); everything else
compares names as stored.
"""

from collections.abc import Iterable


def normalise_group(name: object) -> str:
    """``name`` in the portal's form: surrounding spaces and slashes dropped ("" if nothing is
    left, which is no group)."""
    return str(name).strip().strip("/").strip()


def normalise_groups(names: Iterable[object] | None) -> list[str]:
    """The distinct group names of ``names`` in the portal's form, sorted, empty ones dropped."""
    return sorted({group for group in map(normalise_group, names or ()) if group})
