"""A generated launch form's field as the page shows it: its label, its control (a switch, radio
buttons, a group of fields, a select, a range with its figure, a text area, a password with its
buttons, or a plain input), its errors and its help, with the length limit of a text area.

The markup the form macros wrote, written in Python: a page draws a template's fields on every
showing of the launch form, and the macros' two hundred steps a field were a fifth of its work.
The controls themselves are still WTForms' (``field(...)``), so values, flags and attributes
come out as before; the most common ones are written in one step (``app.form_html.draw``).
Of a text box, a text area and a select, all but the value, the chosen option and the errors
depends only on the form class (a revision in one language), the page's language, whether the
field is invalid and whether the form is a preview: that is written once and kept with the
form class (``_drawing``).

The quick choices (``preset_buttons``) and the tabs holding the fields (``launch_tabs``) are
written here too, for templates/catalogue/_form.html: as template steps they cost more than
the fields themselves.
"""

from __future__ import annotations

from typing import NamedTuple

from flask import current_app
from flask_babel import format_decimal, get_domain, get_locale
from flask_babel import gettext as _
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

from app.caches import cached
from app.form_html import VALUE_MARK, draw, pieces

REQUIRED_MARK = ' <span class="text-danger" aria-hidden="true">*</span>'
RANGES = ("IntegerRangeField", "DecimalRangeField")
# "Up to 16,384 characters." per language and limit: a template has a few limits.
LIMIT_WORDS = 256


def _css(classes: str) -> dict:
    # "class" as the macros passed it: WTForms joins it with a field's own class only so.
    return {"class": classes}


def _errors(messages, css: str = "invalid-feedback") -> str:
    return "".join(f'<div class="{css}">{escape(message)}</div>' for message in messages)


def _limit(field) -> int | None:
    return (field.render_kw or {}).get("maxlength")


def _description(field) -> str:
    # A template's help is translated as it is read (a lazy string): read it once a field.
    description = field.description
    return description if isinstance(description, str) else str(description)


def _described(field, readonly: bool, description: str) -> dict:
    """The attributes a control takes from its help and from ``readonly``."""
    extra = {}
    if description or (field.type == "TextAreaField" and _limit(field)):
        extra["aria-describedby"] = f"{field.id}-help"
    if readonly:
        extra["disabled"] = True
    return extra


# The controls ``app.form_html.draw`` writes (a select, a text area, any other box): their
# classes and attributes of their own.
_PLAIN = {
    "SelectField": ("form-select", {}),
    "TextAreaField": ("form-control font-monospace", {"rows": 4}),
}
_BOX = ("form-control", {})


def _plain_attributes(field, readonly: bool, description: str) -> dict:
    css, own = _PLAIN.get(field.type, _BOX)
    invalid = " is-invalid" if field.errors else ""
    return {**_css(css + invalid), **own, **_described(field, readonly, description)}


def _control(field, readonly: bool, description: str) -> str:
    """The control of one field with its errors (the ``input_control`` of the form macros)."""
    kind = field.type
    invalid = " is-invalid" if field.errors else ""
    extra = _described(field, readonly, description)
    if kind in RANGES:
        extra["data-range-output"] = f"{field.id}-value"
        html = (
            '<div class="d-flex align-items-center gap-3">\n'
            f"{field(**_css('form-range' + invalid), **extra)}\n"
            f'<output id="{escape(field.id)}-value" class="badge text-bg-secondary fs-6">'
            f"{escape(field._value())}</output>\n</div>"
        )
    elif kind == "PasswordField":
        # A password is never sent back to the page: after a rejected form, ask for it again.
        # The hint in the field is short enough for a phone; the reason stands under it.
        retype = (field.raw_data and field.raw_data[0]) or field.errors
        if retype:
            extra["placeholder"] = _("Type it again")
        disabled = "disabled" if readonly else ""
        field_id = escape(field.id)
        show, hide, generate = escape(_("Show")), escape(_("Hide")), escape(_("Generate"))
        html = (
            '<div class="input-group has-validation">\n'
            f"{field(**_css('form-control' + invalid), **extra)}\n"
            f'<button class="btn btn-outline-secondary js-only" type="button" '
            f'data-reveal="{field_id}" data-text-show="{show}" '
            f'data-text-hide="{hide}" {disabled}>{show}</button>\n'
            f'<button class="btn btn-outline-secondary js-only" type="button" '
            f'data-generate="{field_id}" {disabled}>{generate}</button>\n'
            f"{_errors(field.errors)}</div>\n"
        )
        if retype:
            words = _("Passwords are not sent back to the page: type it again.")
            html += f'<div class="form-text">{escape(words)}</div>\n'
        return html
    else:
        html = str(draw(field, **_plain_attributes(field, readonly, description)))
    return f"{html}\n{_errors(field.errors)}"


def _required(field) -> bool:
    return bool(field.flags.required or (field.render_kw or {}).get("required"))


