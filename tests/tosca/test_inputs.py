"""One field class per TOSCA input type: conversion, validation, hints and pre-filling."""

import base64
import re
import struct

import pytest
from wtforms import (
    BooleanField,
    FloatField,
    FormField,
    IntegerField,
    IntegerRangeField,
    PasswordField,
    RadioField,
    SelectField,
    StringField,
    TextAreaField,
)

from app.tosca.inputs import (
    BooleanInput,
    CredentialInput,
    FloatInput,
    IntegerInput,
    JsonInput,
    ListInput,
    MapInput,
    PasswordInput,
    PortsInput,
    ScalarUnitInput,
    SshKeyInput,
    StringInput,
    TimestampInput,
    VersionInput,
    WidgetError,
    check_ssh_public_key,
    field_class_for,
    field_for,
)


def choices(input_field) -> list[tuple]:
    return [(c.value, c.label) for c in input_field.field_options()["choices"]]


def ssh_key(key_type="ssh-ed25519", claimed=None) -> str:
    name = (claimed or key_type).encode()
    blob = struct.pack(">I", len(name)) + name + b"\x00" * 32
    return f"{key_type} {base64.b64encode(blob).decode()} someone@example.org"


@pytest.mark.parametrize(
    ("type_name", "name", "extra", "expected"),
    [
        ("string", "image", {}, StringInput),
        ("string", "jupyter_password", {}, PasswordInput),
        ("string", "iam_client_secret", {}, PasswordInput),
        ("string", "oneclient_token", {}, PasswordInput),
        ("string", "vault_secret_path", {}, StringInput),
        ("string", "anything", {"widget": "password"}, PasswordInput),
        ("string", "ssh_public_key", {}, SshKeyInput),
        (
            "string",
            "ssh_key",
            {"default": "/home/me/.ssh/id.pub", "has_default": True},
            StringInput,
        ),
        ("integer", "n", {}, IntegerInput),
        ("float", "n", {}, FloatInput),
        ("boolean", "n", {}, BooleanInput),
        ("version", "n", {}, VersionInput),
        ("timestamp", "n", {}, TimestampInput),
        ("scalar-unit.size", "n", {}, ScalarUnitInput),
        ("scalar-unit.time", "n", {}, ScalarUnitInput),
        ("scalar-unit.frequency", "n", {}, ScalarUnitInput),
        ("list", "n", {"entry_schema": {"type": "integer"}}, ListInput),
        ("map", "n", {"entry_schema": {"type": "string"}}, MapInput),
        (
            "map",
            "ports",
            {"entry_schema": {"type": "tosca.datatypes.indigo.network.PortSpec"}},
            PortsInput,
        ),
        ("tosca.datatypes.indigo.network.PortSpec", "port", {}, PortsInput),
        ("tosca.datatypes.Credential", "creds", {}, CredentialInput),
        ("tosca.datatypes.indigo.SomeCredential", "creds", {}, CredentialInput),
        ("tosca.datatypes.indigo.User", "user", {}, JsonInput),
    ],
)
def test_the_registry_picks_a_field_class_per_tosca_type(
    make_spec, type_name, name, extra, expected
):
    assert field_class_for(make_spec(name, type_name, **extra)) is expected


# --- string -------------------------------------------------------------------------------


def test_a_string_is_a_text_box_by_default_and_a_select_with_valid_values(make_spec):
    assert isinstance(field_for(make_spec()).make_field().field_class, type)
    assert field_for(make_spec()).field_class() is StringField
    chosen = field_for(make_spec(constraints=[{"valid_values": ["a", "b"]}]))
    assert chosen.widget == "select" and chosen.field_class() is SelectField
    # Required with no default: an empty first option, so nothing looks chosen that is not.
    assert choices(chosen) == [("", "Choose..."), ("a", "a"), ("b", "b")]
    with_default = field_for(make_spec(default="b", constraints=[{"valid_values": ["a", "b"]}]))
    assert choices(with_default) == [("a", "a"), ("b", "b")]


def test_a_required_input_with_a_single_allowed_value_starts_with_it(make_spec):
    only = field_for(make_spec("heads", "integer", constraints=[{"valid_values": [1]}]))
    assert choices(only) == [("1", "1")] and only.form_default() == 1
    optional = make_spec("heads", "integer", required=False, constraints=[{"valid_values": [1]}])
    assert field_for(optional).form_default() is None  # "(not set)" stays possible


