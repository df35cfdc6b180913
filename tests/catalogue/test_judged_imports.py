"""Imports judged as the orchestrator judges them (tests/catalogue/corpus/judged, see its
README): each import is checked against the library registered for the very URL it names,
never against another holding files of the same names, and an import that is no absolute URL
is refused, as the orchestrator cannot fetch it."""

from pathlib import Path

import pytest

from app.catalogue import operations
from app.tosca.parsed import parse_template
from app.tosca.typelibs import LibrarySet, TypeLibrary, from_folder, read_files
from tests.catalogue.conftest import TYPES_DIR

CORPUS = Path(__file__).parent / "corpus"
JUDGED = CORPUS / "judged"
FORK_URL = "https://raw.githubusercontent.com/a-fork/tosca-types/{ref}/{path}"
MASTER = "https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml"


def fork() -> TypeLibrary:
    return TypeLibrary("fork-tosca-types", "", (FORK_URL,), read_files(CORPUS / "fork-types"))


def shipped(*names: str) -> list[TypeLibrary]:
    libraries = from_folder(TYPES_DIR)
    return [libraries.get(name) for name in names]


def judge(name: str, libraries: list[TypeLibrary], sidecar: bool = False):
    sidecar_path = JUDGED / name.replace(".yaml", ".portal.yaml")
    return parse_template(
        "judged",
        (JUDGED / name).read_text(),
        sidecar_path.read_text() if sidecar else None,
        libraries=LibrarySet(libraries),
    )


# --- another library holding files of the same names never stands in ------------------------


@pytest.mark.parametrize(
    "registered",
    [["indigo-2025-08", "indigo-v4.0.1"], ["indigo-v4.0.1", "indigo-2025-08"]],
    ids=["older registered after", "older registered first"],
)
def test_a_type_only_an_older_tag_defines_is_refused_however_many_libraries_are_registered(
    registered,
):
    parsed = judge("older_tag_type.yaml", shipped(*registered))
    [error] = parsed.errors
    assert error.line == 18
    assert error.message.startswith(
        'Type "tosca.nodes.indigo.MonitoredCompute" is defined in none of the type libraries '
        "this template imports (indigo-2025-08)"
    )
    assert parsed.libraries == ["indigo-2025-08"]
    assert not any("Validates only against" in w.message for w in parsed.warnings)
    # Where the type is, in words; the verdict stays.
    assert 'Type library "indigo-v4.0.1" defines it, but answers for other URLs' in error.message


@pytest.mark.parametrize("pinned", [False, True], ids=["named by the import", "fork pinned"])
def test_a_type_only_a_fork_defines_in_a_file_of_the_same_name_is_refused(pinned):
    parsed = judge("fork_type.yaml", [*shipped("indigo-2025-08"), fork()], sidecar=pinned)
    [error] = parsed.errors
    assert error.line == 13
    assert 'Type "tosca.nodes.fork.Sandbox" is defined in none of the type libraries' in (
        error.message
    )
    assert 'Type library "fork-tosca-types" defines it, but answers for other URLs' in (
        error.message
    )
    assert parsed.libraries == ["indigo-2025-08"]
    if pinned:
        [unused] = [w for w in parsed.warnings if w.source == "sidecar"]
        assert unused.message.startswith(
            'types_version "fork-tosca-types" answers for none of the template\'s imports'
        )
    # Imported by the fork's own URL, the fork answers for it.
    text = (JUDGED / "fork_type.yaml").read_text()
    own = text.replace(MASTER, FORK_URL.format(ref="main", path="custom_types.yaml"))
    parsed = parse_template(
        "judged", own, libraries=LibrarySet([*shipped("indigo-2025-08"), fork()])
    )
    assert parsed.errors == [] and parsed.libraries == ["fork-tosca-types"]


def test_a_pin_chooses_only_among_libraries_answering_for_the_url():
    libraries = LibrarySet([*shipped("indigo-2025-08", "indigo-v4.0.1"), fork()])
    assert libraries.resolve(MASTER, libraries.get("fork-tosca-types")).library.name == (
        "indigo-2025-08"
    )
    assert libraries.resolve(MASTER, libraries.get("indigo-v4.0.1")).library.name == (
        "indigo-2025-08"
    )
    # A library that only stands in for any ref gives way to the one registered for the ref.
    standing_in = TypeLibrary(
        "any-ref",
        "",
        ("https://raw.githubusercontent.com/indigo-dc/tosca-types/{ref}/{path}",),
        {"custom_types.yaml": "tosca_definitions_version: tosca_simple_yaml_1_0\n"},
    )
    both = LibrarySet([standing_in, *shipped("indigo-2025-08")])
    assert both.resolve(MASTER, standing_in).library.name == "indigo-2025-08"


@pytest.fixture
def app(make_app):
    portal = make_app(ORCHESTRATOR_URL="demo")
    with portal.app_context():
        newest = shipped("indigo-2025-08")[0]
        operations.add_library(newest.name, dict(newest.files), list(newest.patterns), "curator")
        yield portal


def test_registering_an_older_library_never_turns_an_unknown_type_back_into_a_warning(app):
    text = (JUDGED / "older_tag_type.yaml").read_text()
    revision = operations.save_revision("monitored", text, "", "curator", create=True)
    assert not revision.valid
    older = shipped("indigo-v4.0.1")[0]
    for name, patterns in (
        (older.name, list(older.patterns)),
        # The same files registered again for any ref of INDIGO's repository.
        (
            "indigo-any-ref",
            ["https://raw.githubusercontent.com/indigo-dc/tosca-types/{ref}/{path}"],
        ),
        ("fork-tosca-types", [FORK_URL]),
    ):
        operations.add_library(name, dict(older.files), patterns, "curator")
        [(_slug, _number, _was, valid)] = operations.revalidate_all("curator")
        assert not valid, f"registering {name} made the template publishable"


