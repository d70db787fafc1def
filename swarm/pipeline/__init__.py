"""The search pipeline's Prefect-free core: run state, search policy, the steps, final selection."""
