"""Short full garbage collections in a long-running search process.

Python's cyclic collector now and then walks every object the process holds. After the imports (Prefect,
pandas, pydantic) and an opened run that is a few hundred thousand objects, and such a walk pauses an epoch
wherever it lands (benchmarks/README.md, "Orchestration overhead", measures it with `gc.callbacks`). Those objects
live as long as the process, so they are frozen once (`gc.freeze`) when the first epoch starts: the collector
skips them from then on and walks only what was made since. Reference counting still frees them as usual; only
a reference cycle among them that becomes garbage stays (once, at one epoch's start, so a bounded amount).
"""

from __future__ import annotations

import gc
import threading

_LOCK = threading.Lock()
_frozen = False


def freeze_long_lived() -> bool:
    """Freeze every object alive now, once per process; True on the call that did it."""
    global _frozen
    with _LOCK:
        if _frozen:
            return False
        gc.freeze()
        _frozen = True
        return True
