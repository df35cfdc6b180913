"""Every entrance of a one-line text refuses control characters in words and stores nothing:
the pages' forms, the JSON API, the ``flask`` commands, ``rcp`` and the catalogue's words.

Each test walks one entrance with the whole corpus of poisons; what it must show is the same
sentence (from app.text), naming the field, and the store must be as it was.
"""

from datetime import timedelta

import pytest
from click.testing import CliRunner
from markupsafe import escape
from sqlalchemy import func, select

from app.auth import access_tokens
from app.auth.access_tokens import AccessToken
from app.auth.models import User
from app.catalogue.models import CatalogueTemplate, TemplateRevision, TypeLibrary
from app.cli_client.main import cli as rcp
from app.deployments.models import Deployment, DeploymentEvent
from app.extensions import db
from app.leases.models import LeasePolicyChange
from app.quotas.models import QuotaChange
from app.security import NUL_IN_REQUEST
from app.text import flatten
from tests.conftest import csrf_from, post_form
from tests.deployments.conftest import PARAMETERS, SIDECAR, TEMPLATE

POISONS = {
    "header injection": "poison\r\nX-A: b",
    "tab": "tab\there",
    "NUL": "nul\x00here",
    "line separator": "line\u2028sep",
    "terminal escape": "\x1b[31mred",
    "next line": "next\x85line",
}
REFUSED = "must be a single line without control characters"
REFUSED_IT = "deve stare su una sola riga, senza caratteri di controllo"


def _count(app, model) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model))


def _client(emulated, username, roles=()):
    from app.auth.operations import grant_role

    emulated.user(username)
    with emulated.app.app_context():
        user = db.session.scalar(select(User).where(User.username == username))
        for role in roles:
            grant_role(user, role, granted_by="test")
        db.session.commit()
    client = emulated.app.test_client()
    page = client.get("/login").get_data(as_text=True)
    form = {"username": username, "password": "correct horse battery", "method": "local"}
    assert client.post("/login", data={"csrf_token": csrf_from(page), **form}).status_code == 302
    return client


def _token(app, username) -> dict:
    with app.app_context():
        user = db.session.scalar(select(User).where(User.username == username))
        _record, token = access_tokens.create(
            user, "test", list(access_tokens.SCOPES), timedelta(days=1)
        )
    return {"Authorization": f"Bearer {token}"}


def _refused(html: str, label: str, poison: str, kept: bool = True) -> bool:
    """Whether the page refuses ``poison`` as the field ``label`` and, with ``kept``, gives back
    what was typed. A form holding a NUL is refused whole, before any field is read: no text
    the portal keeps may hold one (app.security)."""
    if "\x00" in poison:
        return str(escape(NUL_IN_REQUEST)) in html
    return f"{label} {REFUSED}" in html and (not kept or str(escape(poison)) in html)


# ---- The pages' forms: the sentence under the field, the value given back, nothing stored.


def test_the_launch_form_refuses_a_name_with_control_characters_and_keeps_it(emulated):
    client = _client(emulated, "ada")
    for poison in POISONS.values():
        page = client.get("/catalogue/test-notebook/").get_data(as_text=True)
        data = {"csrf_token": csrf_from(page), "num_cpus": "2", "deployment_name": poison}
        data |= {"jupyter_password": PARAMETERS["jupyter_password"], "ssh_public_key": ""}
        answer = client.post("/catalogue/test-notebook/", data=data)
        html = answer.get_data(as_text=True)
        assert answer.status_code == 400 and _refused(html, "Name", poison), poison
    assert _count(emulated.app, Deployment) == 0


def test_relaunching_under_a_name_with_control_characters_launches_nothing(emulated):
    ada = emulated.user("ada")
    first = emulated.launch(ada)
    client = emulated.app.test_client()
    page = client.get("/login").get_data(as_text=True)
    form = {"username": "ada", "password": "correct horse battery", "method": "local"}
    client.post("/login", data={"csrf_token": csrf_from(page), **form})
    for poison in POISONS.values():
        answer = post_form(
            client,
            f"/deployments/{first}",
            f"/deployments/{first}/relaunch",
            {"name": poison},
        )
        if "\x00" in poison:
            assert _refused(answer.get_data(as_text=True), "Name", poison)
            continue
        assert answer.status_code == 302
        html = client.get(f"/deployments/{first}").get_data(as_text=True)
        assert _refused(html, "Name", poison, kept=False), poison
        assert "Nothing was launched." in html
    assert _count(emulated.app, Deployment) == 1


