"""The end mail links to the seat's replay page and its replay file: the replay link carries the
seat's token (to the seat's own address only, as its turn mails' links do), the file's address
carries none and opens only with the cookie that link leaves, giving the same bytes as
GET /api/me/export. A real worker sends it to a real SMTP server."""

from __future__ import annotations

import re
import uuid

import pytest

from events.commands import Games
from pbm.web import create_app
from tests.mail.test_notify import create, work_in_process
from tests.web.conftest import ADMIN, TestClient, bearer
from tests.mail.conftest import text_of

pytestmark = pytest.mark.usefixtures("clean_notify_queue")


def test_the_end_mail_links_the_replay_page_and_the_replay_file_without_a_token_in_the_files_address(dispatching: Games, smtp_sink, queue_client) -> None:
    bob = f"bob-{uuid.uuid4().hex[:8]}@players.test"
    created = create(dispatching, [{"name": "Ann", "bot": "random"}, {"name": "Bob", "email": bob}, {"name": "Cy", "bot": "random"}])
    game_id, token = created["game_id"], created["seats"][1]["token"]
    work_in_process(queue_client, dispatching.store)
    while (table := dispatching.table(game_id)).outcome is None:
        dispatching.submit(game_id, 1, table.legal_moves(1)[0])
        work_in_process(queue_client, dispatching.store)
    [end] = [mail for mail in smtp_sink.to(bob) if mail["Subject"].startswith("Game over")]
    text = text_of(end)
    assert f"Your replay, step by step: https://pbm.test/review/{token}" in text
    file_link = f"https://pbm.test/review/g/{game_id}/1/export"
    assert file_link in text and "GET /api/me/export" in text and "pbm replay verify game.pbmlog" in text
    assert [line for line in text.splitlines() if token in line] == [f"Your page: https://pbm.test/play/{token}", f"Your replay, step by step: https://pbm.test/review/{token}"]
    app = create_app(dispatching.store.redis, games=dispatching, admin_token=ADMIN)
    with TestClient(app, base_url="https://pbm.test") as stranger:
        assert stranger.get(file_link).status_code == 401  # the file's address alone opens nothing
    with TestClient(app, base_url="https://pbm.test") as seat:
        exported = seat.get("/api/me/export", headers=bearer(token))
        assert exported.status_code == 200
        assert seat.get(re.sub(r"^https://pbm.test", "", f"https://pbm.test/review/{token}")).status_code == 200  # leaves the cookie
        by_cookie = seat.get(file_link)
        assert by_cookie.status_code == 200 and by_cookie.content == exported.content
