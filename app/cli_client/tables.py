"""How rcp lays out answers for people: aligned columns, and a deployment as labelled lines."""

from __future__ import annotations

import json


def table(headers: list[str], rows: list[list]) -> str:
    """Columns padded to their widest cell; an empty table says so."""
    if not rows:
        return "(none)"
    cells = [[str(cell) for cell in row] for row in [headers, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    )


def _text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def deployment_lines(d: dict, timeline: bool = False) -> list[str]:
    lines = [
        f"ID        {d['id']}",
        f"Name      {d['name']}",
        f"Template  {d['template']}",
        f"Status    {d['status']}" + (f" ({d['status_reason']})" if d.get("status_reason") else ""),
    ]
    if d.get("main_link"):
        lines.append(f"Address   {d['main_link']}")
    for name, value in (d.get("outputs") or {}).items():
        lines.append(f"Output    {name}: {_text(value)}")
    lines.extend(lease_lines(d.get("lease")))
    if d.get("queue"):
        queue = d["queue"]
        due = f"; due back by about {queue['due_back_at']}" if queue.get("due_back_at") else ""
        lines.append(f"In line   place {queue['position']} for {queue['line_words']}{due}")
        lines.append(f"          waits until {queue['expires_at']} at the longest")
    if d.get("secrets"):
        lines.append(f"Secrets   {', '.join(d['secrets'])} (rcp secret {d['id']} NAME)")
    if timeline:
        for event in d.get("timeline") or []:
            reason = f" {event['reason']}" if event.get("reason") else ""
            lines.append(f"  {event['at'][:19]}  {event.get('status') or ''}{reason}")
    return lines


def lease_lines(lease: dict | None) -> list[str]:
    """A lease as ``show`` and ``extend`` print it; nothing when no clock runs."""
    if not lease or lease.get("state") == "none":
        return []
    lines = [f"Lease     {lease['state']}, ends {lease['ends_at']}"]
    if lease.get("state") == "grace" and lease.get("delete_at"):
        lines.append(f"          deleted at {lease['delete_at']} unless extended")
    if lease.get("can_extend"):
        lines.append(f"          rcp extend now: ends {lease['extends_to']}")
    elif lease.get("extend_refusal"):
        lines.append(f"          no extend now: {lease['extend_refusal']}")
    return lines


def _age(seconds: int | None) -> str:
    """``read 3 min ago`` for the sites' numbers."""
    if seconds is None:
        return ""
    if seconds < 90:
        return f"read {seconds} s ago"
    if seconds < 90 * 60:
        return f"read {round(seconds / 60)} min ago"
    return f"read {round(seconds / 3600)} h ago"


def site_lines(sites: list[dict], placement: dict | None) -> list[str]:
    """The dry run's sites: the one sentence, then a table of each site's verdict, why, and the
    age and source of its numbers; nothing when no site was read."""
    if not sites:
        return []
    lines = [f"Sites: {placement['headline']}" if placement else "Sites:"]
    rows = [
        [
            site["site"],
            site["verdict"],
            site.get("binding") or "",
            f"{site.get('source', '')}, {_age(site.get('age_seconds'))}",
        ]
        for site in sites
    ]
    table_text = table(["SITE", "VERDICT", "WHY", "NUMBERS"], rows)
    lines.extend(f"  {line}" for line in table_text.splitlines())
    return lines


def budget_lines(budget: dict | None) -> list[str]:
    """The dry run's budgets: whether the launch fits them, then each budget's own sentence
    (the portal's words) with its figures left to --json."""
    if not budget or not budget.get("budgets"):
        return []
    lines = ["Fits your budgets." if budget["fits"] else "Does NOT fit a budget:"]
    for entry in budget["budgets"]:
        mark = "  " if entry["fits"] else "! "
        lines.append(f"{mark}{entry['message']}")
    return lines
