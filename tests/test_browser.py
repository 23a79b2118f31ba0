"""/docs and /play in a real browser: Playwright for Python driving Debian's `chromium` against a
live server (redis, gunicorn, the RQ bot worker, the sweeper), every move made by clicking.

Screenshots of each game's table are written to .run/screenshots/ (gitignored) for a person to
look at, or to SCREENSHOTS_DIR: `make screenshots` writes the phone-width tables of the
how-to-play pages into docs/play/img/. Without /usr/bin/chromium these tests FAIL, naming the
package: `make test` installs it with apt-get when it runs as root.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SHOTS = Path(os.environ.get("SCREENSHOTS_DIR") or ROOT / ".run" / "screenshots")
MAX_MOVES = 400  # a bound on every play loop: a stuck page fails instead of hanging


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Debian's chromium under Playwright (never `playwright install`: no browser downloads)."""
    if not CHROMIUM.exists():
        pytest.fail("the browser tests need Debian's `chromium` package (/usr/bin/chromium): "
                    "apt-get install chromium — `make test` does it when run as root")
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class Pages:
    """Browser contexts of one test (each its own person), with every console error they log."""

    def __init__(self, browser, base_url: str):
        self.browser = browser
        self.base_url = base_url
        self.contexts: list = []
        self.errors: list[str] = []

    def new(self, width: int = 1100, height: int = 900):
        context = self.browser.new_context(base_url=self.base_url, viewport={"width": width, "height": height})
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser, live_api: str) -> Iterator[Pages]:
    opened = Pages(browser, live_api)
    yield opened
    opened.close()
    assert not opened.errors, f"console errors: {opened.errors}"


# --- helpers: what a person does on /play --------------------------------------------------------


def create_match(page, game: str, seats: list[str]) -> str:
    """Fill the lobby form: `seats` lists "you", "human" or a bot level per seat; returns the match id."""
    page.goto("/play")
    page.select_option("#game", game)
    page.select_option("#count", str(len(seats)))
    for index, seat in enumerate(seats[1:], start=1):
        if seat == "human":
            page.select_option(f"select[name=type-{index}]", "human")
        else:
            page.select_option(f"select[name=type-{index}]", "bot")
            page.select_option(f"select[name=level-{index}]", seat)
    page.get_by_role("button", name="Create the match").click()
    page.wait_for_url("**/play?match=*")
    page.wait_for_selector(".table-area > *")
    return page.url.rsplit("=", 1)[1]


def version(page) -> int:
    """The version the page shows (its header says `version N ·`)."""
    meta = page.locator(".meta").inner_text()
    return int(meta.split("version ")[1].split(" ")[0])


def status(page) -> str:
    return page.locator(".status").inner_text()


def wait_for_turn(page) -> bool:
    """Wait until it is this page's turn (True) or the match is over (False)."""
    page.wait_for_function(
        "() => /^(Your turn|Finished)/.test(document.querySelector('.status')?.textContent || '')")
    return status(page).startswith("Your turn")


def moved(page, before: int) -> None:
    """Wait until the page shows a version past `before`."""
    page.wait_for_function(
        "(v) => { const m = document.querySelector('.meta'); return m && !m.textContent.includes(`version ${v} ·`); }",
        arg=before)


def play_to_end(page, choose: Callable, shot: str | None = None, shot_after: int = 8) -> int:
    """Make the page's moves with `choose(page)` until the match is over; returns the moves made."""
    for made in range(MAX_MOVES):
        if not wait_for_turn(page):
            return made
        before = version(page)
        try:
            choose(page)
            moved(page, before)
        except Exception:
            shoot(page, f"failed-{shot or 'match'}.png")
            raise
        if shot and made + 1 == shot_after:
            shoot(page, f"{shot}.png")
            assert_labelled(page)
    pytest.fail(f"the match did not end within {MAX_MOVES} moves")


