"""bg_demo: BERT and GPT-2, side by side, in the browser."""

__version__ = "0.1.0"

# first, so that on ZeroGPU `spaces` is imported before anything touches CUDA (a no-op elsewhere)
from bg_demo import placement as _placement  # noqa: E402, F401
