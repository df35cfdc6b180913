"""The Group page: what a group's managers look after, on one page (issue 31).

Who belongs to the group and what each of them runs and used this month, the group's running
deployments and its requests waiting in line, its usage over time, its pool's limits and its
budgets. Managers see their groups' pages; operators and admins every group's; anyone else is
answered 404. The page reads what the floors below own (the deployments, the quotas, the line)
and changes nothing: what a manager may do to a deployment is done on its own page, under the
deployments' access policy.

``access`` says who sees which group, ``members`` who belongs to it, ``reading`` the rest of
the page, ``views`` its addresses and ``menu`` the navigation bar's entry.
"""

from flask import Flask


def init_groups(app: Flask) -> None:
    """Start-up: the navigation bar's "My groups" entry, read with the login check."""
    from app.auth.logins import LoginReading
    from app.auth.managers import NAMED_READING, named_with_login
    from app.extension_points import LOGIN_READINGS, NAVIGATION_MENUS
    from app.groups import menu

    app.context_processor(lambda: {"groups_menu": menu.shows_entry})
    NAVIGATION_MENUS.add(app, "groups/_menu.html")
    LOGIN_READINGS.add(app, LoginReading(NAMED_READING, named_with_login, menu.draws_the_menu))
