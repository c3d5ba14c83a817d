"""The game record: a board plus everything the rules need beyond one position.

`Game` owns the current board, the positions seen (for positional superko),
the move list and the snapshots that make undo exact.  It knows the rules but
makes no decisions: engine/play/player.py chooses moves, engine/gtp/ speaks the
protocol.  Every move that reaches a `Game` is checked against the full rules,
superko included, so a bad GTP line can never corrupt it.
"""
from collections import Counter

import numpy as np

from engine.core.board import (BLACK, EMPTY, M_CAP, M_HASH, M_KO, M_KO_COLOR, M_LAST, M_LAST2,
                               M_MOVES, M_NEMPTY, M_SIZE, NO_MOVE, PASS, WHITE, area_owner,
                               copy_board, is_legal, new_board, play)
from engine.core.coords import row_col
from engine.core.moves import candidates


class IllegalMove(ValueError):
    """A move the rules forbid; the message says which rule."""


def opponent(colour):
    return BLACK + WHITE - colour


def setup_board(size, black=(), white=()):
    """A board with the given stones placed (no captures allowed: every chain needs a liberty)."""
    b = new_board(size)
    for colour, points in ((BLACK, black), (WHITE, white)):
        for p in points:
            if b.color[p] != EMPTY:
                raise ValueError(f"point {row_col(size, p)} given twice")
            if not is_legal(b, p, colour):
                raise ValueError(f"stone at {row_col(size, p)} would have no liberty")
            if play(b, p, colour):
                raise ValueError(f"stone at {row_col(size, p)} would capture")
    # Set-up stones are not moves: the position keeps its stones and hash, nothing else.
    b.meta[M_CAP:M_CAP + 2] = 0
    b.meta[M_LAST] = b.meta[M_LAST2] = NO_MOVE
    b.meta[M_MOVES] = 0
    return b


# The rule sets played (area scoring, suicide illegal, positional superko for the engine's own
# moves), by name: (White gets a point per handicap stone, the engine captures dead stones
# before passing because the board is scored as it stands, as on CGOS).
RULES = {"chinese": (True, False), "tromp-taylor": (False, True)}


class Game:
    """One game under area scoring, simple ko and positional superko."""

    def __init__(self, size=9, komi=7.5, rules="chinese"):
        self.komi = float(komi)
        self.rules = rules           # a key of RULES; kept across reset and loadsgf
        self.reset(size)

    def reset(self, size=None, board=None):
        """Start afresh on an empty board (or on `board`, a set-up position)."""
        if size is not None:
            self.size = size
        self.board = board if board is not None else new_board(self.size)
        self.size = int(self.board.meta[M_SIZE])
        self.moves = []          # [(colour, point)] in order
        self._undo = []          # (board snapshot, side to move) before each move
        self.handicap = []
        self.to_play = BLACK
        self._seen = Counter([self.hash])

    @property
    def initial_board(self):
        """The position the move list starts from (empty, handicap or SGF setup)."""
        return self._undo[0][0] if self._undo else self.board

    @property
    def hash(self):
        return int(self.board.meta[M_HASH])

    def captures(self, colour):
        """Stones captured by `colour` so far."""
        return int(self.board.meta[M_CAP + colour - 1])

    def illegal_reason(self, colour, p):
        """None if `colour` may play `p` now, else why not."""
        if p == PASS:
            return None
        b = self.board
        if b.color[p] != EMPTY:
            return "occupied"
        if not is_legal(b, p, colour):
            return "ko" if p == b.meta[M_KO] and colour == b.meta[M_KO_COLOR] else "suicide"
        after = copy_board(b)
        play(after, p, colour)
        if self._seen[int(after.meta[M_HASH])]:
            return "superko"
        return None

    def is_legal(self, colour, p):
        return self.illegal_reason(colour, p) is None

    def play(self, colour, p, allow_superko=False):
        """Play a move for `colour` (either colour may move, as GTP allows); IllegalMove if not
        legal.  With `allow_superko` a move only positional superko forbids is played: a
        controller or server whose rules differ (situational superko, no superko) is the
        referee of the moves it sends."""
        reason = self.illegal_reason(colour, p)
        if reason and not (allow_superko and reason == "superko"):
            raise IllegalMove(reason)
        self._undo.append((copy_board(self.board), self.to_play))
        play(self.board, p, colour)
        self.moves.append((colour, p))
        self._seen[self.hash] += 1
        self.to_play = opponent(colour)

    def undo(self):
        """Take back the last move; IndexError if there is none."""
        if not self.moves:
            raise IndexError("no move to undo")
        self._seen[self.hash] -= 1
        self.board, self.to_play = self._undo.pop()
        self.moves.pop()

    def place_handicap(self, points):
        """Put black handicap stones on an empty board; White moves next."""
        if self.moves or self.handicap or np.any((self.board.color == BLACK) | (self.board.color == WHITE)):
            raise IllegalMove("board not empty")
        if len(set(points)) != len(points) or len(points) < 2:
            raise IllegalMove("bad handicap")
        self.reset(board=setup_board(self.size, black=points))
        self.handicap = list(points)
        self.to_play = WHITE

    def legal_moves(self, colour):
        """Every legal point for `colour` (not PASS), superko included."""
        b = self.board
        n = int(b.meta[M_NEMPTY])
        return sorted(int(p) for p in b.empties[:n] if self.is_legal(colour, int(p)))

    def candidates(self, colour):
        """The policies' candidate moves (engine.core.moves) that superko also allows: what
        the engine and the policy players choose among, passing when it is empty."""
        return [p for p in candidates(self.board, colour) if self.is_legal(colour, p)]

    def last_two_passed(self):
        return len(self.moves) >= 2 and self.moves[-1][1] == PASS and self.moves[-2][1] == PASS

    def owners(self, dead=()):
        """Tromp-Taylor owner of every point after removing the `dead` stones."""
        b = self.board
        if dead:
            black = [p for p in self.stones(BLACK) if p not in dead]
            white = [p for p in self.stones(WHITE) if p not in dead]
            b = setup_board(self.size, black, white)
        owner = np.zeros(b.color.shape[0], dtype=np.int8)
        area_owner(b, owner)
        return owner

    @property
    def scoring_komi(self):
        """What Black's area must beat: komi plus, under Chinese rules, one point for White per
        handicap stone, as area scoring counts a handicap game (GnuGo, Leela Zero and KataGo
        do the same; Tromp-Taylor gives none)."""
        return self.komi + (len(self.handicap) if RULES[self.rules][0] else 0)

    @property
    def cleanup_before_passing(self):
        """Must the engine capture dead stones before it passes (Tromp-Taylor)?"""
        return RULES[self.rules][1]

    def score(self, dead=()):
        """Black's area minus White's minus komi and the handicap compensation (positive:
        Black wins)."""
        owner = self.owners(set(dead))
        return int(np.sum(owner == BLACK)) - int(np.sum(owner == WHITE)) - self.scoring_komi

    def stones(self, colour):
        return [int(p) for p in np.flatnonzero(self.board.color == colour)]
