"""Rules E1–E23 of The Enchanters' Gathering, one or more tests per rule, on hand-built states.

`build(...)` lays out a position by card names; every card not placed
elsewhere is in the deck. Chance is resolved explicitly (`draw`, `obj`) so that
each test reads as the table would play it.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations

import pytest

from engine import CHANCE, TERMINAL, IllegalMove, InvalidMove, InvalidSnapshot
from engine.enchanters import GAME
from engine.enchanters.cards import (
    ALL_CARDS,
    CARD_BY_NAME,
    ELEMENTAL_MASK,
    INITIAL_PILES,
    NAMES,
    NUM_CARDS,
    PILE_LETTERS,
    cards_of,
    mask_of,
)
from engine.enchanters.rules import points, update_master
from engine.enchanters.sets import chars_of, gatherings, pattern_of
from engine.enchanters.state import (
    ACT,
    DISCARD,
    OBJECT,
    PHASE_NAMES,
    REFILL,
    TAKE1,
    TAKE2,
    VADEMECUM_DRAW,
    EnchantersState,
)

# --- a readable builder -------------------------------------------------------------

PHASES = {"take": TAKE1, "take2": TAKE2, "act": ACT, "discard": DISCARD}


def card(name: str) -> int:
    return CARD_BY_NAME[name]


def build(
    n: int = 2,
    turn: int = 0,
    phase: str = "act",
    hands: dict[int, list[str]] | None = None,
    table: list[str | None] | None = None,
    towers: list[list[str]] | None = None,
    discard: list[str] = (),
    deck: list[str] | None = None,
    objects: dict[int, list[tuple[str, int]]] | None = None,
    ng: dict[int, int] | None = None,
    piles: dict[str, list[int]] | None = None,
    proxima: int = -1,
    last_pile: str | None = None,
) -> EnchantersState:
    """A position by names: unplaced cards go to the deck (or nowhere useful if `deck` is given)."""
    s = EnchantersState.initial(n)
    s.turn, s.phase, s.refill = turn, PHASES[phase], 0
    placed = 0
    for seat, names in (hands or {}).items():
        s.hands[seat] = mask_of(card(x) for x in names)
        s.known[seat] |= s.hands[seat] | ELEMENTAL_MASK
        placed |= s.hands[seat]
    for o in range(n):
        for p in range(n):
            s.known[o] |= s.hands[p] & ELEMENTAL_MASK
    s.table = [card(x) if x else -1 for x in (table or [None] * 4)]
    placed |= mask_of(c for c in s.table if c >= 0)
    for i, names in enumerate(towers or []):
        s.towers[i] = mask_of(card(x) for x in names)
        placed |= s.towers[i]
    s.discard = mask_of(card(x) for x in discard)
    placed |= s.discard
    if proxima >= 0:
        s.proxima = proxima
        placed |= 1 << card("proxima")
    rest = ALL_CARDS & ~placed
    if deck is not None:
        s.deck = mask_of(card(x) for x in deck)
        s.discard |= rest & ~s.deck  # keep all 40 cards somewhere
    else:
        s.deck = rest
    for seat, objs in (objects or {}).items():
        s.objects[seat] = tuple(PILE_LETTERS.index(p) * 8 + v for p, v in objs)
        for p, v in objs:
            q = PILE_LETTERS.index(p)
            counts = list(s.piles[q])
            counts[v] -= 1
            s.piles[q] = tuple(counts)
    for seat, k in (ng or {}).items():
        s.ng[seat] = k
        s.ng_left -= k
    for letter, values in (piles or {}).items():
        q = PILE_LETTERS.index(letter)
        s.piles[q] = tuple(values.count(v) for v in range(6))
    s.last_pile = PILE_LETTERS.index(last_pile) if last_pile else -1
    s.recount()
    update_master(s)
    assert s.card_places() == ALL_CARDS
    return s


def play(s: EnchantersState, data: dict) -> EnchantersState:
    """Apply a move given as JSON, through the checked path."""
    return GAME.apply(s, GAME.move_from_json(data))


def take(s, spot):
    return play(s, {"type": "take", "spot": spot})


def gather(s, names, tower=0, air=None):
    return play(s, {"type": "gather", "cards": names, "tower": tower, "air": air or {}})


def trick(s, name, **kw):
    return play(s, {"type": "trick", "trick": name, **kw})


def draw(s, name):
    return play(s, {"type": "draw", "card": name})


def obj(s, value):
    """The pending object draw resolves to `value` from the pile that pays."""
    pile = GAME.view(s, None)["pending"]["pile"]
    return play(s, {"type": "object", "pile": pile, "value": value})


def hand(s, seat):
    return sorted(NAMES[c] for c in cards_of(s.hands[seat]))


def rule_of(s, data) -> str:
    with pytest.raises(IllegalMove) as caught:
        play(s, data)
    return caught.value.rule


PATTERN_EXAMPLES = {
    "A": ["hat-silver-water", "hat-silver-fire", "hat-silver-earth"],
    "B": ["hat-silver-water", "hat-bronze-water", "hat-gold-water"],
    "C": ["hat-silver-water", "star-silver-water", "wing-silver-water"],
    "D": ["hat-silver-water", "hat-bronze-fire", "hat-gold-earth"],
    "E": ["hat-silver-water", "star-silver-fire", "wing-silver-earth"],
    "F": ["hat-silver-water", "star-bronze-water", "wing-gold-water"],
    "G": ["hat-silver-water", "star-bronze-fire", "wing-gold-earth"],
}

# --- components -------------------------------------------------------------------------


def test_e1_forty_cards_and_air_enchanters_count_as_declared():
    assert NUM_CARDS == 40 and len(set(NAMES)) == 40
    chars = {chars_of(c) for c in range(27)}
    assert len(chars) == 27
    assert [n for n in NAMES if n.startswith("air-")] == ["air-hat", "air-star", "air-wing"]
    s = build(hands={0: ["hat-silver-water", "hat-silver-fire", "air-hat"]})
    after = gather(s, ["hat-silver-water", "hat-silver-fire", "air-hat"], air={"air-hat": {"school": "silver", "element": "earth"}})
    assert GAME.view(after, None)["pending"]["pile"] == "A"
    # the declaration must be given, and must make a gathering
    assert rule_of(s, {"type": "gather", "cards": ["hat-silver-water", "hat-silver-fire", "air-hat"], "tower": 0}) == "E1"
    wrong = {"air-hat": {"school": "gold", "element": "earth"}}
    assert rule_of(s, {"type": "gather", "cards": ["hat-silver-water", "hat-silver-fire", "air-hat"], "tower": 0, "air": wrong}) == "E4"


def test_e1_air_declarations_are_deduplicated_one_per_pattern():
    moves = gatherings(mask_of(card(x) for x in ["air-hat", "air-star", "wing-gold-fire"]), 0)
    assert sorted(m[2] for m in moves) == [2, 4, 5, 6]  # C, E, F, G
    three = gatherings(mask_of(card(x) for x in ["air-hat", "air-star", "air-wing"]), 0)
    assert sorted(m[2] for m in three) == [2, 4, 5, 6]


def test_e2_three_empty_towers_at_the_start():
    s = GAME.new_state(3)
    assert s.towers == [0, 0, 0]
    assert GAME.view(s, None)["towers"] == [[], [], []]


def test_e3_piles_of_objects():
    expected = {"A": [0, 3, 3, 4, 4, 5, 5], "D": [0, 2, 2, 3, 3, 3, 4], "G": [0, 1, 1, 2, 2, 2, 3]}
    for letter, values in expected.items():
        counts = INITIAL_PILES[PILE_LETTERS.index(letter)]
        assert sorted(v for v, k in enumerate(counts) for _ in range(k)) == values
    s = GAME.new_state(2)
    assert all(sum(p) == 7 for p in s.piles) and s.ng_left == 8


# --- gatherings ---------------------------------------------------------------------


def test_e4_an_invalid_triple_is_refused_naming_e4():
    s = build(hands={0: ["hat-silver-water", "hat-silver-fire", "hat-bronze-earth", "chaos"]})
    assert rule_of(s, {"type": "gather", "cards": ["hat-silver-water", "hat-silver-fire", "hat-bronze-earth"], "tower": 0}) == "E4"
    assert rule_of(s, {"type": "gather", "cards": ["hat-silver-water", "hat-silver-fire", "chaos"], "tower": 0}) == "E4"


def test_e4_set_rule_all_same_or_all_different():
    valid = sum(1 for x, y, z in combinations(range(27), 3) if pattern_of(chars_of(x), chars_of(y), chars_of(z)) >= 0)
    assert valid == 117  # 27 * 26 / 6: every pair has exactly one third card


@pytest.mark.parametrize("letter", list("ABCDEFG"))
def test_e5_each_pattern_pays_from_its_pile(letter):
    names = PATTERN_EXAMPLES[letter]
    s = build(hands={0: names})
    after = gather(s, names)
    assert after.phase == OBJECT
    assert GAME.view(after, None)["pending"]["pile"] == letter
    assert GAME.view(after, None)["history"][-1] == {"seat": 0, "gathering": letter}


def test_e5_pattern_counts_9_18_36():
    counts = Counter(
        pattern_of(chars_of(x), chars_of(y), chars_of(z)) for x, y, z in combinations(range(27), 3)
    )
    assert [counts[p] for p in range(7)] == [9, 9, 9, 18, 18, 18, 36]


def test_e6_cards_from_hand_and_towers_old_tower_cards_discarded():
    s = build(
        hands={0: ["hat-silver-water", "star-gold-fire"]},
        towers=[["hat-silver-fire", "star-bronze-earth", "wing-gold-water"], ["hat-silver-earth", "wing-bronze-fire"], []],
    )
    after = gather(s, ["hat-silver-water", "hat-silver-fire", "hat-silver-earth"], tower=0)
    assert after.towers[0] == mask_of(card(x) for x in ["hat-silver-water", "hat-silver-fire", "hat-silver-earth"])
    assert after.towers[1] == mask_of([card("wing-bronze-fire")])  # the used card left its Tower
    assert after.discard == mask_of(card(x) for x in ["star-bronze-earth", "wing-gold-water"])
    assert hand(after, 0) == ["star-gold-fire"]


def test_e6_at_least_one_card_from_the_hand():
    s = build(hands={0: ["star-gold-fire"]}, towers=[PATTERN_EXAMPLES["A"], [], []])
    assert rule_of(s, {"type": "gather", "cards": PATTERN_EXAMPLES["A"], "tower": 1}) == "E6"
    assert not any(m.type == "gather" for m in GAME.legal_moves(s))
    t = build(hands={0: ["hat-silver-water", "hat-silver-fire"]})
    assert rule_of(t, {"type": "gather", "cards": PATTERN_EXAMPLES["A"], "tower": 1}) == "E6"


def test_e7_new_gathering_card_only_when_all_three_from_hand():
    s = build(hands={0: PATTERN_EXAMPLES["A"]})
    after = obj(gather(s, PATTERN_EXAMPLES["A"]), 5)
    assert after.ng[0] == 1 and after.objects[0] == (5,) and points(after, 0) == 6
    t = build(hands={0: PATTERN_EXAMPLES["A"][:2]}, towers=[[PATTERN_EXAMPLES["A"][2]], [], []])
    after = obj(gather(t, PATTERN_EXAMPLES["A"], tower=1), 3)
    assert after.ng[0] == 0 and points(after, 0) == 3


def test_e7_the_top_object_is_a_chance_draw_over_the_pile():
    s = gather(build(hands={0: PATTERN_EXAMPLES["G"]}), PATTERN_EXAMPLES["G"])
    assert GAME.current_player(s) == CHANCE
    outcomes = {m.to_json()["value"]: p for m, p in GAME.chance_outcomes(s)}
    assert outcomes == pytest.approx({0: 1 / 7, 1: 2 / 7, 2: 3 / 7, 3: 1 / 7})


def test_e7_empty_pile_pays_from_the_next_one_and_wraps_to_a():
    s = build(hands={0: PATTERN_EXAMPLES["G"]}, piles={"G": []})
    assert GAME.view(gather(s, PATTERN_EXAMPLES["G"]), None)["pending"]["pile"] == "A"
    t = build(hands={0: PATTERN_EXAMPLES["E"]}, piles={"E": [], "F": []})
    assert GAME.view(gather(t, PATTERN_EXAMPLES["E"]), None)["pending"]["pile"] == "G"


def test_e7_empty_new_gathering_pile_pays_nothing():
    s = build(hands={0: PATTERN_EXAMPLES["A"]}, ng={1: 8})
    after = obj(gather(s, PATTERN_EXAMPLES["A"]), 4)
    assert after.ng == [0, 8] and points(after, 0) == 4


# --- the turn -----------------------------------------------------------------------


def test_e8_setup_table_of_three_face_down_and_one_face_up_then_first_player():
    s = GAME.new_state(4)
    rng = random.Random(3)
    while GAME.current_player(s) == CHANCE and PHASE_NAMES[s.phase] == "refill":
        s = GAME.apply(s, GAME.sample_chance(s, rng))
    v = GAME.view(s, None)
    assert v["pending"] == {"draw": "first_player"}
    assert [t["face"] for t in v["table"]] == ["down", "down", "down", "up"]
    assert all(t.get("occupied", True) for t in v["table"]) and v["table"][3]["card"]
    assert all(h == 0 for h in s.hands) and v["deck_size"] + s.discard.bit_count() == 36
    outcomes = GAME.chance_outcomes(s)
    assert [m.seat for m, _ in outcomes] == [0, 1, 2, 3] and outcomes[0][1] == pytest.approx(0.25)
    s = play(s, {"type": "first", "seat": 2})
    assert GAME.current_player(s) == 2


def test_e9_take_two_cards_face_down_or_up():
    s = build(phase="take", table=["hat-silver-water", "chaos", "star-gold-fire", "wing-bronze-earth"])
    s = take(take(s, 3), 0)
    assert hand(s, 0) == ["hat-silver-water", "wing-bronze-earth"] and s.phase == ACT
    assert rule_of(s, {"type": "take", "spot": 1}) == "E9"  # two cards, not three


def test_e9_taking_from_an_empty_spot_is_refused():
    s = take(build(phase="take", table=["hat-silver-water", "chaos", "star-gold-fire", "wing-bronze-earth"]), 3)
    assert rule_of(s, {"type": "take", "spot": 3}) == "E9"
    assert rule_of(s, {"type": "pass"}) == "E9"
    assert rule_of(s, {"type": "discard", "card": "wing-bronze-earth"}) == "E9"


def test_e10_one_of_gather_trick_or_nothing():
    s = build(hands={0: PATTERN_EXAMPLES["A"] + ["chaos"]}, towers=[["star-gold-fire"], [], []])
    kinds = Counter(m.type for m in GAME.legal_moves(s))
    # Towers 1 and 2 are both empty: one of them is offered (they are equivalent), and Tower 0
    assert kinds == {"gather": 2, "trick": 1, "pass": 1}
    assert {m.tower for m in GAME.legal_moves(s) if m.type == "gather"} == {0, 1}
    assert GAME.apply(s, GAME.move_from_json({"type": "gather", "cards": PATTERN_EXAMPLES["A"], "tower": 2}))
    assert rule_of(s, {"type": "trick", "trick": "idem"}) == "E10"
    after = gather(s, PATTERN_EXAMPLES["A"])
    assert rule_of(after, {"type": "trick", "trick": "chaos"}) == "chance"
    after = obj(after, 3)  # one gathering, then straight on to step 3 and the refill
    assert GAME.current_player(after) == CHANCE and after.phase == REFILL


def test_e10_step_2_may_play_any_trick_of_e13_to_e17():
    tricks = ["proxima", "idem", "exodus", "chaos", "vademecum"]
    s = build(hands={0: tricks}, towers=[["star-gold-fire"], [], ["hat-silver-water"]])
    offered = sorted((NAMES[m.trick], m.tower) for m in GAME.legal_moves(s) if m.type == "trick")
    assert offered == sorted([(x, -1) for x in tricks if x != "exodus"] + [("exodus", 0), ("exodus", 2)])
    for name in tricks:  # each one is played through the checked path
        assert trick(s, name, **({"tower": 0} if name == "exodus" else {})).busy
    assert rule_of(s, {"type": "trick", "trick": "periculum"}) == "E18"


def test_e11_discard_down_to_five_one_at_a_time():
    names = ["hat-silver-water", "hat-silver-fire", "star-gold-fire", "wing-bronze-earth", "chaos", "idem", "exodus"]
    s = play(build(hands={0: names}, table=[None, None, "star-silver-earth", None]), {"type": "pass"})
    assert s.phase == DISCARD and GAME.current_player(s) == 0
    assert rule_of(s, {"type": "discard", "card": "air-hat"}) == "E11"
    s = play(s, {"type": "discard", "card": "chaos"})
    assert s.phase == DISCARD
    s = play(s, {"type": "discard", "card": "idem"})
    assert s.phase == REFILL and s.hands[0].bit_count() == 5
    assert "chaos" in GAME.view(s, 1)["discard"]


def test_e12_refill_face_down_stays_down_face_up_refilled_up():
    s = build(phase="take", table=["hat-silver-water", "chaos", "star-gold-fire", "wing-bronze-earth"])
    s = play(take(take(s, 3), 0), {"type": "pass"})
    assert s.phase == REFILL and GAME.view(s, None)["pending"] == {"draw": "refill", "spot": 0}
    s = draw(s, "idem")
    assert GAME.log_entry(s, GAME.move_from_json({"type": "draw", "card": "exodus"}), 1) == {
        "type": "draw", "spot": 3, "card": "exodus"}
    s = draw(s, "exodus")
    v = GAME.view(s, 1)
    assert v["table"][0] == {"spot": 0, "face": "down", "occupied": True}
    assert v["table"][3]["card"] == "exodus" and "idem" not in json.dumps(v)
    assert GAME.current_player(s) == 1


def test_e12_empty_deck_reshuffles_the_discard_pile():
    s = build(phase="take", table=["hat-silver-water", "chaos", "star-gold-fire", "wing-bronze-earth"],
              deck=[], hands={1: ["idem"]})
    discard_before = s.discard
    s = play(take(take(s, 0), 1), {"type": "pass"})
    assert s.phase == REFILL and s.reshuffles == 1 and s.deck == discard_before and s.discard == 0


def test_e12_deck_and_discard_empty_spots_stay_empty():
    s = build(phase="take", table=["hat-silver-water", "chaos", "star-gold-fire", "wing-bronze-earth"], deck=[])
    s.hands[1] |= s.discard  # nothing left to draw
    s.discard = 0
    s = play(take(take(s, 0), 3), {"type": "pass"})
    assert GAME.current_player(s) == 1 and s.table == [-1, card("chaos"), card("star-gold-fire"), -1]


def test_e12_a_discard_pile_holding_only_the_periculum_counts_as_empty():
    s = build(phase="take", table=["hat-silver-water", "chaos", "star-gold-fire", "wing-bronze-earth"], deck=[])
    s.hands[1] |= s.discard & ~(1 << card("periculum"))  # the discard pile holds only the Periculum
    s.discard = 1 << card("periculum")
    s = play(take(take(s, 0), 3), {"type": "pass"})
    assert GAME.current_player(s) == 1 and s.reshuffles == 0 and s.deck == 0
    assert s.table == [-1, card("chaos"), card("star-gold-fire"), -1]
    assert s.discard == 1 << card("periculum")  # it stays there
    # the same for Vademecum's draws: no reshuffle of the lone Periculum, the turn goes on
    v = build(hands={0: ["vademecum"]}, table=["hat-silver-water", "chaos", "star-gold-fire", "wing-bronze-earth"],
              deck=[])
    v.hands[1] |= v.discard & ~(1 << card("periculum"))
    v.discard = 1 << card("periculum")
    v = trick(v, "vademecum")
    assert v.reshuffles == 0 and v.hands[0] == 0 and GAME.current_player(v) == 1
    assert v.discard == mask_of([card("periculum"), card("vademecum")])
    # with another card beside it, the Periculum is shuffled into the new deck like any card
    w = build(hands={0: ["vademecum"]}, deck=[])
    w.hands[1] |= w.discard & ~mask_of([card("periculum"), card("idem")])
    w.discard = mask_of([card("periculum"), card("idem")])
    w = trick(w, "vademecum")
    assert w.reshuffles == 1 and w.deck == mask_of([card("periculum"), card("idem")])


# --- Tricks ---------------------------------------------------------------------------


def test_e13_proxima_pays_its_holder_on_another_players_gathering_then_is_discarded():
    s = trick(build(hands={0: ["proxima"], 1: PATTERN_EXAMPLES["B"]}), "proxima")
    assert s.proxima == 0 and GAME.view(s, 1)["players"][0]["proxima"]
    # the holder's own gathering does not trigger it
    own = build(hands={0: PATTERN_EXAMPLES["B"]}, proxima=0)
    own = obj(gather(own, PATTERN_EXAMPLES["B"]), 3)
    assert own.proxima == 0 and own.phase != OBJECT
    other = build(turn=1, hands={1: PATTERN_EXAMPLES["B"]}, proxima=0)
    other = obj(gather(other, PATTERN_EXAMPLES["B"]), 5)
    assert GAME.view(other, None)["pending"] == {"draw": "object", "seat": 0, "pile": "B"}
    other = obj(other, 4)
    assert other.objects[0] == (1 * 8 + 4,) and other.proxima == -1
    assert other.discard >> card("proxima") & 1


def test_e14_idem_pays_from_the_most_recent_gathering_pile():
    s = trick(build(hands={0: ["idem"]}, last_pile="C"), "idem")
    assert GAME.view(s, None)["pending"] == {"draw": "object", "seat": 0, "pile": "C"}
    s = obj(s, 5)
    assert s.objects[0] == (2 * 8 + 5,)
    none = trick(build(hands={0: ["idem"]}), "idem")
    assert none.objects[0] == () and none.discard >> card("idem") & 1


def test_e15_exodus_empties_a_tower():
    s = build(hands={0: ["exodus"]}, towers=[PATTERN_EXAMPLES["A"], [], []])
    assert rule_of(s, {"type": "trick", "trick": "exodus", "tower": 1}) == "E15"
    after = trick(s, "exodus", tower=0)
    assert after.towers[0] == 0
    assert after.discard == mask_of(card(x) for x in PATTERN_EXAMPLES["A"] + ["exodus"])


def test_e15_an_empty_tower_is_not_a_legal_target():
    s = build(hands={0: ["exodus"]}, towers=[[], ["hat-silver-water"], []])
    assert [m.tower for m in GAME.legal_moves(s) if m.type == "trick"] == [1]
    for tower in (0, 2):
        assert rule_of(s, {"type": "trick", "trick": "exodus", "tower": tower}) == "E15"
    bare = build(hands={0: ["exodus"]})  # every Tower empty: Exodus cannot be played at all
    assert [m.type for m in GAME.legal_moves(bare)] == ["pass"]
    assert rule_of(bare, {"type": "trick", "trick": "exodus", "tower": 0}) == "E15"


def test_e16_chaos_passes_every_hand_to_the_left():
    s = build(n=3, turn=1, hands={0: ["hat-silver-water"], 1: ["chaos", "star-gold-fire"], 2: ["idem", "exodus"]})
    after = trick(s, "chaos")
    assert hand(after, 0) == ["exodus", "idem"]
    assert hand(after, 1) == ["hat-silver-water"]
    assert hand(after, 2) == ["star-gold-fire"]
    # seat 2 knows where its old hand went; seat 0 does not see it
    assert GAME.view(after, 2)["players"][0]["known_cards"] == ["idem", "exodus"]
    assert GAME.view(after, 1)["players"][0]["known_cards"] == []


def test_e17_vademecum_draws_three_cards():
    s = trick(build(hands={0: ["vademecum"]}), "vademecum")
    assert s.phase == VADEMECUM_DRAW
    for name in ["hat-silver-water", "chaos", "elemental-fire"]:
        s = draw(s, name)
    assert hand(s, 0) == ["chaos", "elemental-fire", "hat-silver-water"]
    assert s.phase in (REFILL, DISCARD) or GAME.current_player(s) == 1


def test_e17_vademecum_reshuffles_without_itself():
    s = build(hands={0: ["vademecum"]}, deck=["idem"])
    s = draw(trick(s, "vademecum"), "idem")
    assert s.reshuffles == 1 and not s.deck >> card("vademecum") & 1
    assert s.discard == 1 << card("vademecum")


def test_e18_periculum_face_down_in_step_1_takes_second_card_skips_step_2():
    s = build(phase="take", table=["periculum", "chaos", "star-gold-fire", "wing-bronze-earth"],
              hands={0: PATTERN_EXAMPLES["A"] + ["idem", "exodus"]})
    s = take(s, 0)
    assert s.phase == TAKE2 and s.discard >> card("periculum") & 1
    assert GAME.view(s, 1)["history"][-1] == {"seat": 0, "periculum": "table"}
    s = take(s, 3)
    assert s.phase == DISCARD
    assert rule_of(s, {"type": "gather", "cards": PATTERN_EXAMPLES["A"], "tower": 0}) == "E18"


def test_e18_periculum_as_second_card_skips_step_2():
    s = build(phase="take", table=["hat-silver-water", "periculum", "star-gold-fire", "wing-bronze-earth"])
    s = take(take(s, 0), 1)
    assert s.phase == REFILL and hand(s, 0) == ["hat-silver-water"]


def test_e18_periculum_face_up_on_the_table_is_discarded_and_refilled():
    s = build(phase="take", table=["hat-silver-water", "chaos", "star-gold-fire", "wing-bronze-earth"])
    s = play(take(take(s, 3), 0), {"type": "pass"})
    s = draw(s, "idem")
    s = draw(s, "periculum")
    assert s.phase == REFILL and s.table[3] == -1 and s.discard >> card("periculum") & 1
    s = draw(s, "exodus")
    assert s.table[3] == card("exodus")


def test_e18_periculum_face_up_at_setup():
    s = GAME.new_state(2)
    for name in ["hat-silver-water", "chaos", "idem", "periculum", "exodus"]:
        s = draw(s, name)
    assert s.table == [card("hat-silver-water"), card("chaos"), card("idem"), card("exodus")]
    assert s.discard == 1 << card("periculum")


def test_e18_periculum_during_vademecum_stops_it():
    s = draw(trick(build(hands={0: ["vademecum"]}), "vademecum"), "hat-silver-water")
    s = draw(s, "periculum")
    assert s.phase != VADEMECUM_DRAW and hand(s, 0) == ["hat-silver-water"]
    assert s.discard >> card("periculum") & 1


def test_e18_periculum_during_vademecum_cancels_the_rest_and_goes_on_with_step_3():
    five = ["hat-silver-water", "star-gold-fire", "wing-bronze-earth", "chaos", "idem"]
    s = trick(build(hands={0: five + ["vademecum"]}), "vademecum")
    s = draw(s, "exodus")  # six cards in hand
    s = draw(s, "periculum")  # the third draw is cancelled
    assert s.phase == DISCARD and GAME.current_player(s) == 0 and s.vade_left == 0
    assert s.hands[0].bit_count() == 6 and s.discard >> card("periculum") & 1
    assert GAME.view(s, 1)["history"][-1] == {"seat": 0, "periculum": "vademecum"}
    s = play(s, {"type": "discard", "card": "exodus"})  # step 3, then the refill (step 4)
    assert s.phase == REFILL and s.hands[0].bit_count() == 5


def test_e18_periculum_cannot_be_played():
    s = build(hands={0: ["chaos"]})
    assert rule_of(s, {"type": "trick", "trick": "periculum"}) == "E18"


# --- points and end -----------------------------------------------------------------


def test_e19_points_are_objects_plus_elementals_in_hand():
    s = build(hands={0: ["elemental-fire", "elemental-air", "chaos"]}, objects={0: [("A", 5), ("D", 2)]}, ng={0: 1})
    assert points(s, 0) == 5 + 2 + 1 + 2
    assert GAME.view(s, 0)["players"][0]["points"] == 10
    assert "points" not in GAME.view(s, 1)["players"][0]


def test_e20_elemental_master_moves_between_players():
    three = ["elemental-fire", "elemental-water", "elemental-earth"]
    s = build(n=3, turn=0, hands={0: three + ["chaos"]})
    assert s.master == 0 and points(s, 0) == 3 + 5
    s = trick(s, "chaos")  # the Elementals go left with the hand
    assert s.master == 1 and points(s, 0) == 0
    t = build(n=2, turn=0, phase="take", hands={0: three[:1], 1: three[1:]},
              table=["elemental-air", None, "hat-silver-water", None])
    t = take(t, 0)
    assert t.master == -1  # two and two: nobody has three
    u = build(n=2, turn=1, phase="discard", hands={1: three + ["chaos", "idem", "exodus"]})
    assert u.master == 1
    u = play(u, {"type": "discard", "card": "elemental-fire"})
    assert u.master == -1  # back to the supply


def test_e21_fifteen_points_wins_at_once_mid_turn():
    s = build(phase="take", hands={0: ["chaos"]}, objects={0: [("A", 5), ("B", 5), ("C", 4)]},
              table=["elemental-fire", "hat-silver-water", None, None])
    s = take(s, 0)
    assert GAME.is_terminal(s) and GAME.outcome(s).winners == (0,)
    assert GAME.outcome(s).reason == "fifteen_points" and GAME.returns(s)[0] == 1.0
    with pytest.raises(IllegalMove) as caught:
        take(s, 1)
    assert caught.value.rule == "game_over"


def test_e21_simultaneous_fifteen_player_to_act_else_clockwise():
    objs = [("A", 5), ("B", 5), ("C", 4)]
    # after seat 1's Chaos seats 0 and 2 reach 15 together: seat 1 does not, seat 2 is next clockwise
    s = build(n=3, turn=1, hands={2: ["elemental-fire"], 1: ["chaos", "elemental-water"]},
              objects={0: objs, 2: objs})
    assert GAME.outcome(trick(s, "chaos")).winners == (2,)
    # seat 2 acts; seats 0 and 1 reach 15: seat 0 is first clockwise from seat 2
    t = build(n=3, turn=2, hands={0: ["elemental-fire"], 2: ["chaos", "elemental-water"]},
              objects={0: objs, 1: objs})
    assert GAME.outcome(trick(t, "chaos")).winners == (0,)
    # the player to act wins when among them
    u = build(n=3, turn=1, hands={0: ["elemental-fire"], 1: ["chaos", "elemental-water"]},
              objects={1: objs, 2: objs})
    assert GAME.outcome(trick(u, "chaos")).winners == (1,)


def test_e22_special_victory_two_stones_and_another_object():
    s = build(hands={0: PATTERN_EXAMPLES["D"]}, objects={0: [("A", 0), ("G", 1)]})
    s = obj(gather(s, PATTERN_EXAMPLES["D"]), 0)
    out = GAME.outcome(s)
    assert out.reason == "special_victory" and out.winners == (0,) and points(s, 0) < 15
    # two stones alone are not enough (the gathering here is not from the hand only)
    t = build(hands={0: PATTERN_EXAMPLES["D"][:2]}, towers=[[PATTERN_EXAMPLES["D"][2]], [], []], objects={0: [("A", 0)]})
    t = obj(gather(t, PATTERN_EXAMPLES["D"], tower=1), 0)
    assert not GAME.is_terminal(t)


def test_e22_the_other_object_may_be_a_third_stone():
    s = build(hands={0: PATTERN_EXAMPLES["D"][:2]}, towers=[[PATTERN_EXAMPLES["D"][2]], [], []],
              objects={0: [("A", 0), ("B", 0)]})
    s = obj(gather(s, PATTERN_EXAMPLES["D"], tower=1), 0)  # not all from the hand: no New-gathering card
    assert s.stones[0] == 3 and s.ng[0] == 0
    assert GAME.outcome(s).reason == "special_victory" and GAME.outcome(s).winners == (0,)


def test_e22_the_other_object_may_be_a_new_gathering_card():
    s = build(hands={0: PATTERN_EXAMPLES["D"][:2]}, towers=[[PATTERN_EXAMPLES["D"][2]], [], []],
              objects={0: [("A", 0)]}, ng={0: 1})
    assert not GAME.is_terminal(s)
    s = obj(gather(s, PATTERN_EXAMPLES["D"], tower=1), 0)
    assert GAME.outcome(s).reason == "special_victory" and GAME.outcome(s).winners == (0,)


def test_e22_the_other_object_may_be_the_elemental_master_card():
    s = build(phase="take", hands={0: ["elemental-fire", "elemental-water"]}, objects={0: [("A", 0), ("B", 0)]},
              table=["elemental-earth", "hat-silver-water", None, None])
    assert not GAME.is_terminal(s)
    s = take(s, 0)  # the third Elemental brings the master card: two Stones and another Magic Object card
    assert s.master == 0 and points(s, 0) == 8
    assert GAME.outcome(s).reason == "special_victory" and GAME.outcome(s).winners == (0,)
    # the master card passed on by Chaos counts for its new holder too
    t = build(n=2, turn=0, hands={0: ["chaos", "elemental-fire", "elemental-water", "elemental-earth"]},
              objects={1: [("A", 0), ("B", 0)]})
    t = trick(t, "chaos")
    assert t.master == 1 and GAME.outcome(t).winners == (1,) and GAME.outcome(t).reason == "special_victory"


def test_e23_all_piles_empty_most_points_win_ties_share():
    s = build(hands={0: PATTERN_EXAMPLES["G"]}, objects={0: [("A", 5)], 1: [("B", 3), ("C", 3)]},
              piles={letter: [] for letter in "ABCDEF"} | {"G": [1]})
    s = obj(gather(s, PATTERN_EXAMPLES["G"]), 1)  # 5 + 1 + New-gathering 1 = 7 > 6
    out = GAME.outcome(s)
    assert out.reason == "piles_empty" and out.winners == (0,)
    t = build(turn=1, hands={1: PATTERN_EXAMPLES["G"][:2]}, towers=[[PATTERN_EXAMPLES["G"][2]], [], []],
              objects={0: [("A", 5)], 1: [("B", 3)]}, piles={letter: [] for letter in "ABCDEF"} | {"G": [2]})
    t = obj(gather(t, PATTERN_EXAMPLES["G"], tower=1), 2)
    out = GAME.outcome(t)
    assert out.winners == (0, 1) and GAME.returns(t) == (1.0, 1.0)


def _stuck_table() -> EnchantersState:
    """Six full hands and three full Towers hold every card but the Periculum: nothing is left to draw."""
    others = [NAMES[c] for c in range(40) if NAMES[c] != "periculum"]
    towers = [others[0:3], others[3:6], others[6:9]]
    hands = {seat: others[9 + 5 * seat: 14 + 5 * seat] for seat in range(6)}
    return build(n=6, turn=0, phase="act", table=[None] * 4, towers=towers, hands=hands, deck=[])


def test_e23_stalemate_after_two_rounds_without_gathering_trick_or_deck():
    s = _stuck_table()
    for _ in range(11):  # 2 x 6 turns in a row: the twelfth ends the game
        s = play(s, {"type": "pass"})
        assert not GAME.is_terminal(s) and s.idle >= 1
    s = play(s, {"type": "pass"})
    out = GAME.outcome(s)
    totals = [points(s, p) for p in range(6)]
    assert out.reason == "stalemate" and out.winners == tuple(p for p in range(6) if totals[p] == max(totals))


def test_e23_a_trick_restarts_the_stuck_count():
    s = _stuck_table()
    s.turn, s.idle = 4, 11  # eleven idle turns already; seat 4 holds Chaos
    assert s.hands[4] >> card("chaos") & 1
    s = trick(s, "chaos")
    s = draw(draw(s, "chaos"), "periculum")  # the played Chaos is reshuffled (with the Periculum) and drawn
    assert not GAME.is_terminal(s) and s.idle == 0 and GAME.current_player(s) == 5 and not s.deck


# --- information, moves, snapshots ---------------------------------------------------


def test_views_never_show_other_hands_or_object_values():
    rng = random.Random(7)
    for seed in range(6):
        s = GAME.new_state(3)
        r = random.Random(seed)
        for _ in range(120):
            if GAME.is_terminal(s):
                break
            p = GAME.current_player(s)
            s = GAME.apply(s, GAME.sample_chance(s, r) if p == CHANCE else r.choice(GAME.legal_moves(s)))
            for seat in range(3):
                v = GAME.view(s, seat)
                over = GAME.is_terminal(s)  # once finished everything is shown
                for other in v["players"]:
                    if other["seat"] != seat and not over:
                        assert "hand" not in other
                        assert all("value" not in o for o in other["objects"])
                text = json.dumps(v)
                for i in range(3):
                    if not over and s.table[i] >= 0:
                        assert f'"{NAMES[s.table[i]]}"' not in json.dumps(v["table"])
                d = GAME.determinize(s, seat, rng)
                assert GAME.view(d, seat) == v and text == json.dumps(GAME.view(d, seat))


def test_a_finished_game_shows_everything():
    """'Once it is finished, everything may be shown': hands, object values, face-down cards, the deck."""
    s = build(phase="take", hands={0: ["chaos"], 1: ["idem", "hat-gold-fire"]},
              objects={0: [("A", 5), ("B", 5), ("C", 4)], 1: [("D", 3)]},
              table=["elemental-fire", "hat-silver-water", "star-gold-earth", None])
    running = GAME.view(s, 0)
    assert "hand" not in running["players"][1] and "deck" not in running
    assert "card" not in running["table"][1]
    s = take(s, 0)
    assert GAME.is_terminal(s)
    for seat in (0, 1, None):
        v = GAME.view(s, seat)
        assert v["players"][1]["hand"] == ["hat-gold-fire", "idem"]
        assert v["players"][1]["objects"] == [{"pile": "D", "value": 3}]
        assert [spot.get("card") for spot in v["table"]] == [None, "hat-silver-water", "star-gold-earth", None]
        assert set(v["deck"]) == {NAMES[c] for c in cards_of(s.deck)}
        assert GAME.encode(GAME.determinize(s, 1, random.Random(seat or 0))) == GAME.encode(s)


def test_log_entries_redact_draws_and_object_values():
    s = gather(build(hands={0: PATTERN_EXAMPLES["A"]}), PATTERN_EXAMPLES["A"])
    move = GAME.move_from_json({"type": "object", "pile": "A", "value": 5})
    assert GAME.log_entry(s, move, 0) == {"type": "object", "pile": "A", "value": 5, "seat": 0}
    assert GAME.log_entry(s, move, 1) == {"type": "object", "pile": "A", "seat": 0}
    assert GAME.log_entry(s, move, None) == {"type": "object", "pile": "A", "seat": 0}
    v = trick(build(hands={0: ["vademecum"]}), "vademecum")
    secret = GAME.move_from_json({"type": "draw", "card": "hat-gold-fire"})
    assert GAME.log_entry(v, secret, 0)["card"] == "hat-gold-fire"
    assert "card" not in GAME.log_entry(v, secret, 1)
    shown = GAME.move_from_json({"type": "draw", "card": "elemental-air"})
    assert GAME.log_entry(v, shown, 1)["card"] == "elemental-air"


def test_cards_are_conserved_in_seeded_playouts():
    for seed in range(30):
        rng = random.Random(seed)
        n = 2 + seed % 5
        s = GAME.new_state(n)
        while True:
            places = [s.deck, s.discard, *s.hands, *s.towers, *[1 << c for c in s.table if c >= 0]]
            if s.proxima >= 0:
                places.append(1 << card("proxima"))
            assert sum(m.bit_count() for m in places) == 40
            assert s.card_places() == ALL_CARDS
            assert sum(map(sum, s.piles)) + sum(len(o) for o in s.objects) == 49
            p = GAME.current_player(s)
            if p == TERMINAL:
                break
            GAME.step(s, GAME.sample_chance(s, rng) if p == CHANCE else rng.choice(GAME.legal_moves(s)))


@pytest.mark.parametrize("garbage", [
    {"type": "take", "spot": 4}, {"type": "take", "spot": True}, {"type": "gather", "cards": ["a", "b", "c"], "tower": 0},
    {"type": "gather", "cards": ["hat-silver-water"] * 3, "tower": 0}, {"type": "trick", "trick": "exodus"},
    {"type": "trick", "trick": "chaos", "tower": 1}, {"type": "discard", "card": 3}, {"type": "object", "pile": "H", "value": 1},
    {"type": "gather", "cards": PATTERN_EXAMPLES["A"], "tower": 0, "air": {"hat-silver-water": {"school": "gold", "element": "fire"}}},
])
def test_malformed_moves_are_invalid(garbage):
    with pytest.raises(InvalidMove):
        GAME.move_from_json(garbage)


def test_snapshots_round_trip_and_refuse_garbage():
    s = build(hands={0: PATTERN_EXAMPLES["A"]}, objects={1: [("B", 0)]}, proxima=1)
    data = json.loads(json.dumps(GAME.encode(s)))
    assert GAME.encode(GAME.decode(data)) == GAME.encode(s)
    for bad in [{}, {"v": 2}, data | {"hands": [1, 2, 3]}, data | {"deck": 0}, data | {"phase": "x"}]:
        with pytest.raises(InvalidSnapshot):
            GAME.decode(bad)


def test_legal_move_count_stays_searchable():
    s = build(hands={0: ["air-hat", "air-star", "hat-silver-water", "star-bronze-fire", "wing-gold-earth", "chaos", "exodus"]},
              towers=[["air-wing", "hat-gold-fire", "star-gold-earth"], PATTERN_EXAMPLES["B"], ["wing-silver-fire", "wing-bronze-earth", "wing-gold-water"]])
    moves = GAME.legal_moves(s)
    assert 50 < len(moves) < 1000 and len(set(moves)) == len(moves)


# --- calibration against the rules' note --------------------------------------------------


def _pile_worth(s: EnchantersState, pile: int) -> float:
    from engine.enchanters.rules import next_pile

    q = next_pile(s, pile)
    counts = s.piles[q]
    return sum(v * k for v, k in enumerate(counts)) / max(1, sum(counts))


def greedy_move(s: EnchantersState, rng: random.Random):
    """The note's simple greedy player: face-up card when useful, always gather, richest pile."""
    moves = GAME.legal_moves(s)
    me = s.turn
    towers = s.towers[0] | s.towers[1] | s.towers[2]
    if s.phase in (TAKE1, TAKE2):
        up = s.table[3]
        if up >= 0:
            with_up = s.hands[me] | 1 << up
            useful = up >= 36 or any(up in g[0] for g in gatherings(with_up & ((1 << 30) - 1), towers))
            if useful:
                return GAME.move_from_json({"type": "take", "spot": 3})
        down = [m for m in moves if m.spot != 3]
        return rng.choice(down or moves)
    if s.phase == ACT:
        best, best_key = None, None
        for m in moves:
            if m.type == "gather":
                from_hand = sum(1 for c in m.cards if s.hands[me] >> c & 1)
                from engine.enchanters.rules import gathering_pattern

                worth = _pile_worth(s, gathering_pattern(m.cards, m.air)) + (from_hand == 3 and s.ng_left > 0)
                lost = (s.towers[m.tower] & ~mask_of(m.cards)).bit_count()
                key = (worth, -from_hand, -lost)
                if best_key is None or key > best_key:
                    best, best_key = m, key
        if best is not None:
            return best
        for m in moves:
            if m.type == "trick" and NAMES[m.trick] in ("idem", "vademecum") and (NAMES[m.trick] != "idem" or s.last_pile >= 0):
                return m
        return moves[-1]  # pass
    # discard: keep Elementals and cards that gather, drop the rest
    keep = set()
    for cards, _, _ in gatherings(s.hands[me] & ((1 << 30) - 1), towers):
        keep.update(cards)
    spare = [m for m in moves if m.card < 36 and m.card not in keep]
    return rng.choice(spare or moves)


