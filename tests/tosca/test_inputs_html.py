"""A launch form's field as the page draws it: label, control, errors, help and limits."""

from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    FormField,
    IntegerRangeField,
    PasswordField,
    RadioField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms import Form as PlainForm
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired

from app.tosca.inputs.html import launch_field


class _Credential(PlainForm):
    user = StringField("User")
    token = PasswordField("Token")


class _Form(FlaskForm):
    notes = TextAreaField("Notes", description="Free <text>", render_kw={"maxlength": 16384})
    cores = IntegerRangeField("Cores", default=4)
    secret = PasswordField("Secret", validators=[InputRequired()])
    size = SelectField("Size", choices=[SelectChoice("s", "Small"), SelectChoice("l", "Large")])
    gpu = BooleanField("GPU")
    zone = RadioField("Zone", choices=[SelectChoice("a", "A"), SelectChoice("b", "B")])
    login = FormField(_Credential, "Login")


def _drawn(app, language="en", readonly=False, **formdata):
    from werkzeug.datastructures import MultiDict

    with app.test_request_context("/", headers={"Accept-Language": language}):
        form = _Form(formdata=MultiDict(formdata) if formdata else None, meta={"csrf": False})
        if formdata:
            form.validate()
        return {name: str(launch_field(form[name], readonly)) for name in form._fields}


def test_a_text_area_shows_its_help_escaped_and_its_length_limit_in_the_page_language(app):
    notes = _drawn(app)["notes"]
    assert 'data-field="notes"' in notes and 'aria-describedby="notes-help"' in notes
    assert "Free &lt;text&gt;" in notes
    assert '<span class="text-nowrap length-limit">Up to 16,384 characters.</span>' in notes
    assert "16.384" in _drawn(app, "it")["notes"]


def test_a_range_shows_its_figure_and_a_password_its_buttons_and_never_its_value(app):
    drawn = _drawn(app)
    assert 'data-range-output="cores-value"' in drawn["cores"]
    assert (
        '<output id="cores-value" class="badge text-bg-secondary fs-6">4</output>' in drawn["cores"]
    )
    assert 'data-reveal="secret"' in drawn["secret"] and 'data-generate="secret"' in drawn["secret"]
    assert '<span class="text-danger" aria-hidden="true">*</span>' in drawn["secret"]
    again = _drawn(app, secret="typed", size="x")
    assert "typed" not in again["secret"] and 'placeholder="Type it again"' in again["secret"]
    assert 'class="form-select is-invalid"' in again["size"]
    assert '<div class="invalid-feedback">' in again["size"]


def test_switches_radios_and_groups_draw_their_own_controls(app):
    drawn = _drawn(app)
    assert 'class="form-check form-switch"' in drawn["gpu"] and 'role="switch"' in drawn["gpu"]
    assert drawn["zone"].count('class="form-check form-check-inline"') == 2
    assert (
        '<legend class="float-none w-auto px-2 fs-6 fw-semibold mb-0">Login</legend>'
        in (drawn["login"])
    )
    assert 'id="login-token"' in drawn["login"] and 'data-reveal="login-token"' in drawn["login"]


def test_a_preview_disables_every_control(app):
    drawn = _drawn(app, readonly=True)
    for name in ("notes", "cores", "secret", "size", "gpu"):
        assert " disabled " in drawn[name] or " disabled>" in drawn[name], name
    assert drawn["zone"].count(" disabled ") == 2
    assert drawn["secret"].count("disabled>") == 2  # its Show and Generate buttons


class _Plain(FlaskForm):
    """A form whose plain fields are drawn from what its class keeps (as a launch form's)."""

    _drawings: dict = {}
    name = StringField("Name <1>", description="Who", render_kw={"maxlength": 20})
    count = StringField("Count", validators=[InputRequired()], render_kw={"type": "number"})
    notes = TextAreaField("Notes", render_kw={"maxlength": 300})
    size = SelectField(
        "Size", choices=[SelectChoice("s", 'Small "1"'), SelectChoice("l", "Large <2>")]
    )


class _PlainDrawnInFull(_Plain):
    _drawings = None


def test_a_kept_drawing_writes_what_the_field_drawn_in_full_writes(app):
    from werkzeug.datastructures import MultiDict

    posts = [
        None,
        {"name": 'a "b" <c> & d', "count": "", "notes": "x\n<y>", "size": "l"},
        {"name": "", "count": "3", "notes": "", "size": "nothing offered"},
    ]
    for language in ("en", "it"):
        for readonly in (False, True):
            for post in posts * 2:  # the second time from what the first kept
                with app.test_request_context("/", headers={"Accept-Language": language}):
                    drawn = []
                    for form_class in (_Plain, _PlainDrawnInFull):
                        formdata = MultiDict(post) if post else None
                        form = form_class(formdata=formdata, meta={"csrf": False})
                        if post:
                            form.validate()
                        drawn.append([str(launch_field(field, readonly)) for field in form])
                    assert drawn[0] == drawn[1]
    # Every field was drawn from a kept drawing, none in full.
    assert {key[0] for key in _Plain._drawings} == {"name", "count", "notes", "size"}
    assert None not in _Plain._drawings.values()