def _body(field, readonly: bool, description: str) -> str:
    kind = field.type
    invalid = " is-invalid" if field.errors else ""
    if kind == "BooleanField":
        return (
            '<div class="form-check form-switch">\n'
            f"{field(**_css('form-check-input' + invalid), role='switch', disabled=readonly)}\n"
            f"{field.label(**_css('form-check-label fw-semibold'))}\n"
            f"{_errors(field.errors)}</div>\n"
        )
    if kind == "RadioField":
        mark = REQUIRED_MARK if field.flags.required else ""
        options = "".join(
            '<div class="form-check form-check-inline">\n'
            f"{option(**_css('form-check-input' + invalid), disabled=readonly)}\n"
            f"{option.label(**_css('form-check-label'))}\n</div>\n"
            for option in field
        )
        return (
            f'<fieldset>\n<legend class="form-label fs-6 fw-semibold">'
            f"{escape(field.label.text)}{mark}</legend>\n{options}"
            f"{_errors(field.errors, 'invalid-feedback d-block')}</fieldset>\n"
        )
    if kind == "FormField":
        parts = "".join(
            f'<div class="mb-2">\n{sub.label(**_css("form-label small"))}\n'
            f"{_control(sub, readonly, _description(sub))}</div>\n"
            for sub in field
            if sub.type != "CSRFTokenField"
        )
        messages = [error for error in field.errors if isinstance(error, str)]
        return (
            '<fieldset class="border rounded p-3">\n'
            '<legend class="float-none w-auto px-2 fs-6 fw-semibold mb-0">'
            f"{escape(field.label.text)}</legend>\n{parts}"
            f"{_errors(messages, 'invalid-feedback d-block')}</fieldset>\n"
        )
    return f"{_label(field)}{_control(field, readonly, description)}"


def _label(field) -> str:
    """The label of a field drawn with ``_control``, its required mark and the line's end."""
    mark = REQUIRED_MARK if _required(field) else ""
    return f"{field.label(**_css('form-label fw-semibold'))}{mark}\n"


def _limit_words(limit: int) -> Markup:
    """ "Up to %(num)s characters." for ``limit``, in the page's language, escaped; the same
    for every field and page of that language, so worked out once per language and limit."""

    def words() -> Markup:
        # The count chooses the plural; the figure is written in the page's language.
        text = get_domain().get_translations().ungettext(
            "Up to %(num)s character.", "Up to %(num)s characters.", limit
        ) % {"num": format_decimal(limit)}
        return escape(text)

    return cached("length_limit_words", LIMIT_WORDS, (str(get_locale()), limit), words)


def _opening(field) -> str:
    return f'<div class="mb-3 launch-field" data-field="{escape(field.name)}">\n'


def _help(field, description: str) -> str:
    """The help under a field, with the length limit of a text area; the field's end."""
    limit = _limit(field) if field.type == "TextAreaField" else None
    html = ""
    if description or limit:
        html += f'<div id="{escape(field.id)}-help" class="form-text">{escape(description)}'
        if limit:
            html += f' <span class="text-nowrap length-limit">{_limit_words(limit)}</span>'
        html += "</div>\n"
    return html + "</div>\n"


class _Drawing(NamedTuple):
    """A field drawn with ``app.form_html.pieces``: everything but its value (or its selected
    option) and its errors, which each form has of its own."""

    kind: str
    head: str  # the field's start, its label, and its control up to its value
    options: tuple  # a select's, as ``pieces`` gives them
    after: str  # the control's end, after its value
    foot: str  # the help and the field's end

    def draw(self, field) -> str:
        if self.kind == "select":
            data = field.data
            middle = "".join(
                chosen if value == data else option for value, option, chosen in self.options
            )
        else:
            middle = str(escape(field._value()))
            if self.kind == "input":
                middle = middle.replace('"', "&quot;")  # as ``html_params`` writes a value
        return f"{self.head}{middle}{self.after}{_errors(field.errors)}{self.foot}"


def _new_drawing(field, readonly: bool) -> _Drawing | None:
    if field.type in _OWN_CONTROLS:
        return None
    description = _description(field)
    found = pieces(field, **_plain_attributes(field, readonly, description))
    if found is None:
        return None
    kind, head, options = found
    after = {"select": "</select>\n", "textarea": "</textarea>\n"}.get(kind, "")
    if kind == "input":
        head, after = head.split(VALUE_MARK)
        after += "\n"
    head = f"{_opening(field)}{_label(field)}{head}"
    return _Drawing(kind, head, options, after, _help(field, description))


# Fields ``_body`` and ``_control`` draw with controls of their own.
_OWN_CONTROLS = frozenset({"BooleanField", "RadioField", "FormField", "PasswordField", *RANGES})
_NOTHING = object()


def _drawing(field, readonly: bool, language: str) -> _Drawing | None:
    """The field's drawing, worked out once per form class (a revision in one language, see
    ``app.catalogue.forms.build_form_class``), page language, validity and ``readonly``: what
    the drawing holds depends on nothing else. None for a field drawn in full each time.
    ``language``: the page's locale, as written by ``str``."""
    drawings = getattr(field._form, "_drawings", None)
    if drawings is None:
        return None
    key = (field.name, language, bool(field.errors), readonly)
    found = drawings.get(key, _NOTHING)
    if found is _NOTHING:
        found = drawings[key] = _new_drawing(field, readonly)
    return found


