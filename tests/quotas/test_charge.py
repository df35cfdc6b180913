"""The charge stored on a deployment, as the launch computes it."""

from pathlib import Path

import yaml

from app.quotas.operations import charge_for

CATALOGUE = Path(__file__).parents[2] / "tosca-catalog"
GB = 10**9


def starter(slug: str) -> dict:
    return yaml.safe_load((CATALOGUE / f"{slug}.yaml").read_text(encoding="utf-8"))


def test_the_charge_of_a_gpu_notebook_names_its_gpu_model(quota_app):
    with quota_app.app_context():
        charged = charge_for(starter("jupyter-ml-gpu"), {"num_gpus": 2, "gpu_model": "A100"})
    assert charged == {
        "cores": 8.0,
        "memory": 32 * GB,
        "disk": 100 * GB,
        "gpus": 2,
        "gpu_models": {"A100": 2},
        "deployments": 1,
        "nodes": 1,
        "machines": [
            {
                "count": 1,
                "cores": 8.0,
                "memory": 32 * GB,
                "disk": 100 * GB,
                "gpus": 2,
                "gpu_model": "A100",
            }
        ],
        "summary": "1 × (8 cores, 32 GB, 2 A100 GPUs, 100 GB disk)",
        "uncounted": [],
    }


def test_a_charge_that_cannot_be_counted_says_why_and_never_raises(quota_app):
    with quota_app.app_context():
        charged = charge_for(["not", "tosca"], {})
    assert charged["uncounted"] == ["The template is not a TOSCA document."]
    assert charged["deployments"] == 1


def test_flavours_from_configuration_are_used_for_the_charge(make_app):
    app = make_app(QUOTA_FLAVOURS={"g4.xl": {"cores": 16, "memory": "64 GB", "gpus": 1}})
    template = {
        "topology_template": {
            "node_templates": {
                "vm": {
                    "type": "tosca.nodes.indigo.Compute",
                    "capabilities": {"host": {"properties": {"instance_type": "g4.xl"}}},
                }
            }
        }
    }
    with app.app_context():
        charged = charge_for(template, {})
    assert (charged["cores"], charged["memory"], charged["gpus"]) == (16, 64 * GB, 1)
    assert charged["uncounted"] == []


def flavoured_template(metadata: dict | None = None) -> dict:
    template = {
        "topology_template": {
            "node_templates": {
                "wn": {
                    "type": "tosca.nodes.indigo.Compute",
                    "capabilities": {
                        "host": {"properties": {"instance_type": "g5.large"}},
                        "scalable": {"properties": {"count": 2}},
                    },
                }
            }
        }
    }
    if metadata:
        template["metadata"] = metadata
    return template


def test_a_template_may_state_the_sizes_of_the_flavours_it_names(quota_app):
    stated = {"quota_flavours": "g5.large: 4 cores, 16 GB, 1 A10G GPU, 100 GB disk; x: 1 core"}
    with quota_app.app_context():
        charged = charge_for(flavoured_template(stated), {})
    assert (charged["cores"], charged["memory"], charged["disk"]) == (8, 32 * GB, 200 * GB)
    assert charged["gpu_models"] == {"A10G": 2}
    assert charged["uncounted"] == []


def test_the_sites_flavour_sizes_win_over_the_templates(make_app):
    app = make_app(QUOTA_FLAVOURS={"g5.large": {"cores": 8}})
    with app.app_context():
        charged = charge_for(flavoured_template({"quota_flavours": "g5.large: 4 cores"}), {})
    assert charged["cores"] == 16


def test_an_unreadable_flavour_statement_is_explained_with_the_unknown_flavour(quota_app):
    with quota_app.app_context():
        charged = charge_for(flavoured_template({"quota_flavours": "g5.large: lots"}), {})
    assert charged["uncounted"] == [
        "quota_flavours: “lots” of flavour 'g5.large' is not cores, GPUs or a size.",
        "node 'wn' cannot be counted: flavour 'g5.large' is unknown (the portal does not know "
        "its size).",
    ]
