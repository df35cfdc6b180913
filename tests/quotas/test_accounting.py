"""What a launch asks for, read from the template and its input values before it is sent."""

import pytest
import yaml

from app.quotas.accounting import (
    AccountingError,
    NodeResources,
    Resources,
    format_size,
    parse_size,
    requested_resources,
)
from tests.quotas.accounting_support import (
    CATALOGUE,
    GB,
    MB,
    GiB,
    compute,
    starter,
    topology,
    totals,
)

# --- the starter templates -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("slug", "expected"),
    [
        ("vm", (1, 2, 0, 4 * GB, 20 * GB)),
        ("jupyter-vm", (1, 2, 0, 8 * GB, 50 * GB)),
        ("jupyter-ml-gpu", (1, 8, 1, 32 * GB, 100 * GB)),
        # master 2/4 GB, 2 workers of 4/8 GB/1 GPU, load balancer 2/2 GB
        ("mesos-cluster", (4, 12, 2, 22 * GB, 0)),
        # control plane 2/4 GB, 2 CPU workers of 4/8 GB, 1 GPU worker of 8/32 GB/1 GPU
        ("kubernetes-cluster", (4, 18, 1, 52 * GB, 0)),
        ("marathon-gpu-container", (1, 2, 1, 8 * GB, 0)),
        ("chronos-gpu-job", (1, 4, 1, 16 * GB, 0)),
    ],
)
def test_a_starter_template_with_its_defaults_asks_for_the_expected_totals(slug, expected):
    assert totals(requested_resources(starter(slug), {})) == expected


def test_a_virtual_machine_with_chosen_sizes_asks_for_exactly_those():
    parameters = {"num_cpus": 8, "mem_size": "32 GB", "disk_size": "100 GB"}
    assert totals(requested_resources(starter("vm"), parameters)) == (1, 8, 0, 32 * GB, 100 * GB)


def test_a_kubernetes_cluster_multiplies_each_worker_pool_by_its_size():
    parameters = {
        "num_cpu_workers": 3,
        "cpu_worker_num_cpus": 8,
        "cpu_worker_mem_size": "16 GB",
        "num_gpu_workers": 4,
        "gpu_worker_num_cpus": 16,
        "gpu_worker_mem_size": "64 GB",
        "gpu_worker_num_gpus": 2,
    }
    resources = requested_resources(starter("kubernetes-cluster"), parameters)
    assert totals(resources) == (8, 2 + 24 + 64, 8, (4 + 48 + 256) * GB, 0)
    assert (
        resources.summary
        == "1 × (2 cores, 4 GB) + 3 × (8 cores, 16 GB) + 4 × (16 cores, 64 GB, 2 GPUs)"
    )


def test_a_kubernetes_cluster_without_gpu_workers_leaves_them_out_of_the_breakdown():
    resources = requested_resources(starter("kubernetes-cluster"), {"num_gpu_workers": 0})
    assert resources.gpus == 0
    assert [node.name for node in resources.breakdown] == ["k8s_master", "cpu_worker_server"]


def test_a_mesos_cluster_counts_gpus_per_worker_times_workers():
    parameters = {"num_workers": 5, "worker_num_gpus": 2, "worker_mem_size": "16 GB"}
    resources = requested_resources(starter("mesos-cluster"), parameters)
    assert totals(resources) == (7, 2 + 20 + 2, 10, (4 + 80 + 2) * GB, 0)
    assert resources.breakdown[1] == NodeResources(
        "worker_server", count=5, cpus=4, gpus=2, memory=16 * GB, gpu_model=None
    )


def test_gpus_reserved_for_a_marathon_container_are_counted():
    parameters = {"num_gpus": 3, "num_cpus": 0.5, "mem_size": "2 GiB"}
    resources = requested_resources(starter("marathon-gpu-container"), parameters)
    assert totals(resources) == (1, 0.5, 3, 2 * GiB, 0)
    assert resources.summary == "1 × (0.5 cores, 2 GiB, 3 GPUs)"


def test_a_chronos_job_counts_its_runtime_and_not_the_job_on_top_of_it():
    resources = requested_resources(starter("chronos-gpu-job"), {"num_gpus": 4})
    assert [node.name for node in resources.breakdown] == ["docker_runtime"]
    assert resources.gpus == 4


