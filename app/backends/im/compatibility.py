"""Which templates the Infrastructure Manager cannot deploy.

IM deploys machines, storage and networks at a cloud and configures them with the Ansible
recipes a node type's interfaces name. Some INDIGO node types have no recipe because the PaaS
Orchestrator itself carries them out: it submits Marathon apps and Chronos jobs to a Mesos
cluster's own API (the Docker runtime they are hosted on stands for that cluster), batch jobs to
QCG or the grid, creates Onedata spaces and Dynafed federations, and installs Helm charts
through its Kubernetes adapter. IM would deploy nothing for such a node, so a template holding
one is refused before anyone launches it.
"""

from __future__ import annotations

from flask_babel import gettext as _

# Node types only the orchestrator carries out; a type deriving from one is refused too (the
# catalogue passes every node's type with its ancestors).
ORCHESTRATOR_ONLY = (
    "tosca.nodes.indigo.Container.Application.Docker.Marathon",
    "tosca.nodes.indigo.Container.Application.Docker.Chronos",
    "tosca.nodes.indigo.Container.Runtime.Docker",
    "tosca.nodes.indigo.Batch.Job",
    "tosca.nodes.indigo.Qcg.Job",
    "tosca.nodes.indigo.Grid.Job",
    "tosca.nodes.indigo.OnedataSpace",
    "tosca.nodes.indigo.OnedataServiceSpace",
    "tosca.nodes.indigo.Dynafed",
    "tosca.nodes.indigo.Kubernetes.HelmChart",
)


def template_problem(node_types: tuple[str, ...]) -> str | None:
    """Why IM cannot deploy a template made of ``node_types`` (each node's type and the types
    it derives from), naming the types; None when it can."""
    found = [name for name in dict.fromkeys(node_types) if name in ORCHESTRATOR_ONLY]
    if not found:
        return None
    return _(
        "The Infrastructure Manager cannot deploy nodes of type %(types)s: only the PaaS "
        "Orchestrator runs them (Marathon and Chronos apps on Mesos, batch jobs, Onedata "
        "spaces, Helm charts). Keep this template on the PaaS Orchestrator.",
        types=", ".join(found),
    )
