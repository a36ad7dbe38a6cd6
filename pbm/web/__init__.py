"""The web front end: the JSON API (and, beside it, the seat's pages), an ASGI app over the command
path. It decides nothing: a request becomes Games.submit or a view. It must not import the other
front ends (pbm.cli, pbm.mail); only `pbm serve` imports it, and only create_app.
"""

from pbm.web.app import create_app

__all__ = ["create_app"]
