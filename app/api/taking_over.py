"""Taking over a deployment whose owner's account is disabled, for scripts: the operation the
page's Take over button calls (``app.launch.taking_over``), its refusals as problems with
their numbers."""

from __future__ import annotations

from app.api import bp
from app.api.auth import caller, requires
from app.api.deployments import detail_answer
from app.api.launching import bar_of
from app.api.openapi import operation
from app.api.problems import Problem
from app.api.schemas import DeploymentDetail
from app.launch import taking_over


def _fit(error: taking_over.DoesNotFit, group: str | None) -> dict:
    """What does not fit, as the launch's ``fit`` says it."""
    return {
        "fits": False,
        "problems": [error.message],
        "refusal": error.message,
        "group": group,
        "assessments": [
            {
                "group": assessment.group,
                "fits": assessment.fits,
                "bars": [bar_of(bar) for bar in assessment.bars],
            }
            for assessment in error.assessments
        ],
    }


@bp.post("/deployments/<int:deployment_id>/take-over")
@requires("deployments:write")
@operation(
    "Take over a deployment whose owner's account is disabled, as the Take over button does",
    description=(
        "For its co-owners, the managers of its group and admins, once its owner's account is "
        "disabled (anyone else, and everyone while its owner is active: 404). It is then "
        "yours, charged to you and to its group if you are in it (else your first group), if "
        "it fits your quota and budgets for the rest of its lease: otherwise 409 over-quota "
        "with fit, or budget with each budget's numbers, and nothing changes."
    ),
    response=DeploymentDetail,
    problems=("forbidden", "not-found", "over-quota", "budget"),
)
def take_over(deployment_id: int):
    user = caller().user
    try:
        deployment = taking_over.take_over(user, deployment_id)
    except taking_over.DoesNotFit as error:
        raise Problem(
            "over-quota", error.message, extra={"fit": _fit(error, error.group)}
        ) from error
    return detail_answer(deployment)