def launch_field(field, readonly: bool = False) -> Markup:
    """One field of a generated launch form (``app.catalogue.forms.LaunchForm``), ``readonly``
    for a preview: every control disabled."""
    return _launch_field(field, readonly, str(get_locale()))


def _launch_field(field, readonly: bool, language: str) -> Markup:
    drawing = _drawing(field, readonly, language)
    if drawing is not None:
        return Markup(drawing.draw(field))  # noqa: S704 - every part escaped or WTForms' markup
    description = _description(field)
    html = f"{_opening(field)}{_body(field, readonly, description)}{_help(field, description)}"
    return Markup(html)  # noqa: S704 - every part escaped or WTForms' markup


def _tojson(value) -> str:
    # The ``tojson`` filter of the page's templates: the same dumps and settings.
    policies = current_app.jinja_env.policies
    return htmlsafe_json_dumps(
        value, dumps=policies["json.dumps_function"], **policies["json.dumps_kwargs"]
    )


def preset_buttons(presets: list[dict], chosen: dict | None, readonly: bool) -> Markup:
    """The quick choices of a generated form (``app.catalogue.forms.presets_data``), the one
    ``chosen`` (its button pressed without scripts) marked; templates/catalogue/_form.html
    puts them in. Without scripts a button sends the form back with its values put in."""
    disabled = "disabled" if readonly else ""
    chosen_name = chosen["name"] if chosen else None
    buttons = []
    for number, preset in enumerate(presets):
        name, description = preset["name"], preset["description"]
        active = " active" if chosen and chosen_name == name else ""
        values = escape(str(_tojson(preset["values"])))
        more = f'<span class="d-block small">{escape(description)}</span>' if description else ""
        buttons.append(
            f'    <button type="submit" name="apply_preset" value="{number}" formnovalidate\n'
            f'            class="btn btn-outline-primary btn-sm preset-button{active}" '
            f'data-preset="{values}"\n'
            f'            title="{escape(description)}" {disabled}>\n'
            f'      <span class="fw-semibold">{escape(name)}</span>{more}    </button>\n'
        )
    title = escape(_("Quick choices"))
    return Markup(  # noqa: S704 - every part escaped
        '<div class="mb-3">\n'
        f'  <div class="form-label fw-semibold mb-1">{title}</div>\n'
        '  <div class="d-flex flex-wrap gap-2">\n'
        f"{''.join(buttons)}  </div>\n</div>"
    )


def launch_tabs(form, tabs: list, readonly: bool, quota_misfits: list) -> Markup:
    """The fields of a generated form in their tabs (``app.catalogue.forms.tab_layout``), for
    templates/catalogue/_form.html: the tab list when there are several, the first tab with
    a field needing attention open (else the first), a tab marked when a field in it does and
    when it holds what does not fit the quota (``quota_misfits``, the cost box's
    ``misfit_tabs``: launch.js follows the live box; app/launch/preview.py finds them)."""
    fields = form._fields
    errors = [
        tab_name
        for tab_name, names in tabs
        if any((field := fields.get(name)) is not None and field.errors for name in names)
    ]
    active = errors[0] if errors else (tabs[0][0] if tabs else None)
    quota_tabs = [next(iter(misfit)) for misfit in quota_misfits]
    html = []
    if len(tabs) > 1:
        attention, over_quota = escape(_("needs attention")), escape(_("over quota"))
        html.append('<ul class="nav nav-tabs mb-3 js-only" role="tablist">\n')
        for number, (tab_name, _names) in enumerate(tabs, start=1):
            shown = tab_name == active
            needs = tab_name in errors
            badge = f' <span class="badge text-bg-danger">{attention}</span>' if needs else ""
            hidden = " hidden" if number not in quota_tabs or needs else ""
            html.append(
                '  <li class="nav-item" role="presentation">\n'
                f'    <button class="nav-link {"active" if shown else ""}" id="tab-{number}" '
                'data-bs-toggle="tab"\n'
                f'            data-bs-target="#pane-{number}" type="button" role="tab" '
                f'aria-controls="pane-{number}"\n'
                f'            aria-selected="{"true" if shown else "false"}">\n'
                f"      {escape(tab_name)}{badge}"
                f'      <span class="badge text-bg-warning quota-tab-badge"{hidden}>'
                f"{over_quota}</span>\n"
                "    </button>\n  </li>\n"
            )
        html.append("</ul>\n")
    html.append('<div class="tab-content">\n')
    language = str(get_locale())
    for number, (tab_name, names) in enumerate(tabs, start=1):
        shown = "show active" if tab_name == active else ""
        drawn = "".join(
            _launch_field(field, readonly, language)
            for name in names
            if (field := fields.get(name)) is not None
        )
        html.append(
            f'  <div class="tab-pane fade {shown}" id="pane-{number}" role="tabpanel" '
            f'aria-labelledby="tab-{number}">\n{drawn}  </div>\n'
        )
    html.append("</div>")
    return Markup("".join(html))  # noqa: S704 - every part escaped or drawn escaped
