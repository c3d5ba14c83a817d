"""`simbal tune`: RSPSA / FDSA over the search parameters.  The options fall in three groups:
what is tuned and how (a tune.Settings), the objective and its match (a tune.MatchSetup), and
the run itself (validation, seed, output folder, cluster).  The work is in engine.lab.tune."""
import json
from contextlib import ExitStack
from pathlib import Path

import click

from engine.lab.cli.options import komi_option, option_group, pick, seed_option, size_option, stderr
from engine.lab.progress import ProgressBar
from engine.parallel.cluster import cluster_for, cluster_options

# tune.Settings but its seed, which the validation shares.
TUNER = ("method", "iterations", "perturbations", "delta0")
tuner_options = option_group(
    click.option("--param", "param_specs", multiple=True, required=True,
                 metavar="NAME=START[,LOW,HIGH[,SCALE]]",
                 help="A parameter to tune (repeatable); bounds default to engine/lab/tune.py BOUNDS."),
    click.option("--method", type=click.Choice(["rspsa", "fdsa"]), default="rspsa",
                 show_default=True),
    click.option("--iterations", default=50, show_default=True, type=click.IntRange(1)),
    click.option("--perturbations", default=8, show_default=True, type=click.IntRange(1),
                 help="r: perturbations per iteration (FDSA: per parameter), one game pair each."),
    click.option("--delta0", default=0.05, show_default=True, type=click.FloatRange(1e-3, 1.0),
                 help="Initial step, as a fraction of each parameter's scale."))

# tune.MatchSetup but the opponent, parsed from --opponent-param.
MATCH = ("size", "komi", "playouts", "weights", "opening")
objective_options = option_group(
    click.option("--objective", default="match", show_default=True,
                 help="match (game pairs against the fixed opponent), synthetic (a known optimum "
                      "at the engine defaults), or MODULE:FUNCTION f(params, seed) -> float."),
    size_option(9),
    komi_option(7.5),
    click.option("--playouts", default=200, show_default=True, type=click.IntRange(1),
                 help="Playouts per move of both engines in the match objective."),
    click.option("--weights", default=None,
                 help="Playout policy of both engines (default: shipped)."),
    click.option("--opponent-param", "opponent_params", multiple=True, metavar="NAME=VALUE",
                 help="Parameters of the fixed opponent (default: the engine's defaults)."),
    click.option("--opening", default=2, show_default=True, type=click.IntRange(0),
                 help="Random opening moves shared by both games of a pair."))

run_options = option_group(
    click.option("--validate", "validate_pairs", default=0, show_default=True,
                 type=click.IntRange(0),
                 help="After tuning, play this many game pairs (fresh seeds) of the result "
                      "against the opponent and report the score with its Wilson interval."),
    seed_option(),
    click.option("--out", "out_dir", default="runs/tune", show_default=True,
                 type=click.Path(file_okay=False), help="Checkpoint, log and plot (resumable)."),
    cluster_options)


@click.command()
@tuner_options
@objective_options
@run_options
def tune(param_specs, objective, opponent_params, validate_pairs, seed, out_dir, workers,
         scheduler, **options):
    """Tune engine parameters with RSPSA (or FDSA) against a noisy objective."""
    from engine.lab import tune as tune_mod

    params, opponent = _parse_params(tune_mod, param_specs, opponent_params)
    settings = tune_mod.Settings(**pick(options, TUNER), seed=seed)
    setup = tune_mod.MatchSetup(**pick(options, MATCH), opponent=opponent or None)
    with ExitStack() as stack:
        # The match objective's cluster stays up for the validation games too.
        def cluster():
            return stack.enter_context(cluster_for(workers, scheduler, stderr))
        f = _objective(tune_mod, objective, params, setup, cluster)
        _tune_and_validate(tune_mod, params, f, settings, validate_pairs, out_dir)


def _parse_params(tune_mod, param_specs, opponent_params):
    """The tuned parameters (tune.Param) and the opponent's {name: value}, names checked."""
    from engine.search.params import parse_setting
    try:
        params = [tune_mod.parse_param(text) for text in param_specs]
        tune_mod.check_names(params)
        opponent = dict(parse_setting(text) for text in opponent_params)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    return params, opponent


def _objective(tune_mod, objective, params, setup, cluster):
    """The noisy function --objective names; `cluster()` starts the match objective's cluster."""
    if objective == "match":
        return tune_mod.MatchObjective(setup, cluster())
    if objective == "synthetic":
        from engine.search.params import default_params
        defaults = default_params()._asdict()
        return tune_mod.Synthetic({p.name: defaults[p.name] for p in params},
                                  {p.name: p.scale / 4 for p in params})
    try:
        return tune_mod.FunctionObjective(objective)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--objective") from None


def _tune_and_validate(tune_mod, params, f, settings, validate_pairs, out_dir):
    tuner = tune_mod.Tuner(params, settings, f)
    try:
        with ProgressBar("iteration") as bar:
            log = tune_mod.run(tuner, out_dir, bar)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    final = tuner.as_dict()
    click.echo(f"after {tuner.t} iterations ({sum(r['evaluations'] for r in log)} evaluations): "
               + " ".join(f"{k}={v:.4g}" for k, v in final.items()))
    if validate_pairs:
        report = tune_mod.validate(f, final, validate_pairs, settings.seed)
        (Path(out_dir) / "validation.json").write_text(json.dumps(report, indent=2) + "\n")
        low, high = report["score_95"]
        click.echo(f"validation: {report['points']:g}/{report['games']} = {100 * report['score']:.1f}% "
                   f"(95% interval {100 * low:.1f}-{100 * high:.1f}%)")
