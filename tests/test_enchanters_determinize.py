"""Enchanters' determinization is exact about what is public (issue 15, item 1).

Three positions where a naive sampler built impossible worlds — after a reshuffle,
after a seat once held 8 public points with two objects, and late in a game where
most naive deals have already won — each checked over 1,000 samples; plus random
games where the true state must always fit the limits the sampler enforces.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import product

import pytest
from test_enchanters_rules import build, card, draw, play, take, trick

from engine import CHANCE, TERMINAL
from engine.enchanters import GAME, views
from engine.enchanters.cards import ALL_CARDS, ELEMENTAL_MASK, INITIAL_PILES, cards_of, mask_of
from engine.enchanters.rules import has_artifact, points
from engine.enchanters.state import ACT, EnchantersState
from engine.enchanters.views import _fits, card_groups, object_limits

SAMPLES = 1000


def assert_same_information(truth: EnchantersState, sample: EnchantersState, seat: int) -> None:
    """Nothing `seat` can see differs, and nobody has already won."""
    assert GAME.view(sample, seat) == GAME.view(truth, seat)
    assert GAME.view(sample, None) == GAME.view(truth, None)
    assert sample.card_places() == ALL_CARDS
    assert sum(map(sum, sample.piles)) + sum(len(o) for o in sample.objects) == 49
    for p in range(truth.n):
        assert not has_artifact(sample, p) and points(sample, p) < 15


def unknown_pool(s: EnchantersState, seat: int) -> int:
    mine = s.known[seat] | ELEMENTAL_MASK
    pool = s.deck
    for p in range(s.n):
        if p != seat:
            pool |= s.hands[p] & ~mine
    for c in s.table[:3]:
        if c >= 0:
            pool |= 1 << c
    return pool


# --- 1. reshuffles ----------------------------------------------------------------------------


def _after_a_reshuffle() -> tuple[EnchantersState, int, int]:
    """Three players; seats 1 and 2 hold hidden cards dealt from the first deck. Seat 0 takes two
    face-down cards; spot 0 is refilled with the first deck's last card, then the open discard pile becomes
    the deck and refills spot 1. Returns the state, the first deck's unknown cards and the new deck."""
    hands = {
        0: ["hat-silver-water"],
        1: ["star-gold-fire", "wing-bronze-earth", "hat-gold-earth", "idem"],
        2: ["star-silver-water", "wing-gold-fire", "hat-bronze-fire", "exodus"],
    }
    discard = ["star-bronze-earth", "wing-silver-earth", "hat-gold-water", "chaos", "elemental-air", "periculum"]
    table = ["hat-bronze-water", "star-gold-water", "wing-silver-water", "star-bronze-fire"]
    s = build(n=3, phase="take", hands=hands, table=table, discard=discard, deck=["wing-gold-earth"])
    new_deck = s.discard
    old_unknown = mask_of(card(x) for x in hands[1] + hands[2] + ["wing-gold-earth", "wing-silver-water"])
    s = play(take(take(s, 0), 1), {"type": "pass"})
    s = draw(s, "wing-gold-earth")  # spot 0: the first deck's last card
    assert s.reshuffles == 1 and s.deck == new_deck and s.reshuffled == (new_deck,)
    s = draw(s, "hat-gold-water")  # spot 1: from the new deck
    assert GAME.current_player(s) == 1
    return s, old_unknown, new_deck


def test_reshuffled_cards_never_mix_with_cards_dealt_before():
    s, old, new = _after_a_reshuffle()
    rng = random.Random(1)
    assert card_groups(s, unknown_pool(s, 0)) == [new, old]
    for _ in range(SAMPLES):
        d = GAME.determinize(s, 0, rng)
        assert_same_information(s, d, 0)
        dealt_before = d.hands[1] | d.hands[2] | 1 << d.table[0] | 1 << d.table[2]
        assert dealt_before == old  # the same cards, only swapped among themselves
        assert d.deck | 1 << d.table[1] == new  # the new deck is known as a set


