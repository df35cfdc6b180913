"""What may hold a launch back, each a rule of its own, asked in one place and one order.

A constraint is a function of a ``Claim`` (who, charged to which group, for what charge) that
answers None (it lets the launch start) or a ``Hold``: why it does not start now, the line it
may wait in instead (None: it may never start as asked, so it may not wait) and how it is
refused when the person does not want to wait. ``app.launch.decision`` asks them in the order
of ``CONSTRAINTS``, under the quotas' locks when it takes the decision, and the first hold
decides; the form's box, the API's dry run and ``rcp launch --dry-run`` ask the same list
without taking anything.

Adding a constraint (a group's pool; ``budget`` added the budgets over a period) is one module
in this package, with a function ``held(claim) -> Hold | None``, plus its line in
``CONSTRAINTS``: the launch, the line, the form's box and the dry run read the hold, whatever
constraint made it (a new problem kind for the API is published in ``app.api.problems``, as
every kind is).
A constraint reads; it never writes, commits or raises for a launch it holds back.
"""

from __future__ import annotations

from collections.abc import Callable

from app.launch.constraints import budget, line, quota, room
from app.launch.constraints.hold import Claim, Hold

Constraint = Callable[[Claim], Hold | None]

# Asked in this order: the quotas first (a launch over a limit is told so whatever else holds
# it), then the budgets over a period (a limit of the person or group too, that no place in
# line or free site can lift before its renewal), then those already waiting in line, then the
# sites.
CONSTRAINTS: tuple[Constraint, ...] = (quota.held, budget.held, line.held, room.held)
