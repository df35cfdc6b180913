"""What can be launched: TOSCA templates, their portal metadata, and the forms built from them."""

from flask import Flask


def init_catalogue(app: Flask) -> None:
    """Register the tables and the forms' field drawing; check ``DEFAULT_BACKEND``.

    Raises ConfigurationError when ``DEFAULT_BACKEND`` names no known backend.
    """
    from app.catalogue import models  # noqa: F401  (registers the tables)
    from app.catalogue.routing import check_default_backend
    from app.tosca.inputs.html import launch_field, launch_tabs, preset_buttons

    # The generated forms' fields, as templates/catalogue/_form.html draws them.
    app.add_template_global(launch_field)
    app.add_template_global(launch_tabs)
    app.add_template_global(preset_buttons)

    check_default_backend(app.config)