@pytest.mark.parametrize("slug", ["vm", "jupyter-ml-gpu", "mesos-cluster", "kubernetes-cluster"])
def test_every_preset_of_a_starter_template_can_be_counted(slug):
    sidecar = yaml.safe_load((CATALOGUE / f"{slug}.portal.yaml").read_text(encoding="utf-8"))
    for preset in sidecar["presets"]:
        assert requested_resources(starter(slug), preset["values"]).nodes >= 1


def test_the_launch_page_summary_reads_count_times_node_size():
    resources = requested_resources(starter("jupyter-ml-gpu"), {"num_gpus": 2})
    assert resources.summary == "1 × (8 cores, 32 GB, 2 T4 GPUs, 100 GB disk)"
    assert resources.gpu_models == {"T4": 2}


# --- get_input --------------------------------------------------------------------------------


def test_a_missing_parameter_takes_the_input_default():
    template = topology(
        {"vm": compute({"num_cpus": {"get_input": "cpus"}})},
        {"cpus": {"type": "integer", "default": 4}},
    )
    assert requested_resources(template, {}).cpus == 4
    assert requested_resources(template, {"cpus": None}).cpus == 4
    assert requested_resources(template, {"cpus": 16}).cpus == 16


def test_numbers_submitted_as_text_are_read_as_numbers():
    template = topology(
        {"vm": compute({"num_cpus": {"get_input": "cpus"}}, count={"get_input": "n"})},
        {"cpus": {"type": "integer"}, "n": {"type": "integer"}},
    )
    assert totals(requested_resources(template, {"cpus": "4", "n": " 3 "})) == (3, 12, 0, 0, 0)


def test_get_input_can_reach_inside_a_list_or_map_input():
    host = {"num_cpus": {"get_input": ["sizes", 1]}, "mem_size": {"get_input": ["mem", "big"]}}
    template = topology(
        {"vm": compute(host)},
        {
            "sizes": {"type": "list", "default": [1, 8]},
            "mem": {"type": "map", "default": {"small": "2 GB", "big": "16 GB"}},
        },
    )
    resources = requested_resources(template, {})
    assert (resources.cpus, resources.memory) == (8, 16 * GB)


def test_get_input_nested_in_a_list_property_is_resolved_without_disturbing_the_count():
    node = compute({"num_cpus": 2, "publish_ports": [{"source": {"get_input": "port"}}]})
    template = topology({"vm": node}, {"port": {"type": "integer", "default": 8888}})
    assert requested_resources(template, {}).cpus == 2


def test_get_input_of_an_undeclared_input_is_an_accounting_error():
    template = topology({"vm": compute({"num_cpus": {"get_input": "nowhere"}})})
    with pytest.raises(AccountingError, match="undeclared input 'nowhere'"):
        requested_resources(template, {})


def test_a_required_size_input_left_empty_is_an_accounting_error():
    template = topology(
        {"vm": compute({"num_cpus": {"get_input": "cpus"}})}, {"cpus": {"type": "integer"}}
    )
    with pytest.raises(AccountingError, match="required input 'cpus' has no value"):
        requested_resources(template, {})


def test_an_optional_size_input_left_empty_counts_as_nothing():
    template = topology(
        {"vm": compute({"num_cpus": 2, "num_gpus": {"get_input": "gpus"}})},
        {"gpus": {"type": "integer", "required": False}},
    )
    assert requested_resources(template, {}).gpus == 0


def test_an_unrelated_required_input_left_empty_does_no_harm():
    template = topology(
        {"vm": compute({"num_cpus": 2})}, {"password": {"type": "string", "required": True}}
    )
    assert requested_resources(template, {}).cpus == 2


def test_a_size_known_only_after_deployment_is_an_accounting_error():
    node = compute({"num_cpus": {"get_attribute": ["other", "num_cpus"]}})
    with pytest.raises(AccountingError, match="get_attribute is only known once deployed"):
        requested_resources(topology({"vm": node}), {})


# --- counts and types -------------------------------------------------------------------------


def test_a_node_without_a_scalable_capability_counts_once():
    resources = requested_resources(topology({"vm": compute({"num_cpus": 2})}), {})
    assert resources.breakdown == (NodeResources("vm", count=1, cpus=2),)


