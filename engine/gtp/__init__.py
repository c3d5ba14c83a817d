"""The GTP front end: the server that answers GUIs and tournament tools (server.py) and the
client that drives other engines (client.py)."""
