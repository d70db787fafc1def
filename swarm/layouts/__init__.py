"""The data layouts, a folder each, and their registry: `swarm.layouts.LAYOUTS` (swarm/layouts/registry.py).

The registry is loaded when first asked for, not with the package: a layout's reader is imported by solutions'
pasted code and by low rooms of the harness, which must not pull in every layout's split.
"""


def __getattr__(name: str) -> object:
    """`LAYOUTS`, `READ_BY_CODER` and `find_layout` from the registry, loaded on first use."""
    if name in ("LAYOUTS", "READ_BY_CODER", "find_layout"):
        from swarm.layouts import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'swarm.layouts' has no attribute {name!r}")
