"""The game and the player: game record with superko, undo and handicap (game.py), where
handicap stones go (handicap.py), dead and alive from ownership (status.py), the clock
(timecontrol.py), SGF (sgf.py) and the Engine that searches, manages time, resigns and passes
(player.py).  Knows nothing of GTP."""
