"""`simbal analysis`: a subset of KataGo's JSON analysis protocol, for batch reviewers and
scripts that want the engine's view of many positions without speaking GTP.

One JSON query per input line, answered by one JSON line per analysed turn:

    {"id": "q1", "boardXSize": 9, "boardYSize": 9, "komi": 7.5, "rules": "chinese",
     "initialStones": [["B", "E5"]], "moves": [["W", "C3"], ["B", "G7"]],
     "analyzeTurns": [0, 2], "maxVisits": 500, "includeOwnership": true}

    {"id": "q1", "turnNumber": 2, "isDuringSearch": false,
     "rootInfo": {"winrate": ..., "scoreLead": ..., "visits": ..., "currentPlayer": "W"},
     "moveInfos": [{"move": "E3", "visits": ..., "winrate": ..., "scoreMean": ...,
                    "scoreLead": ..., "scoreStdev": ..., "prior": ..., "lcb": ...,
                    "order": 0, "pv": ["E3", ...]}, ...],
     "ownership": [...]}

As KataGo's analysis engine reports by default, win rates, scores and ownership are from
Black's point of view; ownership is row by row from the top left.  Square boards only
(boardXSize == boardYSize); rules `chinese` or `tromp-taylor`; `analyzeTurns` defaults to the
last turn; `initialPlayer` (B or W) is who moves first when `moves` is empty; `allowMoves` and
`avoidMoves` ([{"player": "W", "moves": ["C3"], "untilDepth": 2}]) restrict the search as
KataGo's do.  A bad query is answered `{"id": ..., "error": "..."}` and the next is read.
"""
import json
import math

from engine.core.board import BLACK, PASS, WHITE
from engine.core.coords import format_vertex, parse_vertex, point
from engine.play.game import RULES, IllegalMove, setup_board
from engine.play.restrictions import Restriction, search_limits

COLOURS = {"B": BLACK, "W": WHITE}


class QueryError(ValueError):
    """A query the engine cannot answer; its text goes back as the response's error."""


def _require(query, key, kind):
    value = query.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise QueryError(f"field {key!r} is missing or not a {kind.__name__}")
    return value


def _moves(items, size, what):
    """[(colour, point)] of a list of [colour, vertex] pairs."""
    if not isinstance(items, list):
        raise QueryError(f"field {what!r} must be a list of [colour, vertex] pairs")
    out = []
    for item in items:
        if (not isinstance(item, list) or len(item) != 2 or str(item[0]).upper() not in COLOURS
                or not isinstance(item[1], str)):
            raise QueryError(f"bad entry {item!r} in {what!r}")
        try:
            out.append((COLOURS[str(item[0]).upper()], parse_vertex(item[1], size)))
        except ValueError:
            raise QueryError(f"bad vertex {item[1]!r} in {what!r}") from None
    return out


def _restrictions(items, size, what, allow):
    """Restrictions of KataGo's `allowMoves` / `avoidMoves`: a list of
    {"player": "B"|"W", "moves": [vertices], "untilDepth": N}."""
    if not isinstance(items, list):
        raise QueryError(f"field {what!r} must be a list")
    out = []
    for item in items:
        if not isinstance(item, dict) or str(item.get("player", "")).upper() not in COLOURS:
            raise QueryError(f"bad entry {item!r} in {what!r}: needs a player B or W")
        until = item.get("untilDepth")
        if not isinstance(until, int) or isinstance(until, bool) or until < 1:
            raise QueryError(f"bad entry {item!r} in {what!r}: needs untilDepth >= 1")
        vertices = item.get("moves")
        if not isinstance(vertices, list) or not all(isinstance(v, str) for v in vertices):
            raise QueryError(f"bad entry {item!r} in {what!r}: needs a list of moves")
        try:
            points = frozenset(parse_vertex(v, size) for v in vertices)
        except ValueError:
            raise QueryError(f"bad vertex in {what!r}: {vertices!r}") from None
        out.append(Restriction(allow, COLOURS[item["player"].upper()], points, until))
    return out