@pytest.mark.parametrize(
    ("widget", "field_class"),
    [("textarea", TextAreaField), ("radio", RadioField), ("password", PasswordField)],
)
def test_the_sidecar_widget_chooses_the_wtforms_field(make_spec, widget, field_class):
    extra = {"choices": ["a", "b"]} if widget == "radio" else {}
    assert field_for(make_spec(widget=widget, **extra)).field_class() is field_class


def test_a_widget_the_type_cannot_use_is_refused(make_spec):
    with pytest.raises(WidgetError, match='widget "slider" does not suit'):
        field_for(make_spec("name", "string", widget="slider"))


def test_string_checks_type_and_constraints(make_spec):
    field = field_for(make_spec(constraints=[{"max_length": 3}]))
    assert field.check("abc") == ("abc", [])
    assert field.check("abcd")[1] == ["Must be at most 3 characters long."]
    assert field.check(5, strict=True)[1] == ["Must be text."]
    assert field.render_kw() == {"maxlength": 3, "required": True}


def test_an_input_with_a_default_or_required_false_is_optional(make_spec):
    assert not field_for(make_spec(default="x")).required
    assert not field_for(make_spec(required=False)).required
    assert "required" not in field_for(make_spec(required=False)).render_kw()


# --- numbers and booleans ------------------------------------------------------------------


def test_integer_accepts_whole_numbers_only(make_spec):
    field = field_for(make_spec("n", "integer", constraints=[{"in_range": [1, 64]}]))
    assert issubclass(field.field_class(), IntegerField)
    assert field.check("8") == (8, [])
    assert field.check(8, strict=True) == (8, [])
    assert field.check("8", strict=True)[1] == ["Must be a whole number."]
    assert field.check(True)[1] == ["Must be a whole number."]
    assert field.check("2.5")[1] == ["Must be a whole number."]
    assert field.check(65)[1] == ["Must be between 1 and 64."]
    assert field.render_kw() == {"min": 1, "max": 64, "step": 1, "required": True}


def test_integer_slider_is_a_range_field(make_spec):
    field = field_for(
        make_spec("n", "integer", widget="slider", constraints=[{"in_range": [1, 8]}])
    )
    assert field.field_class() is IntegerRangeField


def test_float_accepts_numbers_and_rejects_the_rest(make_spec):
    field = field_for(make_spec("f", "float", constraints=[{"greater_or_equal": 0.5}]))
    assert issubclass(field.field_class(), FloatField)
    assert field.check("1.5") == (1.5, [])
    assert field.check(2, strict=True) == (2.0, [])
    assert field.check("nan")[1] == ["Must be a number."]
    assert field.check("1e999")[1] == ["Is too large a number to use."]
    assert field.check("lots")[1] == ["Must be a number."]
    assert field.check(0.1)[1] == ["Must be at least 0.5."]
    assert field.render_kw()["step"] == "any"


def test_boolean_is_a_checkbox_or_yes_no_choice(make_spec):
    field = field_for(make_spec("b", "boolean", default=True))
    assert field.field_class() is BooleanField and not field.required
    assert field.check("yes") == (True, []) and field.check(False) == (False, [])
    assert field.check("maybe")[1] == ["Must be true or false."]
    assert field.check("true", strict=True)[1] == ["Must be true or false."]
    radio = field_for(make_spec("b", "boolean", widget="radio"))
    assert choices(radio) == [("true", "Yes"), ("false", "No")]
    assert radio.to_tosca("false") is False


# --- version, timestamp, scalar-units -----------------------------------------------------


def test_version_accepts_tosca_versions(make_spec):
    field = field_for(make_spec("v", "version"))
    assert field.check("1.2.3") == ("1.2.3", [])
    assert field.check("1.0.0.beta-2") == ("1.0.0.beta-2", [])
    # A single number is a version (7.0 to tosca-parser), sent as written.
    assert field.check(7) == ("7", []) and field.check("7") == ("7", [])
    assert re.fullmatch(field.render_kw()["pattern"], "7")
    assert field.check("v1")[1] == ["Must be a version such as 1.0 or 2.1.3."]


