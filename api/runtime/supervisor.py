"""A small process supervisor for `make run`: start programs in order, restart any that dies
(after a capped exponential backoff, logged), and stop them all in reverse order on Ctrl-C
or SIGTERM, exiting 0.

honcho stops everything when one process dies; supervisord gives a program up for good
after a few quick failures and needs a generated INI file. Four programs need only this.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _find_prctl() -> Callable[..., int] | None:
    """prctl(2) from the C library, or None where there is none (not Linux)."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


#: Looked up once here, not in a forked child: a child of a threaded process must not load libraries.
_prctl = _find_prctl()


@dataclass
class Program:
    """One supervised program: a command line, its environment, and how to tell it is ready."""

    name: str
    argv: list[str]
    env: dict[str, str] | None = None
    cwd: str | None = None
    #: Stopped after every other program (the store the others write to).
    stop_last: bool = False
    #: Blocks until the program serves (e.g. Redis answers PING); the next program starts after.
    ready: Callable[[], None] | None = None
    process: subprocess.Popen[str] | None = field(default=None, repr=False)
    started: float = 0.0
    backoff: float = 0.0
    restart_at: float | None = None


def _die_with_parent() -> None:
    """In the child, before exec: receive SIGTERM when the supervisor dies (Linux), no orphans."""
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))


def describe_exit(code: int) -> str:
    """'exited with 1' or 'killed by SIGKILL', from a Popen return code."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with {code}"


def json_line(level: str, logger: str, message: str, **fields: object) -> str:
    """A log line with the fields of Coven's JSON logs (`api.runtime.logs`): level, logger,
    message, time, and any more."""
    line = {"level": level, "logger": logger, "message": message, **fields,
            "time": datetime.now(UTC).isoformat()}
    return json.dumps(line, ensure_ascii=False)


def relayed_line(process: str, text: str) -> str:
    """A program's line of output as a JSON log line with its `process`."""
    try:
        parsed = json.loads(text) if text.startswith("{") else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and "message" in parsed:
        return json.dumps({**parsed, "process": process}, ensure_ascii=False)
    return json_line("INFO", process, text, process=process)


