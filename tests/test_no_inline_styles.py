"""The portal's own pages and scripts hold no inline style: the Content-Security-Policy says
`style-src 'self'`, so a `style=` attribute in a template, or a script writing one, is blocked
in the browser and reported as a violation (the launch journey checks it in Chromium too:
tests/e2e/test_launch_csp_browser.py)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A mail is never served by the portal: clients read its head style, and no page policy applies.
MAIL_TEMPLATES = {"templates/notifications/mail.html"}
INLINE_IN_TEMPLATES = re.compile(r"""\sstyle\s*=|<style[\s>]""", re.IGNORECASE)
INLINE_FROM_SCRIPTS = re.compile(
    r"""setAttribute\(\s*["']style["']|\.style\.cssText|\.innerHTML\s*=.*style=|insertAdjacentHTML"""
)


def _files(folder: str, suffix: str):
    for path in sorted((ROOT / folder).rglob(f"*{suffix}")):
        relative = path.relative_to(ROOT).as_posix()
        if "/vendor/" not in relative and relative not in MAIL_TEMPLATES:
            yield relative, path.read_text(encoding="utf-8")


def test_no_template_writes_an_inline_style():
    found = [
        f"{name}:{number}"
        for name, text in _files("templates", ".html")
        for number, line in enumerate(text.splitlines(), 1)
        if INLINE_IN_TEMPLATES.search(line)
    ]
    assert found == []


def test_no_script_of_the_portal_writes_a_style_attribute():
    found = [
        f"{name}:{number}"
        for name, text in _files("static", ".js")
        for number, line in enumerate(text.splitlines(), 1)
        if INLINE_FROM_SCRIPTS.search(line)
    ]
    assert found == []
