"""Leaf utilities shared by every package: the exception tree and the clock seam.

`core` imports nothing from the product; every other package may import it.
"""

from companion_memory.core.clock import Clock, SystemClock
from companion_memory.core.errors import (
    CompanionMemoryError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StateError,
    StorageFailureError,
    UnavailableError,
)

__all__ = [
    "Clock", "CompanionMemoryError", "ConflictError", "InvalidInputError",
    "NotFoundError", "StateError", "StorageFailureError", "SystemClock", "UnavailableError",
]
