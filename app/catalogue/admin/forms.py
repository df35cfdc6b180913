"""Forms of the catalogue admin pages, and the blank skeleton a new template starts from."""

import re

from flask import current_app
from flask_babel import format_decimal, ngettext
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    HiddenField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, Length, Optional, StopValidation, ValidationError

from app.auth.groups import normalise_group
from app.backends import registry
from app.bounds import BoundedIntegerField, whole_number
from app.catalogue.operations import CatalogueError, check_slug
from app.text import OneLine

MESSAGE_MAX = 500
GROUP_RE = re.compile(r"^[\w.@:/-]{1,100}$")

SKELETON_TEMPLATE = """\
tosca_definitions_version: tosca_simple_yaml_1_0

imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml

description: >
  A single virtual machine. Say here what the template deploys.

metadata:
  display_name: {name}

topology_template:

  inputs:
    num_cpus:
      type: integer
      description: Number of virtual CPUs of the machine
      default: 2
      constraints:
        - valid_values: [ 1, 2, 4, 8 ]

  node_templates:

    server:
      type: tosca.nodes.indigo.Compute
      capabilities:
        endpoint:
          properties:
            network_name: PUBLIC
        scalable:
          properties:
            count: 1
        host:
          properties:
            num_cpus: {{ get_input: num_cpus }}
            mem_size: 4 GB
        os:
          properties:
            image: ubuntu-22.04

  outputs:
    node_ip:
      description: Public IP address of the machine
      value: {{ get_attribute: [ server, public_address, 0 ] }}
"""

SKELETON_SIDECAR = """\
# Portal metadata: every key is optional (see tosca-catalog/README.md).
name: {name}
description: >-
  What this application gives a researcher, in one or two sentences.
tags: []
visible_to: []
inputs:
  num_cpus:
    label: Cores
    help: How many processor cores the machine gets.
    widget: select
outputs:
  node_ip: {{label: IP address, show: copy}}
# The same words in other languages; any left out are shown as above.
translations:
  it:
    name: {name}
    description: >-
      Che cosa offre questa applicazione a chi fa ricerca, in una o due frasi.
    inputs:
      num_cpus:
        label: Core
        help: Quanti core di processore avrà la macchina.
    outputs:
      node_ip: {{label: Indirizzo IP}}
"""


def skeleton(slug: str) -> tuple[str, str]:
    """The template and sidecar text a blank template starts with."""
    name = slug.replace("-", " ").capitalize()
    return SKELETON_TEMPLATE.format(name=name), SKELETON_SIDECAR.format(name=name)


def _as_text(validator_class):
    """``validator_class`` whose message, given lazily, is shown as escaped text: a lazy string
    would otherwise reach the page as markup (``LazyString.__html__``)."""

    class AsText(validator_class):
        def __call__(self, form, field):
            try:
                super().__call__(form, field)
            except StopValidation as stop:
                raise StopValidation(str(stop)) from None

    return AsText


Required, FileChosen = _as_text(DataRequired), _as_text(FileRequired)


class TextFileField(FileField):
    """An uploaded text file; ``utf8_text_file`` puts its content in ``text``."""

    text = ""


def _max_bytes() -> int:
    return current_app.config["TEMPLATE_MAX_BYTES"]


def _unix_newlines(text: str | None) -> str | None:
    # Browsers send textarea lines ending in CRLF; stored revisions use LF so diffs stay clean.
    return text.replace("\r\n", "\n") if isinstance(text, str) else text


def valid_slug(form, field) -> None:
    """Apply operations.check_slug, and keep the normalised slug."""
    try:
        field.data = check_slug(field.data)
    except CatalogueError as error:
        raise ValidationError(error.message) from error


def text_within_limit(form, field) -> None:
    size = len((field.data or "").encode("utf-8"))
    if size > _max_bytes():
        raise ValidationError(
            _(
                "This text is %(size)s bytes; the limit is %(limit)s bytes.",
                size=format_decimal(size),
                limit=format_decimal(_max_bytes()),
            )
        )


def utf8_text_file(form, field) -> None:
    """Read an uploaded file as UTF-8 text into ``field.text``; refuse big or binary files."""
    field.text = ""
    storage = field.data
    if not storage or not getattr(storage, "filename", ""):
        return
    limit = _max_bytes()
    # Read one byte past the limit: enough to know it's too big without reading all of it.
    content = storage.stream.read(limit + 1)
    if len(content) > limit:
        raise ValidationError(
            _(
                "%(file)s is larger than the limit of %(limit)s bytes.",
                file=storage.filename,
                limit=format_decimal(limit),
            )
        )
    if b"\x00" in content:
        raise ValidationError(
            _("%(file)s is a binary file, not a YAML text file.", file=storage.filename)
        )
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValidationError(
            _(
                "%(file)s is not UTF-8 text (byte %(byte)d can't be read).",
                file=storage.filename,
                byte=error.start + 1,
            )
        ) from error
    field.text = _unix_newlines(text)


