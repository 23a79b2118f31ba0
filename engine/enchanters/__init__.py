"""The Enchanters' Gathering (rules/enchanters.md): set collection with hidden hands and rewards.

Modules, vocabulary first: `cards` (cards, piles, objects), `sets` (the set
rule, Air declarations, the seven patterns: a helper of `rules` and `fast`),
`moves` (moves and their JSON), `state` (the state and its snapshots), `rules`
(transitions, legal moves, checks, the end), `views` (views, log redaction,
determinization), `fast` (the greedy default playout the search uses),
`game` (the protocol).

Choices where the rules are silent:

- Elementals are shown as soon as they come into a hand and stay public there;
  they may be discarded (E11) and pass with Chaos like any card.
- Air declarations last one gathering; an Air Enchanter in a Tower is wild again.
- Gatherings need one card from the hand (E6): Tower-only triples are illegal.
- Idem/Proxima pay from the pile that paid the gathering, with E7's fallback.
- Idem with no gathering yet may be played (it does nothing); Exodus needs a
  non-empty Tower; Periculum is never played.
- Chaos: "left" is the next seat in turn order.
- Vademecum: an empty deck is refilled from the discard pile (not the Vademecum
  itself); a Periculum drawn cancels the remaining draws, the turn goes on with step 3.
- Refills go spot 0, 1, 2, then the face-up spot; a discard pile holding only
  the Periculum counts as empty (E12): no reshuffle, for refills and Vademecum alike.
- E21/E22 are checked together after every move; the player to act wins, else
  the first clockwise; an Artifact winner's reason is "special_victory".
- An Artifact's "other object" is any Magic Object card (E22), the master card included.
- Once the game is over, views show everything (hands, values, table, deck).
- Stuck table: after 2n turns in a row with no gathering, no Trick and an empty
  deck, the game ends as E23 (reason "stalemate").
- Determinization is exact about what is public: a hidden card is redealt only among the
  cards last dealt from the same deck (before or after each reshuffle), and other players'
  object values never make a win at any earlier check (the state keeps, per seat, the most
  public points held with each number of objects). Joint rejection, then a complete
  randomized search: never an impossible sample.
- The search's playout is a greedy player (`policy`), not uniformly random moves:
  random playouts in this race mostly measured luck.
- Legal moves list one canonical declaration per (cards, pattern) and one of the
  Towers a gathering would leave empty; `apply` accepts any equivalent choice.
"""

from engine.enchanters.game import EnchantersGame
from engine.enchanters.moves import Discard, Draw, DrawObject, First, Gather, Pass, PlayTrick, Take
from engine.enchanters.state import EnchantersState

GAME = EnchantersGame()

__all__ = [
    "GAME",
    "Discard",
    "Draw",
    "DrawObject",
    "EnchantersGame",
    "EnchantersState",
    "First",
    "Gather",
    "Pass",
    "PlayTrick",
    "Take",
]
