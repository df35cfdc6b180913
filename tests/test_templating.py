"""What templates share: addresses built once per app, yet the same as ``url_for`` builds."""

from flask import render_template_string, url_for
from markupsafe import escape

DETAIL = "{{ url_for('deployments.detail', deployment_id=7) }}"
STATIC = "{{ url_for('static', filename='x.css') }}"


def _render(app, source: str, **environ) -> str:
    with app.test_request_context("/", **environ):
        return render_template_string(source)


def test_an_address_a_template_builds_is_what_url_for_builds(app):
    with app.test_request_context("/"):
        detail = url_for("deployments.detail", deployment_id=7)
        static = url_for("static", filename="x.css")
    assert _render(app, f"{DETAIL} {STATIC}") == f"{detail} {static}"
    assert _render(app, f"{DETAIL} {STATIC}") == f"{detail} {static}"  # now remembered


def test_an_app_mounted_elsewhere_gets_its_own_addresses(app):
    source = "{{ url_for('catalogue.index') }}"
    assert _render(app, source) == "/catalogue/"
    mounted = _render(app, source, environ_overrides={"SCRIPT_NAME": "/portal"})
    assert mounted == "/portal/catalogue/"
    assert _render(app, source) == "/catalogue/"


def test_external_addresses_follow_the_host_asked(app):
    source = "{{ url_for('catalogue.index', _external=True) }}"
    assert _render(app, source, base_url="http://one.example") == "http://one.example/catalogue/"
    assert _render(app, source, base_url="http://two.example") == "http://two.example/catalogue/"


def test_values_that_cannot_be_a_key_are_built_each_time(app):
    source = "{{ url_for('catalogue.index', tag=['gpu', 'ml']) }}"
    assert _render(app, source) == escape("/catalogue/?tag=gpu&tag=ml")


def test_macros_imported_by_a_page_see_its_globals(app):
    from app.templating import _TemplateGlobals

    source = (
        "{% from '_macros/forms.html' import form_errors %}"
        "{{ form_errors(form) }}{{ url_for('catalogue.index') }}"
    )

    class Form:
        form_errors = ["<broken>"]

    with app.test_request_context("/"):
        page = render_template_string(source, form=Form())
        assert isinstance(
            app.jinja_env.get_template("_macros/forms.html").globals, _TemplateGlobals
        )
    assert "&lt;broken&gt;" in page and "/catalogue/" in page
    names = _TemplateGlobals({"mine": 1}, {"url_for": 2, "mine": 3}).keys()
    assert set(names) == {"mine", "url_for"} and {"mine", "other"} - names == {"other"}


def test_a_word_kept_for_templates_is_kept_per_language(app):
    """Words are kept with their language's catalogue: the next page in the other language gets
    its own, and a word with values put in is written with them each time."""
    source = "{{ _('Catalogue') }}|{{ _('Launch %(name)s', name=name) }}"

    def page(language: str, name: str) -> str:
        headers = {"Accept-Language": language}
        with app.test_request_context("/", headers=headers):
            return render_template_string(source, name=name)

    assert page("en", "<vm>") == "Catalogue|Launch &lt;vm&gt;"
    assert page("it", "a") == "Catalogo|Avvia a"
    assert page("en", "b") == "Catalogue|Launch b"
    assert page("it", "c") == "Catalogo|Avvia c"


def test_a_template_calls_functions_methods_and_callable_objects_as_jinja_does(app):
    from jinja2 import pass_context, pass_eval_context

    @pass_context
    def page_name(context):
        return context["name"]

    @pass_eval_context
    def escaping(eval_ctx):
        return eval_ctx.autoescape

    class Counter:
        @pass_eval_context
        def __call__(self, eval_ctx, step):
            return f"{eval_ctx.autoescape}+{step}"

    source = (
        "{{ page_name() }} {{ escaping() }} {{ counter(2) }} {{ name.startswith('pa') }} "
        "{{ plain(1, more=2) }}{% for i in [1] %} {{ page_name() }}{% endfor %}"
    )
    with app.test_request_context("/"):
        page = render_template_string(
            source,
            name="page",
            page_name=page_name,
            escaping=escaping,
            counter=Counter(),
            plain=lambda one, more: one + more,
        )
    assert page == "page True True+2 True 3 page"


def test_bootstrap_tags_follow_where_the_app_is_mounted(app):
    source = "{{ bootstrap_css() }}{{ bootstrap_js() }}"
    here = _render(app, source)
    mounted = _render(app, source, environ_overrides={"SCRIPT_NAME": "/portal"})
    with app.test_request_context("/"):
        bootstrap = app.extensions["bootstrap"]
        assert here == bootstrap.load_css() + bootstrap.load_js()
    assert 'href="/bootstrap/static/' in here
    assert 'href="/portal/bootstrap/static/' in mounted and mounted.count("/portal/") == 3


def test_every_form_of_a_page_carries_the_same_csrf_token(app):
    from flask_wtf.csrf import generate_csrf

    with app.test_request_context("/"):
        page = render_template_string("{{ csrf_token() }} {{ csrf_token() }}")
        assert page == f"{generate_csrf()} {generate_csrf()}"
