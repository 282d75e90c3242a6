"""A deal drawn as a picture: the whole table, for PettingZoo's ``render_mode="rgb_array"``
(the ``learn`` extra; drawn with Pillow).

>>> from taash.interpreter import Match, load_variant
>>> from taash.learn.picture import Picture
>>> v = load_variant("29")
>>> pic = Picture(v)
>>> image = pic.draw(Match(v, seed=7, keep_deals=False).new_deal())
>>> image.shape == (pic.height, pic.width, 3), image.dtype
(True, dtype('uint8'))

The picture shows the table as the environment holds it, every seat's hand face up (as a
referee or a spectator of a recorded deal sees it, not one seat's view): a header with
the variant, the deal, the phase, the seat to act and the dealer; the auction or the
contract in words (high bid and bidder, or contract, declarer, denomination, doubled or
redoubled; each seat's own bid in a game with a ``bids`` step); trump (the suit, and
whether it is still hidden from the other seats); the called card and the partner in a
called-partner game; the match score. Then one row a seat (dealer, to act, sitting out, tricks won, card
points taken) with its hand, and on the right the trick in progress (each card under its
seat), or the last trick and its winner between tricks. Cards are white with the rank and
suit letter (``T`` written 10), hearts and diamonds in red.

The picture's size is fixed by the variant (`Picture.width`, `Picture.height`): a hand
has room for the most cards a seat is dealt in any deal (`Variant.most_cards_per_seat`)
and the widow's cards unless the widow is set aside, and a longer one is drawn
overlapped. The same state draws the same bytes (Pillow's own bundled font,
``ImageFont.load_default``, no system font).
"""

from __future__ import annotations

from taash.learn import needs_learn_extra

try:  # the learn extra's libraries
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont
except ImportError as e:
    raise ImportError(needs_learn_extra("taash.learn.picture", e)) from e

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RED_SUITS = ("H", "D")

# colours (RGB) and sizes (pixels)
FELT, INK, PALE, RED, BLACK, CARD, EDGE, MARK = ((22, 92, 52), (245, 245, 235), (190, 215, 195),
                                                 (200, 30, 30), (20, 20, 20), (252, 252, 250),
                                                 (90, 90, 90), (250, 210, 60))
MARGIN, LINE, CARD_W, CARD_H, GAP = 12, 18, 34, 44, 4
ROW = LINE + CARD_H + 10        # a seat's row: its words, then its hand
HEADER = 4 * LINE + 20          # four lines of words


