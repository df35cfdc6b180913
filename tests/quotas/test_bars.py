"""A quota bar (app.quotas.bars, placed by templates/quotas/_bars.html's ``quota_bar``) is
drawn as the Jinja macro drew it, byte for byte: what is held, the request on top, the limit
and its mark, the words of a screen reader, escaped, in the reader's language."""

import pytest
from flask import render_template_string

from app.quotas.fit import Bar

MACRO = (
    "{% from 'quotas/_bars.html' import quota_bar %}{{ quota_bar(bar, with_request=r, compact=c) }}"
)

DRAWN_0 = (
    '<div class="quota-bar-row mb-2 quota-over">\n'
    '  <div class="d-flex justify-content-between small">\n'
    '<span>CPU cores</span>    <span class="text-body-secondary text-nowrap">6 <span '
    'class="quota-request-text">+&nbsp;4</span> / 8</span>\n'
    "  </div>\n"
    '  <svg class="quota-bar" viewBox="0 0 100 6" preserveAspectRatio="none" role="img"\n'
    '       aria-label="CPU cores: 6 cores held, 4 cores requested, limit 8 cores">\n'
    '    <rect class="quota-track" x="0" y="0" width="100" height="6" rx="1.5"></rect>\n'
    '<rect class="quota-used" x="0" y="0" width="60.0" height="6"></rect><rect '
    'class="quota-request-over" x="60.0" y="0" width="40.0" height="6"></rect><rect '
    'class="quota-limit-mark" x="79.6" y="0" width="0.8" height="6"></rect>  </svg>\n'
    "</div>\n"
)

DRAWN_1 = (
    '<div class="quota-bar-row mb-2">\n'
    '  <div class="d-flex justify-content-end small">\n'
    '    <span class="text-body-secondary text-nowrap">1 / 1</span>\n'
    "  </div>\n"
    '  <svg class="quota-bar" viewBox="0 0 100 6" preserveAspectRatio="none" role="img"\n'
    '       aria-label="GPUs &lt;&amp;&gt;: 1 A100 GPU held, limit 1 A100 GPU">\n'
    '    <rect class="quota-track" x="0" y="0" width="100" height="6" rx="1.5"></rect>\n'
    '<rect class="quota-used" x="0" y="0" width="50.0" height="6"></rect><rect '
    'class="quota-limit-mark" x="49.6" y="0" width="0.8" height="6"></rect>  </svg>\n'
    "</div>\n"
)

DRAWN_2 = (
    '<div class="quota-bar-row mb-2">\n'
    '  <div class="d-flex justify-content-between small">\n'
    '<span>CPU cores</span>    <span class="text-body-secondary text-nowrap">0 / '
    "illimitato</span>\n"
    "  </div>\n"
    '  <svg class="quota-bar" viewBox="0 0 100 6" preserveAspectRatio="none" role="img"\n'
    '       aria-label="CPU cores: 0 core in uso, nessun limite">\n'
    '    <rect class="quota-track" x="0" y="0" width="100" height="6" rx="1.5"></rect>\n'
    "  </svg>\n"
    "</div>\n"
)


@pytest.mark.parametrize(
    ("language", "bar", "with_request", "compact", "drawn"),
    [
        ("en", Bar("cores", "CPU cores", 6, 4, 8), True, False, DRAWN_0),
        ("en", Bar("gpus", "GPUs <&>", 1, 1, 1, model="A100"), False, True, DRAWN_1),
        ("it", Bar("cores", "CPU cores", 0, 0, None), False, False, DRAWN_2),
    ],
)
def test_a_bar_is_drawn_as_the_macro_drew_it(
    quota_app, language, bar, with_request, compact, drawn
):
    with quota_app.test_request_context("/", headers={"Accept-Language": language}):
        assert render_template_string(MACRO, bar=bar, r=with_request, c=compact) == drawn
