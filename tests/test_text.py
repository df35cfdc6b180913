"""The one-line rule's characters are exactly Unicode's control, line and paragraph separators."""

import sys
import unicodedata

from app.text import code_points, control_characters, flatten, is_control, visible


def test_the_control_characters_are_exactly_unicodes_cc_zl_and_zp():
    wrong = [
        code
        for code in range(sys.maxunicode + 1)
        if is_control(chr(code)) != (unicodedata.category(chr(code)) in {"Cc", "Zl", "Zp"})
    ]
    assert wrong == []


def test_found_characters_are_named_once_each_in_the_order_they_appear():
    found = control_characters("poison\r\nX-A: b\r\n\x1b[31m")
    assert code_points(found) == "U+000D, U+000A, U+001B"
    assert control_characters("Notebook for the course — ünïcode ok") == []


def test_stored_text_is_flattened_to_one_line_and_shown_with_visible_escapes():
    assert flatten("  poison\r\n\r\nX-A: b\u2028") == "poison X-A: b"
    assert visible("a\r\nb\x1b") == "a\\r\\nb\\x1b"
