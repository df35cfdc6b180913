"""A process of the take-over race: its own app, taking over at the barrier."""

from app import create_app
from app.auth.models import User
from app.errors import PortalError
from app.extensions import db
from app.launch import taking_over


def run(config, instance, user_id, deployment_id, barrier, results) -> None:
    """Take deployment ``deployment_id`` over as ``user_id`` once every process is ready; puts
    "taken" or the refusal's class and words on ``results``."""
    app = create_app(dict(config), instance_path=instance)
    with app.app_context():
        taker = db.session.get(User, user_id)
        barrier.wait(timeout=120)
        try:
            taking_over.take_over(taker, deployment_id)
            results.put(("taken", user_id))
        except PortalError as error:
            results.put((type(error).__name__, error.message))
        except Exception as error:  # reported to the test, which fails on it
            results.put(("error", repr(error)))
        finally:
            db.session.remove()
            db.engine.dispose()
