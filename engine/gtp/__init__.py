"""The GTP front end.  The server that answers GUIs and tournament tools (server.py) is GTP
without Go (protocol.py) plus the Go commands (commands.py) and the analysis commands
(analysis.py); the client that drives other engines is client.py."""
