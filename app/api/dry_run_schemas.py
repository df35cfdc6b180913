"""The dry run of a launch as scripts read it: the cost, the fit against the quotas and the
budgets, each site's verdict, and what the launch would do (``app.api.launching.dry_run``)."""

from __future__ import annotations

from marshmallow import fields, validate

from app.api.schemas import Fit, Out, Time


class SiteVerdict(Out):
    site = fields.String(required=True)
    verdict = fields.String(
        required=True,
        validate=validate.OneOf(["fits", "may-not-fit", "does-not-fit"]),
        metadata={
            "description": "For this request at this site; stale numbers, maintenance or a "
            "failed read give may-not-fit, never a refusal"
        },
    )
    binding = fields.String(
        allow_none=True,
        metadata={
            "description": "The constraint that decides, in words",
            "example": "needs 2 A100 GPUs, 1 free at RECAS-BARI",
        },
    )
    age_seconds = fields.Integer(metadata={"description": "How old the site's numbers are"})
    source = fields.String(metadata={"description": "fedreg, im or cluster-stats"})
    read_at = Time()


class Sites(Out):
    verdict = fields.String(
        metadata={
            "description": "The request's one verdict with the quota's: does-not-fit only when "
            "the quota refuses"
        }
    )
    headline = fields.String()
    site = fields.String(allow_none=True, metadata={"description": "The site picked, if any"})
    choosable = fields.Boolean(metadata={"description": "Whether a site may be picked"})


class BudgetEntry(Out):
    scope = fields.String(metadata={"description": "group or user"})
    owner = fields.String(metadata={"description": "The group's name, or the person's username"})
    resource = fields.String(metadata={"example": "gpu-hours:A100"})
    period = fields.String(metadata={"description": "month, or a rolling window: 30d"})
    budget_hours = fields.Float()
    used_hours = fields.Float(metadata={"description": "Used so far this period"})
    committed_hours = fields.Float(
        metadata={"description": "Still to come of what runs, to each lease's end"}
    )
    left_hours = fields.Float()
    needed_hours = fields.Float(metadata={"description": "This launch's rate for its lease"})
    renews_on = fields.String(allow_none=True, metadata={"description": "None: a rolling window"})
    fits = fields.Boolean()
    message = fields.String(
        metadata={
            "example": "needs 48 A100 GPU-hours; 20 left in group physics this month, renewed "
            "on 1 December"
        }
    )


class DryRunBudget(Out):
    fits = fields.Boolean(metadata={"description": "Whether it fits every budget it meets"})
    refusal = fields.String(
        allow_none=True, metadata={"description": "When it would overrun one (launch: 409 budget)"}
    )
    budgets = fields.List(
        fields.Nested(BudgetEntry), metadata={"description": "Each budget, the binding first"}
    )


class DryRun(Out):
    cost = fields.Dict(required=True, metadata={"description": "As the launch would charge it"})
    fit = fields.Nested(Fit, required=True)
    budget = fields.Nested(DryRunBudget, metadata={"description": "The budgets over a period"})
    parameters = fields.Dict(metadata={"description": "The checked values"})
    sites = fields.List(
        fields.Nested(SiteVerdict),
        metadata={"description": "Each site of the template's service; empty when none was read"},
    )
    placement = fields.Nested(Sites, allow_none=True)
    line_ahead = fields.String(
        allow_none=True,
        metadata={
            "description": "When it fits but requests waiting in line come first for what it "
            "needs: why, in words (a launch would answer 409 line-ahead; it may wait in line)"
        },
    )
    no_room = fields.String(
        allow_none=True,
        metadata={"description": "When no known site has room: why (launch: 409 no-site-room)"},
    )
    outcome = fields.String(
        required=True,
        validate=validate.OneOf(["start", "wait", "refuse"]),
        metadata={"description": "What the launch would do; wait: refused, but wait=true waits"},
    )
    kind = fields.String(allow_none=True, metadata={"description": "The launch's problem kind"})
    binding = fields.String(
        allow_none=True,
        metadata={
            "description": "The constraint that holds it back (over-quota, budget, line-ahead, "
            "no-site-room), or None when it would start"
        },
    )
    can_wait = fields.Boolean(required=True, metadata={"description": "Whether wait=true waits"})
