"""A case's files read without harm: each one inside the case directory, read only so far, and each
tensor in them checked against the bytes it has before anything is allocated from it.

The rules against a hostile corpus (issue 6; ONNX's own CVE-2022-25882, CVE-2024-27318 and
CVE-2026-27489 were path traversal through external data, CVE-2026-34445 memory exhaustion through
its metadata), each broken one reported as a one-line UnsafeCase:
- every file a case names (model.onnx, test_data_set_N/*.pb, external data) resolves, symlinks
  included, inside the case directory: no absolute location, no `..`, no symlink leading out;
- every file is a regular file of at most `Limits.file_bytes`, read with a bounded read;
- every tensor's declared size is checked against the bytes actually present before anything is
  allocated from it, and against `Limits.tensor_bytes`.
safety.py walks a model for its tensors, case_data.py a case's test data; both read through CaseDir.
"""

from __future__ import annotations

import functools
import math
import os
import posixpath
import re
import stat
from dataclasses import dataclass

# One serialized protobuf message cannot exceed 2 GiB (protobuf's own limit), so no model.onnx or
# .pb file can legitimately be larger; larger weights live in external data, which the harness
# never reads for a model (the backend does, after the checks).
MAX_FILE_BYTES = 2**31 - 1
# The executor's default memory limit (run-conformance --memory-limit): one tensor larger than
# the process may hold cannot load anyway, so it is refused with a reason instead of a crash.
DEFAULT_MEMORY_LIMIT = 4 * 2**30

# Element sizes the schema cannot give (numpy has no sub-byte types). onnx.proto, TensorProto:
# "Each pair of uint4, int4, and float4 values MUST be packed as two 4-bit elements into a single
# byte"; "Each group of four uint2, int2 values MUST be packed as four 2-bit elements";
# float6 "packed 4-at-a-time into 3 bytes ... the packed byte length is ceil(6 * num_elements / 8)".
_SUB_BYTE_BITS = {"int4": 4, "uint4": 4, "float4e2m1": 4, "int2": 2, "uint2": 2,
                  "float6e2m3": 6, "float6e3m2": 6}


class UnsafeCase(Exception):
    """The case cannot be run safely; the message is one line naming the file and the problem."""


class Later(Exception):
    """CaseDir.read given `most` met a larger file and read nothing (check_model_ahead: model.onnx
    holds more than a check ahead of its case's turn keeps; the model is checked in its turn)."""


@dataclass(frozen=True)
class Limits:
    file_bytes: int = MAX_FILE_BYTES  # model.onnx and each .pb
    tensor_bytes: int = DEFAULT_MEMORY_LIMIT  # one tensor's declared size


def limits_for(memory_limit: int | None) -> Limits:
    """The tensor cap follows the executor's memory limit (none: the default cap)."""
    return Limits(tensor_bytes=memory_limit or DEFAULT_MEMORY_LIMIT)


def symlink_leaving(root: str, path: str) -> str | None:
    """The target of `path` when it is a symlink resolving outside `root`, else None."""
    if not os.path.islink(path):
        return None
    if _inside(os.path.realpath(root), os.path.realpath(path)):
        return None
    return os.readlink(path)


def size_text(n: int) -> str:
    """Byte counts as a reader takes them in: 24, 1,048,576, 2^66."""
    if n >= 2**20 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


@functools.lru_cache(maxsize=None)
def _onnx_types() -> frozenset[int]:
    """TensorProto's data types, built once: DataType.values() makes a new list on every call."""
    from onnx import TensorProto

    return frozenset(TensorProto.DataType.values())


# What check_tensor needs of an element type, looked up once per type: its lower-case name and
# its storage (sub-byte bits; else bytes per element, then the typed field it may use instead of
# raw_data). Filled as types are met; a lookup that raises is not kept, so it raises again.
_NAMES: dict[int, str] = {}
_ITEMSIZES: dict[int, int] = {}
_FIELDS: dict[int, str] = {}
EXTERNAL = 1  # TensorProto.EXTERNAL (onnx.proto's DataLocation)
_OPEN_FLAGS = (os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) |
               getattr(os, "O_NOFOLLOW", 0))