def shoot(page, name: str, full_page: bool = True) -> None:
    """A screenshot in .run/screenshots/, taken from the top (the turn bar is sticky)."""
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=SHOTS / name, full_page=full_page)


def assert_labelled(page) -> None:
    """Every control has a name a screen reader can say (its text, aria-label or label)."""
    nameless = page.evaluate("""() => [...document.querySelectorAll('button, select, input, progress')]
        .filter((el) => !(el.getAttribute('aria-label') || (el.labels && el.labels.length) || el.textContent.trim()))
        .map((el) => el.outerHTML.slice(0, 120))""")
    assert not nameless, f"controls without an accessible name: {nameless}"


def view_of(page, match_id: str) -> dict:
    """The seat's view, fetched by the page itself with its own token (to pick a move to click)."""
    return page.evaluate("""async (id) => {
        const token = sessionStorage.getItem(`coven:seat:${id}`);
        const answer = await fetch(`/v1/matches/${id}`, {headers: {Authorization: `Bearer ${token}`}});
        return answer.json();
    }""", match_id)


#: How /play explains each way a game ends, where it shows the result (a sentence each shows).
EXPLAINED = {
    "cube": {"object_unavailable": "The die asked for an object the lid no longer holds"},
    "witches": {"hands_empty": "The last trick was played"},
    "enchanters": {"fifteen_points": "reached 15 Spell Points", "special_victory": "A special victory",
                   "piles_empty": "The last object of piles A–G was taken", "stalemate": "A stalemate"},
}
RESIGNED = "Every other player resigned"


def finished(page) -> None:
    """The end: the outcome explained in the status line, the tab's title, and the log stepped
    through from its first entry."""
    assert status(page).startswith("Finished"), status(page)
    assert "win" in status(page)
    explanations = [text for reasons in EXPLAINED.values() for text in reasons.values()] + [RESIGNED]
    assert any(text in status(page) for text in explanations), f"the end is not explained: {status(page)}"
    assert "_" not in status(page), status(page)
    assert page.title().startswith("Finished")
    page.wait_for_selector(".replay-list li")
    page.get_by_role("button", name="« First").click()
    assert page.locator(".replay-at").inner_text().startswith("Step 1 of ")
    page.get_by_role("button", name="Next ›").click()
    assert page.locator(".replay-at").inner_text().startswith("Step 2 of ")
    page.get_by_role("button", name="Last »").click()


def click_witches_move(page) -> None:
    """A card from the hand, or after a won trick the first card offered as trump (or keep)."""
    page.locator(".decide button, .your-hand button.card").first.click()


def click_cube_move(page) -> None:
    page.locator(".turn .actions button").first.click()


class Traffic:
    """What a page sends: its HTTP requests, and the moves it sends on its match's WebSockets."""

    def __init__(self, page):
        self.requests: list[tuple[str, str]] = []
        self.sockets: list[str] = []
        self.moves: list[dict] = []
        page.on("request", lambda request: self.requests.append((request.method, request.url)))
        page.on("websocket", self._opened)

    def _opened(self, socket) -> None:
        self.sockets.append(socket.url)
        socket.on("framesent", self._sent)

    def _sent(self, payload) -> None:
        message = json.loads(payload)
        if message.get("type") == "move":
            self.moves.append(message)

    def waits(self) -> list[tuple[str, str]]:
        """Requests that moved a match or waited for one: moves posted, streams, long-polls."""
        return [(method, url) for method, url in self.requests
                if (method == "POST" and url.endswith("/moves")) or "/events" in url or "wait=" in url]

    def carried_by_the_socket(self, made: int) -> None:
        """Every move went out on the socket, with a ref, and no request waited or posted a move."""
        assert self.sockets and all("/socket" in url for url in self.sockets), self.sockets
        assert not self.waits(), f"requests the socket should have spared: {self.waits()}"
        assert len(self.moves) >= made > 0 and all(move["ref"] for move in self.moves)


# --- /docs -------------------------------------------------------------------------------------------


