"""Jinja settings and helpers shared by every template."""

from collections import ChainMap
from types import BuiltinFunctionType, FunctionType, MethodType

from flask import Flask, current_app, has_request_context, request
from flask.globals import _cv_app, _cv_request
from flask_babel import get_locale
from flask_wtf.csrf import generate_csrf
from jinja2.runtime import Context
from jinja2.utils import _PassArg, internalcode
from markupsafe import Markup, escape

from app import actors, formatting
from app.clock import utcnow
from app.extension_points import NAVIGATION_MENUS
from app.form_html import init_form_html
from app.i18n import offered_languages, timezone_groups


def _page_globals() -> dict:
    return {
        # Features lend the bar menus of their own (the notifications bell).
        "navigation_menus": NAVIGATION_MENUS.each(),
        # The language the page is written in, for <html lang> and the switch.
        "current_locale": str(get_locale() or current_app.config["DEFAULT_LOCALE"]),
        "languages": offered_languages(),
    }


# Addresses a template builds, remembered beyond this many are all forgotten at once.
URLS_REMEMBERED = 4096


def _url_builder(app: Flask):
    """``url_for`` for ``app``'s templates, each address built once.

    A page links to fifty addresses or more (the navigation bar, stylesheets and scripts,
    cards), and building one walks the URL map: it was a third of the catalogue's own work.
    An address depends only on the endpoint, the values and where the app is mounted; what
    else could change it (a relative endpoint, ``_external`` or ``_scheme``, URL-defaults
    functions, a value that cannot be a key) is built each time, as before.
    """
    urls: dict[tuple, str] = {}

    def remembered_url_for(endpoint: str, **values) -> str:
        # The request's context is read directly rather than through ``request``'s proxy: a
        # page asks for forty addresses, and the proxy's steps cost more than the lookup.
        request_context = _cv_request.get(None)
        if (
            request_context is None
            or endpoint[:1] == "."
            or "_external" in values
            or "_scheme" in values
            or app.url_default_functions
        ):
            return app.url_for(endpoint, **values)
        if values:
            key = (request_context.request.root_path, endpoint, *values.items())
        else:
            key = (request_context.request.root_path, endpoint)
        try:
            return urls[key]
        except KeyError:
            pass
        except TypeError:  # a value that cannot be a key
            return app.url_for(endpoint, **values)
        if len(urls) >= URLS_REMEMBERED:
            urls.clear()
        url = urls[key] = app.url_for(endpoint, **values)
        return url

    return remembered_url_for


class _TemplateGlobals(ChainMap):
    """A template's globals over the environment's, as Jinja keeps them, with a set of names
    tested in one step: Jinja subtracts these names from the importing page's at each
    ``{% from ... import %}``, and the chain's own view tested each of sixty names against
    each map in Python (a tenth of a page's calls went to a page's dozen imports)."""

    def keys(self):
        merged: dict = {}
        for mapping in reversed(self.maps):
            merged.update(mapping)
        return merged.keys()


# Callables whose ``__call__`` (a method-wrapper) can carry no Jinja marker of its own: for
# these, Jinja's own test of ``__call__`` always finds nothing.
_PLAIN_CALLABLES = frozenset({FunctionType, MethodType, BuiltinFunctionType})


class _PageContext(Context):
    """Jinja's template context, calling plain functions in fewer steps.

    Every call a template makes (``_()``, ``url_for``, ``icon``, a method) goes through
    ``Context.call``, which tests the callable and its ``__call__`` for Jinja's markers and
    tidies its keyword arguments: six steps around each call, the largest part of what a page's
    bar cost. For a plain function or method without a marker, or one that takes the evaluation
    context (the templates' ``_()``), the call is made at once; any other (a callable object,
    one that takes the whole context) goes through Jinja's own ``call`` as before.
    """

    @internalcode
    def call(__self, __obj, *args, **kwargs):  # noqa: N805 - Jinja's own signature
        if __obj.__class__ not in _PLAIN_CALLABLES:
            return Context.call(__self, __obj, *args, **kwargs)
        pass_arg = getattr(__obj, "jinja_pass_arg", None)
        if pass_arg is _PassArg.eval_context:
            args = (__self.eval_ctx, *args)
        elif pass_arg is not None:
            return Context.call(__self, __obj, *args, **kwargs)
        if kwargs:
            if "_block_vars" in kwargs:
                del kwargs["_block_vars"]
            if "_loop_vars" in kwargs:
                del kwargs["_loop_vars"]
        try:
            return __obj(*args, **kwargs)
        except StopIteration:
            return __self.environment.undefined(
                "value was undefined because a callable raised a StopIteration exception"
            )


