"""The blueprint of the catalogue admin pages; the modules beside it add its routes."""

from flask import Blueprint

bp = Blueprint("catalogue_admin", __name__, url_prefix="/admin/catalogue")
