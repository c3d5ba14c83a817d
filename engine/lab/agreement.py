"""Move agreement: how often engines choose the same move on a set of positions.  The measure
behind `simbal agreement`, a lab tool (layer engine.lab) over the GTP client (engine.gtp) and
the position files (policies.data).

Every engine (a GTP command line) is asked for its move in every position of a position file
(opening positions: fewer than `max_moves` moves played), without playing it: `reg_genmove`,
or `genmove` then `undo` for an engine that lacks it.  The report gives, each with a Wilson 95%
interval,

- each engine's agreement with the position's expert move (the move played in the game the
  position comes from, where the file has one);
- the agreement of every two engines with each other;
- each engine's moves by line (1 + distance to the nearest edge; pass and resign apart), and
  the share on lines 1-2, which sane opening play keeps near zero on a large board.

Answers go to `answers.jsonl` as they come (one line per position), the report to
`summary.json`.  Positions are the outer loop and all engines stay open, so each line is
complete when written and an interrupted run keeps what it finished.
"""
import json
from itertools import combinations
from pathlib import Path

from engine.core.coords import COLUMNS, parse_vertex
from engine.gtp.client import EngineFailure, GtpClient
from engine.lab.match import wilson_interval
from policies.data.files import read_positions

SETUP_TIMEOUT = 60.0      # seconds for boardsize, play, undo ...
MOVE_TIMEOUT = 900.0      # ... and for one move choice (a strong setting may think a while)
EDGE_LINES = (1, 2)       # the lines sane opening play avoids


def opening_positions(path, max_moves=None, limit=None):
    """The positions of a position file with fewer than `max_moves` moves played (all if
    None), the first `limit` of them (all if None).  DataFileError for a bad file."""
    positions = read_positions(path)
    if max_moves is not None:
        positions = [p for p in positions if len(p.moves) < max_moves]
    return positions if limit is None else positions[:limit]


def normalise_move(text, size):
    """An engine's answer as the report writes it: an uppercase vertex, "PASS" or "resign";
    ValueError for anything else."""
    answer = text.strip()
    if answer.lower() == "resign":
        return "resign"
    parse_vertex(answer, size)      # raises ValueError for a vertex off the board or garbage
    return answer.upper()


def line_of(move, size):
    """The line of a vertex (1 at the edge, 2 next to it, ...); None for PASS and resign."""
    if move in ("PASS", "resign"):
        return None
    col, row = COLUMNS.index(move[0]), int(move[1:]) - 1
    return 1 + min(col, row, size - 1 - col, size - 1 - row)


class Asker:
    """One engine, started once, asked for its move in one position after another."""

    def __init__(self, name, command):
        self.name, self.command, self.client = name, command, None
        try:
            self.client = GtpClient(command)
            ok, known = self.client.ask("known_command reg_genmove", SETUP_TIMEOUT)
        except EngineFailure as e:
            self.close()
            raise EngineFailure(f"{name} ({command}): {e}") from None
        self.has_reg_genmove = ok and known.strip().lower() == "true"

    def move(self, pos):
        """The engine's move (normalised) for the side to play in `pos`; EngineFailure naming
        the engine and the position if it fails or answers nonsense."""
        try:
            self._set_up(pos)
            colour = pos.to_play.lower()
            if self.has_reg_genmove:
                answer = self.client.send(f"reg_genmove {colour}", MOVE_TIMEOUT)
            else:
                answer = self.client.send(f"genmove {colour}", MOVE_TIMEOUT)
                if answer.strip().lower() != "resign":   # a resignation put nothing on the board
                    self.client.send("undo", SETUP_TIMEOUT)
            return normalise_move(answer, pos.size)
        except (EngineFailure, ValueError) as e:
            raise EngineFailure(f"{self.name} ({self.command}), position {pos.id}: {e}") from None

    def _set_up(self, pos):
        send = self.client.send
        send(f"boardsize {pos.size}", SETUP_TIMEOUT)
        send("clear_board", SETUP_TIMEOUT)
        send(f"komi {pos.komi:g}", SETUP_TIMEOUT)
        for colour, vertex in pos.moves:
            send(f"play {colour.lower()} {vertex}", SETUP_TIMEOUT)

    def close(self):
        if self.client is not None:
            self.client.close()


