"""The Infrastructure Manager refuses, in words naming them, the node types only the PaaS
Orchestrator runs; the registry asks it through ``template_problem``."""

from app.backends import registry
from app.backends.im.compatibility import template_problem

COMPUTE = ("tosca.nodes.indigo.Compute", "tosca.nodes.Compute", "tosca.nodes.Root")
MARATHON = (
    "acme.nodes.Notebook",
    "tosca.nodes.indigo.Container.Application.Docker.Marathon",
    "tosca.nodes.indigo.Container.Application.Docker",
    "tosca.nodes.Container.Application.Docker",
    "tosca.nodes.Root",
)


def test_machines_clusters_and_jupyterhub_are_deployable():
    assert template_problem(COMPUTE) is None
    assert template_problem(("tosca.nodes.indigo.JupyterHub", *COMPUTE)) is None
    assert template_problem(("tosca.nodes.indigo.LRMS.FrontEnd.Kubernetes",)) is None
    assert template_problem(()) is None


def test_a_type_deriving_from_marathon_is_refused_naming_the_orchestrators_type():
    problem = template_problem(MARATHON)

    assert problem.startswith("The Infrastructure Manager cannot deploy nodes of type ")
    assert "tosca.nodes.indigo.Container.Application.Docker.Marathon" in problem


def test_each_orchestrator_only_type_is_named_once():
    problem = template_problem(
        (
            "tosca.nodes.indigo.Qcg.Job",
            "tosca.nodes.indigo.Batch.Job",
            "tosca.nodes.indigo.Container.Runtime.Docker",
            "tosca.nodes.indigo.Qcg.Job",
        )
    )

    assert problem.count("tosca.nodes.indigo.Qcg.Job") == 1
    assert "tosca.nodes.indigo.Batch.Job, tosca.nodes.indigo.Container.Runtime.Docker" in problem


def test_the_registry_asks_each_backend_by_name():
    assert registry.kind("im").template_problem(MARATHON)
    assert registry.kind("paas").template_problem(MARATHON) is None
