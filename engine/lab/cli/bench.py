"""`simbal bench`: the figures of engine.lab.bench (playout rates and start-up time, or Dask
scaling), printed, as JSON, or recorded in a Markdown file such as BENCHMARKS.md."""
import click

from engine.lab import bench as bench_mod


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (for scripts).")
@click.option("--quick", is_flag=True, help="Shorter timings, no start-up figures.")
@click.option("--write", type=click.Path(dir_okay=False), default=None,
              help="Also record the figures in this Markdown file (e.g. BENCHMARKS.md).")
@click.option("--cluster", "on_cluster", is_flag=True,
              help="Instead: labelling and evaluation with 1 and 2 Dask workers.")
@click.option("--profile", "profile_seconds", type=click.FloatRange(0.5), default=None,
              metavar="SECONDS",
              help="Instead: where a search's time goes, by compiled function (Linux perf "
                   "samples of SECONDS-long 9x9 and 19x19 searches).")
@click.option("--breakdown", is_flag=True,
              help="Instead: what a playout move costs, stage by stage (board, marking, "
                   "features, draw, the rules), from replayed 9x9 and 19x19 playouts, "
                   "softmax and local.")
def bench(as_json, quick, write, on_cluster, profile_seconds, breakdown):
    """Measure playout rates and start-up time (or, with --cluster, Dask scaling)."""
    if breakdown:
        from engine.lab.breakdown import LOCAL_STAGES, STAGES, local_breakdown, playout_breakdown
        tables = (("softmax playouts", STAGES, [playout_breakdown(size) for size in (9, 19)]),
                  ("local playouts (far 0.41 on 9x9, 1.0 on 19x19)", LOCAL_STAGES,
                   [local_breakdown(9, 0.41), local_breakdown(19, 1.0)]))
        if as_json:
            click.echo(bench_mod.to_json({
                f"{kind.split()[0]} {r['size']}x{r['size']}": r
                for kind, _, reports in tables for r in reports}))
            return
        for kind, stages, reports in tables:
            click.echo(f"{kind}\nstage           " + "".join(
                f"{r['size']}x{r['size']} ns/move  share  " for r in reports))
            for stage in stages:
                click.echo(f"{stage:15s} " + "".join(f"{r['ns_per_move'][stage]:12,.0f} "
                                                     f"{r['share'][stage]:5.1f}%  "
                                                     for r in reports))
            for r in reports:
                click.echo(f"{r['size']}x{r['size']}: {r['games']} playouts of "
                           f"{r['moves_per_playout']} moves; replays "
                           f"{'match' if r['replay_matches'] else 'DO NOT match'} the recorded "
                           "games")
        return
    if profile_seconds:
        from engine.lab.profile import search_profiles
        profiles = search_profiles(profile_seconds)
        if profiles is None:
            raise click.ClickException("perf is not installed or may not attach to this "
                                       "process (apt-get install linux-perf; "
                                       "sysctl kernel.perf_event_paranoid=2)")
        if as_json:
            click.echo(bench_mod.to_json(profiles))
            return
        for board, rows in profiles.items():
            click.echo(f"{board} search, share of samples:")
            for share, name in rows:
                click.echo(f"  {share:6.2f}%  {name}")
        return
    if on_cluster:
        figures = (bench_mod.cluster_figures(100, 2000) if quick
                   else bench_mod.cluster_figures())
    else:
        figures = bench_mod.run(quick=quick)
    if as_json:
        click.echo(bench_mod.to_json(figures))
    else:
        for key, value in figures.items():
            click.echo(f"{key:40s} {value:>12,}" if isinstance(value, int) else f"{key:40s} {value:>12}")
    if write and on_cluster:
        bench_mod.write_into(write, figures, bench_mod.CLUSTER_MARKS, "simbal bench --cluster")
    elif write:
        bench_mod.write_into(write, figures)