def test_timestamp_is_sent_in_iso_form(make_spec):
    field = field_for(make_spec("t", "timestamp"))
    assert field.check("2025-01-31 12:00:00") == ("2025-01-31T12:00:00Z", [])
    assert field.check("2025-01-31T12:00:00+02:00")[0] == "2025-01-31T12:00:00+02:00"
    assert field.check("tomorrow")[1][0].startswith("Must be a date and time")


@pytest.mark.parametrize(
    ("typed", "sent"),
    [
        ("4 GB", "4 GB"),
        ("4GiB", "4 GiB"),
        ("4 gb", "4 GB"),
        ("512 KB", "512 kB"),
        ("1.5 TB", "1.5 TB"),
        ("10 B", "10 B"),
        ("2048 MiB", "2048 MiB"),
    ],
)
def test_sizes_are_normalised_to_tosca_units(make_spec, typed, sent):
    assert field_for(make_spec("m", "scalar-unit.size")).check(typed) == (sent, [])


@pytest.mark.parametrize("typed", ["4", "GB", "4 GX", "-1 GB", "4 GB extra"])
def test_invalid_sizes_are_refused(make_spec, typed):
    _value, messages = field_for(make_spec("m", "scalar-unit.size")).check(typed)
    assert messages and ("unit" in messages[0] or "Unit" in messages[0])


def test_scalar_unit_constraints_compare_normalised_values(make_spec):
    field = field_for(
        make_spec("m", "scalar-unit.size", constraints=[{"in_range": ["1 GB", "8 GiB"]}])
    )
    assert field.check("1000 MB")[1] == []
    assert field.check("8 GiB")[1] == []
    assert field.check("9 GB")[1] == ["Must be between 1 GB and 8 GiB."]
    assert field.units[:3] == ["B", "kB", "KiB"]


def test_time_and_frequency_units(make_spec):
    assert field_for(make_spec("t", "scalar-unit.time")).check("30 m") == ("30 m", [])
    assert field_for(make_spec("t", "scalar-unit.time")).check("30 GB")[1]
    assert field_for(make_spec("f", "scalar-unit.frequency")).check("2 ghz") == ("2 GHz", [])


# --- passwords, keys, credentials ----------------------------------------------------------


def test_password_is_masked_and_may_be_generated(make_spec):
    field = field_for(make_spec("db_password", generate=True))
    assert field.field_class() is PasswordField and not field.required
    assert field.render_kw()["autocomplete"] == "new-password"
    generated = field.to_tosca("")
    assert isinstance(generated, str) and len(generated) >= 20
    assert field.to_tosca("chosen") == "chosen"


def test_ssh_public_keys_are_checked(make_spec):
    field = field_for(make_spec("ssh_public_key"))
    for key_type in ("ssh-rsa", "ssh-ed25519", "ecdsa-sha2-nistp256"):
        assert field.check(ssh_key(key_type))[1] == []
    assert field.check(ssh_key("ssh-rsa", claimed="ssh-ed25519"))[1] == [
        "The key's data does not match its type ssh-rsa."
    ]
    assert "base64" in field.check("ssh-ed25519 not*base64")[1][0]
    assert "Key type" in field.check("ssh-dss AAAA")[1][0]
    assert "SSH public key" in field.check("hello")[1][0]


def test_ssh_key_is_normalised_to_one_line():
    assert check_ssh_public_key("  " + ssh_key() + "\n") == ssh_key()


def test_credential_is_a_user_and_a_token(make_spec):
    field = field_for(make_spec("creds", "tosca.datatypes.Credential"))
    assert field.make_field().field_class is FormField
    assert field.check({"user": "me", "token": "pw"}) == (
        {"token_type": "password", "user": "me", "token": "pw"},
        [],
    )
    assert field.check({"user": "me", "token": ""})[1] == [
        "The credential needs a password or token."
    ]
    assert field.check({"token": "x", "colour": "red"})[1][0].startswith("Unknown credential")
    assert field.to_form({"user": "me", "token": "secret"}) == {"user": "me", "token": ""}


def test_generated_credentials_get_a_token(make_spec):
    field = field_for(make_spec("creds", "tosca.datatypes.Credential", generate=True))
    assert not field.required
    assert field.check({"user": "me", "token": ""})[1] == []
    assert field.to_tosca({"user": "me", "token": ""})["token"]


# --- lists, maps, ports, JSON --------------------------------------------------------------