def _greedy_game(n: int, seed: int) -> EnchantersState:
    rng = random.Random(seed)
    s = GAME.new_state(n)
    while not GAME.is_terminal(s):
        if GAME.current_player(s) == CHANCE:
            GAME.step(s, GAME.sample_chance(s, rng))
        else:
            GAME.step(s, greedy_move(s, rng))
    return s


def calibration(n: int, games: int) -> dict[str, float]:
    ends = [_greedy_game(n, seed) for seed in range(games)]
    return {
        "turns": sum(s.turns + 1 for s in ends) / games,
        "gatherings": sum(sum(1 for e in s.history if e >> 6 == 0) for s in ends) / games,
        "fifteen": sum(s.reason == 1 for s in ends) / games,
        "special": sum(s.reason == 2 for s in ends) / games,
        "reshuffled": sum(s.reshuffles > 0 for s in ends) / games,
    }


def test_calibration_two_players_roughly_matches_the_rules_note():
    stats = calibration(2, 150)
    assert 7 <= stats["turns"] <= 16, stats
    assert stats["fifteen"] >= 0.6, stats
    assert stats["fifteen"] + stats["special"] >= 0.9, stats


def test_e4_e5_gathering_generator_matches_brute_force():
    """Every (cards, pattern) a brute force over all declarations finds, and nothing else."""
    from itertools import product

    from engine.enchanters.rules import (
        declared_pattern as gathering_pattern,  # worked out, never cached
    )

    rng = random.Random(5)
    for _ in range(300):
        pool = rng.sample(range(30), rng.randint(3, 12))
        hand_cards = set(rng.sample(pool, rng.randint(1, min(7, len(pool)))))
        hand_mask, tower_mask = mask_of(hand_cards), mask_of(set(pool) - hand_cards)
        expected = set()
        for triple in combinations(sorted(pool), 3):
            if not hand_cards & set(triple):
                continue
            airs = [c for c in triple if c >= 27]
            for decl in product(*[[(a, sc, el) for sc in range(3) for el in range(3)] for a in airs]):
                pattern = gathering_pattern(triple, tuple(decl))
                if pattern >= 0:
                    expected.add((triple, pattern))
        found = gatherings(hand_mask, tower_mask)
        assert {(cards, pattern) for cards, _, pattern in found} == expected
        assert len(found) == len(expected)  # one declaration per pattern
        for cards, decl, pattern in found:
            assert gathering_pattern(cards, decl) == pattern


