"""The person's language and time zone: their own choice, else the browser's, else the site's."""

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from types import SimpleNamespace
from zoneinfo import available_timezones

import flask_babel
import pytz
from flask import Flask, current_app, g, has_app_context, has_request_context, request, session
from flask.globals import _cv_app
from flask_babel import Domain, force_locale, get_domain, refresh
from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString
from flask_login import current_user, user_logged_in, user_logged_out
from jinja2 import pass_eval_context
from markupsafe import Markup, escape

from app.extension_points import StateKey

# The languages the portal speaks, by code, each named in itself (as the switch shows them).
LANGUAGES = {"en": "English", "it": "Italiano"}
# The language the words are written in (code and templates): it needs no catalogue. Another
# language is offered only when its catalogue loads (app.catalogues), so that a page never
# claims a language it is not written in.
SOURCE_LOCALE = "en"
_OFFERED = StateKey("offered languages")
# The language each Accept-Language header picks (``browser_locale``): the same few headers
# come again and again, and reading one took sixty steps. Beyond this many, all are forgotten.
_BROWSER_CHOICES = StateKey("languages browsers ask for")
BROWSER_CHOICES_KEPT = 1024
# Outside a request (flask commands, the workers) the portal speaks English whatever
# DEFAULT_LOCALE says: operators' scripts read what commands print, and operators quote it in
# tickets. What is written for a person outside their requests (e-mails) goes through read_by,
# which forces that person's language.
COMMAND_LOCALE = "en"
# Before logging in, the switch keeps the choice here; at login it moves to the account.
SESSION_KEY = "locale"
# The time zone of the person something is written for outside their requests (``read_by``).
_READER_ZONE = "i18n_reader_zone"

# The time zone list is grouped by the first part of the IANA name; these are the groups people
# live in (the others are aliases kept for old systems: "US/Eastern", "Etc/GMT+3").
REGIONS = {
    "Europe": _l("Europe"),
    "America": _l("America"),
    "Africa": _l("Africa"),
    "Asia": _l("Asia"),
    "Australia": _l("Australia"),
    "Pacific": _l("Pacific"),
    "Atlantic": _l("Atlantic"),
    "Indian": _l("Indian Ocean"),
    "Antarctica": _l("Antarctica"),
    "Arctic": _l("Arctic"),
}


def speak_as(person) -> None:
    """Answer the rest of this request in ``person``'s chosen language and time zone: for
    requests whose person is known without a login session (the API's bearer tokens)."""
    g.i18n_person = person
    refresh()  # forget what Flask-Babel picked before the person was known


def _person():
    if person := g.get("i18n_person"):
        return person
    return current_user if current_user else None


def offered_languages() -> dict[str, str]:
    """The languages pages are served in: ``LANGUAGES`` less those whose catalogue did not load."""
    return current_app.extensions[_OFFERED]


def _site_locale() -> str:
    default = current_app.config["DEFAULT_LOCALE"]
    return default if default in offered_languages() else SOURCE_LOCALE


def chosen_locale() -> str | None:
    """The language the person picked (on their account, or in this session), if any."""
    if not has_request_context():
        return None
    offered = offered_languages()
    stored = getattr(_person(), "locale", None)
    if stored in offered:
        return stored
    picked = session.get(SESSION_KEY)
    return picked if picked in offered else None


def browser_locale() -> str | None:
    """The first language the browser asks for that the portal speaks, by the browser's order:
    "de-DE, it-CH;q=0.8, en;q=0.5" is Italian (a regional variant counts as its language, as
    Werkzeug's best_match would count it only after every exact match)."""
    header = request.headers.get("Accept-Language", "")
    choices = current_app.extensions[_BROWSER_CHOICES]
    if header not in choices:
        offered = offered_languages()
        asked = (
            tag.replace("_", "-").split("-", 1)[0].lower() for tag, _ in request.accept_languages
        )
        if len(choices) >= BROWSER_CHOICES_KEPT:
            choices.clear()
        choices[header] = next((code for code in asked if code in offered), None)
    return choices[header]


def select_locale() -> str:
    if not has_request_context():
        return COMMAND_LOCALE
    return chosen_locale() or browser_locale() or _site_locale()


def select_timezone() -> str:
    if has_app_context() and (reader := g.get(_READER_ZONE)):
        return reader
    stored = getattr(_person(), "timezone", None) if has_request_context() else None
    return stored if is_timezone(stored) else current_app.config["DEFAULT_TIMEZONE"]


@contextmanager
def read_by(user) -> Iterator[None]:
    """Words, dates and times as ``user`` reads them, for what is written outside their own
    requests (the mail worker's e-mails): their language and time zone, else the site's."""
    locale = user.locale if user.locale in offered_languages() else _site_locale()
    zone = user.timezone if is_timezone(user.timezone) else current_app.config["DEFAULT_TIMEZONE"]
    outer = g.get(_READER_ZONE)
    with force_locale(locale):
        setattr(g, _READER_ZONE, zone)
        refresh()  # forget the zone Flask-Babel cached for the surrounding context
        try:
            yield
        finally:
            setattr(g, _READER_ZONE, outer)
            refresh()