def expert_move(pos):
    """The position's expert move as the answers are written (None if it has none)."""
    return None if pos.expert is None else normalise_move(pos.expert, pos.size)


def ask_engines(positions, engines, out_dir, progress=None):
    """Ask every engine ({name: GTP command}) for its move in every position; one record a
    position ({id, move_number, size, expert, answers: {name: move}}) appended to
    `out_dir/answers.jsonl` as soon as it is complete.  `progress(done, total)` counts
    positions x engines.  EngineFailure (naming engine and position) stops the run."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    total, done = len(positions) * len(engines), 0
    askers, records = [], []
    try:
        for name, command in engines.items():
            askers.append(Asker(name, command))
        if progress:
            progress(0, total)      # the bar counts from here, engines started
        with open(out / "answers.jsonl", "w", encoding="utf-8") as answers_file:
            for pos in positions:
                answers = {}
                for asker in askers:
                    answers[asker.name] = asker.move(pos)
                    done += 1
                    if progress:
                        progress(done, total)
                record = {"id": pos.id, "move_number": pos.extra.get("move_number", len(pos.moves)),
                          "size": pos.size, "expert": expert_move(pos), "answers": answers}
                answers_file.write(json.dumps(record) + "\n")
                answers_file.flush()
                records.append(record)
    finally:
        for asker in askers:
            asker.close()
    return records


def rate(hits, n):
    """{hits, n, rate, rate_95}: a share with its Wilson interval (rate None when n is 0)."""
    return {"hits": hits, "n": n, "rate": hits / n if n else None,
            "rate_95": list(wilson_interval(hits, n))}


def line_counts(records, name):
    """{"1": count, "2": count, ..., "pass": count, "resign": count} of one engine's answers."""
    counts = {}
    for r in records:
        move = r["answers"][name]
        line = line_of(move, r["size"])
        key = str(line) if line is not None else move.lower()
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (not kv[0].isdigit(), kv[0].zfill(3))))


def summarise(records, names):
    """The report of `ask_engines`' records: per engine the agreement with the expert (over
    positions that have one), the lines of its moves and its share on lines 1-2; per pair of
    engines their agreement."""
    with_expert = [r for r in records if r["expert"] is not None]
    engines = {}
    for name in names:
        lines = line_counts(records, name)
        engines[name] = {
            "expert": rate(sum(r["answers"][name] == r["expert"] for r in with_expert),
                           len(with_expert)),
            "lines": lines,
            "lines_1_2": rate(sum(lines.get(str(k), 0) for k in EDGE_LINES), len(records)),
        }
    pairs = [{"a": a, "b": b, **rate(sum(r["answers"][a] == r["answers"][b] for r in records),
                                      len(records))}
             for a, b in combinations(names, 2)]
    return {"positions": len(records), "with_expert": len(with_expert), "engines": engines,
            "pairs": pairs}


def run_agreement(positions, engines, out_dir, progress=None):
    """Ask, summarise, and write `summary.json` beside `answers.jsonl`; the summary."""
    records = ask_engines(positions, engines, out_dir, progress)
    report = summarise(records, list(engines))
    report["commands"] = dict(engines)
    (Path(out_dir) / "summary.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def _percent(r):
    if r["rate"] is None:
        return "-"
    low, high = r["rate_95"]
    return f"{100 * r['rate']:.1f}% ({100 * low:.0f}-{100 * high:.0f})"


def table(report):
    """The report as text: one row per engine, then one per pair of engines."""
    names = list(report["engines"])
    width = max([len(n) for n in names] + [6])
    rows = [f"{report['positions']} positions ({report['with_expert']} with an expert move); "
            "rates with 95% intervals",
            f"{'engine':<{width}}  {'= expert':<20}  {'lines 1-2':<20}  moves by line (line:count)"]
    for name in names:
        e = report["engines"][name]
        lines = " ".join(f"{k}:{v}" for k, v in e["lines"].items())
        rows.append(f"{name:<{width}}  {_percent(e['expert']):<20}  "
                    f"{_percent(e['lines_1_2']):<20}  {lines}")
    if report["pairs"]:
        rows.append("")
        rows.append("pairwise agreement")
        for p in report["pairs"]:
            rows.append(f"{p['a']} = {p['b']}: {p['hits']}/{p['n']} {_percent(p)}")
    return "\n".join(rows)
