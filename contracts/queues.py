"""Task queue names: one per worker pool. The pool is a deployment tag, not a code path.

In contracts/ because workflows, workers and clients all name them: nothing here imports back up."""

CONTROL = "arkevo-control"  # workflows and light activities
CPU = "arkevo-cpu"  # admission, validation, review, bookkeeping, packaging
GPU = "arkevo-gpu"  # Blender: workspace builds, trials (one worker per GPU)
LLM = "arkevo-llm"  # model calls (VL judge), rate-limited; API keys live only on these workers

POOLS = {"control": CONTROL, "cpu": CPU, "gpu": GPU, "llm": LLM}
