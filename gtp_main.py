#!/usr/bin/env python3
"""Start the Simbal GTP engine: `python gtp_main.py [options]` (the same as `simbal gtp`).

This is the command line to give GoGui, Sabaki or a tournament program; see
`python gtp_main.py --help` for the options.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from anywhere, installed or not

from engine.lab.cli import gtp  # noqa: E402

if __name__ == "__main__":
    gtp(prog_name="gtp_main.py")
