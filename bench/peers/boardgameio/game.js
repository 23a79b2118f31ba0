// The peer's side of the workload: a 2-player trick-taking game for boardgame.io, shaped like a
// two-seat match of The Witches' Wheel (about 75 moves, hidden hands): 36 cards in 4 suits of 9,
// four deals of 9 cards each; follow the led suit when you can; the higher card of the led suit
// wins the trick and leads the next. playerView hides the other hand (it shows its size only).
const { INVALID_MOVE } = require('boardgame.io/core');

const SUITS = 4;
const RANKS = 9;
const HAND = 9;
const DEALS = 4;

const suit = (card) => Math.floor(card / RANKS);
const other = (player) => (player === '0' ? '1' : '0');

function deal(random) {
  const deck = random.Shuffle([...Array(SUITS * RANKS).keys()]);
  return { 0: deck.slice(0, HAND), 1: deck.slice(HAND, 2 * HAND) };
}

function legalCards(G, player) {
  const hand = G.hands[player];
  if (G.trick.length === 1) {
    const led = suit(G.trick[0].card);
    const following = hand.filter((card) => suit(card) === led);
    if (following.length) return following;
  }
  return hand;
}

const TrickGame = {
  name: 'trick',
  minPlayers: 2,
  maxPlayers: 2,
  setup: ({ random }) => ({ hands: deal(random), trick: [], next: '0', tricks: { 0: 0, 1: 0 }, deal: 1 }),
  turn: {
    minMoves: 1,
    maxMoves: 1,
    order: {
      first: ({ G, ctx }) => ctx.playOrder.indexOf(G.next),
      next: ({ G, ctx }) => ctx.playOrder.indexOf(G.next),
    },
  },
  moves: {
    // client: false: played on the server only (the client does not hold the other hand)
    play: { client: false, move: ({ G, playerID, random }, card) => {
      if (!legalCards(G, playerID).includes(card)) return INVALID_MOVE;
      const hand = G.hands[playerID];
      hand.splice(hand.indexOf(card), 1);
      G.trick.push({ player: playerID, card });
      if (G.trick.length < 2) {
        G.next = other(playerID);
        return;
      }
      const [first, second] = G.trick;
      const winner = suit(second.card) === suit(first.card) && second.card > first.card ? second.player : first.player;
      G.tricks[winner] += 1;
      G.trick = [];
      G.next = winner;
      if (G.hands[0].length === 0 && G.deal < DEALS) {
        G.hands = deal(random);
        G.deal += 1;
      }
    } },
  },
  endIf: ({ G }) => {
    if (G.deal === DEALS && G.hands[0].length === 0 && G.hands[1].length === 0 && G.trick.length === 0) {
      return G.tricks[0] === G.tricks[1] ? { draw: true } : { winner: G.tricks[0] > G.tricks[1] ? '0' : '1' };
    }
    return undefined;
  },
  playerView: ({ G, playerID }) => {
    const hands = {};
    for (const seat of ['0', '1']) hands[seat] = seat === playerID ? G.hands[seat] : G.hands[seat].length;
    return { ...G, hands };
  },
};

module.exports = { TrickGame, legalCards };
