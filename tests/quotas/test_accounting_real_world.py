"""What public templates nobody here wrote ask for, and volumes, flavours and GPU models."""

from pathlib import Path

import pytest
import yaml

from app.quotas.accounting import (
    AccountingError,
    count_resources,
    parse_size,
    requested_resources,
)
from tests.quotas.accounting_support import (
    COMPAT,
    GB,
    MB,
    GiB,
    compute,
    topology,
    totals,
)

# --- templates nobody on this project wrote ---------------------------------------------------


def _compat_templates() -> list[Path]:
    found = [*COMPAT.rglob("*.yaml"), *COMPAT.rglob("*.yml")]
    return sorted(p for p in found if p.name != "custom_types.yaml")


@pytest.mark.parametrize("path", _compat_templates(), ids=lambda p: str(p.relative_to(COMPAT)))
def test_a_public_indigo_template_is_counted_or_explained(path):
    template = yaml.safe_load(path.read_text(encoding="utf-8"))
    resources = count_resources(template, {})
    assert all(reason.strip() for reason in resources.uncounted)
    # The totals are exactly the breakdown's sums; volumes (disk alone) are not instances.
    parts = resources.breakdown
    machines = [n for n in parts if n.cpus or n.memory or n.gpus or not n.disk]
    assert resources.nodes == sum(n.count for n in machines)
    assert resources.cpus == pytest.approx(sum(n.cpus * n.count for n in parts))
    assert resources.memory == sum(n.memory * n.count for n in parts)
    assert resources.disk == sum(n.disk * n.count for n in parts)
    assert resources.gpus == sum(n.gpus * n.count for n in parts)
    assert resources.gpus == sum(resources.gpu_models.values())


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        # master 4/8, lb 2/4, 500 GB spool volume on a 4/8 node, 8/16 and 2/4 nodes
        ("indigo-tosca-templates/dodas/htcondor_cluster.yaml", (5, 20, 0, 40 * GB, 500 * GB)),
        # a web VM (1 GB) and a database VM (4 GB, 10 GB root disk) with a 1 GB volume
        ("indigo-tosca-types/examples/web_mysql_tosca.yaml", (2, 2, 0, 5 * GB, 11 * GB)),
        ("indigo-tosca-templates/deep-oc/deep-oc-mods_mesos-gpu.yml", (1, 1, 1, 4096 * MB, 0)),
        ("indigo-tosca-templates/deep_qcg_job.yaml", (1, 2, 0, 0, 0)),
        ("indigo-tosca-templates/mesos_cluster.yaml", (4, 6, 0, 8 * GB, 0)),
    ],
)
def test_public_templates_cost_what_a_person_reading_them_would_count(relative, expected):
    template = yaml.safe_load((COMPAT / relative).read_text(encoding="utf-8"))
    assert totals(requested_resources(template, {})) == expected


def test_a_public_template_sized_by_a_flavour_is_explained_until_the_flavour_is_described():
    path = COMPAT / "indigo-tosca-types/examples/tensorflow_on_mesos_gpu.yaml"
    template = yaml.safe_load(path.read_text(encoding="utf-8"))
    unknown = count_resources(template, {})
    assert unknown.uncounted == (
        "node 'mesos_slave_server' is sized by the flavour 'g5.large', whose size the portal "
        "does not know, so its cost cannot be computed.",
    )
    flavours = {"g5.large": {"cores": 4, "memory": "16 GB", "gpus": 1, "gpu_model": "A10G"}}
    known = count_resources(template, {}, flavours)
    assert known.uncounted == ()
    assert known.gpu_models == {"A10G": 1}
    assert known.cpus == unknown.cpus + 4


# --- volumes, flavours and GPU models ---------------------------------------------------------


def storage(size) -> dict:
    return {"type": "tosca.nodes.BlockStorage", "properties": {"size": size}}


def attached(node: dict, volume: str) -> dict:
    return {**node, "requirements": [{"local_storage": {"node": volume, "relationship": "x"}}]}


def test_a_vm_with_a_20_gb_volume_is_charged_20_gb_of_disk():
    template = topology(
        {"vm": attached(compute({"num_cpus": 2}), "data"), "data": storage("20 GB")}
    )
    resources = requested_resources(template, {})
    assert totals(resources) == (1, 2, 0, 0, 20 * GB)
    assert resources.summary == "1 × (2 cores) + 1 × (20 GB disk)"


def test_a_volume_attached_to_a_scaled_node_is_counted_once_per_instance():
    template = topology(
        {
            "wn": attached(compute({"num_cpus": 1, "disk_size": "10 GB"}, count=3), "scratch"),
            "scratch": storage({"get_input": "scratch_size"}),
        },
        {"scratch_size": {"type": "scalar-unit.size", "default": "100 GiB"}},
    )
    assert requested_resources(template, {}).disk == 3 * 10 * GB + 3 * 100 * GiB
    assert requested_resources(template, {"scratch_size": "1 TB"}).disk == 30 * GB + 3000 * GB


def test_an_indigo_block_storage_type_without_local_types_is_counted_by_its_name():
    volume = {"type": "tosca.nodes.indigo.BlockStorage", "properties": {"size": "5 GB"}}
    assert requested_resources(topology({"v": volume}), {}).disk == 5 * GB


def test_a_flavour_named_in_configuration_sizes_the_node_times_its_count():
    node = compute({"instance_type": {"get_input": "flavour"}}, count=2)
    template = topology({"vm": node}, {"flavour": {"type": "string", "default": "m1.large"}})
    flavours = {"m1.large": {"cores": 4, "memory": "8 GB", "disk": "80 GB"}}
    assert totals(requested_resources(template, {}, flavours)) == (2, 8, 0, 16 * GB, 160 * GB)


def test_an_unknown_flavour_leaves_the_node_uncounted_and_the_rest_counted():
    template = topology({"a": compute({"instance_type": "x1.huge"}), "b": compute({"num_cpus": 2})})
    resources = count_resources(template, {})
    assert resources.cpus == 2
    assert "flavour 'x1.huge'" in resources.uncounted[0]
    with pytest.raises(AccountingError, match="cost cannot be computed"):
        requested_resources(template, {})


def test_gpus_are_split_by_model_and_any_means_no_particular_model():
    template = topology(
        {
            "a": compute({"num_gpus": 2, "gpu_model": "A100"}, count=2),
            "b": compute({"num_gpus": 1, "gpu_model": "any"}),
            "c": compute({"num_gpus": 0, "gpu_model": "T4"}),
        }
    )
    resources = requested_resources(template, {})
    assert resources.gpus == 5
    assert resources.gpu_models == {"A100": 4, "any model": 1}


# --- one size reading for forms and accounting ------------------------------------------------


@pytest.mark.parametrize("text", ["4 GB", "4gib", "1.5 TB", "512 MiB", "2 KB", "0.5 GiB"])
def test_the_launch_form_and_accounting_read_a_size_the_same_way(text):
    from app.tosca.inputs.scalars import ScalarUnitInput
    from app.tosca.parsed import InputSpec

    spec = InputSpec(name="mem_size", type="scalar-unit.size")
    submitted = ScalarUnitInput(spec).coerce(text)
    assert parse_size(submitted) == parse_size(text)