def test_the_token_form_refuses_a_name_with_control_characters_and_keeps_it(emulated):
    client = _client(emulated, "ada")
    for poison in POISONS.values():
        answer = post_form(
            client,
            "/account/",
            "/account/tokens",
            {"name": poison, "scopes": ["deployments:read"], "days": "30"},
        )
        html = answer.get_data(as_text=True)
        assert answer.status_code == 400 and _refused(html, "Name", poison), poison
    assert _count(emulated.app, AccessToken) == 0


def test_the_quota_and_lease_policy_forms_refuse_a_reason_with_control_characters(emulated):
    client = _client(emulated, "olga", roles=("operator",))
    for poison in POISONS.values():
        quota = post_form(
            client, "/quotas/site", "/quotas/site", {"cores": "8", "reason": poison}
        ).get_data(as_text=True)
        assert _refused(quota, "Reason for the change", poison), poison
        lease = post_form(
            client, "/leases/", "/leases/", {"default": "2d", "reason": poison}
        ).get_data(as_text=True)
        assert _refused(lease, "Reason for the change", poison), poison
    assert _count(emulated.app, QuotaChange) == _count(emulated.app, LeasePolicyChange) == 0


def test_group_limits_and_policies_are_not_kept_under_a_group_name_with_control_characters(
    emulated,
):
    client = _client(emulated, "olga", roles=("operator",))
    for poison in POISONS.values():
        if "\x00" in poison:
            continue  # refused in any address before the page is asked (app.security)
        group = {"name": f"physics{poison}"}
        page = client.get("/quotas/group", query_string=group).get_data(as_text=True)
        quota = client.post(
            "/quotas/group",
            query_string=group,
            data={"csrf_token": csrf_from(page), "scope": "group", "group-cores": "8"}
            | {"group-reason": "more"},
        ).get_data(as_text=True)
        assert _refused(quota, "Group", poison, kept=False), poison
        where = {"group": f"physics{poison}"}
        page = client.get("/leases/", query_string=where).get_data(as_text=True)
        lease = client.post(
            "/leases/",
            query_string=where,
            data={"csrf_token": csrf_from(page), "default": "2d", "reason": "longer"},
        ).get_data(as_text=True)
        assert _refused(lease, "Group", poison, kept=False), poison
    assert _count(emulated.app, QuotaChange) == _count(emulated.app, LeasePolicyChange) == 0


def test_the_catalogue_admin_forms_refuse_messages_groups_and_library_names(emulated):
    client = _client(emulated, "root", roles=("admin",))
    edit = "/admin/catalogue/test-notebook/edit"
    before = _count(emulated.app, TemplateRevision)
    for poison in POISONS.values():
        saved = post_form(
            client,
            edit,
            edit,
            {"tosca_text": TEMPLATE, "sidecar_text": SIDECAR, "message": poison},
        ).get_data(as_text=True)
        assert _refused(saved, "What changed", poison), poison
        visibility = post_form(
            client,
            "/admin/catalogue/test-notebook/",
            "/admin/catalogue/test-notebook/visibility",
            {"groups": f"physics, {poison}"},
        )
        if visibility.status_code == 302:
            visibility = client.get("/admin/catalogue/test-notebook/")
        assert _refused(visibility.get_data(as_text=True), "Visible to groups", poison, False)
        library = post_form(
            client,
            "/admin/catalogue/libraries/",
            "/admin/catalogue/libraries/",
            {"name": poison, "patterns": "https://example.org/{path}"},
        ).get_data(as_text=True)
        assert _refused(library, "Name", poison), poison
    assert _count(emulated.app, TemplateRevision) == before
    assert _count(emulated.app, TypeLibrary) == 0


def test_the_users_page_refuses_a_group_with_control_characters(emulated):
    client = _client(emulated, "root", roles=("admin",))
    ada = emulated.user("ada", groups=())
    for poison in POISONS.values():
        answer = post_form(
            client,
            f"/admin/users/{ada}",
            f"/admin/users/{ada}/groups",
            {"group": poison, "action": "add"},
        )
        if answer.status_code == 302:
            answer = client.get(answer.headers["Location"])
        assert _refused(answer.get_data(as_text=True), "Group", poison), poison
    with emulated.app.app_context():
        assert db.session.get(User, ada).groups == []