def test_docs_lists_every_operation_and_tries_the_catalog(pages: Pages, live_api: str) -> None:
    with urllib.request.urlopen(f"{live_api}/openapi.json") as answer:
        spec = json.load(answer)
    expected = {(method.upper(), path) for path, item in spec["paths"].items() for method in item
                if method in ("get", "post", "put", "patch", "delete")}
    page = pages.new()
    page.goto("/docs")
    page.wait_for_selector(".opblock-summary")
    shown = set()
    for block in page.locator(".opblock-summary").all():
        method = block.locator(".opblock-summary-method").inner_text().strip()
        path = block.locator(".opblock-summary-path").get_attribute("data-path")
        shown.add((method, path))
    assert shown == expected
    assert page.locator("text=Unable to render this definition").count() == 0
    shoot(page, "docs.png")

    catalog = page.locator(".opblock-get", has=page.locator('.opblock-summary-path[data-path="/v1/games"]'))
    catalog.locator(".opblock-summary").click()
    catalog.get_by_role("button", name="Try it out").click()
    catalog.get_by_role("button", name="Execute").click()
    status_cell = catalog.locator(".live-responses-table tbody .response-col_status").first
    status_cell.wait_for()
    assert status_cell.inner_text().strip() == "200"
    assert "witches" in catalog.locator(".live-responses-table tbody .response-col_description").first.inner_text()


# --- /play: one match of every game ------------------------------------------------------------------


def test_witches_against_an_easy_bot_to_the_end(pages: Pages) -> None:
    # The lobby deals at random, and a hand in which this player (always the first card offered)
    # wins no trick before the last offers no decision: about 1 match in 200 against easy. So a
    # few matches are played until one has offered it.
    decisions = 0

    def choose(page) -> None:
        nonlocal decisions
        if page.locator(".decide").count():
            decisions += 1
            if decisions == 1:
                shoot(page, "witches-trump-decision.png")
        click_witches_move(page)

    for _ in range(3):
        page = pages.new()
        traffic = Traffic(page)
        create_match(page, "witches", ["you", "easy"])
        assert page.locator(".wheel .ranking").inner_text().startswith("Wheel (decreasing)")
        made = play_to_end(page, choose, shot="witches", shot_after=6)
        traffic.carried_by_the_socket(made)
        finished(page)
        assert EXPLAINED["witches"]["hands_empty"] in status(page)
        if decisions:
            break
    assert decisions, "never offered the trump decision after a won trick, in three matches"


def test_witches_marks_the_card_winning_the_trick_and_your_turn(pages: Pages) -> None:
    page = pages.new()
    match_id = create_match(page, "witches", ["you", "random", "random"])
    marked = 0
    for _ in range(MAX_MOVES):
        if not wait_for_turn(page):
            break
        assert page.title().startswith("▶ Your turn") and page.locator(".turn-bar.your-turn").count() == 1
        view = view_of(page, match_id)
        trick = view["state"]["trick"]
        badges = page.locator(".trick .badge.winning")
        if trick and view["state"]["phase"] == "play":
            # the engine's view says whose card wins so far; the page marks exactly that card
            assert badges.count() == 1
            winner = view["state"]["winning"]
            card = next(played["card"] for played in trick if played["seat"] == winner)
            shown = page.locator(".trick .played li", has=page.locator(".badge.winning"))
            assert shown.locator(".card").get_attribute("aria-label").endswith(card.replace("-", " "))
            marked += 1
        else:
            assert badges.count() == 0
        before = version(page)
        click_witches_move(page)
        moved(page, before)
        # the tab's cue and the turn bar agree, read together (a view may arrive between two reads)
        title, your_turn = page.evaluate(
            "() => [document.title, document.querySelector('.turn-bar.your-turn') !== null]")
        assert title.startswith("▶") == your_turn
    assert marked >= 3, "too few tricks were seen with cards in them"
    shoot(page, "witches-end.png")


