"""Form fields write their attributes as WTForms writes them, in fewer steps."""

import pytest
import wtforms.widgets.core as widgets_core
from markupsafe import Markup
from wtforms import Form, IntegerField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice

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
