"""Entry point for WSGI servers (``gunicorn wsgi:app``) and for the ``flask`` command."""

import sys

import click

from app import create_app
from app.errors import ConfigurationError

try:
    app = create_app()
except ConfigurationError as error:
    if click.get_current_context(silent=True) is not None:
        # Loaded by a `flask ...` command: nothing was starting, so say what the command needs.
        print(f"Error: this command cannot run. {error}", file=sys.stderr)
        raise SystemExit(1) from None
    # Whoever starts the server gets the sentence that says what to set, not a traceback.
    print(f"The portal did not start. {error}", file=sys.stderr)
    # 4 is gunicorn's "application failed to load": the arbiter stops instead of retrying.
    raise SystemExit(4) from None