class Supervisor:
    """Keeps a list of programs running until asked to stop."""

    def __init__(
        self,
        programs: list[Program],
        out: IO[str] | None = None,
        min_backoff: float = 0.5,
        max_backoff: float = 30.0,
        stable_after: float = 30.0,
        stop_timeout: float = 20.0,
    ):
        self.programs = programs
        self.out = out or sys.stdout
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.stable_after = stable_after  # a program that ran this long restarts at min_backoff again
        self.stop_timeout = stop_timeout
        self.stopping = threading.Event()
        self._lock = threading.Lock()

    # output --------------------------------------------------------------------------------

    def log(self, message: str, level: str = "INFO") -> None:
        """A line of the supervisor's own, in the JSON lines every Coven process writes."""
        self._write(json_line(level, "coven.supervisor", message))

    def _relay(self, program: Program, stream: IO[str]) -> None:
        """Copy a program's output as JSON lines naming it (`process`): its own JSON lines with
        that field added, any other line (a program's plain output) as the message of one."""
        for line in stream:
            self._write(relayed_line(program.name, line.rstrip("\n")))
        stream.close()

    def _write(self, line: str) -> None:
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    # running --------------------------------------------------------------------------------

    def start(self, program: Program) -> None:
        """Start (or restart) one program in its own session, its output relayed."""
        program.restart_at = None
        try:
            program.process = subprocess.Popen(
                program.argv, env=program.env, cwd=program.cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, errors="replace", bufsize=1,
                start_new_session=True,  # the terminal's Ctrl-C reaches the supervisor alone
                preexec_fn=_die_with_parent,
            )
        except OSError as error:
            self.log(f"{program.name} could not start: {error}", "ERROR")
            self._schedule_restart(program, ran=0.0)
            return
        program.started = time.monotonic()
        self.log(f"started {program.name} (pid {program.process.pid})")
        threading.Thread(target=self._relay, args=(program, program.process.stdout), daemon=True,
                         name=f"relay-{program.name}").start()

    def _schedule_restart(self, program: Program, ran: float) -> None:
        if ran >= self.stable_after or program.backoff == 0.0:
            program.backoff = self.min_backoff
        else:
            program.backoff = min(program.backoff * 2, self.max_backoff)
        program.restart_at = time.monotonic() + program.backoff

    def _reap(self, program: Program) -> None:
        """Notice a program that died and schedule its restart."""
        if program.process is None or program.process.poll() is None:
            return
        code, pid = program.process.returncode, program.process.pid
        ran = time.monotonic() - program.started
        program.process = None
        self._schedule_restart(program, ran)
        self.log(f"{program.name} (pid {pid}) {describe_exit(code)} after {ran:.1f} s; "
                 f"restarting in {program.backoff:g} s", "WARNING")

    def run(self) -> int:
        """Start every program, keep them running until Ctrl-C or SIGTERM, then stop them; 0."""
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            with foreground():
                for program in self.programs:
                    if self.stopping.is_set():
                        break
                    self.start(program)
                    if program.ready is not None and program.process is not None:
                        program.ready()
                self.on_started()
                while not self.stopping.wait(0.2):
                    for program in self.programs:
                        self._reap(program)
                        if program.restart_at is not None and time.monotonic() >= program.restart_at:
                            self.start(program)
                self.stop()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return 0

    def on_started(self) -> None:
        """Called once every program has been started (the dev server prints its URLs here)."""

    def _on_signal(self, signum: int, frame: object) -> None:
        if self.stopping.is_set():
            self.log("stopping now")
            self._kill_all(signal.SIGKILL)
        self.stopping.set()

    # stopping -------------------------------------------------------------------------------

    def stop(self) -> None:
        """SIGTERM every program at once, then (once they are gone) those that stop last."""
        self.log("stopping")
        last = [program for program in self.programs if program.stop_last]
        for group in ([p for p in self.programs if not p.stop_last], last):
            for program in group:
                self._signal(program, signal.SIGTERM)
            deadline = time.monotonic() + self.stop_timeout
            for program in group:
                process = program.process
                if process is None:
                    continue
                try:
                    process.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    self.log(f"{program.name} did not stop in {self.stop_timeout:.0f} s: killing it")
                    self._signal(program, signal.SIGKILL)
                    process.wait()
        self.log("stopped")

    def _kill_all(self, sig: signal.Signals) -> None:
        for program in self.programs:
            self._signal(program, sig)

    @staticmethod
    def _signal(program: Program, sig: signal.Signals) -> None:
        """Signal a program's whole process group (it leads its own session)."""
        if program.process is not None and program.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(program.process.pid, sig)


@contextlib.contextmanager
def foreground() -> Iterator[None]:
    """Own the terminal's foreground while running, so that Ctrl-C reaches this process alone.

    Under `make run`, Ctrl-C would otherwise also interrupt make, which then reports
    "Interrupt" and fails however cleanly everything stopped. This is what a job-control
    shell does for its jobs; without a terminal it does nothing.
    """
    try:
        tty = os.open("/dev/tty", os.O_RDWR)
    except OSError:
        yield
        return
    try:
        original = os.tcgetpgrp(tty)
        if original != os.getpgrp():  # running in the background: leave the terminal alone
            yield
            return
        ttou = signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # a background group may now set it
        try:
            os.setpgid(0, 0)
            os.tcsetpgrp(tty, os.getpgrp())
        except OSError:
            signal.signal(signal.SIGTTOU, ttou)
            yield
            return
        # Ctrl-Z would stop this process alone, with make still holding the shell: not offered.
        tstp = signal.signal(signal.SIGTSTP, signal.SIG_IGN)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.tcsetpgrp(tty, original)
            signal.signal(signal.SIGTSTP, tstp)
            signal.signal(signal.SIGTTOU, ttou)
    finally:
        os.close(tty)
