"""GPU models as sources report them become the names quotas and templates use, by one rule."""

import pytest

from app.capacity.gpu_names import by_portal_model, portal_model

# Names as devices and labels report them: nvidia-smi, Nomad's device names, Kubernetes'
# nvidia.com/gpu.product labels, PAPI's statistics, public cluster inventories.
CORPUS = [
    ("NVIDIA A100-PCIE-40GB", "A100"),
    ("NVIDIA A100-SXM4-80GB", "A100"),
    ("NVIDIA A100 80GB PCIe", "A100"),
    ("NVIDIA-A100-SXM4-40GB", "A100"),
    ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "A100"),
    ("Tesla T4", "T4"),
    ("Tesla V100-PCIE-32GB", "V100"),
    ("Tesla V100-SXM2-16GB", "V100"),
    ("Tesla P100-PCIE-16GB", "P100"),
    ("Tesla K80", "K80"),
    ("NVIDIA H100 80GB HBM3", "H100"),
    ("NVIDIA H100 PCIe", "H100"),
    ("NVIDIA L40S", "L40S"),
    ("NVIDIA L4", "L4"),
    ("NVIDIA A30", "A30"),
    ("NVIDIA RTX A6000", "A6000"),
    ("NVIDIA GeForce RTX 3090", "RTX 3090"),
    ("NVIDIA GH200 480GB", "GH200"),
    ("Quadro RTX 6000", "RTX 6000"),
    ("A100", "A100"),
    ("t4", "T4"),
]


@pytest.mark.parametrize(("reported", "portal"), CORPUS)
def test_a_reported_gpu_model_becomes_the_portals_name(reported, portal):
    assert portal_model(reported) == portal


def test_the_setting_names_what_the_rule_cannot_guess_whatever_the_case():
    names = {"NVIDIA GeForce GTX 1080 Ti": "GTX 1080 Ti"}
    assert portal_model("nvidia geforce gtx 1080 ti ", names) == "GTX 1080 Ti"
    assert portal_model("NVIDIA GeForce GTX 1080 Ti") == "GTX 1080"


def test_a_name_without_a_model_number_is_kept_and_an_empty_one_is_the_unknown_model():
    assert portal_model("Mystery Accelerator") == "Mystery Accelerator"
    assert portal_model("") == ""
    assert portal_model(None) == ""


def test_two_reported_names_of_one_model_are_added_up():
    counts = {"NVIDIA A100-PCIE-40GB": 2, "NVIDIA A100-SXM4-80GB": 3, "Tesla T4": 1}
    assert by_portal_model(counts) == {"A100": 5, "T4": 1}
