"""Files made for download, in one folder of the app's own that never grows and is gone at exit.

Gradio copies a returned file into its own cache (which `delete_cache` empties) as soon as the
handler returns, so the copy here is only needed for a moment: each new export removes those older
than `KEEP_SECONDS`, and the whole folder is removed when the process ends.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import time
from pathlib import Path

KEEP_SECONDS = 600
_root: Path | None = None
_lock = threading.Lock()


def new_folder() -> Path:
    """A fresh folder for one export's files; older exports' folders are removed."""
    global _root
    with _lock:
        if _root is None:
            _root = Path(tempfile.mkdtemp(prefix="bg_demo-downloads-"))
            atexit.register(shutil.rmtree, _root, ignore_errors=True)
        for old in _root.iterdir():
            if time.time() - old.stat().st_mtime > KEEP_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
        return Path(tempfile.mkdtemp(dir=_root))


def root() -> Path | None:
    """The folder holding every export of this process (None before the first)."""
    return _root
