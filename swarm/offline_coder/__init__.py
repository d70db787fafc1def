"""The offline coder: a built-in, no-network "model" that writes real tabular ML solutions.

`OfflineClient(seed)` implements swarm.llm.base.LLMClient; see swarm/offline_coder/client.py for the hint keys.
"""

from swarm.offline_coder.client import OfflineClient

__all__ = ["OfflineClient"]
