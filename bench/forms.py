"""What a browser would submit from a page's form, read from the page's HTML."""

from html.parser import HTMLParser


class FormFields(HTMLParser):
    """The values a browser would submit from the launch form (its first form with a
    ``csrf_token``): inputs, checked boxes, selected options and text areas."""

    def __init__(self):
        super().__init__()
        self.fields: dict[str, str] = {}
        self._select = self._textarea = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        name = attrs.get("name")
        if tag == "input" and name and attrs.get("type") not in ("submit", "button", "file"):
            if attrs.get("type") in ("checkbox", "radio") and "checked" not in attrs:
                return
            self.fields.setdefault(name, attrs.get("value") or "")
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select:
            if "selected" in attrs or self._select not in self.fields:
                self.fields[self._select] = attrs.get("value") or ""
        elif tag == "textarea" and name:
            self._textarea = name
            self.fields.setdefault(name, "")

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea and not self.fields[self._textarea]:
            self.fields[self._textarea] = data.strip()
