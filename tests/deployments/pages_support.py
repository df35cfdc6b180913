"""Helpers for the page tests of My deployments and the deployment page."""

import re

GB = 10**9


def page_text(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def compact(html: str) -> str:
    """``html`` without the whitespace between and inside tags' text."""
    return re.sub(r">\s+", ">", re.sub(r"\s+<", "<", html))


def rows_of(html: str) -> str:
    """The list part of My deployments (the rest of the page may name deployments too)."""
    return html[html.index('id="deployment-rows"') :]


def row_of(html: str, deployment_id: int) -> str:
    start = html.index(f'id="deployment-{deployment_id}"')
    return html[start : html.index("</tr>", start)]