def test_a_hidden_card_dealt_after_a_reshuffle_stays_in_the_new_deck_group():
    s, old, new = _after_a_reshuffle()
    s = take(take(s, 1), 0)  # seat 1 takes one face-down card of each deck
    assert s.phase == ACT
    rng = random.Random(2)
    seen_new = Counter()
    for _ in range(SAMPLES):
        d = GAME.determinize(s, 0, rng)
        assert_same_information(s, d, 0)
        assert (d.hands[1] & new).bit_count() == 1  # one card of seat 1's hand came from the new deck
        assert (d.hands[2] & new) == 0
        assert (d.hands[1] | d.hands[2] | 1 << d.table[2]) & old == old
        seen_new[cards_of(d.hands[1] & new)[0]] += 1
    # any card of the new deck still unseen by seat 0 may be the one (uniformly)
    assert set(seen_new) == set(cards_of(new & ~(ELEMENTAL_MASK | 1 << card("periculum"))))


# --- 2. every earlier moment at which a win would have ended the game --------------------------


def _eight_public_points() -> EnchantersState:
    """Seat 1 held objects A and B with three Elementals and the master (8 public points), then
    passed them on with Chaos; only the past rules out A + B >= 7 (and two Stones)."""
    s = build(n=3, turn=1, phase="take",
              hands={1: ["elemental-fire", "elemental-water", "chaos"]},
              objects={0: [("A", 5)], 1: [("A", 3), ("B", 3)]},
              table=["hat-silver-water", "star-gold-fire", None, "elemental-earth"])
    s = take(s, 3)  # the third Elemental: the master card too, 8 public points with two objects
    assert s.master == 1 and s.peaks[1][2] == 8 and s.pair_extra >> 1 & 1 and not GAME.is_terminal(s)
    s = trick(take(s, 0), "chaos")  # the Elementals and the master go to seat 2
    assert s.master == 2 and points(s, 1) == 6
    return s


def test_object_values_respect_an_earlier_peak_of_public_points():
    s = _eight_public_points()
    while GAME.current_player(s) == CHANCE:
        s = GAME.apply(s, GAME.sample_chance(s, random.Random(0)))
    rng = random.Random(3)
    pairs = Counter()
    for _ in range(SAMPLES):
        d = GAME.determinize(s, 0, rng)
        assert_same_information(s, d, 0)
        a, b = d.objects[1][0] & 7, d.objects[1][1] & 7
        assert a + b <= 6 and (a, b) != (0, 0)
        pairs[a, b] += 1
    # exact: uniform over the deals of A (seat 0 holds an A5) and B with a + b <= 6, not two Stones
    pool_a = [v for v, k in enumerate(INITIAL_PILES[0]) for _ in range(k)]
    pool_a.remove(5)
    pool_b = [v for v, k in enumerate(INITIAL_PILES[1]) for _ in range(k)]
    allowed = Counter((a, b) for a, b in product(pool_a, pool_b) if a + b <= 6 and (a, b) != (0, 0))
    total = sum(allowed.values())
    assert set(pairs) == set(allowed)
    for pair, k in allowed.items():
        expected = SAMPLES * k / total
        assert abs(pairs[pair] - expected) < 5 * expected**0.5 + 5, pair


# --- 3. late in the game: most naive deals have already won ----------------------------------------


def _late_game() -> EnchantersState:
    """Seat 1 holds A, B, C, D with 6 public points (an Elemental and five New-gathering cards): the
    values must add up to 8 at most, with one Stone at most (A0 B3 C3 D2 is the truth)."""
    return build(n=4, turn=0, hands={0: ["hat-silver-water"], 1: ["elemental-fire", "idem"]},
                 objects={1: [("A", 0), ("B", 3), ("C", 3), ("D", 2)], 2: [("A", 4), ("G", 3)], 3: [("B", 0)]},
                 ng={1: 5})


