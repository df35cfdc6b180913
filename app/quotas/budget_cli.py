"""``flask quota budget ...``: set and show budgets of core-hours and GPU-hours per period."""

from __future__ import annotations

import math

import click

from app.auth.groups import normalise_group
from app.clock import utcnow
from app.quotas.budgets import (
    budgets_of,
    model_of,
    parse_period,
    period_of,
    period_text,
    resource_key,
    set_budget,
)
from app.quotas.cli import _find_user, quota_cli
from app.quotas.editing import check_model
from app.quotas.errors import InvalidLimit
from app.quotas.models import GROUP, USER
from app.quotas.usage_models import CORE_HOURS
from app.quotas.usage_totals import used_since
from app.text import one_line_option


@quota_cli.group("budget")
def budget_cli() -> None:
    """Budgets: core-hours and GPU-hours per calendar month or rolling window."""


def _owner(group: str | None, username: str | None) -> tuple[str, str, str, dict]:
    if bool(group) == bool(username):
        raise click.UsageError("Give one of --group or --user.")
    if group:
        name = normalise_group(group)
        return GROUP, name, f"group {name}", {"group_name": name}
    user = _find_user(username, None)
    return USER, str(user.id), f"user {user.username}", {"user_id": user.id}


def _hours(text: str | None, option: str) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a number of hours.", param_hint=option) from None
    if value < 0 or not math.isfinite(value):
        raise click.BadParameter("A budget is zero hours or more.", param_hint=option)
    return value


@budget_cli.command("set")
@click.option(
    "--group", help="The group whose budget this is.", callback=one_line_option("--group")
)
@click.option("--user", "username", help="The person whose budget this is (a username).")
@click.option("--period", required=True, help="month (calendar, UTC) or a rolling window: 30d.")
@click.option("--gpu-hours", required=True, help="GPU-hours per period (of --gpu-model, or any).")
@click.option("--gpu-model", default=None, help="The GPU model the GPU-hours are of.")
@click.option("--core-hours", default=None, help="Core-hours per period, too.")
@click.option(
    "--reason",
    required=True,
    help="Why (kept with the budget).",
    callback=one_line_option("--reason"),
)
def set_command(group, username, period, gpu_hours, gpu_model, core_hours, reason) -> None:
    """Set a group's or a person's budget for the period (an amount of 0 allows nothing)."""
    scope, subject, label, _owned = _owner(group, username)
    gpu = _hours(gpu_hours, "--gpu-hours")
    cores = _hours(core_hours, "--core-hours")
    try:
        period_days = parse_period(period)
        model = check_model(gpu_model) if gpu_model else None
        set_budget(None, scope, subject, resource_key(model), gpu, period_days, reason)
        if cores is not None:
            set_budget(None, scope, subject, CORE_HOURS, cores, period_days, reason)
    except InvalidLimit as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Budget of {label} set.")
    _show(scope, subject, label)


@budget_cli.command("show")
@click.option("--group", help="A group.")
@click.option("--user", "username", help="A person (a username).")
def show_command(group, username) -> None:
    """A group's or a person's budgets, with what is used and left of each now."""
    scope, subject, label, _owned = _owner(group, username)
    _show(scope, subject, label)


def _show(scope: str, subject: str, label: str) -> None:
    budgets = budgets_of(scope, subject)
    if not budgets:
        click.echo(f"No budget for {label}.")
        return
    now = utcnow()
    owner = {"group_name": subject} if scope == GROUP else {"user_id": int(subject)}
    click.echo(f"Budgets of {label}:")
    for budget in budgets:
        start, renewal = period_of(budget.period_days, now)
        used = used_since(start, now=now, **owner)
        model = model_of(budget.resource)
        if budget.resource == CORE_HOURS:
            what, spent = "core-hours", used.core_hours
        else:
            what, spent = (
                f"{model} GPU-hours" if model else "GPU-hours (any model)",
                used.gpu(model),
            )
        when = f"renewed on {renewal.date().isoformat()}" if renewal else "rolling"
        over = "  OVERRUN" if spent > budget.hours else ""
        click.echo(
            f"  {what:<24} {budget.hours:>10.1f} {period_text(budget.period_days):<24} "
            f"used {spent:.1f}, left {budget.hours - spent:.1f} ({when}){over}"
        )
        click.echo(f"      set by {budget.actor_name or 'the command line'}: {budget.reason}")


__all__ = ["budget_cli"]


@quota_cli.group("usage")
def usage_cli() -> None:
    """Usage kept as running totals."""


@usage_cli.command("rebuild")
@click.option("--replace", is_flag=True, help="Drop what is written down and start again.")
def rebuild_command(replace: bool) -> None:
    """Write usage down from the deployments' records (once, after upgrading)."""
    from app.quotas.usage_marks import account_usage_once
    from app.quotas.usage_rebuild import rebuild_usage

    try:
        pieces, marks = rebuild_usage(replace=replace)
    except RuntimeError as error:
        raise click.ClickException(f"{error} (--replace)") from None
    click.echo(f"{pieces} finished stretches written down, {marks} running deployments marked.")
    click.echo(account_usage_once())
