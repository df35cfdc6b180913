"""Bounded input and readable messages: every input kind has a stated maximum, huge numbers and
key comments are refused in words, and pattern errors say what is expected."""

import pytest

from app.tosca.inputs import field_for


@pytest.mark.parametrize(
    ("kind_spec", "limit"),
    [
        (("notes", "string", {}), 4096),
        (("user_password", "string", {}), 256),
        (("ssh_public_key", "string", {}), 16384),
        (("items", "list", {"entry_schema": {"type": "string"}}), 16384),
        (("packages", "list", {}), 65536),
        (("values", "string", {"widget": "textarea"}), 65536),
    ],
)
def test_every_typed_input_has_a_maximum_length_stated_to_the_browser(make_spec, kind_spec, limit):
    name, type_name, extra = kind_spec
    field = field_for(make_spec(name, type_name, **extra))
    assert field.max_length == limit
    if field.widget not in ("number", "slider"):
        assert field.render_kw()["maxlength"] == limit


def test_an_over_long_value_is_refused_in_words_before_anything_else(make_spec, form_app):
    from app.catalogue.forms import build_form_class
    from app.tosca.parsed import ParsedTemplate
    from tests.catalogue.conftest import form_data

    parsed = ParsedTemplate("t", inputs=[make_spec("notes", "string")])
    form_class = build_form_class(parsed)
    value = "x" * 1_500_000
    with form_app.test_request_context(method="POST", data=form_data(form_class, {"notes": value})):
        form = form_class()
        assert not form.validate()
        (message,) = next(iter(form.errors.values()))
    assert message == (
        "This is 1,500,000 characters long; the most this field takes is 4,096. "
        "Shorten it and send the form again."
    )


def test_a_huge_number_is_refused_in_the_portals_words(make_spec):
    field = field_for(make_spec("count", "integer", widget="text"))
    _value, messages = field.check("9" * 10_000)
    assert messages == ["This is a number of 10,000 digits; numbers here have at most 30."]
    assert "sys.set_int_max_str_digits" not in messages[0]
    assert field.check("-12")[0] == -12


def test_an_ssh_key_with_a_huge_comment_is_refused(make_spec):
    field = field_for(make_spec("ssh_public_key", "string"))
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
    assert field.check(f"{key} ada@host")[1] == []
    _value, messages = field.check(f"{key} {'c' * 10_000}")
    assert messages == [
        "The comment after the key is 10,000 characters long; keep it to 256 (it is usually "
        "just you@host)."
    ]


@pytest.mark.parametrize(
    ("pattern", "default", "bad", "message"),
    [
        ("^(|.{8,})$", None, "short", "Must be at least 8 characters long, or left empty."),
        (".{4,12}", None, "abc", "Must be 4 to 12 characters long."),
        (
            "^[a-z_][a-z0-9_-]{0,31}$",
            "researcher",
            "Ada!",
            'Is not in the expected form; write it like "researcher".',
        ),
        (
            "^[a-z]+$",
            None,
            "Ada!",
            "Is not in the form this field expects; see the description under it.",
        ),
    ],
)
def test_pattern_errors_say_in_words_what_is_expected(make_spec, pattern, default, bad, message):
    extra = {"default": default} if default else {}
    field = field_for(make_spec("value", "string", constraints=[{"pattern": pattern}], **extra))
    _value, messages = field.check(bad)
    assert messages == [message]
    assert pattern not in messages[0]


def test_the_sidecar_gives_a_message_per_pattern(make_spec):
    wording = "Write a repeating schedule such as R/2025-01-01T00:00:00Z/PT1H"
    spec = make_spec(
        "schedule", "string", constraints=[{"pattern": "^R/[^/]+/P.+$"}], pattern_message=wording
    )
    _value, messages = field_for(spec).check("every hour")
    assert messages == [wording + "."]


def test_a_huge_number_in_a_number_box_is_refused_in_the_portals_words(make_spec, form_app):
    from app.catalogue.forms import build_form_class, field_name
    from app.tosca.parsed import ParsedTemplate

    form_class = build_form_class(ParsedTemplate("t", inputs=[make_spec("count", "integer")]))
    for typed, message in [
        ("9" * 10_000, "This is a number of 10,000 digits; numbers here have at most 30."),
        ("four", "Type a whole number, such as 4."),
    ]:
        with form_app.test_request_context(method="POST", data={field_name("count"): typed}):
            form = form_class()
            assert not form.validate()
            assert form.errors == {field_name("count"): [message]}


HUGE = "9" * 10_000


@pytest.mark.parametrize(
    ("type_name", "extra", "typed"),
    [
        ("integer", {}, HUGE),
        ("integer", {"widget": "text"}, f"-{HUGE}"),
        ("float", {}, HUGE),
        ("float", {"widget": "text"}, f"1.{HUGE}"),
        ("float", {"widget": "text"}, f"1e{HUGE}"),
        ("scalar-unit.size", {}, f"{HUGE} GB"),
        ("scalar-unit.time", {}, f"{HUGE} s"),
        ("scalar-unit.frequency", {}, f"{HUGE} GHz"),
        ("range", {}, f"[1, {HUGE}]"),
        ("version", {}, f"1.{HUGE}"),
        ("tosca.datatypes.indigo.network.PortSpec", {}, f"{HUGE}/tcp"),
        (
            "list",
            {"entry_schema": {"type": "tosca.datatypes.indigo.network.PortSpec"}},
            f"22-{HUGE}",
        ),
        ("map", {"entry_schema": {"type": "integer"}}, f"a = {HUGE}"),
        ("list", {"entry_schema": {"type": "integer"}}, HUGE),
        ("list", {"entry_schema": {"type": "float"}}, HUGE),
        ("list", {"entry_schema": {"type": "scalar-unit.size"}}, f"{HUGE} GB"),
        ("list", {"entry_schema": {"type": "map"}}, f'[{{"a": {HUGE}}}]'),
    ],
)
def test_a_huge_number_in_any_numeric_kind_gets_the_portals_bounded_digits_message(
    make_spec, form_app, type_name, extra, typed
):
    from app.catalogue.forms import build_form_class, field_name
    from app.tosca.parsed import ParsedTemplate

    form_class = build_form_class(ParsedTemplate("t", inputs=[make_spec("v", type_name, **extra)]))
    with form_app.test_request_context(method="POST", data={field_name("v"): typed}):
        form = form_class()
        assert not form.validate()
        [message] = form.errors[field_name("v")]
    # The form may stop it for its length first: either way in the portal's words.
    assert "4300" not in message and "sys.set_int_max_str_digits" not in message
    assert "numbers here have at most 30" in message or "Shorten it" in message
    assert len(message) < 200
    with form_app.app_context():  # what the API checks: no length limit before the digits
        _value, messages = field_for(make_spec("v", type_name, **extra)).check(typed)
    assert any("numbers here have at most 30" in m for m in messages), messages
    assert all(len(m) < 200 for m in messages)
