"""The Infrastructure Manager (IM 2.0) as a backend: its REST client (``client``), its states
(``states``), why its infrastructures failed (``reasons``), the template it is sent
(``template``), deletes one at a time (``deletes``) and the backend itself (``backend``).

IM's words (its states, its contextualisation log, its auth lines) stay inside this package.
IM is GPL-3.0: the portal talks to it over HTTP only and never imports it.
"""

from app.backends.im.backend import ImBackend, im_backend

__all__ = ["ImBackend", "im_backend"]