def test_list_takes_one_entry_per_line_and_checks_each(make_spec):
    field = field_for(
        make_spec(
            "l",
            "list",
            entry_schema={"type": "integer", "constraints": [{"less_than": 10}]},
            constraints=[{"min_length": 1}],
        )
    )
    assert field.check("1\n2\n\n3") == ([1, 2, 3], [])
    assert field.check([1, 2], strict=True) == ([1, 2], [])
    assert field.check("1\n12")[1] == ['Entry 2 ("12"): Must be less than 10.']
    assert field.check("")[1] == ["Must have at least 1 entry."]
    assert field.check("1\n2", strict=True)[1] == ["Must be a list."]
    assert field.to_form([1, 2]) == "1\n2"


def test_list_of_maps_is_json(make_spec):
    field = field_for(make_spec("l", "list", entry_schema={"type": "map"}))
    assert field.kind == "json" and field.unsupported_reason is None
    assert field.check('[{"a": 1}]') == ([{"a": 1}], [])
    assert field.check("[1]")[1] == ["Every entry must be a JSON object."]
    assert field.check("[")[1][0].startswith("Is not valid JSON")


def test_map_takes_key_value_lines(make_spec):
    field = field_for(make_spec("m", "map", entry_schema={"type": "integer"}))
    assert field.check("a = 1\nb=2") == ({"a": 1, "b": 2}, [])
    assert field.check("a = x")[1] == ['"a": Must be a whole number.']
    assert field.check("a = 1\na = 2")[1] == ['Key "a" is given twice.']
    assert field.check("just text")[1] == ['Line 1 must read "key = value".']
    assert field.to_form({"a": 1}) == "a = 1"


def test_ports_map_reads_one_port_per_line(make_spec):
    field = field_for(
        make_spec("ports", "map", entry_schema={"type": "tosca.datatypes.indigo.network.PortSpec"})
    )
    value, messages = field.check("http: 8080/tcp from 10.0.0.0/8\nrange: 9000-9010/udp\nssh: 22")
    assert messages == []
    assert value == {
        "http": {"protocol": "tcp", "source": 8080, "remote_cidr": "10.0.0.0/8"},
        "range": {"protocol": "udp", "source_range": [9000, 9010]},
        "ssh": {"protocol": "tcp", "source": 22},
    }
    assert field.check(field.to_form(value)) == (value, [])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("8080/tcp", "needs a name"),
        ("http: 70000", "not between 1 and 65535"),
        ("http: 80/sctp", 'Protocol "sctp"'),
        ("http: 90-80", "ends before it starts"),
        ("http: 80 from nowhere", "not an address range"),
        ("http: eighty", "must read like"),
    ],
)
def test_bad_ports_are_refused(make_spec, text, message):
    field = field_for(
        make_spec("ports", "map", entry_schema={"type": "tosca.datatypes.indigo.network.PortSpec"})
    )
    assert message in field.check(text)[1][0]


def test_ports_from_api_callers_are_port_spec_mappings(make_spec):
    field = field_for(
        make_spec("ports", "list", entry_schema={"type": "tosca.datatypes.network.PortSpec"})
    )
    assert field.check([{"protocol": "udp", "source": 53}], strict=True)[1] == []
    assert field.check([{"source": 53, "colour": "red"}], strict=True)[1][0].startswith("Unknown")
    single = field_for(make_spec("port", "tosca.datatypes.indigo.network.PortSpec"))
    assert single.check("443") == ({"protocol": "tcp", "source": 443}, [])


def test_unknown_data_types_fall_back_to_json_and_are_reported(make_spec):
    field = field_for(make_spec("user", "tosca.datatypes.indigo.User"))
    assert field.kind == "json" and "no form field" in field.unsupported_reason
    assert field.check('{"os_user_name": "me"}') == ({"os_user_name": "me"}, [])
    assert field.check("{oops")[1][0].startswith("Is not valid JSON")
    assert field.field_class() is TextAreaField


def test_labels_and_help_come_from_the_sidecar_then_the_template(make_spec):
    field = field_for(make_spec("num_cpus", "integer", description="CPUs"))
    assert (field.label, field.help) == ("Num cpus", "CPUs")
    field = field_for(make_spec("num_cpus", "integer", label="Cores", help="How many"))
    assert (field.label, field.help) == ("Cores", "How many")
