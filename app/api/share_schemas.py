"""The shapes of a deployment's shares in the API (see app.api.shares)."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from app.api.schemas import Out


class Share(Out):
    kind = fields.String(required=True, validate=validate.OneOf(("user", "group")))
    name = fields.String(required=True, metadata={"description": "A username or a group"})
    role = fields.String(required=True, validate=validate.OneOf(("viewer", "co-owner")))


class ShareList(Out):
    items = fields.List(fields.Nested(Share))


class ShareRequest(Schema):
    class Meta:
        unknown = RAISE

    role = fields.String(
        required=True,
        validate=validate.OneOf(("viewer", "co-owner")),
        metadata={"description": "viewer sees it; co-owner also steers it and reveals secrets"},
    )
