"""The Infrastructure Manager (IM 2.0) as a backend: the backend itself, everything the portal
asks of it (``backend.ImBackend``), its REST client (``client``), its states (``states``), why
its infrastructures failed (``reasons``) and its refusals (``answers``) in sentences for
people, the template it is sent (``template``), deletes one at a time (``deletes``), which
templates it can take (``compatibility``), its clouds' quotas (``capacity``) and how people
are told of it (``words``).

IM's words (its states, its contextualisation log, its auth lines) and its settings (IM_*)
stay inside this package. IM is GPL-3.0: the portal talks to it over HTTP only and never
imports it.
"""
