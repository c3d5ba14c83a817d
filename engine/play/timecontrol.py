"""Thinking-time budgets from GTP time settings.

Holds what `time_settings`, `kgs-time_settings`, `kata-time_settings` and `time_left`
said, and turns it into a number of seconds for the next move: main time is spread over the
moves the game still probably needs, judged from the empty points left (less of it on a
nearly empty board, more in the middle game), byo-yomi periods are spent evenly over their
stones, and a safety margin covers the GTP round trip and the controller's own clock.
Without time settings the engine thinks for a fixed number of playouts or seconds instead.
"""
from dataclasses import dataclass

SAFETY_SECONDS = 0.3   # network/GUI latency and our own overhead per move
SAFETY_FRACTION = 0.1  # of whatever remains
# On a nearly empty board the tree prior's opening knowledge decides and more search
# changes little (Pachi's fuseki_end spends less there for the same reason): the main
# time's share starts at OPENING_WEIGHT and rises linearly to the full share over the first
# OPENING_SHARE of the board's points in moves (18 on 19x19, 4 on 9x9).
OPENING_WEIGHT = 0.4
OPENING_SHARE = 0.05
# Moves a game still needs, from the empty points (Pachi's board_estimated_moves_left): games
# end, by resignation or after the dame, with about GAME_END_EMPTY of the board's points still
# empty, one move filling one point (fitted to 9x9, 13x13 and 19x19 match records: BENCHMARKS).
GAME_END_EMPTY = 0.25
# Never plan for fewer than MIN_MOVES_SHARE of the points plus MIN_MOVES moves (both
# players'): fights and captures prolong endgames, and a floor keeps the spending geometric.
MIN_MOVES_SHARE = 0.15
MIN_MOVES = 10
# The middle game, where reading decides most, gets MIDDLE_WEIGHT times the share: from
# MIDDLE_START to MIDDLE_END of the board's points filled.
MIDDLE_WEIGHT = 1.5
MIDDLE_START = 0.1
MIDDLE_END = 0.4


@dataclass
class Clock:
    main: float = 0.0        # seconds of main time left
    byo_time: float = 0.0    # seconds per byo-yomi period
    byo_stones: int = 0      # stones per period (Canadian); 1 with Japanese periods
    periods: int = 0         # Japanese periods left (0: Canadian or none)
    stones_left: int = 0     # stones left in the current Canadian period (0: in main time)
    increment: float = 0.0   # Fischer: seconds added after each move


class TimeControl:
    """Per-colour clocks, updated by the controller; None from `budget` means no time limit."""

    def __init__(self):
        self.limited = False
        self.settings = Clock()
        self.clocks = {}
        self.move_cap = None     # seconds a move may take at most, if the settings say so

    def set_canadian(self, main, byo_time, byo_stones):
        """GTP `time_settings` (byo_time > 0 with byo_stones == 0 means no limit)."""
        if main < 0 or byo_time < 0 or byo_stones < 0:
            raise ValueError("negative time")
        self._start(not (byo_time > 0 and byo_stones == 0),
                    Clock(float(main), float(byo_time), int(byo_stones), 0, 0))

    def set_japanese(self, main, period, periods):
        if main < 0 or period < 0 or periods < 0:
            raise ValueError("negative time")
        self._start(True, Clock(float(main), float(period), 1, int(periods), 0))

    def set_fischer(self, main, increment):
        """Fischer time (KataGo's `kata-time_settings fischer`): `increment` seconds are added
        to the clock after every move."""
        if main < 0 or increment < 0:
            raise ValueError("negative time")
        self._start(True, Clock(float(main), increment=float(increment)))

    def set_none(self):
        self._start(False, self.settings)

    def _start(self, limited, settings):
        """New settings: fresh clocks, and no per-move cap until one is set."""
        self.limited = limited
        self.settings = settings
        self.clocks = {}
        self.move_cap = None

    def time_left(self, colour, seconds, stones):
        """GTP `time_left`: `stones` > 0 means byo-yomi with that many stones to play."""
        s = self.settings
        clock = Clock(s.main, s.byo_time, s.byo_stones, s.periods, 0, s.increment)
        if s.increment > 0:
            clock.main = float(seconds)
        elif stones > 0 or (s.main == 0 and s.byo_time > 0):
            clock.main = 0.0
            if s.periods:            # Japanese: `stones` counts the periods left
                clock.periods = stones
                clock.byo_time = float(seconds) if seconds < s.byo_time else s.byo_time
            else:
                clock.stones_left = stones
                clock.byo_time = float(seconds)
        else:
            clock.main = float(seconds)
        self.clocks[colour] = clock

    def budget(self, colour, moves_played, board_points, empty_points=None):
        """Seconds to think for `colour`'s next move, or None when time is unlimited.
        `empty_points` defaults to the points no move has filled (no captures)."""
        if not self.limited:
            return None
        c = self.clocks.get(colour)
        if c is None:
            s = self.settings
            c = Clock(s.main, s.byo_time, s.byo_stones, s.periods, 0, s.increment)
        if empty_points is None:
            empty_points = max(board_points - moves_played, 0)
        # Moves this player still has to make.
        game_left = max(empty_points - GAME_END_EMPTY * board_points,
                        MIN_MOVES_SHARE * board_points + MIN_MOVES)
        left = game_left / 2
        filled = 1 - empty_points / board_points
        weight = MIDDLE_WEIGHT if MIDDLE_START <= filled <= MIDDLE_END else 1.0
        opening_moves = OPENING_SHARE * board_points
        if moves_played < opening_moves:
            weight *= OPENING_WEIGHT + (1 - OPENING_WEIGHT) * moves_played / opening_moves
        from_main = c.main * (1 - SAFETY_FRACTION) / left * weight if c.main > 0 else 0.0
        if c.increment > 0:
            # Fischer: each move may spend its increment on top of its share of the clock, but
            # never the clock itself: it must still hold the next moves' shares.
            wanted = from_main + c.increment * (1 - SAFETY_FRACTION) - SAFETY_SECONDS
            return max(min(wanted, c.main / 2 - SAFETY_SECONDS), min(0.05, c.main / 4))
        if c.byo_time > 0 and (c.main <= 0 or c.periods or c.stones_left):
            stones = c.stones_left or c.byo_stones or 1
            per_stone = c.byo_time * (1 - SAFETY_FRACTION) / stones - SAFETY_SECONDS
            return max(from_main + max(per_stone, 0.05), 0.05)
        if c.main > 0 and c.byo_time > 0:
            # Main time still running with byo-yomi behind it: byo-yomi is a floor.
            per_stone = c.byo_time * (1 - SAFETY_FRACTION) / max(c.byo_stones, 1) - SAFETY_SECONDS
            return max(from_main, per_stone, 0.05)
        # Never more than a quarter of what is left: the clock shrinks geometrically, never to 0.
        return max(min(from_main - SAFETY_SECONDS, c.main - 2 * SAFETY_SECONDS), min(0.05, c.main / 4))
