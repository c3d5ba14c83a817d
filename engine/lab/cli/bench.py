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
def bench(as_json, quick, write, on_cluster):
    """Measure playout rates and start-up time (or, with --cluster, Dask scaling)."""
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
