"""Leaf utilities shared by every package: the exception base and the clock seam.

`core` imports nothing from the product; every other package may import it.
"""

from companion_memory.core.clock import Clock, FakeClock, SystemClock
from companion_memory.core.errors import CompanionMemoryError

__all__ = ["Clock", "CompanionMemoryError", "FakeClock", "SystemClock"]
