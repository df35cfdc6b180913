"""The README's configuration reference is generated from config/defaults.py and agrees with it."""

import pytest

from app import config_reference
from app.config_reference import END, START, main, read_settings, render, updated_readme

DEFAULTS = '''\
"""Docstring."""

# --- Core ----------------------------------------------------------------

# Signs sessions. A | bar.
SECRET_KEY = "change-me"

# Two limits that share one comment, and a word broken over two lines: client-
# credentials.
FIRST = 1
SECOND = {"a": [1, 2]}

# --- Catalogue -----------------------------------------------------------

# Where templates live. A mapping:
# {
#   "x": 1,
# }
FOLDER = ""  # empty: beside the application

# A long one.
LONG = ["a very long default value that would not fit in a table cell at all"]
'''


@pytest.fixture
def defaults(tmp_path):
    path = tmp_path / "defaults.py"
    path.write_text(DEFAULTS)
    return path


def test_the_readme_reference_agrees_with_config_defaults(capsys):
    assert main(["--check"]) == 0, capsys.readouterr().out


def test_every_setting_in_defaults_appears_in_the_readme():
    readme = config_reference.README.read_text()
    names = [n for _t, settings in read_settings() for s in settings for n in s.names]
    assert "SESSION_ABSOLUTE_LIFETIME_HOURS" in names and "LDAP" in names
    for name in names:
        assert f"`{name}`" in readme, name


def test_settings_are_read_by_section_with_defaults_and_meanings(defaults):
    sections = read_settings(defaults)
    assert [title for title, _ in sections] == ["Core", "Catalogue"]
    core, catalogue = (settings for _t, settings in sections)
    assert [s.names for s in core] == [["SECRET_KEY"], ["FIRST", "SECOND"]]
    assert core[1].defaults == ["`1`", '`{"a": [1, 2]}`']
    assert core[1].meaning.endswith("client-credentials.")
    assert catalogue[0].meaning == (
        "Where templates live. A mapping: (example in config/defaults.py) "
        "(empty: beside the application)"
    )
    assert catalogue[1].names == ["LONG"] and catalogue[1].defaults == ["see config/defaults.py"]


def test_the_table_escapes_bars_and_replaces_only_the_marked_part(defaults):
    table = render(defaults)
    assert '| `SECRET_KEY` | `"change-me"` | Signs sessions. A \\| bar. |' in table
    readme = f"# Title\n\nIntro.\n\n{START}\nstale\n{END}\n\nAfter.\n"
    updated = updated_readme(readme, table)
    assert updated.startswith("# Title\n\nIntro.\n\n") and updated.endswith(f"{END}\n\nAfter.\n")
    assert "stale" not in updated and table in updated


def test_a_readme_without_markers_is_refused():
    with pytest.raises(ValueError, match="lacks the markers"):
        updated_readme("# Title\n", "table")


def test_the_check_fails_and_says_how_to_fix_when_out_of_date(tmp_path, monkeypatch, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(f"{START}\nold\n{END}\n")
    monkeypatch.setattr(config_reference, "README", readme)
    assert main(["--check"]) == 1
    assert "python -m app.config_reference" in capsys.readouterr().out
    assert main([]) == 0 and main(["--check"]) == 0
