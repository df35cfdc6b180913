"""Every public INDIGO template either gets a usable form or a precise, located refusal.

The templates live in tests/data/tosca-compat (see its README for where they come from). Each is
parsed once per session. A template is *usable* when it has no errors, its form validates with
the defaults (plus a sample value for required inputs without one) and ``check_parameters``
accepts what the form produces. The others must be listed in ``EXPECTED_REPORTS`` with the start
of their first error, so a regression in either direction fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.catalogue.forms import build_form_class, check_parameters
from app.tosca.parsed import parse_template
from tests.catalogue.conftest import TYPES_DIR, form_data

COMPAT = Path(__file__).parents[1] / "data" / "tosca-compat"
FILES = sorted(
    [
        *COMPAT.glob("indigo-tosca-templates/**/*.y*ml"),
        *COMPAT.glob("indigo-tosca-types/examples/*.y*ml"),
    ]
)

TYPES, DODAS = "indigo-tosca-types/examples/", "indigo-tosca-templates/dodas/"
NOT_A_TYPE = 'Type check: Type "tosca.nodes.indigo.{}" is not a valid type.'
UNKNOWN = 'Type check: "properties" of template "{}" contains unknown field "{}".'

# The templates the orchestrator would certainly refuse, and why (the start of their first error).
EXPECTED_REPORTS: dict[str, str] = {}

# Launchable templates whose type check finds something, and the located warning it reports:
# the orchestrator, not the local type copies, decides whether they deploy.
EXPECTED_WARNINGS = {
    # Node types of the dodas_roll branch that neither local types version defines.
    DODAS + "AMS_cluster.yaml": NOT_A_TYPE.format("AmsCondorMasterConfig"),
    DODAS + "CMS-XCache-k8s.yaml": NOT_A_TYPE.format("XCache"),
    DODAS + "htcondor_cluster.yaml": NOT_A_TYPE.format("HTCondorServices"),
    # Properties that the types dropped or never had.
    DODAS + "CMS-HTCondor-AWS.yaml": UNKNOWN.format("cms_wn", "cms_xrd_readserver"),
    "indigo-tosca-templates/lifewatch-algaebloom.yaml": (
        'Type check: Node template "docker_runtime" contains unknown field "scalable".'
    ),
    TYPES + "node_with_availability_zone.yaml": UNKNOWN.format(
        "deploy_on_cloudid", "availability_zone"
    ),
    # "ports" given twice in one mapping: the orchestrator keeps the later one, so the first
    # port is lost; a named leniency, on the later key's line.
    TYPES + "hadoop_cluster.yaml": "A key given twice in one mapping (duplicate-key)",
    # A string input whose default is the boolean true: a named leniency.
    "indigo-tosca-templates/deep-oc/deep-oc-mods_mesos-gpu.yml": "A number or yes/no where text",
}

SAMPLES = {
    "string": "example",
    "password": "Sample-passw0rd",
    "integer": 1,
    "float": 1.0,
    "boolean": True,
    "version": "1.0",
    "timestamp": "2025-01-01T00:00:00Z",
    "scalar-unit": None,
    "list": ["example"],
    "map": {"key": "value"},
    "ports": {},
}


def _key(path: Path) -> str:
    return path.relative_to(COMPAT).as_posix()


@pytest.fixture(scope="session")
def parsed_compat():
    """Parse each file at most once per session."""
    cache: dict[Path, object] = {}

    def get(path: Path):
        if path not in cache:
            cache[path] = parse_template(
                path.stem, path.read_text(encoding="utf-8"), types_dir=TYPES_DIR
            )
        return cache[path]

    return get


def _sample(input_field):
    choices = input_field.choices()
    if choices:
        return input_field.coerce(choices[0])
    if input_field.kind == "scalar-unit":
        return {"scalar-unit.size": "1 GB", "scalar-unit.time": "1 m"}.get(
            input_field.spec.type, "1 GHz"
        )
    return SAMPLES.get(input_field.kind, "example")


def test_the_compat_set_is_present_and_complete():
    # The INDIGO types files themselves are not vendored: tosca-catalog/types holds the copies.
    assert len(FILES) == 106
    missing = {*EXPECTED_REPORTS, *EXPECTED_WARNINGS} - {_key(path) for path in FILES}
    assert not missing, f"expected reports for files that no longer exist: {missing}"


@pytest.mark.parametrize("path", FILES, ids=_key)
def test_each_template_gets_a_usable_form_or_a_precise_report(path, parsed_compat, form_app):
    parsed = parsed_compat(path)
    expected = EXPECTED_REPORTS.get(_key(path))
    if expected is not None:
        assert parsed.errors, f"{_key(path)} now validates: remove it from EXPECTED_REPORTS"
        assert parsed.errors[0].message.startswith(expected)
        assert parsed.errors[0].line is not None
        return
    assert parsed.errors == [], f"{_key(path)}: {[str(p) for p in parsed.errors]}"
    warning = EXPECTED_WARNINGS.get(_key(path))
    if warning is not None:
        located = [w for w in parsed.warnings if w.message.startswith(warning)]
        assert located and located[0].line is not None, [str(w) for w in parsed.warnings]
    form_class = build_form_class(parsed)
    values = {}
    for name, input_field in form_class.input_fields.items():
        if input_field.spec.has_default:
            values[name] = input_field.coerce(input_field.spec.default)
        elif input_field.required:
            values[name] = _sample(input_field)
    with form_app.test_request_context(method="POST", data=form_data(form_class, values)):
        form = form_class()
        assert form.validate(), form.errors
        parameters = form.to_parameters()
    assert check_parameters(parsed, parameters) == parameters
