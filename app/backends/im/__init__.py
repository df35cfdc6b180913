"""The Infrastructure Manager (IM) as a backend."""

from app.backends.im.compatibility import template_problem

__all__ = ["template_problem"]
