"""``flask tokens list`` reads as a table: a header naming each column, then one token a line;
a person with none is told so."""

from datetime import timedelta

from app.auth import access_tokens
from app.auth.cli import create_local_user
from app.extensions import db


def test_flask_tokens_list_names_its_columns_then_lists_each_token(make_app):
    app = make_app()
    with app.app_context():
        ada = create_local_user("ada", "correct horse battery")
        create_local_user("bob", "correct horse battery")
        access_tokens.create(ada, "ci", ["deployments:read"], timedelta(days=30))
        db.session.commit()
    runner = app.test_cli_runner()

    lines = runner.invoke(args=["tokens", "list", "ada"]).output.splitlines()

    assert lines[0].split("\t") == [
        "ID",
        "TOKEN",
        "NAME",
        "SCOPES",
        "EXPIRES (UTC)",
        "STATE",
        "LAST USED (UTC)",
    ]
    [row] = [line.split("\t") for line in lines[1:]]
    assert len(row) == 7 and row[2:4] == ["ci", "deployments:read"] and row[5:] == ["live", "never"]
    assert runner.invoke(args=["tokens", "list", "bob"]).output == "bob has no tokens.\n"