# --- imports that are no absolute URL --------------------------------------------------------


def test_an_import_by_a_bare_file_name_is_refused_naming_the_import():
    parsed = judge("relative_import.yaml", shipped("indigo-2025-08", "indigo-v4.0.1"))
    [error] = parsed.errors
    assert error.line == 4
    assert error.message.startswith(
        'Import "indigo_custom_types" (custom_types.yaml) is not an absolute URL'
    )
    assert "the orchestrator fetches each import by its URL" in error.message
    assert parsed.unresolved_imports == ["custom_types.yaml"]


def test_an_import_by_a_bare_file_name_is_refused_at_publish(app):
    text = (JUDGED / "relative_import.yaml").read_text()
    revision = operations.save_revision("relative", text, "", "curator", create=True)
    assert not revision.valid
    with pytest.raises(operations.CatalogueError):
        operations.publish("relative", "curator", revision.number)


# --- what an undefined type is said to be ------------------------------------------------------


def test_a_type_missing_from_a_branch_copy_is_called_an_older_copy_not_a_misspelling():
    parsed = judge("newer_branch_type.yaml", shipped("indigo-2025-08", "indigo-v4.0.1"))
    [error] = parsed.errors
    assert error.line == 14
    assert 'is a copy of the branch "master" (indigo-dc/tosca-types at commit 40fa4d6' in (
        error.message
    )
    assert "older than the branch the orchestrator fetches" in error.message
    assert "spelling" not in error.message
    # Only the precise finding: nothing else about the node whose type is unknown.
    assert not any('template "vectors"' in w.message for w in parsed.warnings)
    assert not any(w.line is None and "Type check" in w.message for w in parsed.warnings)


def test_a_misspelt_type_names_the_type_it_is_close_to():
    parsed = parse_template(
        "judged",
        (JUDGED / "misspelt_type.yaml").read_text(),
        libraries=LibrarySet(shipped("indigo-2025-08")),
    )
    [error] = parsed.errors
    assert 'check its spelling: they define "tosca.nodes.indigo.Compute"' in error.message
    # tosca-parser's own sentences about the typeless node are not shown beside it.
    assert parsed.warnings == []


def test_a_folder_import_reports_an_import_by_a_bare_file_name_as_invalid(app, tmp_path):
    (tmp_path / "vm.yaml").write_text((JUDGED / "relative_import.yaml").read_text())
    [outcome] = operations.import_folder(tmp_path, "curator")
    assert outcome.outcome == "invalid"
    assert 'Import "indigo_custom_types" (custom_types.yaml) is not an absolute URL' in (
        outcome.detail
    )


# --- in Italian too ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def italian():
    from flask import Flask
    from flask_babel import Babel

    portal = Flask(__name__)
    portal.config["BABEL_TRANSLATION_DIRECTORIES"] = str(Path(__file__).parents[2] / "translations")
    Babel(portal)
    return portal


@pytest.mark.parametrize(
    ("name", "italian_start"),
    [
        (
            "relative_import.yaml",
            'L\'import "indigo_custom_types" (custom_types.yaml) non è un URL',
        ),
        ("older_tag_type.yaml", 'Il tipo "tosca.nodes.indigo.MonitoredCompute" non è definito'),
        ("newer_branch_type.yaml", 'Il tipo "tosca.nodes.indigo.VectorDatabase" non è definito'),
        ("nbsp_output.yaml", "La riga 24 è rientrata con U+00A0"),
    ],
)
def test_the_refusals_read_in_italian(italian, name, italian_start):
    from flask_babel import force_locale

    [error] = judge(name, shipped("indigo-2025-08", "indigo-v4.0.1")).errors
    with italian.test_request_context(), force_locale("it"):
        assert error.shown.startswith(italian_start)
        assert "defined" not in error.shown and "import the URL" not in error.shown


def test_an_input_of_a_data_type_is_judged_by_whether_the_imports_define_it():
    libraries = shipped("indigo-2025-08", "indigo-v4.0.1")
    parsed = judge("data_type_input.yaml", libraries)
    assert parsed.errors == [] and parsed.warnings == []
    text = (JUDGED / "data_type_input.yaml").read_text()
    undefined = text.replace("tosca.datatypes.indigo.User", "tosca.datatypes.indigo.Person")
    parsed = parse_template("judged", undefined, libraries=LibrarySet(libraries))
    [error] = parsed.errors
    assert error.line == 14
    assert error.message.startswith('Type "tosca.datatypes.indigo.Person" is defined in none')
    assert parsed.warnings == []


def test_a_github_url_naming_the_full_ref_is_judged_by_the_library_of_that_ref():
    full = MASTER.replace("/master/", "/refs/heads/master/")
    libraries = shipped("indigo-2025-08", "indigo-v4.0.1")
    text = (JUDGED / "older_tag_type.yaml").read_text().replace(MASTER, full)
    parsed = parse_template("judged", text, libraries=LibrarySet(libraries))
    [error] = parsed.errors
    assert 'Type "tosca.nodes.indigo.MonitoredCompute" is defined in none' in error.message
    assert parsed.libraries == ["indigo-2025-08"] and parsed.unresolved_imports == []
    tag = MASTER.replace("/master/", "/refs/tags/v4.0.1/")
    parsed = parse_template("judged", text.replace(full, tag), libraries=LibrarySet(libraries))
    assert parsed.errors == [] and parsed.libraries == ["indigo-v4.0.1"]
