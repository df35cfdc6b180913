"""Shared data and helpers for the catalogue admin tests."""

import re
from pathlib import Path

from app.catalogue import operations

CATALOGUE = Path(__file__).parents[2] / "tosca-catalog"
VM = (CATALOGUE / "vm.yaml").read_text(encoding="utf-8")
VM_SIDECAR = (CATALOGUE / "vm.portal.yaml").read_text(encoding="utf-8")
XSS = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
# 45 aliases (under the alias limit) that would expand to about 600,000 values.
ALIAS_BOMB = "\n".join(
    [
        "a: &a [x, x, x, x, x, x, x, x, x]",
        *(f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]" for p, n in zip("abcd", "bcde", strict=True)),
        f"f: [{', '.join(['*e'] * 9)}]",
    ]
)


def save(app, slug, tosca=VM, sidecar=VM_SIDECAR, message="", *, create=False, publish=False):
    """Store a revision through the operations (as the CLI would); returns its number."""
    with app.app_context():
        revision = operations.save_revision(slug, tosca, sidecar, "seed", message, create=create)
        if publish:
            operations.publish(slug, "seed", revision.number)
        return revision.number


def page_text(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    return response.get_data(as_text=True)


def row_of(html: str, slug: str) -> str:
    """The list page's table row for ``slug``."""
    match = re.search(rf'<tr data-slug="{slug}">(.*?)</tr>', html, re.S)
    assert match, f"no row for {slug}"
    return match.group(1)


def states_in(fragment: str) -> list[str]:
    return re.findall(r'data-state="([a-z]+)"', fragment)
