"""Fuego 1.1 as an opponent and as a label oracle: finding the program, and the GTP settings
that make it the player or the labeller the experiments need.

Fuego is not a dependency of Simbal; the matches and the labels that use it find it on PATH
(or at $SIMBAL_FUEGO) and say how to get it when it is missing.  Its settings go in a
`--config` file of GTP commands, written once per distinct content into a temporary folder,
so that a command line names a whole configured Fuego: the match loop, twogtp and the
cluster workers start it like any other engine.

- `player_command(games=..., seconds=...)`: one thread, a fixed number of games (playouts)
  a move or a fixed time a move, its opening book on as users run it, positional superko as
  the match referee plays it.
- `oracle_command(games)`: one full search per `genmove` whose `uct_value` is a clean
  P(win) for the side that searched (the settings Silver & Tesauro's labels need and the
  shared Fuego-labelled sets were made with: see ORACLE_SETTINGS); with `tree=False` the mean
  of `games` of Fuego's playouts from the position alone (its Monte-Carlo accuracy).

Fuego 1.1 resets its `uct_param_search` parameters to the defaults of the new size whenever
the board size changes (`boardsize` to a size other than the current one; it starts at 19),
so a settings file run at start-up loses them at a match's or a label file's first
`boardsize`: `search_settings` are the lines to send again after it.
"""
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from engine.gtp.client import EngineFailure

PROGRAM = "fuego"
MISSING = ("fuego: not found on PATH; install Fuego 1.1 (in the Simbal workspace: "
           "bash ../shared/tools/fuego/install.sh) or set SIMBAL_FUEGO to its path")

# One thread: Fuego uses every core by default, which makes no match or label comparable.
ONE_THREAD = ("uct_param_search number_threads 1",)

# The match referee (engine/play/game.py) forbids any repeat of a whole-board position
# (positional superko); Fuego 1.1's default `superko` is situational, under which it played a
# move the referee refuses in 36 of 600 self-play games (BENCHMARKS.md, session 19), a forfeit.
POSITIONAL_SUPERKO = ("go_param_rules ko_rule pos_superko",)

# Why each line (Fuego 1.1's defaults would change the value `uct_value` reads):
ORACLE_SETTINGS = (
    "go_param_rules ko_rule simple",              # the random games were played with simple ko
    "go_param_rules capture_dead 0",
    *ONE_THREAD,
    "uct_param_search move_select value",         # count stops early at a time-dependent point
    "uct_param_player ignore_clock 1",
    "uct_param_player reuse_subtree 0",           # each position one fresh search
    "uct_param_player ponder 0",
    "uct_param_player early_pass 0",              # else a second search after a pass is read
    "uct_param_player forced_opening_moves 0",
    "uct_param_player resign_min_games 1000000000",   # no resigning, no abort when winning
    "uct_param_globalsearch score_modification 0",    # the root mean a pure win fraction
    "uct_param_globalsearch length_modification 0",
    "uct_param_globalsearch mercy_rule 0",        # it scores captures ignoring komi
)

# No node below the root is ever expanded, so the root mean is that of plain playouts of
# Fuego's playout policy: its Monte-Carlo evaluation, set beside our playouts' (BENCHMARKS.md).
PLAYOUTS_ONLY = ("uct_param_search expand_threshold 1000000000",)


def find_program():
    """Fuego's path ($SIMBAL_FUEGO, else `fuego` on PATH); EngineFailure saying how to get it."""
    path = shutil.which(os.environ.get("SIMBAL_FUEGO", PROGRAM))
    if path is None:
        raise EngineFailure(MISSING)
    return path


def available():
    try:
        find_program()
    except EngineFailure:
        return False
    return True


def player_settings(games=None, seconds=None):
    """The GTP lines of a one-thread Fuego that searches `games` playouts a move, or
    `seconds` a move (it still stops early when its choice cannot change, as it does), or
    with neither its own time management under the game's clock."""
    if games is not None and seconds is not None:
        raise ValueError("Fuego player: give games or seconds, not both")
    player = (*ONE_THREAD, *POSITIONAL_SUPERKO)
    if games is not None:
        return (*player, "uct_param_player ignore_clock 1",
                f"uct_param_player max_games {int(games)}")
    if seconds is not None:
        # Fuego 1.1 has no max_time: `timelimit` is its time a move when the game has no
        # clock (with ignore_clock 1 it would search without any limit).
        return (*player, f"go_param timelimit {seconds:g}")
    return player


def oracle_settings(games, tree=True):
    """The label oracle's lines: one full search of `games` games, or with `tree=False` the
    mean of `games` playouts from the position."""
    return (*ORACLE_SETTINGS, *(() if tree else PLAYOUTS_ONLY),
            f"uct_param_player max_games {int(games)}")


def search_settings(lines):
    """The lines of `lines` that a change of board size resets (see the module's docstring)."""
    return tuple(line for line in lines if line.startswith("uct_param_search "))


def config_file(lines):
    """A file holding `lines` (one GTP command each), named by its content, so every process
    that asks for the same settings shares one file and a command line stays the same."""
    text = "".join(line + "\n" for line in lines)
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / "simbal-fuego"
    folder.mkdir(exist_ok=True)
    path = folder / f"{digest}.cfg"
    if not path.exists() or path.read_text() != text:
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_text(text)
        part.replace(path)
    return path


def book_file(program):
    """Fuego's opening book where `make install` puts it (PREFIX/share/fuego/book.dat beside
    PREFIX/bin/fuego), or None.  Fuego takes one --config file, and installs that load the
    book through it (as ../shared/tools/fuego's does) leave none for our settings: so the
    book is loaded by a line of our own file, with --nobook."""
    book = Path(program).resolve().parent.parent / "share" / "fuego" / "book.dat"
    return book if book.exists() else None


def command(lines, book=True):
    """Fuego's command line with `lines` run at start-up, its opening book loaded when `book`
    and found (`--quiet`: no debug output)."""
    program = find_program()
    found = book_file(program) if book else None
    lines = (*lines, f"book_load {found}") if found else tuple(lines)
    return f"{program} --quiet --nobook --config {config_file(lines)}"


def player_command(games=None, seconds=None, book=True):
    return command(player_settings(games, seconds), book)


def oracle_command(games, tree=True):
    """A Fuego whose `genmove` then `uct_value` is one full `games`-game search (no book), or
    with `tree=False` the mean of `games` playouts.  Send `search_settings` again after any
    `boardsize`."""
    return command(oracle_settings(games, tree), book=False)
