"""Form fields for template inputs: one class per TOSCA input type, and the registry that picks
one for an input.

``field_for(spec)`` chooses by TOSCA type (``FIELD_TYPES``), with these refinements:

- string inputs with ``widget: password`` or named like *password*/*secret*/*token* are
  ``PasswordInput``; string inputs named like *ssh*key* are ``SshKeyInput`` (unless their
  default is not an SSH key); names ending in _path, _url, _name... are plain strings;
- lists and maps whose entries are port specifications, and a single port specification,
  are ``PortsInput``;
- ``tosca.datatypes.Credential`` and data types named ``...Credential...`` are ``CredentialInput``;
- any other type (custom data types) gets ``JsonInput``: a JSON text area whose value must parse,
  reported through ``unsupported_reason`` so the catalogue lists the input as unsupported.
"""

from __future__ import annotations

from app.tosca.inputs.base import REQUIRED_MESSAGE, InputField, ToscaValue, WidgetError
from app.tosca.inputs.ports import PORT_TYPES, PortsInput, check_port_spec
from app.tosca.inputs.scalars import (
    SCALAR_FIELDS,
    BooleanInput,
    FloatInput,
    IntegerInput,
    ScalarUnitInput,
    StringInput,
    TimestampInput,
    VersionInput,
)
from app.tosca.inputs.schedule import ScheduleInput
from app.tosca.inputs.secrets import (
    NOT_A_SECRET,
    PASSWORD_NAME,
    SSH_KEY_NAME,
    CredentialInput,
    PasswordInput,
    SshKeyInput,
    check_ssh_public_key,
    generate_password,
)
from app.tosca.inputs.structured import JsonInput, ListInput, MapInput

# Kinds whose values the portal never stores (for pre-filling or with a deployment): a password
# in the database would outlive its use.
SECRET_KINDS = frozenset({"password", "credential"})


def is_secret(spec) -> bool:
    """Whether an input (a ``parsed.InputSpec`` whose ``kind`` is set) holds a secret: the one
    rule every feature asks (pre-filling, deployment records, pages)."""
    return spec.kind in SECRET_KINDS


FIELD_TYPES: dict[str, type[InputField]] = {
    **SCALAR_FIELDS,
    "list": ListInput,
    "map": MapInput,
    "tosca.datatypes.Credential": CredentialInput,
    **{port_type: PortsInput for port_type in PORT_TYPES},
}


def _default_is_ssh_key(spec) -> bool:
    if not spec.has_default:
        return True
    try:
        check_ssh_public_key(str(spec.default))
    except ValueError:
        return False  # the default shows the input holds something else
    return True


def field_class_for(spec) -> type[InputField]:
    """The field class for an input definition (a ``parsed.InputSpec``)."""
    if spec.type == "string":
        if spec.widget == "schedule":
            return ScheduleInput
        if spec.widget == "password":
            return PasswordInput
        if spec.widget not in (None, "text", "textarea") or NOT_A_SECRET.search(spec.name):
            return StringInput
        if PASSWORD_NAME.search(spec.name):
            return PasswordInput
        if SSH_KEY_NAME.search(spec.name) and _default_is_ssh_key(spec):
            return SshKeyInput
        return StringInput
    if spec.type in ("list", "map"):
        schema = spec.entry_schema if isinstance(spec.entry_schema, dict) else {}
        if schema.get("type") in PORT_TYPES:
            return PortsInput
    if spec.type in FIELD_TYPES:
        return FIELD_TYPES[spec.type]
    if "credential" in spec.type.rsplit(".", 1)[-1].lower():
        return CredentialInput
    return JsonInput


def field_for(spec) -> InputField:
    """Build the field for an input definition.

    Raises ``constraints.ConstraintError`` for malformed constraints and ``WidgetError`` for a
    widget the type can't use.
    """
    return field_class_for(spec)(spec)


__all__ = [
    "FIELD_TYPES",
    "REQUIRED_MESSAGE",
    "BooleanInput",
    "CredentialInput",
    "FloatInput",
    "InputField",
    "IntegerInput",
    "JsonInput",
    "ListInput",
    "MapInput",
    "PasswordInput",
    "PortsInput",
    "ScalarUnitInput",
    "ScheduleInput",
    "SshKeyInput",
    "StringInput",
    "TimestampInput",
    "ToscaValue",
    "VersionInput",
    "WidgetError",
    "check_port_spec",
    "check_ssh_public_key",
    "SECRET_KINDS",
    "field_class_for",
    "field_for",
    "generate_password",
    "is_secret",
]
