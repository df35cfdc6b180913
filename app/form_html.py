"""HTML attributes of form fields, written as WTForms writes them in fewer steps.

WTForms builds every attribute of every field through ``Markup.format``, which walks Python's
string formatter in Python: the launch form's attributes and options were a fifth of its time.
``html_params`` gives the same text (same order, same escaping, ``True`` as a bare name,
``False`` left out); ``init_form_html`` puts it where WTForms' widgets and labels look for it,
has selects find how to draw their options once per widget class, and draws the options of
WTForms' own ``Select`` directly (a launch form's selects have a few dozen of them).
"""

from __future__ import annotations

import wtforms.widgets
import wtforms.widgets.core as widgets_core
from markupsafe import Markup, escape

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


def init_form_html() -> None:
    """Have WTForms' widgets and labels write their attributes with ``html_params``: the
    module function (selects, text areas, lists, labels) and the inputs' and buttons' own."""
    wtforms.widgets.html_params = html_params
    widgets_core.html_params = html_params
    widgets_core.Input.html_params = staticmethod(html_params)
    widgets_core.Button.html_params = staticmethod(html_params)
    widgets_core.Select._dispatch_render_option = classmethod(_dispatch_render_option)
