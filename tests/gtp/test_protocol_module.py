"""protocol.py is GTP with no Go in it (issue 20): it imports nothing from the board, the
game, the engine or the policies, and it answers the protocol's own commands with no Go
commands mixed in."""
import ast
from pathlib import Path

from engine.gtp.protocol import GtpError, GtpProtocol, Stream

PROTOCOL = Path(__file__).resolve().parents[2] / "engine" / "gtp" / "protocol.py"
GO = ("engine", "policies", "numpy", "numba")


def imported_modules(path):
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_the_protocol_imports_nothing_go_specific():
    names = imported_modules(PROTOCOL)
    assert [n for n in names if n.startswith(".") or n.split(".")[0] in GO] == []


class Echo(GtpProtocol):
    """A server with one command of its own and one that streams two reports."""

    def cmd_echo(self, args):
        if not args:
            raise GtpError("nothing to echo")
        return " ".join(args)

    def cmd_x__count(self, args):
        def run(emit, interrupted):
            emit("one")
            emit("two")
            return "done"
        return Stream(run)


def test_a_bare_protocol_answers_without_any_go():
    s = Echo("Echo", "1.0")
    assert s.handle("1 name\n") == "=1 Echo\n\n"
    assert s.handle("version") == "= 1.0\n\n"
    assert s.handle("echo a\tb # comment") == "= a b\n\n"
    assert s.handle("2 echo") == "?2 nothing to echo\n\n"
    assert s.handle("play b D4") == "? unknown command\n\n"
    assert s.handle("known_command x-count") == "= true\n\n"
    assert s.handle("x-count") == "=\none\ntwo\ndone\n\n"
    assert s.handle("list_commands").split() == ["=", "echo", "known_command", "list_commands",
                                                 "name", "protocol_version", "quit",
                                                 "version", "x-count"]
