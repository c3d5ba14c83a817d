"""What the `simbal` commands share: option groups applied as one decorator, the options most
of them take (--seed, --size, --komi, data files), stderr logging, and turning an expected
failure into a one-line error.  Only the modules of this package import it."""
import sys

import click


def option_group(*options):
    """Several click options as one decorator; `--help` lists them in the order written."""
    def apply(f):
        for option in reversed(options):
            f = option(f)
        return f
    return apply


def pick(values, names):
    """The entries of `values` (a command's keyword arguments) named in `names`."""
    return {name: values[name] for name in names}


def seed_option(default=0, **extra):
    return click.option("--seed", default=default, show_default=True, type=click.IntRange(0),
                        **extra)


def size_option(default, **extra):
    return click.option("--size", default=default, show_default=True,
                        type=click.IntRange(2, 25), **extra)


def komi_option(default, **extra):
    return click.option("--komi", default=default, show_default=True, type=float, **extra)


def rules_option(engine=False):
    """--rules none|search: playouts of the plain policy, or following the search's playout
    rules (fight answers, nakade; engine.search.params).  With `engine`, also --rules engine:
    exactly the playouts the engine plays on the positions' board size (with that size's
    parameters, e.g. local playouts, which have no gradient for a trainer to follow).  The
    value is a RULE_* vector, None, or "engine" (resolved once the size is known)."""
    choices = ["none", "search", "engine"] if engine else ["none", "search"]
    return click.option("--rules", "rules", default="none", show_default=True,
                        type=click.Choice(choices),
                        callback=lambda ctx, param, value: _rules_vector(value),
                        help="none: the plain policy's playouts (the paper's); search: the "
                             "playouts follow the search's default playout rules (fight "
                             "answers, nakade)" + (
                                 "; engine: the playouts the engine plays on the board size "
                                 "(its parameters from weights/defaults.json too, e.g. local "
                                 "playouts)." if engine else "."))


def _rules_vector(name):
    if name == "none":
        return None
    if name == "engine":
        return name
    from engine.search.params import default_playout_rules
    return default_playout_rules()


def in_file_option():
    return click.option("--in", "in_path", required=True, type=click.Path(dir_okay=False))


def out_file_option(**extra):
    return click.option("--out", required=True, type=click.Path(dir_okay=False), **extra)


def stderr(text):
    click.echo(text, err=True)


def log_to_stderr(verbose):
    """print-like logging on stderr, or a no-op without `verbose`."""
    if not verbose:
        return lambda *a: None

    def log(*parts):
        # One write per line: the warm-up and search threads log at the same time.
        sys.stderr.write(" ".join(str(p) for p in parts) + "\n")
        sys.stderr.flush()
    return log


def command_line():
    """The command as typed, for the provenance record of the files it writes."""
    return "simbal " + " ".join(sys.argv[1:])


def one_line_errors(run, errors):
    """`run()`, with the expected `errors` (a bad input file, engine, checkpoint) shown as a
    one-line error naming the problem instead of a traceback."""
    try:
        return run()
    except errors as err:
        raise click.ClickException(str(err)) from None
