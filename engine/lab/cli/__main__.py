"""`python -m engine.lab.cli ...`: the `simbal` command line without the console script (the
Makefile, data/*.sh and the subprocesses of `simbal reproduce` and `simbal bench` run it so)."""
from engine.lab.cli import main

main()
