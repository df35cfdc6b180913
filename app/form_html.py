"""HTML attributes of form fields, written as WTForms writes them in fewer steps.

WTForms builds every attribute of every field through ``Markup.format``, which walks Python's
string formatter in Python: the launch form's attributes and options were a fifth of its time.
``html_params`` gives the same text (same order, same escaping, ``True`` as a bare name,
``False`` left out); ``init_form_html`` puts it where WTForms' widgets and labels look for it,
has selects find how to draw their options once per widget class, and draws the options of
WTForms' own ``Select`` directly (a launch form's selects have a few dozen of them).

``draw(field, **attributes)`` is ``field(**attributes)`` for the controls a launch form has most
(a text box, a text area, a select), written in one step rather than through the field, its
meta, its widget and a look at every name of its flags; other fields are drawn by WTForms.
"""

from __future__ import annotations

import wtforms.meta
import wtforms.widgets
import wtforms.widgets.core as widgets_core
from markupsafe import Markup, escape
from wtforms import Field, SelectField
from wtforms.fields.choices import Choice

_original_html_params = widgets_core.html_params
# Attribute names seen, as WTForms cleans and the formatter escapes them; they come from code
# and templates, a few dozen in all, but a bound keeps an odd caller from growing it.
_NAMES: dict[str, str] = {}
_NAMES_KEPT = 1024


def _attribute_name(key: str) -> str:
    try:
        return _NAMES[key]
    except KeyError:
        pass
    name = str(escape(widgets_core.clean_key(key)))
    if len(_NAMES) < _NAMES_KEPT:
        _NAMES[key] = name
    return name


def html_params(**kwargs) -> Markup:
    """``wtforms.widgets.html_params``: ``name="value"`` pairs sorted by name, values escaped
    (a value that is markup kept as it is, but for its double quotes)."""
    params = []
    for key, value in sorted(kwargs.items()):
        if value is False:
            continue
        if value is True:
            params.append(_attribute_name(key))
        else:
            quoted = str(escape(value)).replace('"', "&quot;")
            params.append(f'{_attribute_name(key)}="{quoted}"')
    return Markup(" ".join(params))  # noqa: S704 - every part escaped above


_render_field = wtforms.meta.DefaultMeta.render_field
_original_dispatch = widgets_core.Select._dispatch_render_option.__func__
_original_render_option = widgets_core.Select.render_option.__func__
_DISPATCH: dict[type, object] = {}


def render_option(choice) -> Markup:
    """``Select.render_option(choice)``: the same text, written at once for an option with no
    attributes of its own (``html_params`` puts ``selected`` before ``value``)."""
    if choice.render_kw:
        return _original_render_option(widgets_core.Select, choice)
    value = choice.value
    if isinstance(value, bool):
        value = str(value)
    quoted = str(escape(value)).replace('"', "&quot;")
    selected = "selected " if choice.selected else ""
    label = escape(choice.label or choice.value)
    return Markup(f'<option {selected}value="{quoted}">{label}</option>')  # noqa: S704 - escaped


def _dispatch_render_option(cls):
    # WTForms reads ``render_option``'s signature (``inspect.signature``) at every select it
    # draws, to tell an old-style override from a new one; a class's answer never changes.
    try:
        return _DISPATCH[cls]
    except KeyError:
        own = getattr(cls.render_option, "__func__", None) is _original_render_option
        found = _DISPATCH[cls] = render_option if own else _original_dispatch(cls)
        return found


def _attributes(field, attributes: dict) -> dict:
    """The attributes ``meta.render_field`` hands a field's widget: the field's ``render_kw``
    under the caller's, names cleaned; then the widget puts in the field's id."""
    clean = widgets_core.clean_key
    given = {clean(key): value for key, value in attributes.items()}
    if field.render_kw is not None:
        given = dict({clean(key): value for key, value in field.render_kw.items()}, **given)
    given.setdefault("id", field.id)
    return given


def _flag(given: dict, field, call: bool = False) -> dict:
    """The flags the field's widget states (its ``validation_attrs``) that the attributes do not
    set, put in. A field's flags are the attributes of its ``Flags``: what WTForms' ``dir``
    finds there, but dunders."""
    flagged = field.widget.validation_attrs
    for name, value in vars(field.flags).items():
        if name in flagged and name not in given:
            given[name] = value() if call and callable(value) else value
    return given


def _text_input(field, attributes: dict) -> Markup:
    # ``Input.__call__`` (a field with a datalist is left to WTForms, below).
    given = _attributes(field, attributes)
    given.setdefault("type", "text")
    if "value" not in given:
        given["value"] = field._value()
    _flag(given, field, call=True)
    return Markup(f"<input {html_params(name=field.name, **given)}>")  # noqa: S704 - escaped


