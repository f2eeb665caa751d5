"""sweep scenario."""

__all__: list[str] = []