def test_e5_a_listed_gathering_keeps_the_pattern_its_cards_make():
    """`legal_moves` remembers each listed gathering's pattern for its step: always the one the
    cards and declarations make (checked over every gathering random games list)."""
    from engine.enchanters import rules

    rng = random.Random(12)
    for n in (2, 4):
        s = GAME.new_state(n)
        while not GAME.is_terminal(s):
            if GAME.current_player(s) == CHANCE:
                GAME.step(s, GAME.sample_chance(s, rng))
            else:
                GAME.step(s, rng.choice(GAME.legal_moves(s)))
    assert rules._PATTERNS
    for (cards, air), pattern in rules._PATTERNS.items():
        assert pattern == rules.declared_pattern(cards, air) >= 0
        assert rules.gathering_pattern(cards, air) == pattern


def test_determinize_keeps_what_the_seat_knows_and_resamples_the_rest():
    s = build(n=3, turn=2, phase="take",
              hands={0: ["hat-silver-water", "idem"], 1: ["star-gold-fire", "elemental-air", "chaos"], 2: ["exodus"]},
              table=["wing-gold-earth", "hat-gold-fire", None, "star-silver-water"],
              objects={0: [("B", 4)], 1: [("B", 0), ("G", 3)], 2: [("B", 5)]})
    s.known[0] |= 1 << card("chaos")  # seat 0 saw chaos go to seat 1 (say, by its own Chaos)
    s = take(s, 3)  # seat 2 takes the face-up card: everyone knows where it is
    rng = random.Random(1)
    seen_b = Counter()
    for _ in range(200):
        d = GAME.determinize(s, 0, rng)
        assert d.hands[0] == s.hands[0] and d.objects[0] == s.objects[0]
        assert d.hands[1] >> card("chaos") & 1 and d.hands[1] >> card("elemental-air") & 1
        assert d.hands[2] >> card("star-silver-water") & 1
        assert [h.bit_count() for h in d.hands] == [h.bit_count() for h in s.hands]
        assert all(not (h >> card("periculum") & 1) for h in d.hands)
        assert d.card_places() == ALL_CARDS
        seen_b[d.objects[1][0] & 7] += 1
        assert d.objects[1][0] >> 3 == 1 and d.objects[1][1] >> 3 == 6
        assert not (d.stones[1] >= 2 and len(d.objects[1]) >= 3)
    # seat 1's B object is any B value but the 4 seat 0 holds: 0, 3, 3, 4, 5, 5 remain
    assert set(seen_b) == {0, 3, 4, 5}


