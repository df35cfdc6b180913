"""A site known through cluster statistics is judged node by node: a machine runs on one node,
so free GPUs spread over several nodes do not make room for a machine needing them together,
and a cluster has no quota of machines. Sites known through quotas keep the rule of sums."""

from datetime import datetime, timedelta

import pytest

from app.capacity.placement import machines_of
from app.capacity.snapshot import NodeFree, SiteFree
from app.capacity.verdicts import GIB, Verdict, site_verdicts
from app.clock import use_clock
from app.quotas.operations import charge_for
from tests.quotas.test_charge import starter

NOW = datetime(2026, 11, 28, 12, 0, 0)


def node(cores=32, memory_gib=128.0, disk_gib=1000.0, **gpus) -> NodeFree:
    return NodeFree(cores=cores, memory_gib=memory_gib, disk_gib=disk_gib, gpus=gpus)


def cluster(*nodes: NodeFree, minutes_old=2, **values) -> SiteFree:
    gpus: dict[str, int] = {}
    for each in nodes:
        for model, n in each.gpus.items():
            gpus[model] = gpus.get(model, 0) + n
    numbers = dict(
        cores=sum(each.cores for each in nodes),
        memory_gib=sum(each.memory_gib for each in nodes),
        disk_gib=sum(each.disk_gib for each in nodes),
        instances=None,
        gpus=gpus,
        gpus_known=True,
        maintenance=False,
        problem=None,
        nodes=tuple(nodes),
    )
    numbers.update(values)
    return SiteFree(
        **{"site": "RECAS-BARI", "source": "cluster-stats", **numbers},
        read_at=NOW - timedelta(minutes=minutes_old),
    )


def machine(count=1, cores=8, memory=32, disk=100, gpus=1, gpu_model="A100") -> dict:
    return {
        "count": count,
        "cores": cores,
        "memory": memory * GIB,
        "disk": disk * GIB,
        "gpus": gpus,
        "gpu_model": gpu_model,
    }


def charge(*machines: dict) -> dict:
    """The quota charge of ``machines`` (its sums, and the machines themselves)."""
    total = {"cores": 0, "memory": 0, "disk": 0, "gpus": 0, "gpu_models": {}, "nodes": 0}
    for each in machines:
        count = each["count"]
        total["nodes"] += count
        for key in ("cores", "memory", "disk", "gpus"):
            total[key] += count * each[key]
        if each["gpus"]:
            models = total["gpu_models"]
            models[each["gpu_model"]] = models.get(each["gpu_model"], 0) + count * each["gpus"]
    return {**total, "deployments": 1, "machines": list(machines), "uncounted": []}


def verdict_of(request: dict, site: SiteFree):
    (found,) = site_verdicts(request, [site], NOW)
    return found


@pytest.fixture
def ctx(app):
    with app.test_request_context(), use_clock(lambda: NOW):
        yield


def test_one_a100_fits_a_cluster_with_a_node_that_has_one(ctx):
    found = verdict_of(charge(machine()), cluster(node(A100=3), node(T4=2)))
    assert found.verdict is Verdict.FITS
    assert found.binding_text() == ""


def test_two_gpus_free_on_two_nodes_do_not_make_room_for_a_two_gpu_machine(ctx):
    found = verdict_of(charge(machine(gpus=2)), cluster(node(A100=1), node(A100=1)))
    assert found.verdict is Verdict.DOES_NOT_FIT
    assert found.binding_text() == (
        "needs 2 A100 GPUs on one node; the most free on one node at RECAS-BARI is 1"
    )


def test_a_machine_larger_than_any_node_in_memory_is_named(ctx):
    found = verdict_of(
        charge(machine(memory=200, gpus=0)), cluster(node(memory_gib=150.0), node(memory_gib=150))
    )
    assert found.verdict is Verdict.DOES_NOT_FIT
    assert found.binding_text() == (
        "needs 200 GiB of memory on one node; the most free on one node at RECAS-BARI is 150 GiB"
    )


