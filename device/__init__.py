"""The process on the device: configuration, runtime wiring, daemon and CLI."""

__all__: list[str] = []