@cache
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones())


def is_timezone(name: str | None) -> bool:
    """Whether ``name`` is an IANA time zone (any, aliases included)."""
    return bool(name) and name in _known_zones()


@cache
def _zones_by_region() -> tuple[tuple[str, tuple[str, ...]], ...]:
    grouped: dict[str, list[str]] = {region: [] for region in REGIONS}
    for name in pytz.common_timezones:
        region = name.split("/", 1)[0]
        if region in grouped and name in _known_zones():
            grouped[region].append(name)
    return tuple((region, tuple(sorted(names))) for region, names in grouped.items() if names)


def timezone_groups() -> list[tuple[str, list[tuple[str, str]]]]:
    """The time zones people choose from: (region label, [(IANA name, city)]) by region, the
    city as the name reads without its region ("America/Argentina/Buenos_Aires" is
    "Argentina/Buenos Aires" under America)."""
    return [
        (str(REGIONS[region]), [(name, name.split("/", 1)[1].replace("_", " ")) for name in names])
        for region, names in _zones_by_region()
    ]


def remember_locale(code: str) -> None:
    """Keep ``code`` as the person's language: on their account when logged in, else in this
    browser's session until they log in."""
    from app.extensions import db

    if current_user.is_authenticated:
        current_user.locale = code
        db.session.commit()
    else:
        session[SESSION_KEY] = code


def _note_choice_before_login() -> None:
    # Login starts a fresh session (nothing planted before it survives), so the language picked
    # while logged out is read now, before the login view clears it.
    if request.endpoint != "static":
        g.locale_before_login = session.get(SESSION_KEY)


def _move_choice_to_account(app: Flask, user, **_) -> None:
    from app.extensions import db

    picked = g.get("locale_before_login")
    if picked in LANGUAGES and user.locale != picked:
        user.locale = picked
        db.session.commit()


def _note_language_at_logout(app: Flask, user, **_) -> None:
    g.locale_after_logout = getattr(user, "locale", None)


def _keep_language_after_logout(response):
    # Logout clears the session; the login page it leads to stays in the person's language.
    if (code := g.get("locale_after_logout")) in LANGUAGES:
        session[SESSION_KEY] = code
    return response


def _escape_lazy_messages() -> None:
    """A lazily translated message is text, not markup. Flask-Babel's LazyString declares itself
    safe HTML (its __html__ returns it unchanged), so a form error carrying what someone typed
    ("%(value)s is not a number") would reach the page unescaped: it is escaped as any text is.
    Messages never hold markup (links inside sentences are placeholders filled by templates)."""
    LazyString.__html__ = lambda self: str(escape(str(self)))


def _babel_context() -> SimpleNamespace | None:
    """Flask-Babel's state for the current app context (the language, zone, domain and
    catalogue it found), or None outside one: Flask-Babel's own ``_get_current_context``,
    reading the context directly instead of through ``g``'s proxy.

    Every word, date and number asks for this state, several times each (the domain, then the
    language); through the proxy, a page's two hundred words and fifty dates spent more time
    finding it than translating. The state is the same object in the same place, so
    ``force_locale`` and ``refresh`` work on it as before.
    """
    app_context = _cv_app.get(None)
    if app_context is None:
        return None
    attributes = app_context.g.__dict__
    try:
        return attributes["_flask_babel"]
    except KeyError:
        state = attributes["_flask_babel"] = SimpleNamespace()
        return state


class _PageDomain(Domain):
    """Flask-Babel's message domain, finding the translations of the language being served
    once per language and context.

    A page asks for two hundred words or more, from templates and from Python alike; Flask-Babel
    looks the language and its catalogue up again for each (several context lookups and a
    locale name built each time), which made a page's words cost more than its queries. The
    catalogue is kept with the Locale it was found for: force_locale sets another Locale and
    refresh() removes it, so either is noticed.
    """

    def get_translations(self):
        ctx = _babel_context()
        if ctx is None:  # outside any app: Flask-Babel's own answer (no translation)
            return super().get_translations()
        found = ctx.__dict__.get("portal_translations")
        if found is not None and found[0] is ctx.__dict__.get("babel_locale"):
            return found[1]
        translations = super().get_translations()
        ctx.portal_translations = (getattr(ctx, "babel_locale", None), translations)
        return translations


def _page_translations():
    """The catalogue of the language served (``get_domain().get_translations()``), kept."""
    try:
        state = _cv_app.get(None).g.__dict__["_flask_babel"].__dict__
        locale, translations = state["portal_translations"]
        if locale is state["babel_locale"]:
            return translations
    except (AttributeError, KeyError):
        pass
    return get_domain().get_translations()