def test_a_model_no_node_has_free_says_none_on_any_node(ctx):
    site = cluster(node(T4=4), node(A100=0))
    found = verdict_of(charge(machine(gpus=1, gpu_model="H100")), site)
    # The sums already say it: the old sentence holds.
    assert found.binding_text() == "needs 1 H100 GPU, none free at RECAS-BARI"


def test_room_on_no_single_node_for_all_of_one_machine_is_said(ctx):
    # One node has the GPU, the other the cores: each resource is somewhere, not together.
    site = cluster(node(cores=2, A100=1), node(cores=32))
    found = verdict_of(charge(machine(cores=8, memory=16, disk=0)), site)
    assert found.verdict is Verdict.DOES_NOT_FIT
    assert found.binding_text() == (
        "needs 1 A100 GPU, 8 cores, 16 GiB of memory on one node; no node at RECAS-BARI "
        "has all of it free"
    )


def test_each_machine_of_a_request_needs_a_node_of_its_own_room(ctx):
    request = charge(machine(count=2, cores=8))
    assert verdict_of(request, cluster(node(cores=16, A100=2))).verdict is Verdict.FITS
    found = verdict_of(request, cluster(node(cores=16, A100=1), node(cores=4, A100=1)))
    assert found.verdict is Verdict.DOES_NOT_FIT
    assert found.binding_text() == (
        "needs a node with room for each of its 2 machines; RECAS-BARI has room for 1 of them"
    )


def test_the_largest_machine_is_placed_first(ctx):
    # A small machine placed first on the big node would leave the big machine nowhere.
    request = charge(machine(gpus=1, cores=2), machine(gpus=4, cores=16))
    site = cluster(node(cores=8, A100=1), node(cores=32, A100=4))
    assert verdict_of(request, site).verdict is Verdict.FITS


def test_stale_numbers_of_a_cluster_never_refuse(ctx, app):
    site = cluster(node(A100=1), node(A100=1), minutes_old=app.config["CAPACITY_STALE_MINUTES"] + 1)
    found = verdict_of(charge(machine(gpus=2)), site)
    assert found.verdict is Verdict.MAY_NOT_FIT
    assert found.binding_text().startswith("the numbers of RECAS-BARI are old; needs 2 A100 GPUs")


def test_a_site_known_through_quotas_keeps_the_rule_of_sums(ctx):
    quotas = cluster(node(A100=1), node(A100=1), nodes=None, instances=None, source="fedreg")
    found = verdict_of(charge(machine(gpus=2)), quotas)
    assert found.verdict is Verdict.MAY_NOT_FIT
    assert found.binding_text() == "needs 1 machine, RECAS-BARI does not say how many are free"
    with_machines = cluster(node(A100=1), node(A100=1), nodes=None, instances=4)
    assert verdict_of(charge(machine(gpus=2)), with_machines).verdict is Verdict.FITS


def test_a_charge_stored_before_machines_were_kept_is_split_evenly(ctx):
    old = charge(machine(count=2, cores=8, gpus=1))
    del old["machines"]
    assert len(machines_of(old)) == 2
    assert verdict_of(old, cluster(node(cores=16, A100=2))).verdict is Verdict.FITS
    found = verdict_of(old, cluster(node(cores=8, A100=1), node(cores=8, T4=1)))
    assert found.verdict is Verdict.DOES_NOT_FIT


def test_the_gpu_notebooks_charge_carries_its_machine(app):
    with app.app_context():
        charged = charge_for(starter("jupyter-ml-gpu"), {"num_gpus": 2, "gpu_model": "A100"})
    (one,) = machines_of(charged)
    assert (one.gpus, one.gpu_model, one.cores) == (2, "A100", 8.0)


def test_the_node_sentence_speaks_italian(app):
    with app.test_request_context(headers={"Accept-Language": "it"}), use_clock(lambda: NOW):
        found = verdict_of(charge(machine(gpus=2)), cluster(node(A100=1), node(A100=1)))
        text = found.binding_text()
    assert text == (
        "richiede 2 GPU A100 su un solo nodo; disponibilità massima su un nodo a RECAS-BARI: 1"
    )
