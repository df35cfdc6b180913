"""Dates, times, numbers and sizes read in the person's language and time zone."""

from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from flask import render_template_string
from flask_babel import force_locale

from app import formatting
from app.errors import ConfigurationError

MOMENT = datetime(2026, 11, 25, 13, 5)  # stored times are naive UTC


@pytest.fixture
def in_request(app):
    with app.test_request_context():
        yield


@pytest.mark.parametrize(
    ("locale", "zone", "shown"),
    [
        ("en", None, "Nov 25, 2026, 13:05 UTC"),
        ("it", None, "25 nov 2026, 13:05 UTC"),
        ("it", "Europe/Rome", "25 nov 2026, 14:05 CET"),
        ("en", "Europe/Rome", "Nov 25, 2026, 14:05 CET"),
        ("it", "America/New_York", "25 nov 2026, 08:05 EST"),
    ],
)
def test_a_moment_is_shown_in_the_language_and_zone(in_request, locale, zone, shown):
    with force_locale(locale):
        assert formatting.when(MOMENT, zone) == shown


def test_summer_time_is_named_as_such(in_request):
    with force_locale("it"):
        assert formatting.when(datetime(2026, 7, 1, 10, 0), "Europe/Rome") == (
            "1 lug 2026, 12:00 CEST"
        )


def test_a_day_is_the_date_in_the_zone(in_request):
    late = datetime(2026, 11, 25, 23, 30)
    with force_locale("it"):
        assert formatting.day(late) == "25 nov 2026"
        assert formatting.day(late, "Europe/Rome") == "26 nov 2026"
        assert formatting.day(date(2026, 1, 2)) == "2 gen 2026"
    with force_locale("en"):
        assert formatting.day(date(2026, 1, 2)) == "Jan 2, 2026"


@pytest.mark.parametrize(
    ("locale", "value", "shown"),
    [
        ("en", 1_500_000_000, "1.5 GB"),
        ("it", 1_500_000_000, "1,5 GB"),
        ("it", 8 * 10**9, "8 GB"),
        ("it", 2 * 2**30, "2 GiB"),
        ("it", 1536 * 10**9, "1.536 GB"),
        ("it", 2_500_000_000_001, "2,5 TB"),
        ("en", 2_000_000_000_000, "2 TB"),
        ("it", 250 * 10**6, "250 MB"),
        ("it", 512, "512 B"),
    ],
)
def test_sizes_read_in_the_unit_they_were_written_in(in_request, locale, value, shown):
    with force_locale(locale):
        assert formatting.size(value) == shown


def test_numbers_take_the_languages_separators(in_request):
    with force_locale("it"):
        assert formatting.number(1234.5) == "1.234,5"
        assert formatting.number(2, places=1) == "2,0"
    with force_locale("en"):
        assert formatting.number(1234.5) == "1,234.5"


def test_relative_times_read_as_words(in_request):
    with force_locale("it"):
        assert formatting.relative(MOMENT + timedelta(hours=3), now=MOMENT) == "tra 3 ore"
        assert formatting.relative(MOMENT - timedelta(days=2), now=MOMENT) == "2 giorni fa"
        assert formatting.relative(timedelta(minutes=30)) == "30 minuti"
    with force_locale("en"):
        assert formatting.relative(MOMENT + timedelta(hours=3), now=MOMENT) == "in 3 hours"


def test_nothing_to_show_is_shown_as_nothing(in_request):
    assert formatting.when(None) == formatting.size(None) == formatting.number(None) == ""


def test_the_templates_filters_follow_the_request_language(app):
    source = (
        "{{ at | datetime }} · {{ at | date }} · {{ n | number }} · {{ b | size }} · {{ 0 | size }}"
    )
    values = {"at": MOMENT, "n": 0.5, "b": 1_500_000_000}
    with app.test_request_context(headers={"Accept-Language": "it"}):
        assert render_template_string(source, **values) == (
            "25 nov 2026, 13:05 UTC · 25 nov 2026 · 0,5 · 1,5 GB · \u2014"
        )
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert render_template_string(source, **values) == (
            "Nov 25, 2026, 13:05 UTC · Nov 25, 2026 · 0.5 · 1.5 GB · \u2014"
        )


def test_the_site_time_zone_applies_to_people_who_chose_none(make_app):
    app = make_app(DEFAULT_TIMEZONE="Europe/Rome")
    with app.test_request_context(headers={"Accept-Language": "it"}):
        assert render_template_string("{{ at | datetime }}", at=MOMENT) == (
            "25 nov 2026, 14:05 CET"
        )


def test_an_unknown_site_time_zone_stops_the_start(make_app):
    with pytest.raises(ConfigurationError, match="DEFAULT_TIMEZONE is 'Europe/Atlantis'"):
        make_app(DEFAULT_TIMEZONE="Europe/Atlantis")