def test_late_game_samples_never_have_a_winner():
    s = _late_game()
    assert points(s, 1) == 14
    caps, stones = object_limits(s, 1)
    assert caps == [8, 8, 8, 8] and stones == 1
    naive = 0
    pools = {q: [v for v, k in enumerate(INITIAL_PILES[q]) for _ in range(k)] for q in range(4)}
    pools[0].remove(4)  # seat 2's A4: unknown to seat 0 but in the pool; the naive check is rough
    rng = random.Random(4)
    for _ in range(SAMPLES):
        deal = [rng.choice(pools[q]) for q in range(4)]
        naive += sum(deal) > 8 or deal.count(0) > 1
        d = GAME.determinize(s, 0, rng)
        assert_same_information(s, d, 0)
        values = [code & 7 for code in d.objects[1]]
        assert sum(values) <= 8 and values.count(0) <= 1
        assert [code >> 3 for code in d.objects[1]] == [0, 1, 2, 3]
    assert naive > SAMPLES * 0.85  # a naive deal nearly always says seat 1 has won already


# --- the true state always fits: the sampler can always succeed --------------------------------------


@pytest.mark.parametrize("n", [2, 4, 6])
def test_the_true_state_always_fits_the_limits_and_samples_stay_consistent(n):
    rng = random.Random(n)
    for seed in range(6):
        r = random.Random(seed * 10 + n)
        s = GAME.new_state(n)
        step = 0
        while GAME.current_player(s) != TERMINAL:
            p = GAME.current_player(s)
            GAME.step(s, GAME.sample_chance(s, r) if p == CHANCE else r.choice(GAME.legal_moves(s)))
            step += 1
            if GAME.is_terminal(s):
                break
            for q in range(n):
                caps, stones = object_limits(s, q)
                assert _fits([code & 7 for code in s.objects[q]], caps, stones)
            if step % 7 == 0:
                seat = step % n
                pool = unknown_pool(s, seat)
                groups = card_groups(s, pool)
                d = GAME.determinize(s, seat, rng)
                assert_same_information(s, d, seat)
                for g in groups:
                    for q in range(n):
                        assert (d.hands[q] & g).bit_count() == (s.hands[q] & g).bit_count()
                    assert (d.deck & g).bit_count() == (s.deck & g).bit_count()
                for i in range(3):
                    if s.table[i] >= 0:
                        assert [g >> d.table[i] & 1 for g in groups] == [g >> s.table[i] & 1 for g in groups]
                for q in range(n):
                    if q != seat:
                        caps, stones = object_limits(s, q)
                        assert _fits([code & 7 for code in d.objects[q]], caps, stones)


def test_snapshots_keep_the_public_record_and_version_1_still_decodes():
    s = _eight_public_points()
    data = GAME.encode(s)
    assert data["v"] == 2 and GAME.encode(GAME.decode(data)) == data
    old = {k: v for k, v in data.items() if k not in ("reshuffled", "peaks", "pair_extra")} | {"v": 1}
    migrated = GAME.decode(old)
    assert migrated.reshuffled == () and migrated.pair_extra == 0
    assert [len(row) for row in migrated.peaks] == [len(o) + 1 for o in migrated.objects]


def test_the_constructive_search_alone_always_finds_a_consistent_deal(monkeypatch):
    """With no rejection tries at all, every sample comes from the complete depth-first search."""
    monkeypatch.setattr(views, "_REJECTION_TRIES", 0)
    rng = random.Random(6)
    late = _late_game()
    eight = _eight_public_points()
    while GAME.current_player(eight) == CHANCE:
        eight = GAME.apply(eight, GAME.sample_chance(eight, random.Random(0)))
    seen = Counter()
    for _ in range(300):
        d = GAME.determinize(late, 0, rng)
        assert_same_information(late, d, 0)
        assert sum(code & 7 for code in d.objects[1]) <= 8
        e = GAME.determinize(eight, 0, rng)
        assert_same_information(eight, e, 0)
        a, b = e.objects[1][0] & 7, e.objects[1][1] & 7
        assert a + b <= 6 and (a, b) != (0, 0)
        seen[a, b] += 1
    assert len(seen) > 5  # still a spread of deals, not one answer