def _as_template_text(eval_ctx, text: str, variables: dict):
    # Jinja's newstyle rules: a message is always a format string; in an HTML template it is
    # markup, so that the values put into it are escaped and the message itself is not. The
    # message comes from the portal's own catalogue, never from what someone typed.
    if eval_ctx.autoescape:
        text = Markup(text)  # noqa: S704
    if not variables and "%" not in text:
        return text  # what ``% {}`` would give, without formatting it
    return text % variables


# Words a language's catalogue gave templates, kept with the catalogue: bounded, since a
# template may translate a word it was handed rather than one written in it.
_WORDS_KEPT = 4096


@pass_eval_context
def _template_gettext(eval_ctx, message: str, /, **variables):
    if variables or not eval_ctx.autoescape:
        translations = _page_translations()
        return _as_template_text(eval_ctx, translations.ugettext(message), variables)
    # A word with nothing to put in is the same markup each time in a language: a page's fifty
    # words were each looked up, fallen back to English and wrapped anew. Kept with the
    # catalogue, they are found by subscripts alone (as in ``_page_translations``).
    try:
        state = _cv_app.get(None).g.__dict__["_flask_babel"].__dict__
        locale, translations = state["portal_translations"]
        if locale is not state["babel_locale"]:
            raise KeyError(locale)
        return translations.__dict__["portal_markup"][message]
    except (AttributeError, KeyError):
        pass
    translations = _page_translations()
    words = translations.__dict__.get("portal_markup")
    if words is None:
        words = translations.portal_markup = {}
    found = words.get(message)
    if found is None:
        found = _as_template_text(eval_ctx, translations.ugettext(message), variables)
        if len(words) < _WORDS_KEPT:
            words[message] = found
    return found


@pass_eval_context
def _template_ngettext(eval_ctx, singular: str, plural: str, num: int, /, **variables):
    variables.setdefault("num", num)
    text = _page_translations().ungettext(singular, plural, num)
    return _as_template_text(eval_ctx, text, variables)


@pass_eval_context
def _template_pgettext(eval_ctx, context: str, message: str, /, **variables):
    variables.setdefault("context", context)
    text = _page_translations().upgettext(context, message)
    return _as_template_text(eval_ctx, text, variables)


@pass_eval_context
def _template_npgettext(
    eval_ctx, context: str, singular: str, plural: str, num: int, /, **variables
):
    variables.setdefault("context", context)
    variables.setdefault("num", num)
    text = _page_translations().unpgettext(context, singular, plural, num)
    return _as_template_text(eval_ctx, text, variables)


def _install_template_gettext(app: Flask) -> None:
    """Templates translate through ``_page_translations`` (the same catalogue and the same
    newstyle formatting as Flask-Babel's own callables, found once per page).

    Jinja's own installed callables take the whole template context; called inside a loop, each
    call first copies that context with the loop's variables, and a list's rows hold hundreds
    of words. These need only the evaluation context (whether the template escapes), so no copy
    is made.
    """
    env = app.jinja_env
    env.newstyle_gettext = True  # {% trans %} blocks fill named placeholders, as _() does
    env.globals.update(
        _=_template_gettext,
        gettext=_template_gettext,
        ngettext=_template_ngettext,
        pgettext=_template_pgettext,
        npgettext=_template_npgettext,
    )


def _offer_languages(app: Flask) -> None:
    # Before Flask-Babel reads where the catalogues are: they may be compiled elsewhere.
    from app.catalogues import init_catalogues

    readable = init_catalogues(app, set(LANGUAGES) - {SOURCE_LOCALE})
    app.extensions[_BROWSER_CHOICES] = {}
    app.extensions[_OFFERED] = {
        code: name for code, name in LANGUAGES.items() if code == SOURCE_LOCALE or code in readable
    }


def init_i18n(app: Flask) -> None:
    from app.extensions import babel

    if app.config["DEFAULT_LOCALE"] not in LANGUAGES:
        from app.errors import ConfigurationError

        raise ConfigurationError(
            f"DEFAULT_LOCALE is {app.config['DEFAULT_LOCALE']!r}; the portal speaks "
            + ", ".join(sorted(LANGUAGES))
            + "."
        )
    if not is_timezone(app.config["DEFAULT_TIMEZONE"]):
        from app.errors import ConfigurationError

        raise ConfigurationError(
            f"DEFAULT_TIMEZONE is {app.config['DEFAULT_TIMEZONE']!r}, which is not an IANA time "
            "zone name (such as 'UTC' or 'Europe/Rome')."
        )
    _offer_languages(app)
    babel.init_app(app, locale_selector=select_locale, timezone_selector=select_timezone)
    flask_babel._get_current_context = _babel_context
    babel.domain_instance = _PageDomain(domain=app.extensions["babel"].default_domain)
    _escape_lazy_messages()
    _install_template_gettext(app)
    app.before_request(_note_choice_before_login)
    app.after_request(_keep_language_after_logout)
    user_logged_in.connect(_move_choice_to_account, app)
    user_logged_out.connect(_note_language_at_logout, app)