def group_list(form, field) -> None:
    """Split comma or space separated group names into ``field.groups``."""
    names = [name for name in re.split(r"[\s,]+", field.data or "") if name]
    bad = [name for name in names if not GROUP_RE.match(name)]
    if bad:
        raise ValidationError(
            ngettext(
                "Not a group name: %(names)s. Use letters, digits and . _ - @ : /",
                "Not group names: %(names)s. Use letters, digits and . _ - @ : /",
                len(bad),
                names=", ".join(bad),
            )
        )
    field.groups = list(dict.fromkeys(g for g in map(normalise_group, names) if g))


class UploadForm(FlaskForm):
    """A new template from files: the TOSCA template and, optionally, its sidecar."""

    slug = StringField(
        _l("Slug"),
        validators=[DataRequired(), valid_slug],
        description=_l("The template's id in URLs: lowercase letters, digits and dashes."),
    )
    tosca_file = TextFileField(
        _l("TOSCA template (.yaml)"),
        validators=[FileChosen(_l("Choose a file.")), utf8_text_file],
    )
    sidecar_file = TextFileField(
        _l("Portal metadata (.portal.yaml, optional)"), validators=[Optional(), utf8_text_file]
    )
    message = StringField(_l("Message"), validators=[Length(max=MESSAGE_MAX), OneLine()])


class BlankForm(FlaskForm):
    """A new template from the skeleton."""

    slug = StringField(
        _l("Slug"),
        validators=[DataRequired(), valid_slug],
        description=_l("The template's id in URLs: lowercase letters, digits and dashes."),
    )


class EditForm(FlaskForm):
    """A new revision: the template, its sidecar and why they changed."""

    base = HiddenField()  # the revision the admin started from, to warn about concurrent edits
    tosca_text = TextAreaField(
        _l("TOSCA template"),
        validators=[Required(_l("The template can't be empty.")), text_within_limit],
        filters=[_unix_newlines],
    )
    sidecar_text = TextAreaField(
        _l("Portal metadata (sidecar)"), validators=[text_within_limit], filters=[_unix_newlines]
    )
    message = StringField(
        _l("What changed"),
        validators=[Length(max=MESSAGE_MAX), OneLine()],
        description=_l("A short note for the revision history."),
    )


class PublishForm(FlaskForm):
    """Publish a revision; the latest when none is given."""

    number = BoundedIntegerField(_l("Revision"), validators=[Optional()])


class ActionForm(FlaskForm):
    """A button that changes state: only the CSRF token is needed."""


class VisibilityForm(FlaskForm):
    """Which groups see the template (the sidecar's ``visible_to``)."""

    groups = StringField(
        _l("Visible to groups"),
        validators=[OneLine(), group_list],
        description=_l("Group names separated by commas. Leave empty to show it to everyone."),
    )


class BackendForm(FlaskForm):
    """Which backend deploys the template (stored on the template, not in a revision)."""

    backend = SelectField(
        _l("Runs on"),
        description=_l(
            "The site's default follows the portal's setting. A backend that cannot deploy "
            "the template is refused, with the reason."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        default = registry.label(current_app.config["DEFAULT_BACKEND"])
        self.backend.choices = [
            ("", _("The site's default (%(backend)s)", backend=default)),
            *((name, registry.label(name)) for name in registry.NAMES),
        ]


class CompareForm(FlaskForm):
    """Choose two revisions to compare (a GET form: it changes nothing)."""

    class Meta:
        csrf = False

    a = SelectField(_l("From revision"), coerce=whole_number)
    b = SelectField(_l("To revision"), coerce=whole_number)


def pattern_list(form, field) -> None:
    """Split one URL pattern per line into ``field.patterns``."""
    field.patterns = [line.strip() for line in (field.data or "").splitlines() if line.strip()]
    if not field.patterns:
        raise ValidationError(_("Give at least one URL pattern, one per line."))


class LibraryForm(FlaskForm):
    """A type library from an uploaded archive of its folder."""

    name = StringField(
        _l("Name"),
        validators=[Required(_l("Name the library.")), Length(max=100), OneLine()],
        description=_l("Letters, digits, dots, dashes and underscores, e.g. site-types-v2."),
    )
    version = StringField(
        _l("Version note"),
        validators=[Length(max=200), OneLine()],
        description=_l("Optional: which tag or commit the files are."),
    )
    patterns = TextAreaField(
        _l("URL patterns"),
        validators=[pattern_list],
        description=_l(
            "One per line. {path} is the file inside the library, {ref} any branch, tag or "
            "commit: https://git.example.org/infra/tosca-types/raw/{ref}/{path}"
        ),
    )
    archive = FileField(
        _l("Folder as an archive (.zip or .tar.gz)"),
        validators=[FileChosen(_l("Choose the archive of the library's folder."))],
    )
    replace = BooleanField(_l("Replace the files of an existing library with this name"))
