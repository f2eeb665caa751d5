"""How things get remembered: the worker, the processors and the model seam."""

from companion_memory.agent.processor import BatchOutcome, Processor, ProcessorReport
from companion_memory.agent.report import RoundReport
from companion_memory.agent.worker import MemoryWorker, WorkerError, WorkerState

__all__ = [
    "BatchOutcome",
    "MemoryWorker",
    "Processor",
    "ProcessorReport",
    "RoundReport",
    "WorkerError",
    "WorkerState",
]
