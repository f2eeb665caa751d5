"""notifications scenario."""

__all__: list[str] = []
