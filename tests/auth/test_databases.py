"""Database-facing tests run on both backends, each on a database of its own."""

from sqlalchemy import func, select, text

from app.auth.models import User
from app.extensions import db


def test_each_run_uses_the_backend_in_its_name(app, database):
    with app.app_context():
        assert db.engine.dialect.name == database


def test_a_test_starts_with_empty_tables_and_can_write_them(app, people):
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(User)) == 0
    people.create("ada")
    with app.app_context():
        assert db.session.scalar(select(User.username)) == "ada"


def test_two_apps_of_one_test_get_two_databases_unless_they_share_a_url(
    make_app, database_url, people_for
):
    first, second = make_app(), make_app()
    people_for(first, first.test_client()).create("ada")
    with second.app_context():
        assert db.session.scalar(select(func.count()).select_from(User)) == 0
    shared = make_app(SQLALCHEMY_DATABASE_URI=database_url)
    also = make_app(SQLALCHEMY_DATABASE_URI=database_url)
    people_for(shared, shared.test_client()).create("ada")
    with also.app_context():
        assert db.session.scalar(select(User.username)) == "ada"


def test_the_starter_catalogue_copy_keeps_its_rows_and_takes_new_ones(catalogue_app, database):
    from app.catalogue.models import CatalogueTemplate

    with catalogue_app.app_context():
        templates = db.session.scalars(select(CatalogueTemplate)).all()
        assert len(templates) >= 6
        assert all(t.published_revision is not None for t in templates)
        # New rows get ids after the copied ones.
        added = CatalogueTemplate(slug="added")
        db.session.add(added)
        db.session.commit()
        assert added.id > max(t.id for t in templates)
        if database == "postgresql":
            assert db.session.execute(text("SHOW search_path")).scalar().startswith("t_")
