"""The search's named constants: `PARAMS` (name, default, meaning) and the record compiled
code reads them from.

`Params` is a namedtuple with one float field per entry of `PARAMS`, generated from it, so
that the compiled loop (mcts.py) reads `params.uct_c` and no index can drift from a name:
numba types a namedtuple of floats as a uniform tuple, reads a field as a constant offset and
caches functions over it.  A `Params` is immutable; `with_params` makes a changed copy and
refuses names `PARAMS` lacks (the command line's `--param`, GTP's `simbal-param`, the tuner
and the tests all set parameters by name through it).  The playouts' rules vector
(policies.kernel RULE_*) is derived from the named `playout_*` fields.
"""
from collections import namedtuple

from numba import njit

from policies.kernel import (NO_RULES, RULE_CAPTURE_NAKADE, RULE_CAPTURES, RULE_FIGHTS,
                            RULE_LADDERS, RULE_LOCAL, RULE_MERCY, RULE_NAKADE)

# name, default, meaning.  Why each default is what it is: BENCHMARKS.md, Strength.
PARAMS = (
    ("uct_c", 0.1, "UCT exploration constant C"),
    ("bias_weight", 0.0, "progressive bias weight W on H/(n+1)"),
    ("expand_visits", 2.0, "visits a leaf needs before its children are created"),
    ("prune_visits", 100.0, "T: visits from which a node selects by UCT over unpruned children"),
    ("unprune_k_init", 5.0, "k_init: children kept when unpruning starts (as many as a node "
                              "has children or more: no narrowing, every child eligible)"),
    ("unprune_a", 40.0, "A: one more child is unpruned when visits pass A*B^(k-k_init)"),
    ("unprune_b", 1.3, "B: growth factor of the unpruning schedule"),
    ("first_play", 10.0, "score of an unvisited child (above any visited child's, so they come first)"),
    ("rave", 1.0, "1 to blend all-moves-as-first (RAVE) values into selection"),
    ("rave_equiv", 2000.0, "RAVE equivalence: visits at which RAVE and UCT values weigh equally"),
    ("prior_visits", 50.0, "RAVE: virtual all-moves-as-first games a new child starts with"),
    ("prior_gain", 1.0, "RAVE: slope of a new child's virtual win rate in its normalised H"),
    ("lgr", 0.0, "1: playouts answer with last good replies (LGRF-1), 0: off"),
    ("ladder_escape", 3.0, "H lowered for a move leaving its chain caught in a ladder"),
    ("ladder_capture", 1.0, "H raised for an atari that captures by ladder"),
    ("ladder_depth", 0.0, "the tree reads ladders only when it expands a node fewer than this "
                          "many plies below the search's root (0: at every depth); a reused "
                          "subtree keeps its nodes' readings, so from 3 up the next move's "
                          "root, two plies down, has always been read"),
    ("rave_inherit", 0.0, "RAVE: a new node's children start with up to this many of their "
                          "grandparent's all-moves-as-first games for the same move (the same "
                          "colour to move two plies up), at its rate, beside the prior's virtual "
                          "games (MoGo's grandfather heuristic; 0: off)"),
    ("crit_weight", 0.0, "criticality (Coulom 2009): H raised by this times a point's "
                         "criticality at this move's root, the covariance of owning it with "
                         "winning, for nodes expanded once `crit_min` simulations have counted "
                         "it, and the root's children re-sorted then (0: off)"),
    ("crit_min", 500.0, "simulations of the move's search before criticality is used"),
    ("prior_center", -1.0, "RAVE priors: H at which a child's virtual win rate is 1/2 (<0: log mean exp H)"),
    ("score_weight", 0.0, "share of a simulation's result given by its score margin (0: win/loss only)"),
    ("score_scale", 20.0, "margin (points) at which the score share is full"),
    ("playout_ladders", 0.0, "1: playouts set aside escapes from atari into working ladders"),
    ("rave_decay", 0.0, "RAVE: an update weighs 1+d at the node's move, 1-d at the simulation's "
                        "end (0: all alike; Fuego 1.1 weighs 2 down to 1, 1.5 times d = 1/3)"),
    ("rave_skip", 0.0, "RAVE: share of selections that ignore it (and the prior's virtual games "
                       "it holds), taking the best mean or an unvisited child, so that a move "
                       "RAVE undervalues is still tried (Fuego's randomize_rave_frequency 20: "
                       "0.05; 0: never)"),
    ("playout_gain", 1.0, "playout softmax weights times this (inverse temperature: >1 colder, "
                          "favourite moves more often); applied when the engine loads the policy"),
    ("ladder_nets", 0.0, "net moves (geta) the tree's ladder reading may try in a line, "
                         "besides ataris (0: ladders only)"),
    ("playout_fights", 1.0, "probability that a playout move answers the last move's fight "
                            "(chains next to it in atari or with two liberties) before drawing"),
    ("playout_nakade", 1.0, "probability that a playout move takes the vital point of a small "
                            "space (nakade) the last move was played in, before drawing"),
    ("playout_local", 0.0, "pattern3x3 playouts: 0 keeps every point's softmax weight up to date; "
                           ">0 draws among the last move's neighbours against this weight per "
                           "far point, far moves filtered by weight (policies/local.py)"),
    ("playout_captures", 0.0, "local playouts: probability that a far move first captures a "
                              "chain in atari anywhere on the board (MoGo's and Fuego's capture "
                              "rule; 0: far moves are the filtered random draw alone)"),
    ("playout_capture_nakade", 0.0, "probability that a playout move, after the opponent's "
                                    "capture of 3 to 6 stones, takes the vital point of the "
                                    "space left (a nakade shape then makes one eye, not two)"),
    ("playout_mercy", 0.0, "rule-based playouts: end a playout, scored as it stands, once one "
                           "colour has captured this share of the board's points more than the "
                           "other (Fuego's mercy rule: 0.3; 0: off)"),
)

