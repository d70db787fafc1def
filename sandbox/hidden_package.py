"""Bound over the `__init__.py` of every package the bwrap sandbox hides (sandbox.hidden), so that importing one
fails instead of finding an empty namespace package."""

raise ModuleNotFoundError(f"{__name__} is not available inside the sandbox")
