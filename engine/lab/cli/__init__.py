"""The `simbal` command line: one home for every tool around the engine.  This module is the
group and its registration; each family of commands has a module of its own (play: gtp,
analysis, params; games: match, review, tournament, regress, agreement; tune; bench; data:
data, eval; train: train, reproduce, train-prior, book), and options.py what they share.

`simbal gtp` and `python gtp_main.py` start the same GTP engine (gtp_main imports `gtp` from
here); `python -m engine.lab.cli` runs the group as the console script `simbal` does."""
import click

from engine.lab.cli.bench import bench
from engine.lab.cli.data import data, eval_group
from engine.lab.cli.games import agreement, match, regress, review, tournament
from engine.lab.cli.play import analysis, gtp, params
from engine.lab.cli.train import book, reproduce, train, train_prior
from engine.lab.cli.tune import tune


@click.group()
def main():
    """Simbal: a Go engine whose Monte-Carlo playouts are learned."""


for _command in (gtp, analysis, params, match, review, tournament, regress, agreement, tune, bench,
                 data, eval_group, train, reproduce, train_prior, book):
    main.add_command(_command)
