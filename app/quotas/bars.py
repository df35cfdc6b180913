"""A quota bar's markup: what is held, what a request adds, against the limit, drawn in SVG (no
inline styles, so the Content-Security-Policy holds).

templates/quotas/_bars.html's ``quota_bar`` places what ``quota_bar_markup`` returns. Written
as a Jinja macro, a bar was some three hundred Python calls (each figure through a filter, each
sentence through the template's gettext, each value escaped and wrapped again): the usage panel
of My deployments, five bars, cost as much as a quarter of the list's rows. Here the figures are
worded once each, the portal's sentences placed as a template places them (the values inside
escaped, the words not), and each value escaped by one ``str.translate``.
"""

from __future__ import annotations

from flask_babel import get_translations
from markupsafe import Markup

from app.formatting import format_decimal
from app.formatting import size as size_text

# markupsafe.escape's table: & < > ' " as &amp; &lt; &gt; &#39; &#34;.
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#39;", '"': "&#34;"})
# Amounts worded as sizes ("8 GB") rather than counted.
_SIZES = ("memory", "disk")

_HEAD = (
    '<div class="quota-bar-row mb-2{over}">\n  <div class="d-flex justify-content-{side} small">\n'
)
_LABEL = "<span>{label}</span>"
_FIGURES = '    <span class="text-body-secondary text-nowrap">{used}{request} / {limit}</span>\n'
_REQUEST = ' <span class="quota-request-text">+&nbsp;{request}</span>'
_SVG = (
    "  </div>\n"
    '  <svg class="quota-bar" viewBox="0 0 100 6" preserveAspectRatio="none" role="img"\n'
    '       aria-label="{words}">\n'
    '    <rect class="quota-track" x="0" y="0" width="100" height="6" rx="1.5"></rect>\n'
)
_USED = '<rect class="quota-used" x="0" y="0" width="{width}" height="6"></rect>'
_REQUESTED = '<rect class="{kind}" x="{x}" y="0" width="{width}" height="6"></rect>'
_LIMIT_MARK = '<rect class="quota-limit-mark" x="{x}" y="0" width="0.8" height="6"></rect>'
_END = "  </svg>\n</div>\n"


def quota_number(value, digits: int | None = None) -> str:
    """A figure in the reader's notation (``1,234.5``, ``1.234,5``); ``digits`` fixes the
    decimals shown, else up to three as needed."""
    if digits is None:
        return format_decimal(value or 0, format="#,##0.###")
    return format_decimal(
        round(value or 0, digits), format="#,##0." + "0" * digits if digits else "#,##0"
    )


def quota_bar_markup(bar, with_request: bool = False, compact: bool = False) -> Markup:
    """``bar`` (``app.quotas.fit.Bar``) drawn: its label unless ``compact``, what it holds,
    with ``with_request`` what the request adds, and the limit (or none)."""
    # The catalogue of the language served, found once for the bar's three or four sentences
    # (``gettext`` finds it again for each); each sentence translated as ``gettext`` does.
    _ = get_translations().ugettext
    sized = bar.key in _SIZES
    used, request, limit = bar.used, bar.request, bar.limit
    label = str(bar.label).translate(_ESCAPES)
    used_text = bar.text(used).translate(_ESCAPES)
    shown_used = (size_text(used) if used else "0") if sized else quota_number(used)
    if limit is None:
        shown_limit = _("unlimited")
        limit_words = _("no limit")
    else:
        limit_text = bar.text(limit)
        shown_limit = (limit_text if sized else quota_number(limit)).translate(_ESCAPES)
        limit_words = _("limit %(limit)s") % {"limit": limit_text.translate(_ESCAPES)}
    request_part = ""
    if with_request and request:
        shown_request = bar.text(request) if sized else quota_number(request)
        request_part = _REQUEST.format(request=shown_request.translate(_ESCAPES))
    if with_request:
        words = _("%(label)s: %(used)s held, %(request)s requested, %(limit)s") % {
            "label": label,
            "used": used_text,
            "request": bar.text(request).translate(_ESCAPES),
            "limit": limit_words,
        }
    else:
        words = _("%(label)s: %(used)s held, %(limit)s") % {
            "label": label,
            "used": used_text,
            "limit": limit_words,
        }
    parts = [
        _HEAD.format(
            over=" quota-over" if with_request and not bar.fits else "",
            side="end" if compact else "between",
        ),
        "" if compact else _LABEL.format(label=label),
        _FIGURES.format(
            used=shown_used.translate(_ESCAPES), request=request_part, limit=shown_limit
        ),
        _SVG.format(words=words),
    ]
    used_width = bar.percent(used)
    if used_width:
        parts.append(_USED.format(width=used_width))
    request_width = bar.percent(request) if with_request else 0
    if request_width:
        kind = "quota-request" if bar.fits else "quota-request-over"
        parts.append(_REQUESTED.format(kind=kind, x=used_width, width=request_width))
    if limit is not None and (used + request) > limit:
        parts.append(_LIMIT_MARK.format(x=bar.percent(limit) - 0.4))
    parts.append(_END)
    return Markup("".join(parts))  # noqa: S704 (escaped piece by piece above)
