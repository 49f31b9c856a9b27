"""Ctrl-C for a consumer of a Reader's stream capsule (pa.table(reader), polars, DuckDB).

Such a consumer waits for each batch inside its own native code, where Python runs no signal
handler: a Ctrl-C was raised only once the consumer returned, at the scan's end. Python's C
signal handler also writes the signal's number to the wakeup fd (signal.set_wakeup_fd) at
once, from any thread's wait. A thread of ours reads it and interrupts the scans of the
readers made on the main thread whose streams were handed out, to a consumer on any thread
(DuckDB reads on its own threads): ringscan_scan_interrupt ends the consumer's wait as the
stream's end, cancels the scan's reads in flight, and fails any later read of the stream, so
no consumer takes the rows it got as all of them. The pending KeyboardInterrupt is raised as
the consumer returns (DuckDB raises its own "Query interrupted"), before its result reaches
the caller. A reader's own iteration (to_arrow(), for) stops its scan itself, unwatched.

Invariants:
  1. A scan is interrupted only while SIGINT's handler is Python's default one, which raises
     KeyboardInterrupt: a host's own handler (one that lets the work finish) keeps every
     row.
  2. The wakeup fd is ours only while a watched reader lives (it is put back to none when the
     last one closes on the main thread) and never replaces another's (asyncio's): then
     nothing is watched, as before.
  3. A reader is interrupted under its lock while it holds its scan (Reader._interrupt), so
     the interrupt never reaches a scan that close() freed.
"""
import os
import signal
import threading
import weakref

_lock = threading.Lock()  # guards what follows
_readers = weakref.WeakSet()  # readers whose streams a consumer on the main thread may read
_fds = None  # (read end, write end) of the pipe the watcher thread reads, once made


def watch(reader):
    """Whether a Ctrl-C will call reader._interrupt() (module docstring): not off the main
    thread, under a host's own SIGINT handler, or when another wakeup fd is set (invariants 1
    and 2). Then unwatch(reader) when it closes."""
    if threading.current_thread() is not threading.main_thread():
        return False
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False
    with _lock:
        if not _install():
            return False
        _readers.add(reader)
        return True


def unwatch(reader):
    """reader closed: the wakeup fd is put back once no watched reader is left (on the main
    thread; elsewhere it stays until the next close there)."""
    if _lock is None or _readers is None:  # interpreter exit: this module's globals are gone
        return
    with _lock:
        _readers.discard(reader)
        if _readers or _fds is None:
            return
        if threading.current_thread() is not threading.main_thread():
            return
        try:
            was = signal.set_wakeup_fd(-1)
        except ValueError:  # (an interpreter that is not the main one)
            return
        if was != _fds[1]:  # another's since: theirs stays
            signal.set_wakeup_fd(was)


def _install():
    """Whether the wakeup fd is ours (made so if none was set). Under _lock, main thread."""
    global _fds
    if _fds is None:
        r, w = os.pipe()
        os.set_blocking(w, False)  # (set_wakeup_fd's requirement: a full pipe drops bytes)
        threading.Thread(target=_watcher, args=(r,), name="ringscan-sigint", daemon=True).start()
        _fds = (r, w)
    try:
        was = signal.set_wakeup_fd(_fds[1], warn_on_full_buffer=False)
    except ValueError:
        return False
    if was not in (-1, _fds[1]):  # another's (asyncio's): put back, nothing watched
        signal.set_wakeup_fd(was)
        return False
    return True


def _watcher(fd):
    """Reads the signals' numbers; on SIGINT interrupts every watched reader (invariant 1)."""
    while True:
        try:
            got = os.read(fd, 512)
        except OSError:
            return
        if not got:
            return
        if signal.SIGINT not in got:
            continue
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            continue
        with _lock:
            readers = list(_readers)
        for r in readers:
            r._interrupt()


def _forked():
    """In a forked child the watcher thread is gone: the next watch() makes its own pipe."""
    global _fds, _lock
    _lock = threading.Lock()
    if _fds is not None:
        try:
            was = signal.set_wakeup_fd(-1)
            if was != _fds[1]:  # another's: theirs stays
                signal.set_wakeup_fd(was)
        except ValueError:
            pass
        for fd in _fds:
            os.close(fd)
        _fds = None
    _readers.clear()


os.register_at_fork(after_in_child=_forked)
