"""``rcp``: the portal's command-line client, a thin layer over the JSON API (``/api/v1``).

It talks to the portal only through HTTP, with ``requests``; it imports nothing of the portal's
server side, so it runs wherever the package is installed.
"""
