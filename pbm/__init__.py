"""The user-facing shell: thin front ends over shared pieces. Nothing outside pbm imports it.

Its rooms, one per front end, none importing another's (tests/test_rooms.py):
    pbm/cli/    the `pbm` command: the root group, its shared helpers, one module per command
    pbm/web/    the HTTP server: the JSON API, the seats' pages, the operator's API
    pbm/mail/   mail in (a move per message) and out (turn notices, answers, webhooks)
Beside them, only what more than one front end uses:
    turn_report.py    what a seat is told since its last move, its seats named (pure)
    names.py          how a reader reads a seat: its name, "you", "(bot)" (pure)
    result.py         a finished game's result, ranked, in the game's units (pure)
    view_text.py      a view as plain lines (the CLI, mails)
    clock_control.py  the operations on a game's clock (pause, resume, extend, vacation)
    seating.py        who sits where (a fresh link, a seat handed to a bot or back, the seats' names)
    rules/            the games' rules notes for players, and their options as text
The CLI starts the other front ends (`pbm serve`, `pbm mail-server`, `pbm mail-in`): it may import
the names a room's package exports, never the room's modules.
"""