#: Where each game's page shows the moves you may make (buttons or cards to click).
MOVES = ".your-hand button, .decide button, .table-spots button, .turn .actions button, .tricks-to-play button"


def test_every_table_reads_at_phone_width_and_plays_with_the_keyboard(pages: Pages) -> None:
    page = pages.new(width=390, height=844)
    for game in ("enchanters", "cube", "witches"):
        create_match(page, game, ["you", "random", "random"])
        wait_for_turn(page)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{game}: the page scrolls sideways at phone width ({width}px)"
        page.evaluate("window.scrollTo(0, 0)")
        # the first screen holds your hand (the cube has none: its turn) and the moves you may make
        # (measured in one evaluation: a view arriving meanwhile re-renders the table)
        screen = page.evaluate("""([hand, moves]) => ({
            hand: document.querySelector(hand)?.getBoundingClientRect().bottom ?? null,
            moves: [...document.querySelectorAll(moves)].map((el) => el.getBoundingClientRect().bottom)})""",
                               [".your-hand" if game != "cube" else ".turn", MOVES])
        assert screen["hand"] is not None and screen["hand"] <= 844, f"{game}: your hand is below the first screen"
        assert screen["moves"] and max(screen["moves"]) <= 844, f"{game}: moves below the first screen: {screen}"
        # every card's words fit on the card
        overflowing = page.evaluate("""() => [...document.querySelectorAll('.card .colour, .ecard span')]
            .filter((el) => { const c = el.closest('.card, .ecard').getBoundingClientRect();
                              const r = el.getBoundingClientRect(); return r.left < c.left - 0.5 || r.right > c.right + 0.5; })
            .map((el) => el.closest('.card, .ecard').getAttribute('aria-label'))""")
        assert not overflowing, f"{game}: labels overflow their cards: {overflowing}"
        assert "null" not in page.locator(".table-area").inner_text(), f"{game}: a literal null on the table"
        # your turn, in the tab's title and on the page
        assert page.title().startswith("▶ Your turn"), page.title()
        assert page.locator(".turn-bar.your-turn").count() == 1
        shoot(page, f"{game}.png", full_page=False)
    # Keyboard only: tab to a card of the hand and play it with Enter.
    before = version(page)
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('.your-hand button.card')"):
            break
    else:
        pytest.fail("no card of the hand is reachable with Tab")
    page.keyboard.press("Enter")
    moved(page, before)
    # The played card is gone: focus waits on the turn line, and Tab leads back into the hand.
    assert page.evaluate("document.activeElement.classList.contains('status')")


def test_a_thinking_bot_shows_its_progress(pages: Pages) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = pages.new()
    create_match(page, "witches", ["you", "hard"])  # a hard bot thinks up to a second a move
    # the text is read when it matches: the bot may have moved on by the time we would read it again
    thinking = ("() => { const text = document.querySelector('.bot-activity')?.textContent || '';"
                " return /is thinking: [0-9,]+ of at most 15,000 simulations/.test(text) ? text : false; }")
    for _ in range(15):  # each bot turn shows its progress for a few tenths of a second
        try:
            seen = page.wait_for_function(thinking, timeout=5_000).json_value()
            break
        except PlaywrightTimeout:
            assert wait_for_turn(page), "the match ended before the bot was seen thinking"
            before = version(page)
            click_witches_move(page)
            moved(page, before)
    else:
        pytest.fail("the bot's progress never showed")
    assert seen.strip().startswith("Player 2 (hard bot) is thinking"), seen
    shoot(page, "bot-thinking.png", full_page=False)


