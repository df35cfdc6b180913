"""Flask extensions, created unbound so that any module can import them without an app."""

from flask_babel import Babel
from flask_bootstrap import Bootstrap5
from flask_login import LoginManager
from flask_mailman import Mail
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_talisman import Talisman
from flask_wtf.csrf import CSRFProtect
from sqlalchemy import event
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
login_manager = LoginManager()
csrf = CSRFProtect()
bootstrap = Bootstrap5()
talisman = Talisman()
# Words for people go through gettext (`_()` in templates, flask_babel.gettext in code), so
# that every page can be translated.
babel = Babel()
# Notifications by e-mail (app.notifications): composition and the SMTP conversation.
mail = Mail()


def listen_once(target, identifier: str, listener) -> None:
    """``sqlalchemy.event.listen``, once per process: listeners on ``db.session``, on
    ``Session`` and on the models are process-wide (every app shares them), while
    ``create_app``, which registers them (in the order it states), runs once per app."""
    if not event.contains(target, identifier, listener):
        event.listen(target, identifier, listener)