def test_a_stuck_table_ends_as_e23_and_a_lone_periculum_is_not_reshuffled():
    """Six full hands and three full Towers hold every card: nothing is left to draw."""
    others = [NAMES[c] for c in range(40) if NAMES[c] != "periculum"]
    towers = [others[0:3], others[3:6], others[6:9]]
    hands = {seat: others[9 + 5 * seat: 14 + 5 * seat] for seat in range(6)}
    s = build(n=6, phase="take", table=["periculum", None, None, None], towers=towers, hands=hands, deck=[])
    s = take(s, 0)  # the Periculum: discarded, step 2 lost; the refill cannot bring it back alone
    assert s.table == [-1, -1, -1, -1] and GAME.current_player(s) == 1 and s.reshuffles == 0
    for _ in range(11):  # two whole rounds without a gathering or a Trick, and nothing to draw
        assert not GAME.is_terminal(s)
        s = play(s, {"type": "pass"})
    assert GAME.is_terminal(s) and GAME.outcome(s).reason == "stalemate"


# --- the heavy playout policy (engine/enchanters/fast.py) ------------------------------


def _policy_game(n: int, seed: int) -> tuple[EnchantersState, int]:
    """A seeded game played by the playout policy, every move through the checked `apply`."""
    from engine.enchanters.fast import policy_move

    rng = random.Random(seed)
    s = GAME.new_state(n)
    moves = 0
    while GAME.current_player(s) != TERMINAL:
        if GAME.current_player(s) == CHANCE:
            s = GAME.apply(s, GAME.sample_chance(s, rng))
        else:
            s = GAME.apply(s, policy_move(s, rng))  # IllegalMove would fail the test
            moves += 1
    return s, moves


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_policy_plays_only_legal_moves_to_the_end(n):
    for seed in range(8):
        s, moves = _policy_game(n, seed)
        assert s.winners and moves > 0


