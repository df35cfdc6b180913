"""The TOSCA text IM is sent: inputs written into it, and the portal's tag in its description.

IM takes no inputs apart from the template, so each value given becomes its input's
``default``. The tag lets the portal find the infrastructure again when a create's answer was
lost: IM keeps the template, description included, and gives it back (``/tosca``).

The text comes from the catalogue, which has already read it under the portal's limits
(``app.tosca.yamlsafe``, a floor this package does not import): here it is read again with
``yaml.safe_load`` and a size check only.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from flask_babel import gettext as _

from app.backends.base import Refused

TAG_PREFIX = "portal-deployment:"
# Tags go into a regular expression (IM's filter) and a YAML string: letters, digits, - and _.
_TAG = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TAG_IN_TEXT = re.compile(re.escape(TAG_PREFIX) + r"([A-Za-z0-9_-]{1,64})")
MAX_BYTES = 2 * 1024 * 1024


def check_tag(tag: str) -> str:
    """``tag`` if it is safe in a regular expression and a description; ValueError if not."""
    if not isinstance(tag, str) or not _TAG.match(tag):
        raise ValueError(f"not a deployment tag: {tag!r}")
    return tag


def tag_pattern(tag: str) -> str:
    """The regular expression that finds ``tag``'s template and no other."""
    return re.escape(TAG_PREFIX + check_tag(tag)) + r"(?![A-Za-z0-9_-])"


def tag_in(text: str) -> str | None:
    """The portal's tag written in a template's text, or None."""
    match = _TAG_IN_TEXT.search(text or "")
    return match.group(1) if match else None


def prepared(template: str, inputs: dict[str, Any], tag: str) -> str:
    """``template`` with each input's ``default`` set to its value in ``inputs`` (a None value
    leaves the default alone), and ``tag`` written at the end of its description; everything
    else kept. Raises Refused when the text is not a TOSCA mapping or an input is not declared."""
    check_tag(tag)
    if len(template.encode("utf-8")) > MAX_BYTES:
        raise Refused(_("The template is too large to send."))
    try:
        data = yaml.safe_load(template)
    except yaml.YAMLError:
        data = None
    if not isinstance(data, dict):
        raise Refused(_("The template could not be read as TOSCA."))
    given = {name: value for name, value in (inputs or {}).items() if value is not None}
    topology = data.get("topology_template")
    declared = topology.get("inputs") if isinstance(topology, dict) else None
    declared = declared if isinstance(declared, dict) else {}
    for name, value in given.items():
        definition = declared.get(name)
        if not isinstance(definition, dict):
            raise Refused(_("The template has no input named %(name)s.", name=name))
        definition["default"] = value
    description = str(data.get("description") or "").rstrip()
    data["description"] = f"{description}\n\n{TAG_PREFIX}{tag}" if description else TAG_PREFIX + tag
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