def test_extending_with_a_reason_with_control_characters_is_refused(emulated):
    ada = emulated.user("ada")
    deployment = emulated.launch(ada)
    client = _client(emulated, "olga", roles=("operator",))
    for poison in POISONS.values():
        answer = post_form(
            client,
            f"/deployments/{deployment}",
            f"/deployments/{deployment}/extend",
            {"override": "1", "by": "1h", "reason": poison},
        )
        if answer.status_code == 302:
            answer = client.get(f"/deployments/{deployment}")
        assert _refused(answer.get_data(as_text=True), "Reason", poison, kept=False), poison
    with emulated.app.app_context():
        kinds = db.session.scalars(select(DeploymentEvent.kind)).all()
    assert "lease-extended" not in kinds


# ---- The JSON API: 400 with the sentence under the field's name, in the caller's language.


def test_the_api_refuses_names_groups_and_reasons_with_control_characters(emulated):
    ada = emulated.user("ada")
    first = emulated.launch(ada)
    client, auth = emulated.app.test_client(), _token(emulated.app, "ada")
    for poison in POISONS.values():
        bodies = {
            "/api/v1/deployments": [
                ("name", {"template": "test-notebook", "name": poison}),
                ("group", {"template": "test-notebook", "name": "ok", "group": poison}),
            ],
            f"/api/v1/deployments/{first}/relaunch": [("name", {"name": poison})],
            f"/api/v1/deployments/{first}/lease": [
                ("reason", {"past_policy": True, "hours": 1, "reason": poison})
            ],
        }
        for path, cases in bodies.items():
            for field, body in cases:
                if path == "/api/v1/deployments":
                    body["parameters"] = PARAMETERS
                answer = client.post(path, json=body, headers=auth)
                assert answer.status_code == 400, (path, field, poison)
                [said] = answer.get_json()["errors"][field]
                assert REFUSED in said and field in said
    assert _count(emulated.app, Deployment) == 1


def test_the_api_refuses_in_the_callers_language(emulated):
    emulated.user("ada")
    auth = {**_token(emulated.app, "ada"), "Accept-Language": "it"}
    body = {"template": "test-notebook", "name": "poison\r\nX-A: b", "parameters": PARAMETERS}
    answer = emulated.app.test_client().post("/api/v1/deployments", json=body, headers=auth)
    [said] = answer.get_json()["errors"]["name"]
    assert said.startswith(f"name {REFUSED_IT}") and "U+000D, U+000A" in said


# ---- The flask commands and rcp: a usage error naming the option, before anything is done.

COMMANDS = {
    "users create --name": ["users", "create", "zoe", "--name", "{}"],
    "users groups --add": ["users", "groups", "ada", "--add", "{}"],
    "tokens create --name": ["tokens", "create", "ada", "--name", "{}", "--scopes", "api"],
    "quota set --reason": ["quota", "set", "--site", "--cores", "8", "--reason", "{}"],
    "leases set --reason": ["leases", "set", "--site", "--default", "2d", "--reason", "{}"],
    "leases set --group": ["leases", "set", "--group", "{}", "--default", "2d", "--reason", "x"],
    "catalogue types add NAME": ["catalogue", "types", "add", "{}", ".", "--url", "x/{path}"],
}


@pytest.mark.parametrize("words", COMMANDS.values(), ids=COMMANDS.keys())
def test_the_flask_commands_refuse_texts_with_control_characters(emulated, words):
    emulated.user("ada", groups=())
    stored = (User, AccessToken, QuotaChange, LeasePolicyChange, TypeLibrary)
    before = [_count(emulated.app, model) for model in stored]
    for poison in POISONS.values():
        args = [word.replace("{}", poison) if word == "{}" else word for word in words]
        result = emulated.app.test_cli_runner().invoke(args=args)
        assert result.exit_code == 2 and REFUSED in result.output, (poison, result.output)
        assert "U+" in result.output
    assert [_count(emulated.app, model) for model in stored] == before
    with emulated.app.app_context():
        assert db.session.scalar(select(User.groups).where(User.username == "ada")) == []


