"""The language switch of the navigation bar and the Account page's language and time zone.

Both selects are drawn by hand (each language option carries its own ``lang``, time zones are
grouped by region), so the fields here only read and check what comes back.
"""

from flask import current_app
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import HiddenField, StringField
from wtforms.validators import ValidationError

from app.i18n import LANGUAGES, is_timezone


def _known_language(form, field) -> None:
    if field.data not in LANGUAGES:
        raise ValidationError(
            _(
                "The portal does not speak “%(code)s”. Choose one of: %(languages)s.",
                code=(field.data or "")[:16],
                languages=", ".join(LANGUAGES.values()),
            )
        )


def _known_zone(form, field) -> None:
    # Empty means the site's default, which follows the operators' setting if it changes.
    if field.data and not is_timezone(field.data):
        raise ValidationError(
            _(
                "“%(zone)s” is not a time zone the portal knows. Choose one from the list, "
                "such as %(example)s.",
                zone=field.data[:64],
                example="Europe/Rome",
            )
        )


class LanguageSwitchForm(FlaskForm):
    locale = StringField(_l("Language"), validators=[_known_language])
    # The page the switch was used on, shown again in the new language.
    next = HiddenField()


class LanguageForm(FlaskForm):
    locale = StringField(_l("Language"), validators=[_known_language])
    timezone = StringField(_l("Time zone"), validators=[_known_zone])

    @classmethod
    def for_user(cls, user, current_locale: str) -> "LanguageForm":
        return cls(
            formdata=None,
            data={"locale": user.locale or current_locale, "timezone": user.timezone or ""},
        )

    @staticmethod
    def default_zone() -> str:
        return current_app.config["DEFAULT_TIMEZONE"]
