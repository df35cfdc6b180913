"""The catalogue as stored: templates, every revision of each, and what people last launched."""

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.clock import utcnow
from app.extensions import db
from app.tosca.wording import translated


class CatalogueTemplate(db.Model):
    """One application in the catalogue, known by its slug.

    Users see the published revision (if any, and unless hidden); admins edit newer revisions
    without disturbing it until they publish.
    """

    __tablename__ = "catalogue_templates"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(100), unique=True)
    hidden: Mapped[bool] = mapped_column(default=False)
    published_revision_id: Mapped[int | None] = mapped_column(
        ForeignKey("template_revisions.id", use_alter=True, name="fk_published_revision"),
        nullable=True,
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_by: Mapped[str] = mapped_column(String(255), default="")
    # Where ``flask catalogue import`` read it (relative to the folder), and what it last
    # stored from there: a later revision is an admin's edit, which an import never overwrites.
    source: Mapped[str] = mapped_column(String(500), default="")
    # The folder it was imported from (see ``folders.root_label``): another folder's file with
    # the same relative path is a different application, not a new revision of this one.
    source_root: Mapped[str] = mapped_column(String(500), default="", server_default="")
    imported_revision_id: Mapped[int | None] = mapped_column(nullable=True)
    imported_digest: Mapped[str] = mapped_column(String(64), default="")
    # The backend that deploys it (``app.backends.registry``); None: the site's DEFAULT_BACKEND
    # (see ``routing.serving_backend``).
    backend: Mapped[str | None] = mapped_column(String(20), nullable=True)

    revisions: Mapped[list["TemplateRevision"]] = relationship(
        back_populates="template",
        foreign_keys="TemplateRevision.template_id",
        order_by="TemplateRevision.number",
        cascade="all, delete-orphan",
    )
    published_revision: Mapped["TemplateRevision | None"] = relationship(
        foreign_keys=[published_revision_id], post_update=True
    )


class TemplateRevision(db.Model):
    """A saved version of a template and its portal metadata, with its validation result.

    ``parsed`` is the JSON of the parsed template (see parsed.py), computed once when the
    revision is saved: page views never run the TOSCA validator.
    """

    __tablename__ = "template_revisions"
    __table_args__ = (UniqueConstraint("template_id", "number", name="uq_revision_number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    template_id: Mapped[int] = mapped_column(
        ForeignKey("catalogue_templates.id", ondelete="CASCADE")
    )
    number: Mapped[int]
    tosca_text: Mapped[str] = mapped_column(Text)
    sidecar_text: Mapped[str] = mapped_column(Text, default="")
    message: Mapped[str] = mapped_column(String(500), default="")
    # When the portal wrote the message (an import, a restore): its words to translate when
    # shown (``wording.said``); ``message`` holds them in English. None for an admin's own.
    message_words: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    author: Mapped[str] = mapped_column(String(255), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    parsed: Mapped[str] = mapped_column(Text)
    valid: Mapped[bool] = mapped_column(default=False)
    # When ``parsed`` was last computed: at saving, or by re-validating after a library changed.
    validated_at: Mapped[datetime | None] = mapped_column(nullable=True)

    template: Mapped[CatalogueTemplate] = relationship(
        back_populates="revisions", foreign_keys=[template_id]
    )

    @property
    def shown_message(self) -> str:
        """The message in the reader's language when the portal wrote it; as typed otherwise."""
        words = self.message_words
        return translated(words["msgid"], words.get("params") or {}) if words else self.message


class CatalogueVersion(db.Model):
    """A counter bumped on every catalogue change, so each worker knows when to reload."""

    __tablename__ = "catalogue_version"

    id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(default=0)


class LaunchDefaults(db.Model):
    """The values a user entered last time for a template, to pre-fill the next launch.

    Secrets (passwords, credentials) are never stored here.
    """

    __tablename__ = "launch_defaults"
    __table_args__ = (UniqueConstraint("user_id", "slug", name="uq_launch_defaults"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    slug: Mapped[str] = mapped_column(String(100))
    values: Mapped[dict] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class TypeLibrary(db.Model):
    """A named, versioned set of TOSCA type files and the import URL patterns it answers for.

    Admins register libraries; templates are validated against them (see typelibs.py).
    """

    __tablename__ = "type_libraries"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    version: Mapped[str] = mapped_column(String(200), default="")
    patterns: Mapped[list] = mapped_column(JSON, default=list)
    position: Mapped[int] = mapped_column(default=0)  # lower is preferred
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_by: Mapped[str] = mapped_column(String(255), default="")

    files: Mapped[list["TypeLibraryFile"]] = relationship(
        back_populates="library", order_by="TypeLibraryFile.path", cascade="all, delete-orphan"
    )


class TypeLibraryFile(db.Model):
    """One file of a type library, by its path inside the library."""

    __tablename__ = "type_library_files"
    __table_args__ = (UniqueConstraint("library_id", "path", name="uq_type_library_file"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    library_id: Mapped[int] = mapped_column(ForeignKey("type_libraries.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(String(500))
    text: Mapped[str] = mapped_column(Text)

    library: Mapped[TypeLibrary] = relationship(back_populates="files")