@pytest.mark.parametrize("option", ["--name", "--group"])
def test_rcp_refuses_before_sending_anything(option, closed_port_url, monkeypatch):
    # Nothing listens at the portal's address: a request would fail otherwise.
    monkeypatch.setenv("RCP_URL", closed_port_url)
    monkeypatch.setenv("RCP_TOKEN", "rcp_not-used")
    for poison in POISONS.values():
        result = CliRunner().invoke(rcp, ["launch", "test-notebook", option, poison])
        assert result.exit_code == 2, result.output
        assert f"{option} {REFUSED}" in result.output and "U+" in result.output


# ---- The catalogue: the template's and the sidecar's words, wherever they are read from.

WORDS = {
    "name": "name: {}\n",
    "tags.1": "tags: [ok, {}]\n",
    "inputs.num_cpus.label": "inputs:\n  num_cpus: {{label: {}}}\n",
    "inputs.num_cpus.placeholder": "inputs:\n  num_cpus: {{placeholder: {}}}\n",
    "outputs.jupyter_endpoint.label": "outputs:\n  jupyter_endpoint: {{label: {}}}\n",
    "tabs.0.name": "tabs:\n  - name: {}\n    inputs: [num_cpus]\n",
    "presets.0.name": "presets:\n  - name: {}\n    values: {{num_cpus: 2}}\n",
    "translations.it.name": "translations:\n  it: {{name: {}}}\n",
}


def _yaml(value: str) -> str:
    """``value`` as a YAML double-quoted scalar, its control characters as escapes."""
    return '"' + "".join(f"\\u{ord(c):04x}" if not c.isprintable() else c for c in value) + '"'


@pytest.mark.parametrize(("place", "sidecar"), WORDS.items(), ids=WORDS.keys())
def test_the_catalogue_refuses_sidecar_words_with_control_characters(parse_text, place, sidecar):
    for poison in POISONS.values():
        parsed = parse_text(TEMPLATE, sidecar.format(_yaml(poison)), slug="test-notebook")
        said = [str(problem) for problem in parsed.errors]
        assert f"{place} {REFUSED}" in " ".join(said), (poison, said)
        assert not parsed.ok


def test_descriptions_and_help_may_hold_line_breaks_but_no_other_control_character(
    parse_text,
):
    lines = "description: |\n  First line.\n  Second line.\ninputs:\n  num_cpus:\n    help: |\n"
    lines += "      How many.\n      At most 8.\n"
    assert parse_text(TEMPLATE, lines, slug="test-notebook").ok
    for poison in ("tab\there", "back\rthere", "\x1b[31mred", "nul\x00"):
        parsed = parse_text(TEMPLATE, f"description: {_yaml(poison)}\n", slug="test-notebook")
        assert "description may hold line breaks but no other control character" in " ".join(
            str(problem) for problem in parsed.errors
        ), poison


def test_a_name_stored_before_the_rule_is_shown_on_one_line():
    assert flatten("poison\r\nX-A: b") == "poison X-A: b"
    assert flatten(" \x1b[31mred\x1b[0m\u2028") == "[31mred [0m"


def test_a_catalogue_folder_whose_sidecar_words_hold_control_characters_is_not_published(
    emulated, tmp_path
):
    folder = tmp_path / "catalogue"
    folder.mkdir()
    for number, poison in enumerate(POISONS.values()):
        (folder / f"app-{number}.yaml").write_text(TEMPLATE)
        sidecar = SIDECAR + f"translations:\n  it: {{name: {_yaml(poison)}}}\n"
        (folder / f"app-{number}.portal.yaml").write_text(sidecar)
    result = emulated.app.test_cli_runner().invoke(args=["catalogue", "import", str(folder)])
    assert result.exit_code == 0, result.output
    for number in range(len(POISONS)):
        assert f"app-{number}.yaml -> app-{number}: invalid: revision 1 not published" in (
            result.output
        )
    assert result.output.count(f"translations.it.name {REFUSED}") == len(POISONS)
    with emulated.app.app_context():
        published = db.session.scalars(
            select(CatalogueTemplate.slug).where(
                CatalogueTemplate.published_revision_id.is_not(None)
            )
        ).all()
    assert not any(slug.startswith("app-") for slug in published)
