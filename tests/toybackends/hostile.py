"""Backends that misbehave the way real runtimes do when they fail badly (issue 6).

`--backend-option <case>=<behaviour>` as for toy.py's ToyAdapter, plus:
    leak          keep allocating (and touching) memory until the executor's memory limit stops it
    leak_native   malloc until it fails, then abort as C++ does on std::bad_alloc
    flood         write megabytes to stdout and stderr, then answer correctly
    flood_abort   write megabytes, a last line, then abort
    sigkill       kill itself with SIGKILL, as the kernel's out-of-memory killer would
`trace=DIR` appends "<case> <pid of the executor>" to DIR/trace.txt for every case, so a test can
tell which executor process ran it.
"""

from __future__ import annotations

import ctypes
import os
import signal
from pathlib import Path

from tests.toybackends.toy import ToyAdapter

FLOOD_BYTES = 8 << 20  # per stream
LAST_WORDS = "hostile: last words before abort"


def _flood() -> None:
    line = b"hostile flood " + b"x" * 1000 + b"\n"
    for fd in (1, 2):
        written = 0
        while written < FLOOD_BYTES:
            written += os.write(fd, line)


class HostileAdapter(ToyAdapter):
    name = "hostile"

    def prepare(self, model_path: str):
        trace = self.options.get("trace")
        if trace:
            with open(Path(trace) / "trace.txt", "a", encoding="utf-8") as f:
                f.write(f"{Path(model_path).parent.name} {os.getpid()}\n")
        return super().prepare(model_path)

    def run(self, prepared, inputs):
        _, behaviour = prepared
        if behaviour == "leak":
            hoard = []
            while True:
                hoard.append(bytearray(b"\x01") * (32 << 20))
        if behaviour == "leak_native":
            words = b"terminate called after throwing an instance of 'std::bad_alloc'\n"
            libc = ctypes.CDLL(None)
            libc.malloc.restype = ctypes.c_void_p
            libc.malloc.argtypes = [ctypes.c_size_t]
            libc.free.argtypes = [ctypes.c_void_p]
            last = None
            while True:
                block = libc.malloc(32 << 20)
                if not block:
                    break
                last = block
            libc.free(last)  # as libstdc++ keeps an emergency pool to report the failure with
            os.write(2, words)
            os.abort()
        if behaviour in ("flood", "flood_abort"):
            _flood()
            if behaviour == "flood_abort":
                os.write(2, (LAST_WORDS + "\n").encode())
                os.abort()
        if behaviour == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        return super().run(prepared, inputs)