def _text_area(field, attributes: dict) -> Markup:
    given = _flag(_attributes(field, attributes), field)
    params, inner = html_params(name=field.name, **given), escape(field._value())
    return Markup(f"<textarea {params}>\r\n{inner}</textarea>")  # noqa: S704 - escaped


def _select(field, attributes: dict) -> Markup | None:
    choices = field._choices_from_input(field.choices) or []
    if any(choice.optgroup is not None for choice in choices):
        return None  # groups of options: WTForms draws them
    given = _flag(_attributes(field, attributes), field)
    html = [f"<select {html_params(name=field.name, **given)}>"]
    # ``SelectField.iter_choices``: an option is selected when its coerced value is the data.
    coerce, data = field.coerce, field.data
    for choice in choices:
        selected = coerce(choice.value) == data
        html.append(render_option(Choice(choice.value, choice.label, selected, choice.render_kw)))
    html.append("</select>")
    return Markup("".join(html))  # noqa: S704 - every part escaped above


# Where a text box's value goes in its attributes, while they are written once (``pieces``):
# a character no attribute the portal writes holds, and that escaping leaves as it is.
VALUE_MARK = "\x00"


def _drawn_at_once(field) -> bool:
    # WTForms draws a field through its ``__call__`` and its meta's ``render_field``: when the
    # field class or the form's meta has its own, only WTForms knows what they add.
    return type(field).__call__ is Field.__call__ and (
        field.meta.render_field.__func__ is _render_field
    )


def pieces(field, **attributes) -> tuple[str, str, tuple] | None:
    """What ``draw(field, **attributes)`` writes around the parts a form's data changes, for a
    text box, a text area or a single select that ``draw`` writes at once: ``(kind, head,
    options)``. ``kind`` is "input" (the head's ``VALUE_MARK`` stands for the escaped value, the
    tag ends with ``>``), "textarea" (the escaped value and ``</textarea>`` follow the head)
    or "select" (``options`` are ``(coerced value, option, option selected)``, then
    ``</select>``). None for any other field, or one whose attributes already hold a value."""
    if not _drawn_at_once(field):
        return None
    widget = field.widget
    kind = type(widget)
    if kind is widgets_core.TextInput and getattr(field, "_datalist", None) is None:
        given = _attributes(field, attributes)
        if "value" in given:
            return None
        given.setdefault("type", "text")
        given["value"] = VALUE_MARK
        _flag(given, field, call=True)
        head = f"<input {html_params(name=field.name, **given)}>"
        return ("input", head, ()) if head.count(VALUE_MARK) == 1 else None
    if kind is widgets_core.TextArea:
        given = _flag(_attributes(field, attributes), field)
        return "textarea", f"<textarea {html_params(name=field.name, **given)}>\r\n", ()
    if kind is widgets_core.Select and not widget.multiple and type(field) is SelectField:
        choices = field._choices_from_input(field.choices) or []
        if any(choice.optgroup is not None for choice in choices):
            return None
        given = _flag(_attributes(field, attributes), field)
        options = tuple(
            (
                field.coerce(choice.value),
                str(render_option(Choice(choice.value, choice.label, False, choice.render_kw))),
                str(render_option(Choice(choice.value, choice.label, True, choice.render_kw))),
            )
            for choice in choices
        )
        return "select", f"<select {html_params(name=field.name, **given)}>", options
    return None


def draw(field, **attributes) -> Markup:
    """``field(**attributes)``: the same text, written at once for a text box, a text area and
    a single select of WTForms' own classes, drawn by WTForms for any other."""
    widget = field.widget
    kind = type(widget)
    drawn = None
    if _drawn_at_once(field):
        if kind is widgets_core.TextInput and getattr(field, "_datalist", None) is None:
            drawn = _text_input(field, attributes)
        elif kind is widgets_core.TextArea:
            drawn = _text_area(field, attributes)
        elif kind is widgets_core.Select and not widget.multiple and type(field) is SelectField:
            drawn = _select(field, attributes)
    return field(**attributes) if drawn is None else drawn


def init_form_html() -> None:
    """Have WTForms' widgets and labels write their attributes with ``html_params``: the
    module function (selects, text areas, lists, labels) and the inputs' and buttons' own."""
    wtforms.widgets.html_params = html_params
    widgets_core.html_params = html_params
    widgets_core.Input.html_params = staticmethod(html_params)
    widgets_core.Button.html_params = staticmethod(html_params)
    widgets_core.Select._dispatch_render_option = classmethod(_dispatch_render_option)
