"""The research cloud portal: a Flask application built by ``create_app``."""

import os

from flask import Flask

from app.backends import registry
from app.bounds import init_bounds
from app.clock import install_configured_clock
from app.config import DEFAULT_INSTANCE, PROJECT_ROOT, load_config


# Functions remembered as plain (not coroutine) functions, beyond this many all forgotten.
PLAIN_REMEMBERED = 4096


class Portal(Flask):
    """Flask, asking once per function whether it is a coroutine function: a request passes
    each of its hooks, context processors and view through ``ensure_sync``, twenty functions,
    and each asking took six steps of ``inspect``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._plain_functions: set = set()

    def ensure_sync(self, func):
        plain = self._plain_functions
        try:
            if func in plain:
                return func
        except TypeError:  # a callable that cannot be a key
            return super().ensure_sync(func)
        synchronous = super().ensure_sync(func)
        if synchronous is func:
            if len(plain) >= PLAIN_REMEMBERED:
                plain.clear()
            plain.add(func)
        return synchronous


def create_app(config: dict | None = None, instance_path: str | None = None) -> Flask:
    """Build the portal. ``config`` overrides every other source (tests pass a mapping).

    Raises ConfigurationError when the configuration is unsafe or unusable.
    """
    app = Portal(
        __name__,
        template_folder=str(PROJECT_ROOT / "templates"),
        static_folder=str(PROJECT_ROOT / "static"),
        instance_path=instance_path
        or os.environ.get("PORTAL_INSTANCE_PATH")
        or str(DEFAULT_INSTANCE),
        instance_relative_config=True,
    )
    load_config(app, config)
    registry.settle(app.config)
    install_configured_clock(app.config)
    init_bounds(app)
    _init_logging(app)
    _init_extensions(app)
    _register_blueprints(app)
    _register_cli(app)
    return app


def _init_logging(app: Flask) -> None:
    from app.logging import init_logging

    init_logging(app)


def _init_extensions(app: Flask) -> None:
    # Features start from the bottom floor up: a feature may plug into a point a lower one
    # offers (app.extension_points: the quotas' usage panel on My deployments, the launch's
    # cost box on the admin preview).
    from app.api import init_api
    from app.auth import init_auth
    from app.backends.registry import demo_notice
    from app.capacity import init_capacity
    from app.catalogue import init_catalogue
    from app.errors import register_error_handlers
    from app.extensions import bootstrap, csrf, db, migrate
    from app.groups import init_groups
    from app.i18n import init_i18n
    from app.launch import init_launch
    from app.leases import init_leases
    from app.lines import init_waiting
    from app.metrics import init_metrics
    from app.notifications import init_notifications
    from app.quotas import init_quotas
    from app.security import init_security
    from app.sync import init_sync
    from app.templating import init_templating

    db.init_app(app)
    _register_listeners(app)
    # Batch mode lets Alembic alter SQLite tables, which lack ALTER COLUMN.
    migrate.init_app(app, db, directory=app.config["MIGRATIONS_DIR"], render_as_batch=True)
    csrf.init_app(app)
    init_i18n(app)
    bootstrap.init_app(app)
    init_security(app)
    init_metrics(app)
    init_auth(app)
    init_catalogue(app)
    init_quotas(app)
    init_notifications(app)
    init_sync(app)
    init_leases(app)
    init_capacity(app)
    init_waiting(app)
    init_launch(app)
    init_groups(app)
    init_api(app)
    init_templating(app)
    # Every page warns while a demo backend is in use, where the page concerns it.
    app.add_template_global(demo_notice)
    register_error_handlers(app)


def _register_listeners(app: Flask) -> None:
    """Every database listener of the portal, registered here and nowhere else, in this order.

    Right after ``db.init_app``: the engines' listeners must be there before any connection is
    opened (a connection opened earlier would never read outside transactions). Listeners on
    the same event run in the order registered; only one event has two: ``before_flush`` on
    the portal's sessions, where the outbox comes before the lease's clock. The outbox then
    tells of the timeline entries the flush began with; the lease listener's own entries
    (``lease-chosen``) are flushed with them and tell nobody. A lease entry that should tell
    someone would need the lease listener first. The other listeners are alone on their
    event, but the quotas' two on a deployment's insert and update (its charge rows, then its
    usage mark, which reads nothing the charge rows write); they are listed from the bottom
    floor up. The session's and the models' listeners
    are process-wide: registering them again for another app changes nothing.
    """
    from app import transactions
    from app.auth import logins
    from app.deployments import stamps, timeline
    from app.leases import hooks as lease_hooks
    from app.notifications import listener as outbox
    from app.quotas import charges, usage_marks

    transactions.listen(app)  # the engines: reads outside transactions on PostgreSQL
    logins.listen()  # a request that writes forgets what its login check read
    timeline.listen()  # what waits for a commit runs after it, never after a rollback
    stamps.listen()  # a change to what a row shows bumps its version (the list's polls)
    charges.listen()  # the charge tables follow Deployment.charge
    usage_marks.listen()  # a deployment's usage mark follows its charge, group and owner
    outbox.listen()  # a timeline entry worth telling its owner becomes a notification
    lease_hooks.listen()  # a deployment becoming ready, failed or gone moves its lease


def _register_blueprints(app: Flask) -> None:
    """Every blueprint of the portal, registered here and nowhere else. Each feature's
    ``init_*`` has run: a blueprint's routes are all defined before it is registered."""
    from app.api import bp as api_bp
    from app.auth import token_views  # noqa: F401  (token routes on the two blueprints below)
    from app.auth.account import bp as account_bp
    from app.auth.admin_views import bp as users_admin_bp
    from app.auth.views import bp as auth_bp
    from app.capacity.views import bp as capacity_bp
    from app.catalogue.admin import bp as catalogue_admin_bp
    from app.catalogue.served_types import bp as catalogue_types_bp
    from app.catalogue.views import bp as catalogue_bp
    from app.deployments.sharing_views import bp as sharing_bp
    from app.deployments.views import bp as deployments_bp
    from app.groups.views import bp as groups_bp
    from app.launch.views import bp as launch_bp
    from app.leases.views import bp as leases_bp
    from app.lines.views import bp as waiting_bp
    from app.main.views import bp as main_bp
    from app.metrics.views import bp as metrics_bp
    from app.notifications.views import bp as notifications_bp
    from app.quotas.views import bp as quotas_bp
    from app.sync.callbacks import bp as deployment_callbacks_bp

    # In the order they have always been registered: where two rules match one address
    # equally, the first registered answers.
    for blueprint in (
        metrics_bp,
        quotas_bp,
        launch_bp,
        notifications_bp,
        waiting_bp,
        main_bp,
        auth_bp,
        account_bp,
        users_admin_bp,
        catalogue_bp,
        catalogue_admin_bp,
        catalogue_types_bp,
        deployments_bp,
        sharing_bp,
        deployment_callbacks_bp,
        leases_bp,
        capacity_bp,
        groups_bp,
        api_bp,
    ):
        app.register_blueprint(blueprint)


def _register_cli(app: Flask) -> None:
    from app.auth.cli import users_cli
    from app.auth.group_cli import groups_cli
    from app.auth.token_cli import tokens_cli
    from app.backends.cli import backends_cli
    from app.backends.paas.cli import orchestrator_cli
    from app.capacity.cli import capacity_cli, sites_cli
    from app.catalogue.cli import catalogue_cli
    from app.launch import cli as launch_cli  # noqa: F401  (adds "admit" to ``flask lines``)
    from app.leases.cli import leases_cli
    from app.lines.cli import lines_cli
    from app.notifications.cli import notifications_cli
    from app.quotas.cli import quota_cli
    from app.sync.cli import deployments_cli
    from app.worker import worker_command

    for group in (
        users_cli,
        groups_cli,
        tokens_cli,
        catalogue_cli,
        deployments_cli,
        orchestrator_cli,
        backends_cli,
        quota_cli,
        notifications_cli,
        leases_cli,
        sites_cli,
        capacity_cli,
        lines_cli,
        worker_command,
    ):
        app.cli.add_command(group)
