"""The task runner an epoch's parallel steps use: the flow's own threads, or a Dask cluster."""

from __future__ import annotations

from typing import Any

from prefect.client.orchestration import get_client

from swarm.config import Config, ConfigError


def dask_task_runner(cfg: Config) -> Any:
    """A DaskTaskRunner for `search.task_runner=dask`: the cluster at `search.dask_address`, or a local one.

    Dask workers are other processes; they report their task runs to the API this flow uses, so its URL is
    exported to them (an ephemeral API included). They open the run from its dir, so every worker must see
    the run dir at the same path.
    """
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError as exc:
        raise ConfigError(
            'search.task_runner=dask needs prefect-dask; install it with: pip install -e ".[dask]"'
        ) from exc
    if cfg.search.dask_address:
        return DaskTaskRunner(address=cfg.search.dask_address)
    with get_client(sync_client=True) as client:
        api_url = str(client.api_url)
    return DaskTaskRunner(
        cluster_kwargs={
            "n_workers": cfg.search.parallel,
            "threads_per_worker": 1,
            "processes": True,
            "env": {"PREFECT_API_URL": api_url},  # passed to each worker process by its nanny
        }
    )
