"""infra/stopping.py: SIGTERM and SIGINT end a loop through an event that no signal
handler touches (pure: signals to this process and to a child Python of its own)."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from infra.stopping import stop_on_signals

ROOT = Path(__file__).resolve().parents[2]


def _wakeup_fd() -> int:
    fd = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(fd)
    return fd


def test_a_signal_sets_the_event_and_what_was_there_before_comes_back():
    before, fd_before = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)), _wakeup_fd()
    with stop_on_signals() as stop:
        assert not stop.is_set() and _wakeup_fd() != fd_before
        os.kill(os.getpid(), signal.SIGTERM)  # the default action would end pytest
        assert stop.wait(5)
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before
    assert _wakeup_fd() == fd_before


def test_other_signals_leave_the_event_alone():
    with stop_on_signals((signal.SIGUSR1,)) as stop, stop_on_signals((signal.SIGUSR2,)) as other:
        os.kill(os.getpid(), signal.SIGUSR2)
        assert other.wait(5)
        assert not stop.wait(0.2)


# A loop waiting on its event while SIGINT and SIGTERM come in a burst (a terminal's
# Ctrl-C to the process group beside a platform's SIGTERM). With handlers that call
# `stop.set()` themselves, this child hung in every one of five runs: a handler ran
# while the main thread held the event's lock, and waited for it.
CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from infra.stopping import stop_on_signals
    with stop_on_signals() as stop:
        print("ready", flush=True)
        while not stop.wait(0.00005):
            pass
        for _ in range(100_000):
            stop.wait(0)
    print("stopped", flush=True)
""")


def test_a_burst_of_stopping_signals_never_hangs_the_loop(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text(CHILD)
    for _ in range(3):
        child = subprocess.Popen([sys.executable, str(script), str(ROOT)], stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout.readline() == "ready\n"
            for k in range(400):
                child.send_signal(signal.SIGTERM if k % 2 else signal.SIGINT)
            out, _ = child.communicate(timeout=20)
        finally:
            child.kill()
            child.wait()
        assert out == "stopped\n" and child.returncode == 0


def test_off_the_main_thread_it_refuses_and_leaves_no_thread_or_pipe_behind():
    """signal.set_wakeup_fd refuses other threads; what was made before it is undone."""
    import threading

    fds_before = _pipes()
    raised = []

    def enter():
        try:
            with stop_on_signals():
                pass
        except ValueError as exc:
            raised.append(exc)

    thread = threading.Thread(target=enter)
    thread.start()
    thread.join(10)
    assert len(raised) == 1
    assert not [t for t in threading.enumerate() if t.name == "stop-on-signals"]
    assert _pipes() == fds_before


def _pipes() -> set[str]:
    """The pipes this process holds open."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                found.add(fd)
        except OSError:  # the listing's own descriptor, closed since
            pass
    return found