def test_policy_finds_a_gathering_exactly_when_there_is_one():
    from engine.enchanters.cards import GATHERABLE_MASK
    from engine.enchanters.fast import _completes, best_gathering, pattern_values, policy_move

    checked = 0
    for seed in range(40):
        rng = random.Random(seed)
        s = GAME.new_state(2 + seed % 5)
        while GAME.current_player(s) != TERMINAL:
            if GAME.current_player(s) == CHANCE:
                GAME.step(s, GAME.sample_chance(s, rng))
                continue
            towers = s.towers[0] | s.towers[1] | s.towers[2]
            hand = s.hands[s.turn] & GATHERABLE_MASK
            if s.phase == ACT:
                _, best = best_gathering(s, pattern_values(s))
                assert (best is not None) == bool(gatherings(hand, towers))
                checked += 1
            up = s.table[3]
            if s.phase in (TAKE1, TAKE2) and 0 <= up < 27:
                with_up = [g for g in gatherings(hand | 1 << up, towers) if up in g[0]]
                assert _completes(up, hand | towers) == bool(with_up)
            GAME.step(s, policy_move(s, rng))
    assert checked > 100


def test_policy_gathers_from_the_best_pile_and_plays_idem_without_a_gathering():
    from engine.enchanters.fast import policy_move

    other_g = ["hat-bronze-fire", "star-gold-earth", "wing-silver-water"]
    s = build(hands={0: PATTERN_EXAMPLES["A"][:2] + other_g[:2]},
              towers=[[PATTERN_EXAMPLES["A"][2]], [other_g[2]]])
    assert {pattern_of(*(chars_of(card(x)) for x in other_g))} == {6}
    move = policy_move(s, random.Random(0))
    assert move.type == "gather" and sorted(NAMES[c] for c in move.cards) == sorted(PATTERN_EXAMPLES["A"])
    assert move.tower == 1  # the fullest Tower: its card goes to the discard pile, out of reach
    s = build(hands={0: ["idem", "hat-silver-water"]}, last_pile="A")
    assert policy_move(s, random.Random(0)) == GAME.move_from_json({"type": "trick", "trick": "idem"})
    # Chaos brings seat 0 the hand on its right (seat 2 of 3): two Elementals more than its own
    s = build(n=3, hands={0: ["chaos", "hat-silver-water"], 2: ["elemental-fire", "elemental-water"]})
    assert policy_move(s, random.Random(0)) == GAME.move_from_json({"type": "trick", "trick": "chaos"})
    s = build(n=3, hands={0: ["chaos", "hat-silver-water"], 1: ["elemental-fire", "elemental-water"]})
    assert policy_move(s, random.Random(0)).type != "trick"


def test_heavy_playout_ends_the_game_and_conserves_cards():
    for seed in range(20):
        rng = random.Random(seed)
        s = GAME.new_state(2 + seed % 5)
        returns = GAME.playout(s, rng)
        assert GAME.is_terminal(s) and returns == GAME.returns(s)
        assert s.card_places() == ALL_CARDS
        assert sum(map(sum, s.piles)) + sum(len(o) for o in s.objects) == 49
