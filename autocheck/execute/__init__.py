"""Executors: how the expansion of chunks of seed cases is scheduled (one process, N processes, a Ray
cluster). An executor changes how stages are scheduled, never what they compute: each chunk is expanded by
the same function whatever runs it, and results are merged in chunk order, so the same ``--seed`` gives the
same bytes."""