def _type_name(data_type: int) -> str:
    name = _NAMES.get(data_type)
    if name is None:
        from onnx import TensorProto

        name = _NAMES[data_type] = TensorProto.DataType.Name(data_type).lower()
    return name


def _inside(real_root: str, real_path: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def _head(rel: str, where: str) -> str:
    """How a message about a tensor starts: `rel: where `."""
    return f"{rel}: {where} " if where else f"{rel}: "


class CaseDir:
    """One case directory. Its folders are listed once each (os.scandir: the kind of every entry
    comes with the listing, no stat per file); a path all of whose components are plain folders
    and a regular file cannot lead outside, so only a path through a symlink is resolved with
    realpath, component by component, as the module's rules say."""

    def __init__(self, case_dir: str, limits: Limits):
        self.dir = os.fspath(case_dir)
        self._prefix = os.path.join(self.dir, "")  # what a plain relative path is joined to
        self._real: str | None = None
        self.limits = limits
        self._listings: dict[str, dict[str, str] | None] = {}

    @property
    def real(self) -> str:
        """The case directory's real path, resolved only when a symlink inside it must be
        judged: a path of plain folders and a regular file is opened through `dir` as listed."""
        if self._real is None:
            self._real = os.path.realpath(self.dir)
        return self._real

    # -- files -------------------------------------------------------------------------------

    def listing(self, folder: str) -> dict[str, str] | None:
        """{name: kind} of a folder of the case ('' for the case itself), kind one of file, dir,
        link, other; None when it cannot be listed."""
        if folder not in self._listings:
            kinds: dict[str, str] | None = {}
            try:
                with os.scandir(os.path.join(self.dir, folder) if folder else self.dir) as it:
                    for entry in it:  # most entries are files: one call each
                        kinds[entry.name] = ("file" if entry.is_file(follow_symlinks=False) else
                                             "dir" if entry.is_dir(follow_symlinks=False) else
                                             "link" if entry.is_symlink() else "other")
            except OSError:
                kinds = None
            self._listings[folder] = kinds
        return self._listings[folder]

    def kind(self, rel: str) -> str | None:
        """What `rel` is, when no symlink is on the way to it ('absent' when it does not exist);
        None when a symlink is (or the path is not a plain relative one): resolve it."""
        parts = rel.split("/")
        if "" in parts or "." in parts or ".." in parts:
            return None
        folder = ""
        last = len(parts) - 1
        listings = self._listings
        for i, part in enumerate(parts):
            listing = listings[folder] if folder in listings else self.listing(folder)
            if listing is None:
                return None
            kind = listing.get(part, "absent")
            if kind == "link":
                return None
            if i == last or kind != "dir":
                return kind if i == last else "absent"
            folder = f"{folder}/{part}" if folder else part
        return None

    def resolve(self, rel: str) -> str:
        """The real path of `rel` (relative to the case), refused when it resolves outside."""
        if self.kind(rel) is not None:  # no symlink on the way: it is where it says
            return self._prefix + rel
        path = os.path.join(self.dir, rel)
        real = os.path.realpath(path)
        if _inside(self.real, real):
            return real
        # Name the component that leads out: the file itself or a folder on the way.
        parts = rel.split("/")
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            if os.path.islink(os.path.join(self.dir, sub)):
                raise UnsafeCase(f"{sub} is a symlink leading outside the case directory")
        raise UnsafeCase(f"{rel} leads outside the case directory")

    def _regular(self, rel: str, shown: str | None = None) -> tuple[str, int]:
        shown = shown or rel
        real = self.resolve(rel)
        try:
            st = os.stat(real)
        except FileNotFoundError:
            raise UnsafeCase(f"{shown} missing") from None
        except OSError as e:
            raise UnsafeCase(f"{shown} cannot be read: {e.strerror}") from None
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block the reader, a device never ends
            raise UnsafeCase(f"{shown} is not a regular file")
        return real, st.st_size

    def read(self, rel: str, kind: str | None = None, most: int | None = None) -> bytes:
        """`kind`: what kind(rel) says, when the caller has it from a listing already; `most`:
        a file larger than this raises Later, unread."""
        limit = self.limits.file_bytes
        if (kind or self.kind(rel)) == "file":  # listed as a regular file: open's own fstat says its size
            real = self._prefix + rel
        else:
            real, size = self._regular(rel)
            if most is not None and size > most:
                raise Later(rel)
            if size > limit:
                raise UnsafeCase(f"{rel} is {size_text(size)} bytes, more than the "
                                 f"{size_text(limit)}-byte limit")
        # O_NONBLOCK: should the file have been swapped for a FIFO since it was listed or
        # stat'ed, open still returns at once; O_NOFOLLOW: nor may it have become a symlink.
        try:
            fd = os.open(real, _OPEN_FLAGS)
        except FileNotFoundError:
            raise UnsafeCase(f"{rel} missing") from None
        except OSError as e:
            raise UnsafeCase(f"{rel} cannot be read: {e.strerror}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise UnsafeCase(f"{rel} is not a regular file")
            if most is not None and st.st_size > most:
                raise Later(rel)
            if st.st_size > limit:
                raise UnsafeCase(f"{rel} is {size_text(st.st_size)} bytes, more than the "
                                 f"{size_text(limit)}-byte limit")
            # First what fstat says it holds and a byte more (a read of 16 MiB makes a buffer that
            # size for a file of a few bytes); should that byte come, the file grew: read on.
            data = os.read(fd, min(st.st_size + 1, 1 << 24, limit + 1))
            if len(data) == st.st_size:
                return data  # all fstat said it holds, in one read: the end, as a next read would say
            chunks, left = [data], limit + 1 - len(data)
            while left > 0:
                chunk = os.read(fd, min(left, 1 << 24))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
        data = b"".join(chunks) if len(chunks) != 1 else chunks[0]
        if len(data) > limit:
            raise UnsafeCase(f"{rel} grew past the {size_text(limit)}-byte limit while read")
        return data

    # -- tensors -----------------------------------------------------------------------------

    def check_tensor(self, t, rel: str, where: str, base: str) -> None:
        """`where` names the tensor inside `rel` ('' for a .pb file's own tensor); `base` is the
        folder its external data is relative to, relative to the case."""
        data_type = t.data_type
        if data_type == 0:  # TensorProto.UNDEFINED
            raise UnsafeCase(f"{_head(rel, where)}no data type")
        if data_type not in _onnx_types():
            raise UnsafeCase(f"{_head(rel, where)}data type {data_type} is not an ONNX type")
        dtype = _type_name(data_type)
        dims = t.dims
        if dims and min(dims) < 0:
            raise UnsafeCase(f"{_head(rel, where)}dims {list(dims)} include a negative size")
        dims = list(dims)
        if t.HasField("segment"):
            raise UnsafeCase(f"{_head(rel, where)}segmented tensors are not supported")
        count = math.prod(dims)
        external = t.data_location == EXTERNAL
        if external or t.external_data:
            location = next((e.value for e in t.external_data if e.key == "location"), None)
            if external or location is not None:
                present = self._external(t, _head(rel, where), base)
        if dtype == "string":
            if external:
                raise UnsafeCase(f"{_head(rel, where)}string tensors cannot use external data")
            held = len(t.string_data)
            if held != count:
                raise UnsafeCase(f"{_head(rel, where)}dims {dims} need {size_text(count)} strings, "
                                 f"the file holds {held}")
            return
        bits = _SUB_BYTE_BITS.get(dtype)
        if bits:
            need = -(-count * bits // 8)
        else:
            itemsize = _ITEMSIZES.get(data_type)
            if itemsize is None:
                itemsize = _ITEMSIZES[data_type] = _itemsize(data_type)
            need = count * itemsize
        if external:
            if need != present:
                raise UnsafeCase(f"{_head(rel, where)}dims {dims} need {size_text(need)} bytes, its "
                                 f"external data holds {size_text(present)}")
        elif t.HasField("raw_data"):
            if need != len(t.raw_data):
                raise UnsafeCase(f"{_head(rel, where)}dims {dims} need {size_text(need)} bytes, the file "
                                 f"holds {size_text(len(t.raw_data))}")
        else:
            field = _FIELDS.get(data_type)
            if field is None:
                field = _FIELDS[data_type] = _field(data_type)
            held = len(getattr(t, field))
            values = count * 2 if dtype.startswith("complex") else count
            if bits in (2, 4):  # int32_data carries one packed byte per entry
                values = need
            if held != values:
                raise UnsafeCase(f"{_head(rel, where)}dims {dims} need {size_text(values)} values, "
                                 f"the file holds {size_text(held)}")
        if need > self.limits.tensor_bytes:
            raise UnsafeCase(f"{_head(rel, where)}dims {dims} need {size_text(need)} bytes, more than the "
                             f"{size_text(self.limits.tensor_bytes)}-byte tensor limit")

    def _external(self, t, head: str, base: str) -> int:
        """The byte count the external data holds for `t`, after every check on its location."""
        info = {e.key: e.value for e in t.external_data}
        location = info.get("location")
        if not location:
            raise UnsafeCase(f"{head}external data has no location")
        said = f"external data location {location!r}"
        if "\x00" in location:
            raise UnsafeCase(f"{head}{said} holds a NUL byte")
        # Both separators count: a Windows-style '..\\..\\x' must not pass as one odd file name.
        portable = location.replace("\\", "/")
        if portable.startswith("/") or re.match(r"^[A-Za-z]:", portable):
            raise UnsafeCase(f"{head}{said} is absolute")
        normal = posixpath.normpath(portable)
        if normal == ".." or normal.startswith("../"):
            raise UnsafeCase(f"{head}{said} leaves the case directory")
        rel = posixpath.normpath(posixpath.join(base, normal)) if base else normal
        if rel == ".." or rel.startswith("../"):
            raise UnsafeCase(f"{head}{said} leaves the case directory")
        try:
            _, size = self._regular(rel, shown=f"external data {location!r}")
        except UnsafeCase as e:
            text = str(e)
            if "symlink leading outside" in text or "leads outside" in text:
                raise UnsafeCase(f"{head}{said} is a symlink leading outside the case "
                                 f"directory") from None
            raise UnsafeCase(head + text) from None
        numbers = {}
        for key in ("offset", "length"):
            value = info.get(key)
            if value is None:
                continue
            if not (value.isascii() and value.isdigit()):
                raise UnsafeCase(f"{head}external data {key} {value!r} is not a number")
            numbers[key] = int(value)
        offset = numbers.get("offset", 0)
        length = numbers.get("length", max(size - offset, 0))
        if offset + length > size:
            raise UnsafeCase(f"{head}external data {location!r}: offset {offset:,} + length "
                             f"{length:,} is past its end ({size:,} bytes)")
        return length


def _itemsize(data_type: int) -> int:
    from onnx import helper

    return helper.tensor_dtype_to_np_dtype(data_type).itemsize


def _field(data_type: int) -> str:
    from onnx import helper

    return helper.tensor_dtype_to_field(data_type)


def parse_size(text: str) -> int | None:
    """'4G', '512M', '1.5GiB', '1048576' -> bytes (powers of 1024); '0' -> None, no limit."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", str(text), re.IGNORECASE)
    if not m:
        raise ValueError(f"a size is a number of bytes with an optional K, M, G or T "
                         f"(4G, 512M; 0 for no limit), not {text!r}")
    scale = 1024 ** " KMGT".index(m.group(2).upper() or " ")
    return int(float(m.group(1)) * scale) or None