# The parameters that are switches (0 off, 1 on): GoGui's parameter dialog shows them as
# check boxes.
SWITCHES = frozenset({"rave", "lgr", "playout_ladders"})

Params = namedtuple("Params", [name for name, _, _ in PARAMS])


def default_params():
    return Params(*(float(default) for _, default, _ in PARAMS))


def with_params(params, /, **values):
    """`params` with the named fields set; KeyError naming the first name `PARAMS` lacks.
    Values become Python floats: every field of a `Params` is a float64 to numba, so that one
    compiled version serves all."""
    for name in values:
        if name not in Params._fields:
            raise KeyError(name)
    return params._replace(**{name: float(value) for name, value in values.items()})


def parse_setting(text):
    """`NAME=VALUE` (the command line's --param and tune's --opponent-param) to (name, float);
    ValueError naming the text when the form, the name or the number is wrong."""
    name, eq, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = None
    if not eq or number is None or name not in Params._fields:
        raise ValueError(f"{text!r}: expected NAME=VALUE with a known name (see `simbal params`)")
    return name, number


@njit(cache=True)
def playout_rules(params):
    """The playouts' rules (policies.kernel RULE_*) the parameters ask for."""
    rules = NO_RULES.copy()
    rules[RULE_LADDERS] = params.playout_ladders
    rules[RULE_FIGHTS] = params.playout_fights
    rules[RULE_NAKADE] = params.playout_nakade
    rules[RULE_LOCAL] = params.playout_local
    rules[RULE_CAPTURES] = params.playout_captures
    rules[RULE_CAPTURE_NAKADE] = params.playout_capture_nakade
    rules[RULE_MERCY] = params.playout_mercy
    return rules


def default_playout_rules():
    return playout_rules(default_params())


def size_playout_rules(size, **values):
    """The rules of the playouts the engine plays on an NxN board: the defaults with the
    size's parameters from weights/defaults.json (on 9x9, 13x13 and 19x19 local playouts);
    size None: the global defaults alone; `values` (parameter names) set over either."""
    from policies import default_search_params
    sized = default_search_params(size) if size is not None else {}
    return playout_rules(with_params(default_params(), **{**sized, **values}))
