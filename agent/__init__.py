"""How things get remembered: the worker, the processors and the model seam."""

from agent.processor import BatchOutcome, Processor, ProcessorReport
from agent.report import RoundReport
from agent.worker import MemoryWorker, WorkerError, WorkerState

__all__ = [
    "BatchOutcome",
    "MemoryWorker",
    "Processor",
    "ProcessorReport",
    "RoundReport",
    "WorkerError",
    "WorkerState",
]