def test_the_scalable_count_multiplies_the_node():
    template = topology({"wn": compute({"num_cpus": 4, "num_gpus": 1}, count=3)})
    assert totals(requested_resources(template, {})) == (3, 12, 3, 0, 0)


@pytest.mark.parametrize("count", [-1, 1.5, "three", True])
def test_a_count_that_is_not_a_whole_number_of_zero_or_more_is_an_accounting_error(count):
    with pytest.raises(AccountingError, match="count"):
        requested_resources(topology({"wn": compute({"num_cpus": 4}, count=count)}), {})


def test_software_hosted_on_a_machine_adds_nothing_to_it():
    template = topology(
        {
            "server": compute({"num_cpus": 4, "mem_size": "8 GB"}),
            "hub": {"type": "tosca.nodes.indigo.JupyterHub", "requirements": [{"host": "server"}]},
        }
    )
    assert totals(requested_resources(template, {})) == (1, 4, 0, 8 * GB, 0)


def test_a_node_of_an_unknown_type_that_states_host_sizes_is_counted():
    template = topology({"thing": compute({"num_cpus": 64}, node_type="example.nodes.Unknown")})
    assert requested_resources(template, {}).cpus == 64


def test_an_unknown_node_type_without_host_sizes_contributes_nothing():
    template = topology({"thing": {"type": "example.nodes.Unknown", "properties": {"x": 1}}})
    assert requested_resources(template, {}) == Resources()


def test_a_type_the_template_derives_from_compute_is_counted():
    template = topology(
        {"vm": compute({"num_cpus": 2}, node_type="example.nodes.BigVM")},
        node_types={
            "example.nodes.BigVM": {"derived_from": "example.nodes.VM"},
            "example.nodes.VM": {"derived_from": "tosca.nodes.indigo.Compute"},
        },
    )
    assert requested_resources(template, {}).cpus == 2


def test_a_qcg_job_counts_its_cores_and_gpus_once():
    job = {
        "type": "tosca.nodes.indigo.Qcg.Job",
        "properties": {"executable": "run.sh", "total_nodes": 2, "cores_per_node": 8, "gpus": 2},
    }
    assert totals(requested_resources(topology({"job": job}), {})) == (1, 16, 2, 0, 0)


def test_a_template_that_is_not_a_mapping_is_an_accounting_error():
    with pytest.raises(AccountingError, match="not a TOSCA document"):
        requested_resources(["not", "tosca"], {})  # type: ignore[arg-type]


def test_an_empty_topology_asks_for_nothing():
    assert requested_resources({"topology_template": {}}, {}) == Resources()


# --- units ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("8 GB", 8 * GB),
        ("8 GiB", 8 * GiB),
        ("8gib", 8 * GiB),
        ("4096 MB", 4096 * MB),
        ("4096 MiB", 4 * GiB),
        ("1.5 GB", 1_500_000_000),
        ("1 TB", 1000 * GB),
        ("512 kB", 512_000),
        (1024, 1024),
        ("1024", 1024),
    ],
)
def test_sizes_follow_tosca_units_with_gb_decimal_and_gib_binary(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["eight GB", "8 parsecs", "-1 GB", "", True, None, [8]])
def test_an_unreadable_size_is_an_accounting_error(text):
    with pytest.raises(AccountingError, match="mem_size"):
        parse_size(text, "mem_size")


def test_an_unreadable_memory_size_names_the_node_and_property():
    template = topology({"vm": compute({"num_cpus": 1, "mem_size": "lots"})})
    with pytest.raises(AccountingError, match="node 'vm': mem_size"):
        requested_resources(template, {})


def test_memory_in_different_units_adds_up_in_bytes():
    template = topology(
        {"a": compute({"mem_size": "1 GiB"}), "b": compute({"mem_size": "512 MiB"}, count=2)}
    )
    assert requested_resources(template, {}).memory == 2 * GiB


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (8 * GB, "8 GB"),
        (2 * GiB, "2 GiB"),
        (1000 * GB, "1 TB"),
        (1_500_000_000, "1.5 GB"),
        (4096 * MB, "4.1 GB"),
        (512 * MB, "512 MB"),
    ],
)
def test_sizes_are_shown_in_the_unit_they_were_most_likely_written_in(size, text):
    assert format_size(size) == text
