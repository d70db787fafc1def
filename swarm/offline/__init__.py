"""The offline coder: a built-in, no-network "model" that writes real tabular ML solutions.

`OfflineClient(seed)` implements swarm.llm.base.LLMClient; see swarm/offline/client.py for the hint keys.
"""

from swarm.offline.client import OfflineClient

__all__ = ["OfflineClient"]