class Picture:
    """The picture of the deals of one variant (module docstring). ``draw(state,
    scores=None)`` gives an ``(height, width, 3)`` uint8 array; ``scores`` (the match
    score per seat) defaults to the state's ``seat_scores()``."""

    def __init__(self, variant):
        v = self.v = variant
        self.font = ImageFont.load_default(size=13)
        self.card_font = ImageFont.load_default(size=15)
        taken = 0 if v.widow_set_aside else v.most_widow_size
        self.slots = max(1, v.most_cards_per_seat + taken)
        hand_w = self.slots * (CARD_W + GAP)
        self.trick_x = MARGIN + max(hand_w, 300) + 3 * MARGIN
        trick_w = max(v.players * (CARD_W + 3 * GAP), 220)
        self.width = max(self.trick_x + trick_w + MARGIN, 720)
        self.height = HEADER + v.players * ROW + MARGIN

    # -- words ---------------------------------------------------------------------------
    def __getstate__(self):
        return {"v": self.v}          # the fonts are made again (a font object does not pickle)

    def __setstate__(self, state):
        self.__init__(state["v"])

    def words(self, st, obs: dict, scores=None, match=None) -> list[str]:
        """The header's four lines of deal ``st`` (``obs``: a seat's observation, for its
        public parts): the deal, the auction or contract, trump and partner, the match
        score; when ``match`` (the deal's `Match`) is over, with its winners."""
        v = self.v
        who = "deal over" if st.is_terminal else f"seat {st.to_act} to act"
        if match is not None and match.over:
            who = ("match stopped at the deal limit" if match.ended_by == "deal limit" else
                   "match over, won by " + ", ".join(f"seat {s}" for s in match.winners))
        lines = [f"{v.name}  deal {st.deal_number + 1}  {st.phase}  {who}  dealer: seat {st.dealer}"]
        if v.has_bids:
            bids = obs["bids"] or []
            lines.append("bids: " + ", ".join(f"seat {s} {'-' if b is None else b}" for s, b in enumerate(bids)))
        elif obs["declarer"] is not None:
            den = f" in {obs['denomination']}" if obs["denomination"] else ""
            dbl = {1: ", doubled", 2: ", redoubled"}.get(obs["doubled"], "")
            lines.append(f"contract: {obs['target']}{den} by seat {obs['declarer']}{dbl}")
        elif obs["high_bid"] is not None:
            lines.append(f"high bid: {obs['high_bid']} by seat {obs['high_bidder']}")
        else:
            lines.append("no bid yet")
        if st.trump >= 0:
            suit = v.deck.suits[st.trump]
            t = f"trump: {SUIT_NAMES.get(suit, suit)}" + ("" if st.trump_exposed else " (hidden from the others)")
        else:
            t = "trump: none yet" if not st.is_terminal and st.phase != "play" else "trump: none"
        if obs["called_card"] is not None:
            t += f"  called card: {obs['called_card']}"
        if st.partner >= 0:
            t += f"  partner: seat {st.partner}" + ("" if st.partner_revealed else " (secret)")
        lines.append(t)
        sc = st.seat_scores() if scores is None else scores
        lines.append("match score: " + ", ".join(f"seat {s} {x}" for s, x in enumerate(sc)))
        return lines

    def seat_words(self, st, obs: dict, seat: int, tricks_won: list[int]) -> str:
        """A seat's row's words: its number, dealer, to act, out, tricks and points."""
        tags = [f"seat {seat}"]
        if seat == st.dealer:
            tags.append("dealer")
        if seat == st.to_act:
            tags.append("to act")
        if st.out[seat]:
            tags.append("sitting out")
        tags.append(f"tricks {tricks_won[seat]}")
        if self.v.deck.total_points():
            tags.append(f"points {obs['points'][seat]}")
        return "  ".join(tags)

    # -- drawing -------------------------------------------------------------------------
    def card(self, d, x: int, y: int, text: str, lit: bool = False) -> None:
        """One card face up at (x, y): its rank and suit letter, red for hearts and
        diamonds; ``lit``: outlined in yellow (the winning card of the last trick)."""
        d.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), radius=4, fill=CARD,
                            outline=MARK if lit else EDGE, width=2 if lit else 1)
        rank, suit = text[:-1], text[-1]
        colour = RED if suit in RED_SUITS else BLACK
        d.text((x + 4, y + 4), "10" if rank == "T" else rank, font=self.card_font, fill=colour)
        d.text((x + 4, y + 22), suit, font=self.card_font, fill=colour)

    def draw(self, st, scores=None, match=None) -> np.ndarray:
        """The picture of deal ``st`` (an engine `State` of this variant) as an
        ``(height, width, 3)`` uint8 array (module docstring); ``match``, the deal's `Match`,
        to say when the match is over and who won."""
        v, text = self.v, self.v.deck.text
        img = Image.new("RGB", (self.width, self.height), FELT)
        d = ImageDraw.Draw(img)
        obs = st.observation(0)         # its public parts are the same for every seat
        for k, line in enumerate(self.words(st, obs, scores, match)):
            d.text((MARGIN, MARGIN + k * LINE), line, font=self.font, fill=INK)
        won = [0] * v.players
        for _, _, w in st.tricks:
            won[w] += 1
        room = self.trick_x - 3 * MARGIN - MARGIN
        for s in range(v.players):
            y = HEADER + s * ROW
            d.text((MARGIN, y), self.seat_words(st, obs, s, won), font=self.font,
                   fill=MARK if s == st.to_act else PALE)
            hand = st.hands[s]
            step = CARD_W + GAP if len(hand) <= self.slots else max(8, (room - CARD_W) // (len(hand) - 1))
            for k, c in enumerate(hand):
                self.card(d, MARGIN + k * step, y + LINE, text[c])
        x0 = self.trick_x
        if st.trick_seats:
            title, cards, winner = f"trick {len(st.tricks) + 1}", list(zip(st.trick_seats, st.trick_cards)), None
        elif st.tricks:
            leader, cs, winner = st.tricks[-1]
            seats = [leader]
            while len(seats) < len(cs):     # the order of play: the next seat that plays
                seats.append(st.next_active((seats[-1] + 1) % v.players))
            title, cards = f"trick {len(st.tricks)}, won by seat {winner}", list(zip(seats, cs))
        else:
            title, cards, winner = "no trick yet", [], None
        d.text((x0, HEADER), title, font=self.font, fill=INK)
        for k, (s, c) in enumerate(cards):
            x = x0 + k * (CARD_W + 3 * GAP)
            d.text((x, HEADER + LINE + 4), f"seat {s}", font=self.font, fill=PALE)
            self.card(d, x, HEADER + 2 * LINE + 6, text[c], lit=s == winner)
        return np.array(img, dtype=np.uint8)

