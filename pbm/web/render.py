"""The seat's page and its replay as HTML: one Jinja2 template per game, over base.html (the page)
or review.html (the replay), fed by pictures.py: one drawing of the table for both. It renders
what it is given and nothing else: no request, no Redis, no token beyond the page's own.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2

import core
from pbm import result
from pbm import times
from pbm.clock_control import now_ms, readable
from pbm.names import Names
from pbm.web.pictures import picture, steps

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"

environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
environment.filters["readable"] = readable  # an ISO 8601 UTC time as a person reads it (the operator's pages)
environment.filters["moment"] = lambda when, tz=None: times.moment(when, now_ms(), tz)  # a player's: times.html
environment.globals["fresh_key"] = lambda: secrets.token_hex(16)


def render_page(
    view: Mapping[str, Any],
    *,
    game_id: str,
    options: Mapping[str, Any],
    names: Sequence[str | None],
    bots: Sequence[int] = (),
    report: Sequence[str | Mapping[str, Any]],  # lines, or turn_report.dated_since_last_move's entries
    story: Sequence[Mapping[str, Any]],
    base_path: str,
    static: str,
    csrf: str,
    deadline: Mapping[str, Any] | None = None,  # pbm.clock_control.deadline_of
    vacation: Mapping[str, Any] | None = None,  # the seat's vacation bank: days left, away until
    salt_wanted: bool = False,  # the opening deal waits for this seat's salt (core.salts)
    salts_due: str | None = None,  # while the deal waits for salts, when their deadline deals it (ISO UTC)
    notice: str | None = None,
    refusal: str | None = None,
    refused_move: str | None = None,
    refused_at: str | None = None,
    review_url: str | None = None,  # the seat's replay page, linked from the story
    plan: Mapping[str, Any] | None = None,  # "Plan ahead": the seat's standing orders (pages.plan_of)
    rematch: Mapping[str, Any] | None = None,  # a finished game's rematch (pages.rematch_of)
    person_url: str | None = None,  # a person's seat: their page, every game they play (pbm/web/people.py)
    chosen: Mapping[str, str] | None = None,  # the steps to a move taken so far (the page's query)
    confirm_moves: bool = False,  # the seat's setting: ask "Send 7Su?" before a move is sent
) -> str:
    """The page of `view`'s seat. `base_path` is the page's own path (/play/g/<game>/<seat>): its forms
    post to base_path + "/move" and its live updates come from base_path + "/events". A refusal is
    drawn in the form that sent it: the composing form whose id is `refused_at`, else the button of
    `refused_move`, else below the moves (or at the top, when the seat has none now); a refused
    vacation (`refused_at` "vacation") in the vacation form. `chosen`: the steps to a move taken so
    far (core.menus), whose links lead back here."""
    stepped, wrong_choice = steps(view, chosen or {}, base_path)
    return drawn(
        "base.html",
        view,
        options,
        names,
        bots,
        game_id=game_id,
        report=report,
        story=story,
        move_url=base_path + "/move",
        events_url=base_path + "/events",
        vacation_url=base_path + "/vacation",
        salt_url=base_path + "/salt",
        settings_url=base_path + "/settings",
        confirm_moves=confirm_moves,
        salt_wanted=salt_wanted,
        salts_due=salts_due,
        static=static,
        csrf=csrf,
        deadline=deadline,
        vacation=vacation,
        notice=notice,
        refusal=refusal,
        refused_move=refused_move,
        refused_at=refused_at,
        placed=jinja2.utils.Namespace(refusal=False),  # set by the macro that draws the refusal
        review_url=review_url,
        plan=plan,
        rematch=rematch,
        rematch_url=base_path + "/rematch",
        person_url=person_url,
        s=stepped,
        wrong_choice=wrong_choice,
    )


def render_review(
    view: Mapping[str, Any],
    *,
    options: Mapping[str, Any],
    names: Sequence[str | None],
    bots: Sequence[int] = (),
    **step: Any,  # the step, its ways out and the story: see review.html
) -> str:
    """A seat's replay page at one step: the table drawn from `view` (the view at that step, as
    the page draws it, without the controls of any move: a replay plays nothing)."""
    return drawn("review.html", {**view, "legal_moves": []}, options, names, bots, s=None, **step)


def drawn(layout: str, view: Mapping[str, Any], options: Mapping[str, Any], names: Sequence[str | None], bots: Sequence[int] = (), **context: Any) -> str:
    """`view`'s game template over `layout`, with the picture of the view, the seats as the
    reader names them, and the result once the game is over."""
    seat = view["seat"]
    name = Names(tuple(names), viewer=seat, bots=frozenset(bots))
    return environment.get_template(f"{view['game']}.html").render(
        layout=layout,
        view=view,
        p=picture(view, options),
        title=core.GAMES[view["game"]].title,
        seat=seat,
        my_turn=seat in view["to_act"],
        names=list(names),
        name=name,
        result=None if view["outcome"] is None else {
            "headline": result.headline(view["game"], view["outcome"], view.get("loss") and name.text(view["loss"]), name=name),
            "places": result.ranked(view["game"], view["outcome"]),
            "cooperative": result.is_cooperative(view["game"]),
        },
        **context,
    )