class AnalysisEngine:
    """Answers queries with one `Engine` (engine/play/player.py), reset for each position."""

    def __init__(self, engine):
        self.engine = engine

    def answer(self, line):
        """The response lines (JSON strings) for one query line."""
        try:
            query = json.loads(line)
        except json.JSONDecodeError as e:
            return [json.dumps({"error": f"not JSON: {e}"})]
        if not isinstance(query, dict):
            return [json.dumps({"error": "a query is a JSON object"})]
        qid = query.get("id")
        try:
            return [json.dumps(r) for r in self._analyse(query)]
        except QueryError as e:
            return [json.dumps({"id": qid, "error": str(e)})]

    def _analyse(self, query):
        qid = _require(query, "id", str)
        size = _require(query, "boardXSize", int)
        if query.get("boardYSize", size) != size:
            raise QueryError("only square boards (boardXSize == boardYSize)")
        if not 2 <= size <= 25:
            raise QueryError(f"board size {size} is not supported (2-25)")
        komi = query.get("komi", 7.5)
        if not isinstance(komi, (int, float)) or isinstance(komi, bool) or not math.isfinite(komi):
            raise QueryError("field 'komi' must be a number")
        rules = str(query.get("rules", "chinese")).lower()
        if rules not in RULES:
            raise QueryError(f"unsupported rules {rules!r} (chinese or tromp-taylor)")
        stones = _moves(query.get("initialStones", []), size, "initialStones")
        moves = _moves(query.get("moves", []), size, "moves")
        turns = query.get("analyzeTurns", [len(moves)])
        if (not isinstance(turns, list) or not turns or
                any(not isinstance(t, int) or not 0 <= t <= len(moves) for t in turns)):
            raise QueryError(f"'analyzeTurns' must list turns from 0 to {len(moves)}")
        visits = query.get("maxVisits", self.engine.settings.playouts)
        if not isinstance(visits, int) or visits < 1:
            raise QueryError("field 'maxVisits' must be a positive integer")
        ownership = bool(query.get("includeOwnership", False))
        first = str(query.get("initialPlayer", "W" if moves and moves[0][0] == WHITE else "B"))
        if first.upper() not in COLOURS:
            raise QueryError("field 'initialPlayer' must be B or W")
        first = COLOURS[first.upper()]
        limits = (_restrictions(query.get("allowMoves", []), size, "allowMoves", True)
                  + _restrictions(query.get("avoidMoves", []), size, "avoidMoves", False))
        return [self._turn(qid, size, float(komi), rules, stones, moves, t, visits, ownership,
                           first, limits) for t in turns]

    def _turn(self, qid, size, komi, rules, stones, moves, turn, visits, ownership, first,
              limits=()):
        e = self.engine
        if e.game.size != size:
            e.game.reset(size)
        g = e.game
        g.komi = komi
        g.rules = rules
        g.reset()
        if stones:
            try:
                g.reset(board=setup_board(size, [p for c, p in stones if c == BLACK],
                                          [p for c, p in stones if c == WHITE]))
            except ValueError as err:
                raise QueryError(f"initialStones: {err}") from None
        for i, (colour, p) in enumerate(moves[:turn]):
            try:
                g.play(colour, p, allow_superko=True)
            except IllegalMove as err:
                raise QueryError(f"move {i + 1} ({format_vertex(p, size)}) is illegal: {err}") \
                    from None
        to_play = moves[turn][0] if turn < len(moves) else (
            3 - moves[turn - 1][0] if turn > 0 else first)
        allowed, deeper = None, []
        if limits:
            try:
                allowed, deeper = search_limits(limits, to_play, size,
                                                set(g.legal_moves(to_play)) | {PASS})
            except ValueError as err:
                raise QueryError(f"turn {turn}: {err}") from None
        e.stop.clear()
        e.search(to_play, total=visits, allowed=allowed, deeper=deeper)
        return self._response(qid, turn, to_play, ownership, allowed)

    def _response(self, qid, turn, to_play, ownership, allowed=None):
        e = self.engine
        size = e.game.size
        black = to_play == BLACK
        infos = []
        stats = [s for s in e.root_stats() if allowed is None or s.move in allowed]
        for order, s in enumerate(stats):
            wr = s.winrate if black else 1.0 - s.winrate
            score = s.score_mean if black else -s.score_mean
            n = max(s.visits, 1)
            lcb = wr - 1.96 * math.sqrt(max(wr * (1 - wr), 0.01) / n)
            infos.append({"move": format_vertex(s.move, size), "visits": s.visits,
                          "winrate": round(wr, 5), "scoreMean": round(score, 3),
                          "scoreLead": round(score, 3), "scoreStdev": round(s.score_stdev, 3),
                          "prior": round(s.prior, 5), "lcb": round(lcb, 5), "order": order,
                          "pv": [format_vertex(m, size) for m in s.pv]})
        visits = sum(i["visits"] for i in infos)
        root = {"visits": visits, "currentPlayer": "B" if black else "W"}
        if infos:
            root["winrate"] = round(sum(i["winrate"] * i["visits"] for i in infos) / visits, 5)
        score = e.root_score()
        if score is not None:
            lead = score[0] if black else -score[0]
            root["scoreLead"] = root["scoreMean"] = round(lead, 3)
        out = {"id": qid, "turnNumber": turn, "isDuringSearch": False, "rootInfo": root,
               "moveInfos": infos}
        if ownership:
            owned = e.search_ownership()
            out["ownership"] = [0.0 if owned is None else round(float(owned[point(size, r, c)]), 4)
                                for r in range(size - 1, -1, -1) for c in range(size)]
        return out

    def serve(self, instream, outstream):
        """Answer every query line of `instream` until its end."""
        for line in instream:
            if not line.strip():
                continue
            for response in self.answer(line):
                outstream.write(response + "\n")
                outstream.flush()

