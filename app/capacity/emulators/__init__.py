"""Emulators of the capacity sources (the Federation Registry, the Infrastructure Manager's
quotas, cluster statistics in AI4OS PAPI's shape), written from their public APIs, with a
staleness lag and faults, for the tests and ``make run``'s demo. Never used by the portal
itself: it reaches them over HTTP like the real ones."""
