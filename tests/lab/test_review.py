"""`simbal review`: escapes into two liberties captured soon after are found in match records,
attributed to the right player, and bad folders are reported, not raised as tracebacks."""
import json

from click.testing import CliRunner
from sgfmill import sgf

from engine.lab.cli import main
from engine.lab.review import collapses, read_as_caught, review

# Black C3 is put in atari and runs out to two liberties at D3 (move 8); White ataris again
# and takes both stones on the third move after the escape.  Black's stones on the J line
# break the ladder, so the escape was sound and Black lost the stones by playing elsewhere;
# on the A line they do not, and the escape ran into a working ladder.
MOVES = ["B C3", "W B3", "B J9", "W C2", "B J8", "W D2", "B J7", "W C4", "B D3", "W E3",
         "B J6", "W D4", "B J5"]
LADDER = [m.replace("B J", "B A") for m in MOVES]


def make_game(black="b", white="w", moves=MOVES):
    game = sgf.Sgf_game(size=9)
    game.root.set("PB", black)
    game.root.set("PW", white)
    for move in moves:
        colour, vertex = move.lower().split()
        col = "abcdefghj".index(vertex[0])
        node = game.extend_main_sequence()
        node.set_move(colour, (int(vertex[1:]) - 1, col))
    return game


def write_game(path, black, white, moves=MOVES):
    path.write_bytes(make_game(black, white, moves).serialise())


def test_an_escape_captured_two_moves_later_is_found():
    path_game = make_game()
    assert collapses(path_game) == [(8, "b", 2)]
    assert collapses(path_game, horizon=3) == [(8, "b", 2)]
    assert collapses(path_game, horizon=2) == []   # the capture is the third move after


def test_the_tree_ladder_reader_tells_a_broken_ladder_from_a_working_one():
    sound, doomed = make_game(), make_game(moves=LADDER)
    assert collapses(doomed) == collapses(sound) == [(8, "b", 2)]
    assert read_as_caught(sound, collapses(sound)) == [False]
    assert read_as_caught(doomed, collapses(doomed)) == [True]
    assert read_as_caught(sound, []) == []


def test_review_counts_per_player_across_colours(tmp_path):
    (tmp_path / "games").mkdir()
    write_game(tmp_path / "games" / "game-0000.sgf", "simbal", "gnugo")
    write_game(tmp_path / "games" / "game-0001.sgf", "gnugo", "simbal", LADDER)
    results = [{"black": "simbal", "white": "gnugo", "game": 0, "a_colour": "B", "a_wins": 0.0},
               {"black": "gnugo", "white": "simbal", "game": 1, "a_colour": "W", "a_wins": 1.0}]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    report = review(tmp_path, "simbal")
    assert report["games"] == 2 and report["losses"] == 1
    assert report["games_with_collapse"] == 1 and report["losses_with_collapse"] == 1
    assert report["opponent_games_with_collapse"] == 1
    assert report["per_game"][0]["own"] == [[8, 2, False]]
    assert report["per_game"][1]["opponent"] == [[8, 2, True]]
    assert report["own_escapes"] == 1 and report["own_escapes_read_caught"] == 0
    other = review(tmp_path, "gnugo")   # Black in game 1, which it lost
    assert [g["score"] for g in other["per_game"]] == [1.0, 0.0]
    assert other["per_game"][1]["own"] == [[8, 2, True]] and other["losses_with_collapse"] == 1
    assert other["own_escapes_read_caught"] == 1
    out = CliRunner().invoke(main, ["review", str(tmp_path), "--player", "simbal"])
    assert out.exit_code == 0
    assert "1 of 2 games" in out.output and "(1 of its 1 losses)" in out.output
    assert "0 of its 1 such escapes were read as caught" in out.output


def test_unreadable_games_and_unknown_players_are_reported(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "game-0000.sgf").write_text("(;GM[1]SZ[9];B[zz")
    (tmp_path / "results.jsonl").write_text(json.dumps(
        {"black": "a", "white": "b", "game": 0, "a_colour": "B", "a_wins": 1.0}) + "\n")
    report = review(tmp_path, "a")
    assert report["games"] == 0 and "game-0000.sgf" in report["unreadable"][0]
    write_game(tmp_path / "games" / "game-0000.sgf", "a", "b")
    out = CliRunner().invoke(main, ["review", str(tmp_path), "--player", "nobody"])
    assert out.exit_code == 1 and "did not play game 0" in out.output


