"""The supervisor of `pbm serve --workers N`: uvicorn's, each replica on a listening socket of its
own. The sockets share the one address (SO_REUSEPORT), and the kernel spreads new connections
over them by each connection's addresses. Imported only with --workers (it imports uvicorn).

Why: with one listening socket shared, whichever replica's loop woke first accepted every
connection then waiting. Twenty opened at once went 19 to 1, 14 to 6 and 19 to 1. A keep-alive
connection stays with the replica that took it, so one replica served nearly all of them
(docs/scale.md).
"""

from __future__ import annotations

import socket

from uvicorn.supervisors import Multiprocess


class Replicas(Multiprocess):
    """uvicorn's Multiprocess (it starts the replicas, restarts one that dies or hangs, and stops them
    all), handing each replica it starts a listening socket made for it, the first one the socket
    `pbm serve` listened on before it said where. The parent keeps no reference to a socket it
    handed out: once the replica's process has started it holds the descriptor itself (uvicorn
    spawns it), and the parent's copy is closed as it is dropped. So a replica that dies takes its
    socket with it, and the kernel stops sending it connections."""

    @property
    def sockets(self) -> list[socket.socket]:
        first, self._first = self._first, None
        return [first if first is not None else shared_listener(self._family, self._address)]

    @sockets.setter
    def sockets(self, given: list[socket.socket]) -> None:
        (self._first,) = given
        self._address, self._family = given[0].getsockname(), given[0].family


def shared_in_place_of(alone: socket.socket) -> socket.socket:
    """A listening socket that others may share (SO_REUSEPORT), in place of `alone`: on its address
    (a port 0 resolved), which its bind, made without sharing, found free of anyone else's."""
    address, family = alone.getsockname(), alone.family
    alone.close()
    return shared_listener(family, address)


def shared_listener(family: socket.AddressFamily, address: tuple) -> socket.socket:
    """A TCP socket listening on `address`, which other sockets with SO_REUSEPORT share."""
    made = socket.socket(family)
    try:
        made.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        made.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        made.bind(address)
        made.listen(2048)
    except OSError:
        made.close()
        raise
    return made