def play_enchanters(page, traffic: Traffic) -> tuple[str, int]:
    """A match against a random bot that keeps Air Enchanters and gathers with them as soon as
    it can (then with anything); returns the match and how many Air gatherings it made."""
    match_id = create_match(page, "enchanters", ["you", "random"])
    air_gatherings = 0

    def choose(page) -> None:
        nonlocal air_gatherings
        view = view_of(page, match_id)
        legal = view["legal_moves"]
        kinds = {move["type"] for move in legal}
        if "take" in kinds:
            face_up = view["state"]["table"][3].get("card") or ""
            down = [m["spot"] for m in legal if m["type"] == "take" and m["spot"] < 3]
            spot = 3 if face_up.startswith("air-") or not down else down[0]
            page.locator(f'[data-key="take-{spot}"]').click()
            return
        gathers = [m for m in legal if m["type"] == "gather"]
        with_air = [m for m in gathers if m["air"]]
        if with_air or (air_gatherings and gathers):
            gather = (with_air or gathers)[0]
            for card in gather["cards"]:  # choose the three cards, one click each
                page.locator(f'[data-key="sel-{card}"]').click()
            for card, declared in gather["air"].items():
                page.select_option(f'select[id="air-{card}"]', label=f"{declared['school']} {declared['element']}")
            if with_air and not air_gatherings:
                shoot(page, "enchanters-gathering.png")
            page.locator(f'[data-key="gather-{gather["tower"]}"]').click()
            if with_air:
                air_gatherings += 1
                if air_gatherings == 1:
                    page.wait_for_selector(".history li")
            return
        if "pass" in kinds:
            page.get_by_role("button", name="Pass (no gathering, no Trick)").click()
            return
        if "discard" in kinds:
            card = next((m["card"] for m in legal if m["type"] == "discard" and not m["card"].startswith("air-")),
                        legal[0].get("card"))
            page.locator(f'[data-key="discard-{card}"]').click()
            return
        page.locator(".all-moves summary").click()
        page.locator(".all-moves button").first.click()

    made = play_to_end(page, choose, shot="enchanters", shot_after=12)
    traffic.carried_by_the_socket(made)
    finished(page)
    return match_id, air_gatherings


def test_enchanters_with_a_gathering_built_around_an_air_enchanter(pages: Pages) -> None:
    page = pages.new()
    traffic = Traffic(page)
    # This policy gathers with an Air Enchanter in about 99% of matches (simulated over 200):
    # three tries make a miss a one-in-a-million event, never a flaky test.
    for _ in range(3):
        match_id, air_gatherings = play_enchanters(page, traffic)
        if air_gatherings:
            break
    assert air_gatherings >= 1, "no gathering with an Air Enchanter came up in three matches"
    shoot(page, "enchanters-end.png")
    log = page.evaluate("(id) => fetch(`/v1/matches/${id}/log`).then((r) => r.json())", match_id)
    assert any(e["move"]["type"] == "gather" and e["move"]["air"] and e["seat"] == 0 for e in log["entries"])


def test_cube_against_a_random_bot_to_the_end(pages: Pages) -> None:
    page = pages.new()
    traffic = Traffic(page)
    create_match(page, "cube", ["you", "random"])
    made = play_to_end(page, click_cube_move, shot="cube", shot_after=9)
    traffic.carried_by_the_socket(made)
    finished(page)
    assert EXPLAINED["cube"]["object_unavailable"] in status(page)
    shoot(page, "cube-end.png")


def test_a_dropped_socket_is_reopened_from_the_last_version_and_the_match_plays_on(pages: Pages) -> None:
    page = pages.new()
    traffic = Traffic(page)
    opened: list[tuple[str, object, object]] = []  # each connection: its URL, the page's side, the server's

    def through(route) -> None:
        opened.append((route.url, route, route.connect_to_server()))  # frames pass both ways

    page.route_web_socket(re.compile(r"/socket(\?|$)"), through)
    create_match(page, "witches", ["you", "random"])
    for _ in range(2):
        assert wait_for_turn(page)
        before = version(page)
        click_witches_move(page)
        moved(page, before)
    held = version(page)
    url, to_page, to_server = opened[-1]
    assert "last_version" not in url
    to_server.close()  # the connection is cut on both sides, as a proxy or a dying server would
    to_page.close(code=1011, reason="dropped")
    for _ in range(100):
        if len(opened) > 1:
            break
        page.wait_for_timeout(100)
    assert len(opened) == 2, "the page did not open its socket again"
    assert "last_version=" in opened[1][0], opened[1][0]
    assert int(opened[1][0].split("last_version=")[1].split("&")[0]) >= held  # what it had, not from scratch
    made = play_to_end(page, click_witches_move)
    assert made > 0
    finished(page)
    assert not traffic.waits(), traffic.waits()


