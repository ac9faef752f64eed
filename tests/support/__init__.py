"""The test harness, outside the runtime package: `zerogpu` (a stand-in for ZeroGPU's `spaces` on a CPU) and
`processes` (front ends as processes of their own, behind HAProxy). Tests and bench/ scripts import it from the
repository root as `tests.support`; the tiny models it runs on are the runtime package's (`bg_demo.tiny_models`),
since `python -m bg_demo tiny-models` writes them."""