def write_labels(path, game_name, moves, value_black):
    """A labelled position file for one game: the position before move k valued
    `value_black(k)` (ids as `simbal data sgf` writes them)."""
    lines = []
    for k in range(len(moves) + 1):
        played = [m.split() for m in moves[:k]]
        to_play = "B" if k % 2 == 0 else "W"
        lines.append(json.dumps({"id": f"{game_name}:{k + 1}", "size": 9, "komi": 7.5,
                                 "moves": played, "to_play": to_play,
                                 "value_black": value_black(k)}))
    path.write_text("\n".join(lines) + "\n")


def test_labels_find_the_move_that_gave_the_game_away(tmp_path):
    (tmp_path / "games").mkdir()
    write_game(tmp_path / "games" / "game-0000.sgf", "simbal", "gnugo")
    write_game(tmp_path / "games" / "game-0001.sgf", "gnugo", "simbal")
    results = [{"black": "simbal", "white": "gnugo", "game": 0, "a_colour": "B", "a_wins": 0.0},
               {"black": "gnugo", "white": "simbal", "game": 1, "a_colour": "W", "a_wins": 1.0}]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    labels = tmp_path / "labels.jsonl"
    # Game 0: Black's fifth move (J8) gives away 0.3; White's moves change nothing.  Game 1 is
    # not labelled.
    write_labels(labels, "game-0000", MOVES, lambda k: 0.5 if k <= 4 else 0.2)
    sw = review(tmp_path, "simbal", labels=labels)["swings"]
    assert sw["games"] == 1 and sw["losses"] == 1 and sw["unlabelled_games"] == ["game-0001"]
    (game,) = sw["per_game"]
    assert game["decisive"] == [5, 0.3]
    assert game["own_blunders"] == [[5, 0.3]] and game["opponent_blunders"] == []
    assert game["value_at"] == {10: 0.2}
    assert sw["losses_decided_in"]["moves 1-20"] == 1
    assert sw["own_blunders"] == {"losses": 1, "wins": 0}
    # By colour: as Black, Black's seven labelled moves gave away 0.3 in all; White's six none.
    black = sw["by_colour"]["b"]
    assert black["games"] == 1 and black["score"] == 0
    assert black["mean_given_away"]["own"]["moves 1-20"] == round(0.3 / 7, 4)
    assert black["mean_given_away"]["opponent"]["moves 1-20"] == 0
    assert black["mean_given_away"]["own"]["moves 21-40"] is None
    assert sw["by_colour"]["w"]["games"] == 0
    # From White's side the same values are White's gain: no blunder of its own, Black's one.
    sw = review(tmp_path, "gnugo", labels=labels)["swings"]
    assert sw["wins"] == 1 and sw["per_game"][0]["own_blunders"] == []
    assert sw["opponent_blunders"] == {"losses": 0, "wins": 1}
    assert sw["mean_value_in_wins"][10] == 0.8
    assert review(tmp_path, "simbal", labels=labels, blunder=0.31)["swings"]["own_blunders"] == \
        {"losses": 0, "wins": 0}
    out = CliRunner().invoke(main, ["review", str(tmp_path), "--player", "simbal",
                                    "--labels", str(labels)])
    assert out.exit_code == 0, out.output
    assert "1 labelled losses, by the phase of the move that gave most away: moves 1-20 1" \
        in out.output
    assert "simbal 1 in its losses" in out.output
    assert "simbal as Black: 0/1; mean value a move gave away, simbal / opponent: moves 1-20 " \
        "+0.0429 / +0.0000, moves 21-40 - / -" in out.output
    assert "simbal as White" not in out.output


def test_labels_with_ids_that_name_no_move_are_refused(tmp_path):
    (tmp_path / "games").mkdir()
    write_game(tmp_path / "games" / "game-0000.sgf", "a", "b")
    (tmp_path / "results.jsonl").write_text(json.dumps(
        {"black": "a", "white": "b", "game": 0, "a_colour": "B", "a_wins": 1.0}) + "\n")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": "p1", "size": 9, "komi": 7.5, "moves": [],
                                  "to_play": "B", "value_black": 0.5}) + "\n")
    out = CliRunner().invoke(main, ["review", str(tmp_path), "--player", "a",
                                    "--labels", str(labels)])
    assert out.exit_code == 1 and "'p1' is not <game>:<move number>" in out.output
