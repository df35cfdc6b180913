"""The API's absolute addresses (``links``, ``Location``, a problem's ``type``, the OpenAPI
server): under ``PORTAL_BASE_URL`` when it is configured, so that a forged ``Host`` header
cannot choose where a client is sent next; else the address the request came to."""

from __future__ import annotations

from flask import current_app, request, url_for


def absolute_url(endpoint: str, **values) -> str:
    """``endpoint``'s absolute address for clients (see the module's docstring)."""
    base = current_app.config.get("PORTAL_BASE_URL")
    if not base:
        return url_for(endpoint, _external=True, **values)
    # The base names the portal's root, script root included; the route follows it.
    return base.rstrip("/") + url_for(endpoint, **values)[len(request.script_root) :]


def portal_root() -> str:
    """The portal's root address, without a trailing slash (see the module's docstring)."""
    base = current_app.config.get("PORTAL_BASE_URL")
    return (base or request.url_root).rstrip("/")
