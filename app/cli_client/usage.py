"""``rcp usage``: hours used per day and in total, yours, a person's or a group's."""

from __future__ import annotations

import click

from app.cli_client import main
from app.cli_client.tables import table


def _hours(value) -> str:
    return f"{value:.2f}"


def _models(hours: dict) -> str:
    return ", ".join(f"{model} {_hours(value)}" for model, value in hours.items()) or "-"


@main.cli.command("usage")
@click.option("--user", default=None, help="A person's username (operators; default: you).")
@click.option("--group", default=None, help="A group: the use charged to it.")
@click.option("--from", "first", default=None, help="First day, YYYY-MM-DD (default: the 1st).")
@click.option("--to", "last", default=None, help="Last day, YYYY-MM-DD (default: today).")
@main.command
def usage(user, group, first, last, as_json):
    """Core-hours, memory GB-hours and GPU-hours per GPU model, per day and in total."""
    data = main._portal().get("/usage", user=user, group=group, to=last, **{"from": first})

    def human(d):
        who = " in group ".join(part for part in (d.get("user"), d.get("group")) if part)
        click.echo(f"Usage of {who} from {d['from']} to {d['to']} (UTC days)")
        rows = [
            [
                day["date"],
                _hours(day["core_hours"]),
                _hours(day["memory_gb_hours"]),
                _hours(day["gpu_hours"]),
                _models(day["gpu_hours_by_model"]),
            ]
            for day in d["days"]
        ]
        total = d["total"]
        rows.append(
            [
                "TOTAL",
                _hours(total["core_hours"]),
                _hours(total["memory_gb_hours"]),
                _hours(total["gpu_hours"]),
                _models(total["gpu_hours_by_model"]),
            ]
        )
        headers = ["DAY", "CORE-HOURS", "MEMORY-GB-HOURS", "GPU-HOURS", "BY GPU MODEL"]
        click.echo(table(headers, rows))

    main._print(data, as_json, human)