def test_without_a_socket_the_page_follows_the_event_stream_and_posts_its_moves(pages: Pages) -> None:
    from tests.conftest import free_port

    page = pages.new()
    # every WebSocket the page opens goes to a port nobody listens on, as through a proxy that
    # does not pass WebSockets: the page falls back to the event stream and POST /moves
    page.add_init_script(f"""(() => {{
        const Real = window.WebSocket;
        window.WebSocket = class extends Real {{
            constructor(url, protocols) {{ super(url.replace(/\\/\\/[^/]+/, "//127.0.0.1:{free_port()}"), protocols); }}
        }};
    }})()""")
    traffic = Traffic(page)
    create_match(page, "cube", ["you", "random"])
    made = play_to_end(page, click_cube_move)
    finished(page)
    posted = [url for method, url in traffic.requests if method == "POST" and url.endswith("/moves")]
    assert len(posted) == made > 0 and not traffic.moves
    assert any("/events?ticket=" in url for _, url in traffic.requests)
    # the refused connection is the browser's own console error, the only one allowed here
    pages.errors[:] = [error for error in pages.errors if "WebSocket connection" not in error]


def test_a_move_whose_answer_is_lost_with_the_socket_is_posted_under_its_ref(pages: Pages) -> None:
    """The server plays a move and the socket dies before its answer reaches the page, then cannot
    be opened again: the page posts the move under its ref (`Idempotency-Key: ws:<ref>`), is
    answered with the move the server played (not a 409), and plays on over the event stream."""
    from tests.conftest import free_port

    page = pages.new()
    page.add_init_script(f"""(() => {{
        const Real = window.WebSocket;
        window.WebSocket = class extends Real {{
            constructor(url, protocols) {{
                // once the answer was lost, the socket cannot be had: a port nobody listens on
                super(window.lostRef ? url.replace(/\\/\\/[^/]+/, "//127.0.0.1:{free_port()}") : url, protocols);
            }}
            set onmessage(handler) {{
                super.onmessage = (event) => {{
                    const message = JSON.parse(event.data);
                    if (!window.lostRef && message.type === "ack") {{
                        window.lostRef = message.ref;  // the move was played; its answer dies here
                        this.close();
                    }}
                    if (!window.lostRef) handler(event);
                }};
            }}
        }};
    }})()""")
    posted: list[tuple[str | None, int]] = []
    page.on("response", lambda response: posted.append(
        (response.request.headers.get("idempotency-key"), response.status))
        if response.request.method == "POST" and response.url.endswith("/moves") else None)
    create_match(page, "witches", ["you", "random"])
    made = play_to_end(page, click_witches_move)
    finished(page)
    lost = page.evaluate("window.lostRef")
    assert lost and made > 0
    assert posted[0] == (f"ws:{lost}", 200), posted  # the lost answer, replayed
    assert all(status == 200 for _, status in posted)
    # the refused connections are the browser's own console errors, the only ones allowed here
    pages.errors[:] = [error for error in pages.errors if "WebSocket connection" not in error]


