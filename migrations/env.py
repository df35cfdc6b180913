import logging
import zlib
from logging.config import fileConfig

from flask import current_app

from alembic import context
from sqlalchemy import text

# this is the Alembic Config object, which provides
# access to the values within the .ini file in use.
config = context.config

# Interpret the config file for Python logging.
# This line sets up loggers basically.
# Keep the application's loggers: migrations also run inside a running portal and its tests.
fileConfig(config.config_file_name, disable_existing_loggers=False)
logger = logging.getLogger("alembic.env")

# Any fixed number shared by every host: with the schema's name, it names the lock that
# serialises migrations (portals in separate schemas of one database do not wait for each other).
MIGRATION_LOCK = 74_617_201


def get_engine():
    return current_app.extensions["migrate"].db.engine


def get_engine_url():
    return get_engine().url.render_as_string(hide_password=False).replace("%", "%%")


# add your model's MetaData object here
# for 'autogenerate' support
# from myapp import mymodel
# target_metadata = mymodel.Base.metadata
config.set_main_option("sqlalchemy.url", get_engine_url())
target_db = current_app.extensions["migrate"].db

# other values from the config, defined by the needs of env.py,
# can be acquired:
# my_important_option = config.get_main_option("my_important_option")
# ... etc.


def get_metadata():
    if hasattr(target_db, "metadatas"):
        return target_db.metadatas[None]
    return target_db.metadata


def run_migrations_offline():
    """Run migrations in 'offline' mode.

    This configures the context with just a URL
    and not an Engine, though an Engine is acceptable
    here as well.  By skipping the Engine creation
    we don't even need a DBAPI to be available.

    Calls to context.execute() here emit the given string to the
    script output.

    """
    url = config.get_main_option("sqlalchemy.url")
    context.configure(url=url, target_metadata=get_metadata(), literal_binds=True)

    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online():
    """Run migrations in 'online' mode.

    In this scenario we need to create an Engine
    and associate a connection with the context.

    """

    # this callback is used to prevent an auto-migration from being generated
    # when there are no changes to the schema
    # reference: http://alembic.zzzcomputing.com/en/latest/cookbook.html
    def process_revision_directives(context, revision, directives):
        if getattr(config.cmd_opts, "autogenerate", False):
            script = directives[0]
            if script.upgrade_ops.is_empty():
                directives[:] = []
                logger.info("No changes in schema detected.")

    conf_args = current_app.extensions["migrate"].configure_args
    if conf_args.get("process_revision_directives") is None:
        conf_args["process_revision_directives"] = process_revision_directives

    connectable = get_engine()

    with connectable.connect() as connection:
        locked = connection.dialect.name == "postgresql"
        if locked:
            # Several portal hosts may run `flask db upgrade` at the same moment against one
            # database: the first migrates while the others wait here, then find nothing to
            # do. A session-level lock outlives the commit below; it is released explicitly,
            # since a pooled connection outlives this block and would keep holding it.
            schema = connection.execute(text("SELECT current_schema()")).scalar()
            key = (MIGRATION_LOCK, zlib.crc32((schema or "").encode()) - 2**31)
            connection.execute(text("SELECT pg_advisory_lock(:a, :b)"), dict(zip("ab", key)))
            connection.commit()
        try:
            context.configure(
                connection=connection, target_metadata=get_metadata(), **conf_args
            )
            with context.begin_transaction():
                context.run_migrations()
        finally:
            if locked:
                connection.rollback()
                connection.execute(
                    text("SELECT pg_advisory_unlock(:a, :b)"), dict(zip("ab", key))
                )
                connection.commit()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
