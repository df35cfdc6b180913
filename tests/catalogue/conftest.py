"""Fixtures for the catalogue tests: form data for launch forms, and an admin. The bare form app,
input specs and parsed templates come from ``tests/fixtures/tosca.py``."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from app.catalogue.forms import field_name
from tests.fixtures.tosca import TYPES_DIR

__all__ = ["TYPES_DIR", "form_data"]


def form_data(form_class, values: dict) -> MultiDict:
    """POST data that fills ``form_class`` with TOSCA ``values`` (by input name)."""
    data = MultiDict()
    for name, value in values.items():
        input_field = form_class.input_fields[name]
        shown = input_field.to_form(value)
        key = field_name(name)
        if input_field.kind == "credential":
            data.add(f"{key}-user", (value or {}).get("user", ""))
            data.add(f"{key}-token", (value or {}).get("token", ""))
        elif input_field.kind == "boolean" and input_field.widget == "checkbox":
            if value:
                data.add(key, "y")
        else:
            data.add(key, "" if shown is None else str(shown))
    return data


@pytest.fixture
def admin(login_as):
    return login_as("admin", username="curator")
