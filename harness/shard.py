"""--shard K/N: which cases one of N CI jobs runs, so that N jobs cover the corpus exactly once.

Every process of every job computes the same assignment from the case names and their expected
cost, with no coordination: the same corpus (and durations file) gives the same shards.

Two goals pull apart. Balance wants every case dealt by cost (longest first, each to the
currently lightest shard), but then one added case reshuffles everything after it, and a job's
cases change whenever the corpus grows. Stability wants each case placed by a hash of its name
alone, but a hash ignores cost, and a handful of slow cases landing together make one job the
long pole. So the two are split by a fixed cost threshold:
  - a light case (expected under HEAVY_SECONDS, nearly all of them) goes to shard
    sha256(name) mod N: adding or removing a case never moves any other light case, and
    thousands of light cases even out by count;
  - heavy cases are then dealt, slowest first, each to the shard with the least expected total
    so far (light cases included): they are few, so only they can move when the corpus changes.
Expected cost is a case's `seconds` in an earlier results.jsonl (--shard-durations) when it has
one, else an estimate from the bytes of its files (model and data: reading and feeding them is
the part that grows; the rest is a few milliseconds of session setup on every backend).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path

# Per-case cost without a recorded duration: setup plus bytes at reading-and-feeding speed
# (fitted on onnxruntime over onnx's node tests: ~5 ms a case, ~25 MB/s of test data).
BASE_SECONDS = 0.005
BYTES_PER_SECOND = 25e6
HEAVY_SECONDS = 0.05  # ten typical cases


class ShardError(ValueError):
    """A --shard or --shard-durations value that cannot be used; the message says why."""


def parse(text: str) -> tuple[int, int]:
    """'2/4' -> (2, 4); shards are numbered from 1, as CI matrices count them."""
    k, sep, n = str(text).partition("/")
    if not sep or not k.strip().isdigit() or not n.strip().isdigit():
        raise ShardError(f"--shard wants K/N (e.g. 2/4), got {text!r}")
    k, n = int(k), int(n)
    if not 1 <= k <= n:
        raise ShardError(f"--shard K/N needs 1 <= K <= N, got {text!r}")
    return k, n


def read_durations(path: str | Path) -> dict[str, float]:
    """case -> seconds from a results.jsonl (an earlier run, or a merged one), or the committed
    scoreboard's results.jsonl.gz."""
    out: dict[str, float] = {}
    try:
        data = Path(path).read_bytes()
        if str(path).endswith(".gz"):
            data = gzip.decompress(data)
        lines = data.decode("utf-8").splitlines()
    except OSError as e:
        raise ShardError(f"cannot read --shard-durations {path}: {getattr(e, 'strerror', None) or e}") from e
    except (EOFError, UnicodeDecodeError) as e:
        raise ShardError(f"cannot read --shard-durations {path}: {type(e).__name__}: {e}") from e
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            seconds = float(record["seconds"])
        except (ValueError, KeyError, TypeError) as e:
            raise ShardError(f"{path}:{number}: not a results.jsonl line ({type(e).__name__})") from e
        out[str(record["case"])] = seconds
    return out


def estimated_cost(case_dir: str) -> float:
    size = 0
    for dirpath, _, filenames in os.walk(case_dir):
        for name in filenames:
            try:
                size += os.path.getsize(os.path.join(dirpath, name))
            except OSError:
                pass
    return BASE_SECONDS + size / BYTES_PER_SECOND


def _bucket(name: str, n: int) -> int:
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big") % n


def assign(cases: dict[str, str], n: int, durations: dict[str, float] | None = None) -> dict[str, int]:
    """case name -> shard (1..n), for `cases` mapping name -> case directory."""
    durations = durations or {}
    cost = {name: durations[name] if name in durations else estimated_cost(path)
            for name, path in cases.items()}
    shard_of: dict[str, int] = {}
    load = [0.0] * n
    heavy = []
    for name in sorted(cases):
        if cost[name] >= HEAVY_SECONDS:
            heavy.append(name)
            continue
        b = _bucket(name, n)
        shard_of[name] = b + 1
        load[b] += cost[name]
    for name in sorted(heavy, key=lambda x: (-cost[x], x)):
        b = min(range(n), key=lambda i: (load[i], i))
        shard_of[name] = b + 1
        load[b] += cost[name]
    return shard_of


def select(cases: dict[str, str], k: int, n: int, durations: dict[str, float] | None = None) -> set[str]:
    return {name for name, s in assign(cases, n, durations).items() if s == k}


def names_sha256(names) -> str:
    """One digest of a set of case names, so shards can prove they split the same corpus."""
    return hashlib.sha256("\n".join(sorted(names)).encode("utf-8")).hexdigest()