def test_what_is_written_for_a_person_follows_their_language_and_zone(app):
    """The mail worker writes outside any request of the person it writes to."""
    from types import SimpleNamespace

    from flask_babel import gettext

    from app.i18n import read_by

    ada = SimpleNamespace(locale="it", timezone="Europe/Rome")
    nobody = SimpleNamespace(locale=None, timezone=None)
    with app.app_context():
        with read_by(ada):
            assert formatting.when(MOMENT) == "25 nov 2026, 14:05 CET"
            assert gettext("Close") == "Chiudi"
            with read_by(nobody):
                assert formatting.when(MOMENT) == "Nov 25, 2026, 13:05 UTC"
            assert formatting.when(MOMENT) == "25 nov 2026, 14:05 CET"
        assert formatting.when(MOMENT) == "Nov 25, 2026, 13:05 UTC"
        assert gettext("Close") == "Close"


def test_a_lazily_translated_message_is_escaped_like_any_text(app):
    """Flask-Babel's lazy strings call themselves safe HTML; what someone typed inside one
    (a form error quoting the value) must still be escaped on the page."""
    from flask import render_template_string
    from flask_babel import lazy_gettext

    message = lazy_gettext("%(value)s is not a number", value='<script>alert("x")</script>')
    with app.test_request_context("/"):
        page = render_template_string("<p>{{ message }}</p>", message=message)
    assert "<script>" not in page
    assert "&lt;script&gt;" in page


def test_a_page_switching_language_midway_reads_each_part_in_its_language(app):
    """Templates keep the catalogue they found for a language; force_locale (an e-mail or a
    preview in another language inside the same request) must still be heard."""
    from flask import render_template_string

    words = '{{ _("Catalogue") }}'
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert render_template_string(words) == "Catalogue"
        with force_locale("it"):
            assert render_template_string(words) == "Catalogo"
        assert render_template_string(words) == "Catalogue"


def test_template_messages_escape_what_is_put_into_them_and_not_themselves(app):
    """Templates translate with Jinja's newstyle rules: a message is markup in an HTML template,
    so the values put into it are escaped; in a plain-text template (an e-mail) nothing is."""
    from flask import render_template_string

    typed = "<b>Ada & Bob</b>"
    html = (
        '{{ _("Delete %(name)s", name=typed) }}|'
        "{% trans name=typed %}Delete {{ name }}{% endtrans %}|"
        '{{ ngettext("Ended %(num)d other session.", "Ended %(num)d other sessions.", 2) }}|'
        '{{ pgettext("navigation bar", "Leases") }}'
    )
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        page = render_template_string(html, typed=typed)
        text = render_template_string(
            "{% autoescape false %}" + html + "{% endautoescape %}", typed=typed
        )
    escaped = "&lt;b&gt;Ada &amp; Bob&lt;/b&gt;"
    assert page == f"Delete {escaped}|Delete {escaped}|Ended 2 other sessions.|Leases"
    assert text == f"Delete {typed}|Delete {typed}|Ended 2 other sessions.|Leases"


def test_template_messages_inside_loops_follow_the_language(app):
    from flask import render_template_string

    loop = (
        "{% for n in [1, 2] %}"
        '{{ ngettext("Ended %(num)d other session.", "Ended %(num)d other sessions.", n) }} '
        "{% endfor %}"
    )
    with app.test_request_context("/", headers={"Accept-Language": "it"}):
        assert render_template_string(loop) == "Chiusa 1 altra sessione. Chiuse 2 altre sessioni. "
        assert render_template_string('{{ pgettext("navigation bar", "Leases") }}') == "Scadenze"


def test_code_and_templates_read_the_same_catalogue_and_hear_a_language_switch(app):
    """Python's gettext finds the page's catalogue once too; force_locale (an e-mail in its
    reader's language) must still be heard, and the page's own language come back after."""
    from flask_babel import gettext, lazy_gettext

    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert gettext("Catalogue") == "Catalogue"
        with force_locale("it"):
            assert gettext("Catalogue") == "Catalogo"
            assert str(lazy_gettext("Catalogue")) == "Catalogo"
        assert gettext("Catalogue") == "Catalogue"
    with app.app_context():  # no request: the portal's commands speak English
        assert gettext("Catalogue") == "Catalogue"


