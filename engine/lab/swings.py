"""Where a match's games were won and lost, by an oracle's values of their positions.

`simbal review FOLDER --labels FILE` reads a match folder (engine/lab/match.py) and a position
file labelled by a deep search (policies/data: `simbal data sgf FOLDER/games` then `simbal
data label --oracle fuego`), whose ids are `game-NNNN:k`, the position before the game's k-th
move.  For one named player it follows each game's value from that player's side and charges
every move with the value it gave away: the value before the move (the mover to play) minus
the value after it.  A game's *decisive move* is the player's move that gave away most; a
*blunder* is a move that gave away at least `blunder` (the labels are noisy searches: a few
hundredths is noise).  The summary says in which phase the losses were decided and how the
two sides' blunders compare, so that "what loses the games" is counted, not guessed.  Split by
the player's colour, it gives the mean value each side's moves gave away, phase by phase: a
deep search's labels favour the side that just moved (the mover chose the move they rate), so
the two sides' means are compared with each other, not with zero.
"""
from collections import defaultdict

from policies.data.files import read_positions

PHASES = ((0, 20, "moves 1-20"), (20, 40, "moves 21-40"), (40, 10 ** 9, "moves 41-"))
CHECKPOINTS = (10, 20, 30, 40)   # moves after which the player's mean value is reported


def game_values(labels_path):
    """{game name: {move index k: P(Black wins) before move k}} from a labelled position
    file whose ids are `<game>:<k+1>` (as `simbal data sgf` writes them)."""
    values = defaultdict(dict)
    for pos in read_positions(labels_path):
        if pos.value_black is None:
            continue
        game, _, number = pos.id.rpartition(":")
        if not game or not number.isdigit():
            raise ValueError(f"{labels_path}: id {pos.id!r} is not <game>:<move number>")
        values[game][int(number) - 1] = pos.value_black
    return values


def move_losses(values, colours):
    """[(move index, colour, value given away)] for every move k whose position before and
    after are both labelled; `colours[k]` is 'b' or 'w' (None for a pass's colour unknown)."""
    out = []
    for k, colour in enumerate(colours):
        if colour is None or k not in values or k + 1 not in values:
            continue
        before, after = values[k], values[k + 1]
        if colour == "w":
            before, after = 1 - before, 1 - after
        out.append((k, colour, before - after))
    return out


def _phase(k):
    return next(name for lo, hi, name in PHASES if lo <= k < hi)


def swings(games, values, blunder=0.2):
    """The report for `games`: [(game name, the player's colour 'b'/'w', the player's score,
    the move colours)], with `values` as `game_values` returns them."""
    per_game, missing = [], []
    by_colour = {c: {"games": 0, "score": 0.0,
                     "own": {name: [] for _, _, name in PHASES},
                     "opponent": {name: [] for _, _, name in PHASES}} for c in "bw"}
    for name, mine, score, colours in games:
        vals = values.get(name)
        if not vals:
            missing.append(name)
            continue
        losses = move_losses(vals, colours)
        own = [(k, lost) for k, c, lost in losses if c == mine]
        theirs = [(k, lost) for k, c, lost in losses if c != mine]
        worst = max(own, key=lambda x: x[1], default=None)
        view = {k: (v if mine == "b" else 1 - v) for k, v in vals.items()}
        per_game.append({
            "game": name, "score": score,
            "decisive": None if worst is None else [worst[0] + 1, round(worst[1], 4)],
            "decided_in": None if worst is None else _phase(worst[0]),
            "own_blunders": [[k + 1, round(x, 4)] for k, x in own if x >= blunder],
            "opponent_blunders": [[k + 1, round(x, 4)] for k, x in theirs if x >= blunder],
            "value_at": {m: round(view[m], 4) for m in CHECKPOINTS if m in view},
        })
        by_colour[mine]["games"] += 1
        by_colour[mine]["score"] += score
        for k, lost in own:
            by_colour[mine]["own"][_phase(k)].append(lost)
        for k, lost in theirs:
            by_colour[mine]["opponent"][_phase(k)].append(lost)
    lost = [g for g in per_game if g["score"] == 0]
    won = [g for g in per_game if g["score"] == 1]

    def mean_at(group, m):
        return _mean([g["value_at"][m] for g in group if m in g["value_at"]])

    def blunders(group, key):
        return sum(len(g[key]) for g in group)

    return {
        "games": len(per_game), "losses": len(lost), "wins": len(won), "blunder": blunder,
        "losses_decided_in": {name: sum(g["decided_in"] == name for g in lost)
                              for _, _, name in PHASES},
        "mean_value_in_losses": {m: mean_at(lost, m) for m in CHECKPOINTS},
        "mean_value_in_wins": {m: mean_at(won, m) for m in CHECKPOINTS},
        "own_blunders": {"losses": blunders(lost, "own_blunders"),
                         "wins": blunders(won, "own_blunders")},
        "opponent_blunders": {"losses": blunders(lost, "opponent_blunders"),
                              "wins": blunders(won, "opponent_blunders")},
        "by_colour": {c: _colour_summary(d) for c, d in by_colour.items()},
        "per_game": per_game, "unlabelled_games": missing,
    }


def _colour_summary(d):
    """The player's games and score in one colour, and the mean value a move of each side
    gave away in each phase (None where no move was labelled)."""
    given = {side: {name: _mean(xs) for name, xs in d[side].items()}
             for side in ("own", "opponent")}
    return {"games": d["games"], "score": d["score"], "mean_given_away": given}


def _mean(xs):
    return None if not xs else round(sum(xs) / len(xs), 4)