def _make_globals(app: Flask):
    environment = app.jinja_env

    def make_globals(template_globals=None):
        return _TemplateGlobals(
            {} if template_globals is None else template_globals, environment.globals
        )

    return make_globals


def _icon_drawer(app: Flask):
    """``icon(name)``: a Bootstrap icon from the sprite, as Flask-Bootstrap's ``render_icon``
    draws it with the portal's settings (``BOOTSTRAP_ICON_SIZE``, no colour, no icon font),
    without a macro import and call (seventy steps for each icon of the bar). Each icon is
    drawn once per place the app is mounted: the settings hold from start to stop."""
    url_for = app.jinja_env.globals["url_for"]
    drawn: dict[tuple[str, str], Markup] = {}

    def draw(name: str) -> Markup:
        size = escape(app.config["BOOTSTRAP_ICON_SIZE"])
        sprite = url_for("bootstrap.static", filename="icons/bootstrap-icons.svg")
        return Markup(  # noqa: S704 - the parts are escaped
            f'<svg class="bi" width="{size}" height="{size}" fill="currentColor">\n'
            f'    <use xlink:href="{escape(sprite)}#{escape(name)}"/>\n</svg>'
        )

    def icon(name: str) -> Markup:
        request_context = _cv_request.get(None)
        if request_context is None:
            return draw(name)
        key = (request_context.request.root_path, name)
        try:
            return drawn[key]
        except KeyError:
            pass
        except TypeError:  # a name that cannot be a key
            return draw(name)
        if len(drawn) >= URLS_REMEMBERED:
            drawn.clear()
        found = drawn[key] = draw(name)
        return found

    return icon


def _csrf_token_writer(app: Flask):
    """``csrf_token()``: Flask-WTF's ``generate_csrf``, reading the token it keeps on ``g`` for
    the rest of the request directly. A page writes the token into each of its forms (the
    bar's language switch and logout, the page's own), and each later asking went through
    the configuration's and ``g``'s proxies to find the same token."""
    field_name = app.config["WTF_CSRF_FIELD_NAME"]

    def csrf_token() -> str:
        app_context = _cv_app.get(None)
        if app_context is not None:
            try:
                return app_context.g.__dict__[field_name]
            except KeyError:
                pass
        return generate_csrf()

    return csrf_token


def _bootstrap_tags(app: Flask):
    """``bootstrap_css()`` and ``bootstrap_js()``: Flask-Bootstrap's stylesheet and script tags,
    each made once per place the app is mounted.

    The tags depend on the Bootstrap settings, which hold from start to stop, and on the
    address of the files served locally; Flask-Bootstrap made them anew for every page, building
    the address through the URL map each time.
    """
    made: dict[tuple[str, str], Markup] = {}

    def remembered(which: str):
        def tags() -> Markup:
            if not has_request_context():
                return getattr(app.extensions["bootstrap"], which)()
            key = (which, request.script_root)
            found = made.get(key)
            if found is None:
                found = made[key] = getattr(app.extensions["bootstrap"], which)()
            return found

        return tags

    return remembered("load_css"), remembered("load_js")


def init_templating(app: Flask) -> None:
    app.jinja_env.make_globals = _make_globals(app)
    app.jinja_env.context_class = _PageContext
    app.jinja_env.globals["url_for"] = _url_builder(app)
    app.jinja_env.globals["icon"] = _icon_drawer(app)
    app.jinja_env.globals["csrf_token"] = _csrf_token_writer(app)
    css, js = _bootstrap_tags(app)
    app.jinja_env.globals.update(bootstrap_css=css, bootstrap_js=js)
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    init_form_html()
    # Over Flask-WTF's own ``csrf_token`` (its processor runs before this one): the same token,
    # found in fewer steps.
    csrf_token = app.jinja_env.globals["csrf_token"]
    app.context_processor(lambda: {**_page_globals(), "csrf_token": csrf_token})
    app.add_template_global(timezone_groups)
    app.add_template_global(utcnow)
    # Dates, numbers and sizes in the person's language and time zone (app.formatting). The
    # filter names predate the languages, so every template follows without a change.
    app.add_template_filter(formatting.when, "datetime")
    app.add_template_filter(formatting.day, "date")
    app.add_template_filter(formatting.relative, "relative")
    app.add_template_filter(formatting.number, "number")
    app.add_template_filter(actors.who, "who")
    # An absent or zero amount reads as a dash in the figures' tables.
    app.add_template_filter(lambda value: formatting.size(value) if value else "\u2014", "size")
