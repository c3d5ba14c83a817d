"""The tools around the engine: matches, players, tournaments, ratings, regression suites,
reviews, parameter tuning, benchmarks, warm-up, and the `simbal` command line (cli/) that
gathers them.  The top layer: nothing but the command line imports it."""
