"""Form fields write their attributes as WTForms writes them, in fewer steps."""

from pathlib import Path

import pytest
import wtforms.widgets.core as widgets_core
from markupsafe import Markup
from wtforms import Form, IntegerField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Length

from app.form_html import _original_html_params, html_params

ATTRIBUTES = [
    {},
    {"name": "text1", "id": "f", "class_": "text"},
    {"checked": True, "readonly": False, "name": "text1", "abc": "hello"},
    {"data_range_output": "cores-value", "aria_describedby": "cores-help"},
    {"value": 'say "hi" <b>&</b> it\'s'},
    {"value": Markup('<b title="x">already markup</b>')},
    {"value": None, "min": 0, "max": 1.5, "step": "any"},
    {"for_": "x", "**": "odd", "<odd>": True},
]


@pytest.mark.parametrize("attributes", ATTRIBUTES)
def test_attributes_read_as_wtforms_writes_them(attributes):
    written = html_params(**attributes)
    assert written == _original_html_params(**attributes)
    assert isinstance(written, Markup)


class _Form(Form):
    name = StringField("Name", render_kw={"maxlength": 20})
    cores = IntegerField("Cores")
    flavour = SelectField(
        "Flavour", choices=[SelectChoice("s", "Small <1>"), SelectChoice("l", 'Large "2"')]
    )
    notes = TextAreaField("Notes")


def test_the_portal_s_fields_write_their_attributes_with_it(app):
    assert widgets_core.html_params is html_params
    assert widgets_core.Input.html_params is html_params
    form = _Form(data={"name": 'a "b"', "cores": 2, "flavour": "l", "notes": "<x>"})
    assert str(form.name(class_="form-control", disabled=True)) == (
        '<input class="form-control" disabled id="name" maxlength="20" name="name" '
        'type="text" value="a &#34;b&#34;">'
    )
    assert '<option selected value="l">Large &#34;2&#34;</option>' in str(form.flavour())
    assert str(form.notes.label(class_="form-label")) == (
        '<label class="form-label" for="notes">Notes</label>'
    )


OPTIONS = [
    SelectChoice("s", "Small <1>"),
    SelectChoice('say "hi"', None),
    SelectChoice(Markup('<b title="x">m</b>'), "Markup"),
    SelectChoice(True, "Yes"),
    SelectChoice(False, None),
    SelectChoice(0, ""),
    SelectChoice(None, None),
    SelectChoice(2.5, "2.5 GB", render_kw={"data_x": 'a "b"', "disabled": True}),
    SelectChoice("d", "Disabled", render_kw={"disabled": False}),
]


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("selected", [True, False])
def test_options_read_as_wtforms_writes_them(app, option, selected):
    from wtforms.fields.choices import Choice

    from app.form_html import _original_render_option, render_option

    choice = Choice(option.value, option.label, selected, option.render_kw)
    written = render_option(choice)
    assert written == _original_render_option(widgets_core.Select, choice)
    assert isinstance(written, Markup)
    assert widgets_core.Select._dispatch_render_option() is render_option


def _minimum():
    return 2


class _Flagging:
    """A validator stating flags, one of them as a callable (WTForms' inputs call it)."""

    field_flags = {"pattern": "^[a-z]+$", "minlength": _minimum}

    def __call__(self, form, field):
        pass


class _Drawn(Form):
    plain = StringField("Plain")
    flagged = StringField("Flagged", validators=[_Flagging()])
    flagged_notes = TextAreaField("Flagged notes", validators=[_Flagging()])
    hinted = StringField(
        "Hinted",
        validators=[InputRequired(), Length(min=2, max=9)],
        render_kw={"maxlength": 5, "pattern": "^[a-z]+$", "placeholder": 'say "x"', "type_": "x"},
    )
    markup = StringField("Markup", render_kw={"data_note": Markup("<b>a</b>")})
    notes = TextAreaField("Notes", validators=[InputRequired(), Length(max=40)])
    bare_notes = TextAreaField("Notes")
    size = SelectField("Size", choices=[SelectChoice("s", "Small"), SelectChoice("l", 'L "2"')])
    count = SelectField(
        "Count",
        coerce=int,
        validators=[InputRequired()],
        choices=[SelectChoice("1", "One"), SelectChoice("2", "Two", render_kw={"data_x": "y"})],
    )
    grouped = SelectField(
        "Grouped", choices=[SelectChoice("a", "A", optgroup="G"), SelectChoice("b", "B")]
    )
    number = IntegerField("Number")


CALLS = [
    {},
    {"class": "form-control is-invalid", "aria-describedby": "x-help"},
    {"class_": "form-select", "disabled": True, "rows": 4},
    {"disabled": False, "required": False, "value": 'given "v"', "id": "other"},
    {"aria_label": "<label>", "data_range_output": "x-value", "maxlength": 3},
]
FORM_DATA = [
    None,
    {"plain": 'a "b" <c>', "hinted": "Q", "notes": "<x>\n", "size": "l", "count": "2"},
    {"count": "nope", "size": "zzz", "markup": ""},
]


@pytest.mark.parametrize("attributes", CALLS)
@pytest.mark.parametrize("formdata", FORM_DATA)
def test_controls_are_drawn_as_wtforms_draws_them(app, attributes, formdata):
    from werkzeug.datastructures import MultiDict

    from app.form_html import draw

    with app.test_request_context("/"):
        form = _Drawn(MultiDict(formdata) if formdata else None)
        if formdata:
            form.validate()
        for field in form:
            written = draw(field, **attributes)
            assert written == field(**attributes), field.name
            assert isinstance(written, Markup)


def _catalogue_forms():
    from app.catalogue.forms import build_form_class
    from app.tosca.parsed import parse_template

    folder = Path(__file__).parents[1] / "tosca-catalog"
    for path in sorted(folder.glob("*.yaml")):
        if path.name.endswith(".portal.yaml"):
            continue
        sidecar = path.with_name(path.stem + ".portal.yaml")
        parsed = parse_template(
            path.stem,
            path.read_text(),
            sidecar.read_text() if sidecar.exists() else None,
            types_dir=folder / "types",
        )
        yield path.stem, build_form_class(parsed)


def test_every_catalogue_field_is_drawn_as_wtforms_draws_it(app):
    from werkzeug.datastructures import MultiDict

    from app.form_html import draw

    drawn = 0
    with app.test_request_context("/"):
        for slug, form_class in _catalogue_forms():
            names = list(form_class.input_fields)
            odd = MultiDict({name: 'x "1" <2>' for name in names})
            for form in (
                form_class(formdata=None, meta={"csrf": False}),
                form_class(formdata=odd, meta={"csrf": False}),
            ):
                form.validate()
                for field in form:
                    for attributes in CALLS[:3]:
                        assert draw(field, **attributes) == field(**attributes), (slug, field.name)
                        drawn += 1
    assert drawn > 100
