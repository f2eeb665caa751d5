"""episodes scenario."""

__all__: list[str] = []