def _calls(function) -> int:
    """The Python function calls ``function()`` makes: a cost that does not depend on how busy
    the machine is."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.runcall(function)
    return pstats.Stats(profile).total_calls


@pytest.mark.parametrize("language", ["en", "it"])
def test_a_word_costs_a_page_a_few_function_calls_in_templates_and_code(app, language):
    """A page shows two hundred words or more, each looked up in the catalogue of the page's
    language: finding that catalogue must not cost more than the look-up (it used to go through
    Flask's context proxies several times for every word)."""
    from flask_babel import gettext, lazy_gettext
    from jinja2.nodes import EvalContext

    template_gettext = app.jinja_env.globals["_"]
    html = EvalContext(app.jinja_env)
    html.autoescape = True
    lazy = lazy_gettext("Catalogue")
    expected = "Catalogo" if language == "it" else "Catalogue"
    with app.test_request_context("/", headers={"Accept-Language": language}):
        assert gettext("Catalogue") == template_gettext(html, "Catalogue") == expected
        per_template_word = _calls(
            lambda: [template_gettext(html, "Catalogue") for _n in range(200)]
        )
        per_code_word = _calls(lambda: [gettext("Catalogue") for _n in range(200)])
        per_lazy_word = _calls(lambda: [str(lazy) for _n in range(200)])
    # Each measures 200 words (and the one call of the list being built).
    assert per_template_word / 200 <= 16
    assert per_code_word / 200 <= 16
    assert per_lazy_word / 200 <= 18


def test_a_moment_or_number_shown_again_is_not_built_again(in_request, monkeypatch):
    """Every row of a list shows its dates again at every poll: once written in a language and
    zone, a moment (and a number) is not built from the language's data again."""
    built = []
    monkeypatch.setattr(
        formatting, "format_skeleton", lambda *a, **k: built.append(a) or "x", raising=True
    )
    moment = datetime(2026, 3, 4, 5, 6, 7)
    with force_locale("it"):
        first = formatting.when(moment, "Asia/Tokyo")
        assert len(built) == 2
        assert formatting.when(moment, "Asia/Tokyo") == first
        assert len(built) == 2
        formatting.when(moment, "Europe/Rome")  # another zone is another text
        assert len(built) == 4
    with force_locale("en"):
        formatting.when(moment, "Asia/Tokyo")  # and so is another language
        assert len(built) == 6


def test_a_number_shown_again_is_not_built_again_and_each_is_still_babels(in_request):
    """Equal numbers of different types (1, 1.0, Decimal("1.50")) and equal values in two
    languages are each written as Babel writes them, whichever was written first; and a number
    written once in a language is not built from the language's data again."""
    from babel import numbers

    for language in ("it", "en", "it"):
        with force_locale(language):
            for value in (1, 1.0, Decimal("1.50"), 1234.5, 0.5, 2, 2.0, Decimal("2")):
                assert formatting.number(value) == numbers.format_decimal(value, locale=language)
                assert formatting.number(value, places=2) == numbers.format_decimal(
                    value, format="#,##0.00", locale=language
                )
    built = []
    real = numbers.format_decimal
    numbers.format_decimal = lambda *a, **k: built.append(a) or real(*a, **k)
    try:
        with force_locale("it"):
            first = formatting.number(98765.4321)
            assert formatting.number(98765.4321) == first == "98.765,432"
    finally:
        numbers.format_decimal = real
    assert len(built) == 1


def test_a_kept_moment_day_or_number_is_found_without_babels_locale_comparing_itself(
    in_request, monkeypatch
):
    """A Babel ``Locale`` hashes and compares itself in Python, and every request has a new
    one: texts are kept under the language's name, so finding one again asks it nothing."""
    from babel.core import Locale

    moment = datetime(2026, 5, 6, 7, 8)
    with force_locale("it"):
        shown = (
            formatting.when(moment, "Europe/Rome"),
            formatting.day(moment),
            formatting.number(3.5),
        )
    asked = []
    monkeypatch.setattr(Locale, "__hash__", lambda self: asked.append(self) or 0)
    monkeypatch.setattr(Locale, "__eq__", lambda self, other: asked.append(self) or False)
    with force_locale("it"):
        again = (
            formatting.when(moment, "Europe/Rome"),
            formatting.day(moment),
            formatting.number(3.5),
        )
        assert formatting.moments("Europe/Rome")(moment) == shown[0]
    assert again == shown == ("6 mag 2026, 09:08 CEST", "6 mag 2026", "3,5")
    assert asked == []


def test_text_written_outside_an_application_is_babels_default_languages():
    """Text written with no application about it (a test's expected sentence, a script's) has
    no language being served: it is written as Babel writes it with no language named."""
    from babel import numbers
    from babel.dates import format_skeleton

    moment = datetime(2026, 3, 4, 5, 6, 7)
    assert formatting.number(1234.5) == numbers.format_decimal(1234.5, locale=None)
    assert formatting.day(moment.date()) == format_skeleton("yMMMd", moment.date(), locale=None)