def test_two_people_play_through_the_join_link(pages: Pages) -> None:
    host = pages.new()
    create_match(host, "witches", ["you", "human"])
    assert status(host).startswith("Waiting for 1 more player")
    link = host.locator("#join-link").input_value()
    assert "token" not in link and "/play?join=" in link

    guest = pages.new()
    guest.goto(link)
    guest.get_by_role("button", name="Join as Player 2").click()
    guest.wait_for_url("**/play?match=*")
    host.wait_for_function("() => !document.querySelector('.share input')")  # the host saw the join live

    people = [host, guest]
    for _ in range(MAX_MOVES):
        ended = 0
        for page in people:
            text = status(page)
            if text.startswith("Finished"):
                ended += 1
            elif text.startswith("Your turn"):
                before = version(page)
                click_witches_move(page)
                moved(page, before)
                other = guest if page is host else host
                moved(other, before)  # the other person's page follows live
        if ended == 2:
            break
        host.wait_for_timeout(50)
    else:
        pytest.fail("the match between two people did not end")
    for page in people:
        finished(page)
    shoot(guest, "human-vs-human.png")


def test_the_readme_javascript_example_plays_a_match(pages: Pages, live_api: str) -> None:
    blocks = re.findall(r"```js\n(.*?)```", (ROOT / "docs" / "tutorials" / "browser.md").read_text(), re.S)
    assert len(blocks) == 1, "the browser tutorial should hold exactly one ```js block: its example"
    code = blocks[0].replace('"http://localhost:8000"', json.dumps(live_api))
    page = pages.new()
    page.goto("/play")  # any page of the server's origin (one with an icon: no /favicon.ico 404)
    with page.expect_console_message(lambda message: message.text.startswith("finished"), timeout=120_000) as seen:
        page.evaluate(f"async () => {{\n{code}\n}}")
    assert '"winners"' in seen.value.text



def test_each_game_page_links_how_to_play_and_the_rules(pages: Pages, live_api: str) -> None:
    from api.web.guide import SITE_DIR

    page = pages.new()
    for game in ("cube", "witches", "enchanters"):
        create_match(page, game, ["you", "random"])
        assert page.locator(".how-to-play").get_attribute("href") == f"/guide/play/{game}/"
        if (SITE_DIR / "index.html").exists():  # `make test` builds the site first
            with urllib.request.urlopen(f"{live_api}/guide/play/{game}/") as answer:
                assert answer.status == 200 and f"img/{game}.png".encode() in answer.read()
        page.locator(".rules-link").click()
        page.wait_for_selector("article.rules h1")
        rules = page.locator("article.rules").inner_text()
        assert {"cube": "C15", "witches": "W8", "enchanters": "E22"}[game] in rules
        assert page.locator(".help-links a").get_attribute("href") == f"/guide/play/{game}/"


def test_every_end_reason_is_explained_in_words(pages: Pages) -> None:
    from engine.core import Termination

    explained = {reason for reasons in EXPLAINED.values() for reason in reasons} | {"resigned"}
    assert explained == {reason.value for reason in Termination}, "a way to end /play does not explain"
    page = pages.new()
    page.goto("/play")
    for game, reasons in EXPLAINED.items():
        for reason, text in reasons.items():
            said = page.evaluate("""async ([game, reason]) => {
                const module = await import(`/play/games/${game}.js`);
                const ui = { you: 0, seatName: (seat, opts) => seat === 0 ? (opts && opts.capital === false ? "you" : "You") : `Player ${seat + 1}` };
                return module.endText({ reason, winners: [1], scores: [3, 9], ranks: [2, 1] }, ui);
            }""", [game, reason])
            assert said and text in said, (game, reason, said)
    # resigning: the result says why the other player won
    match_id = create_match(page, "enchanters", ["you", "random"])
    page.evaluate("""async (id) => {
        const token = sessionStorage.getItem(`coven:seat:${id}`);
        await fetch(`/v1/matches/${id}/resign`, {method: "POST", headers: {Authorization: `Bearer ${token}`}});
    }""", match_id)
    page.wait_for_function("() => /^Finished/.test(document.querySelector('.status')?.textContent || '')")
    assert RESIGNED in status(page) and "Player 2 (random bot) wins" in status(page), status(page)
