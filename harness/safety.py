"""Checks a case before anything reads it in earnest, so a hostile corpus costs only its own cases.

What a case may do, and the one-line reason when it does not (issue 6; ONNX's own CVE-2022-25882,
CVE-2024-27318 and CVE-2026-27489 were path traversal through external data, CVE-2026-34445 memory
exhaustion through its metadata):
- every file it names (model.onnx, test_data_set_N/*.pb, external data) resolves, symlinks
  included, inside the case directory: no absolute location, no `..`, no symlink leading out;
- every file is a regular file of at most `Limits.file_bytes`, read with a bounded read;
- every tensor's declared size is checked against the bytes actually present before anything is
  allocated from it, and against `Limits.tensor_bytes`;
- the test data matches the model: one file per declared input and output, numbered 0..N-1, each
  input of the declared element type and static shape.
Files are parsed with protobuf only: nothing in a corpus is evaluated or unpickled.
The executor checks model.onnx (and the tensors it holds) before the backend loads it, and the test
data before the backend runs it, once the model loaded (check_model): a case its backend cannot load
reads no test data. The models of a batch of cases are checked back to back before its first case
runs (check_model_ahead), each held until its case's turn.
"""

from __future__ import annotations

import functools
import math
import os
import posixpath
import re
import stat
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from onnx_conformance.harness.layout import EXPECT_ERROR, MODEL, NUMBERED, SET_FILES, numbered

# One serialized protobuf message cannot exceed 2 GiB (protobuf's own limit), so no model.onnx or
# .pb file can legitimately be larger; larger weights live in external data, which the harness
# never reads for a model (the backend does, after the checks below).
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
    """check_model_ahead: model.onnx holds more than a check ahead of its case's turn keeps; the
    model is checked in its turn instead."""


# The most bytes of model.onnx check_model_ahead reads: a batch's models checked ahead are held
# until their cases run, so the executor stops checking ahead once they hold more than this (the
# rest are checked in their turn). A model up to this size keeps its bytes, for a backend that
# loads a model from memory (CheckedModel.data).
AHEAD_BYTES = 1 << 20


class CheckedModel(NamedTuple):
    """model.onnx once every check passed: the ModelProto (external data not loaded), the test-data
    half of the checks (`check_data(kind, parsed)`), and the very bytes checked, for a model of at
    most AHEAD_BYTES that holds no external data (None otherwise: that model loads from its path,
    where its external data is found, and a large one is not held twice)."""
    model: Any
    check_data: Callable[..., None]
    data: bytes | None


@dataclass(frozen=True)
class Limits:
    file_bytes: int = MAX_FILE_BYTES  # model.onnx and each .pb
    tensor_bytes: int = DEFAULT_MEMORY_LIMIT  # one tensor's declared size


def limits_for(memory_limit: int | None) -> Limits:
    """The tensor cap follows the executor's memory limit (none: the default cap)."""
    return Limits(tensor_bytes=memory_limit or DEFAULT_MEMORY_LIMIT)


def check_case(case_dir: str, kind: str | None = None, limits: Limits = Limits(),
               parsed: dict | None = None):
    """The case's ModelProto (external data not loaded) once every check passed; UnsafeCase if not.

    `parsed`, when given, receives each test-data TensorProto as checked, by its path in the case
    ("test_data_set_0/input_0.pb"), and under layout.SET_FILES each test_data_set_N's name with
    its input and output file names in order: what runs is then the bytes checked, from the
    listings checked (corpus.data_sets)."""
    checked = check_model(case_dir, limits)
    checked.check_data(kind, parsed)
    return checked.model


def check_model(case_dir: str, limits: Limits = Limits()) -> CheckedModel:
    """check_case in two halves, so a backend may load a model before its test data is read:
    the ModelProto, once model.onnx and every tensor it holds passed (UnsafeCase if not), and
    `check_data(kind, parsed)`, the test-data half, raising UnsafeCase as check_case does
    (CheckedModel). The folders are listed once for both halves."""
    return _check_model(_CaseDir(case_dir, limits))


def check_model_ahead(case_dir: str, limits: Limits = Limits(), most: int = AHEAD_BYTES) -> CheckedModel:
    """check_model for a case whose turn has not come yet: the executor checks the models of a
    batch of cases back to back, while the checks' code and data are in the caches, rather than
    each between two of the backend's session creations, which evict them. The case's
    test_data_set_N folders are listed too (listed only: no test data is read before its model
    loads). Raises Later, having read nothing, for a model.onnx of more than `most` bytes."""
    case = _CaseDir(case_dir, limits)
    checked = _check_model(case, most)
    for name, kind in (case._listing("") or {}).items():
        if kind == "dir" and name.startswith("test_data_set_"):
            case._listing(name)
    return checked


def _check_model(case: _CaseDir, most: int | None = None) -> CheckedModel:
    model, data = case.model(most)
    for where, tensor in _model_tensors(model):
        case.check_tensor(tensor, MODEL, where, "")
        if tensor.data_location == _EXTERNAL:
            data = None

    def check_data(kind: str | None = None, parsed: dict | None = None) -> None:
        case.parsed = parsed
        case.check_data_sets(model, expect_error=kind == EXPECT_ERROR)

    return CheckedModel(model, check_data, data)


def read_model(case_dir: str, limits: Limits = Limits()):
    """model.onnx parsed with the size and symlink checks only (for reading a case's facts)."""
    return _CaseDir(case_dir, limits).model()[0]


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
_EXTERNAL = 1  # TensorProto.EXTERNAL (onnx.proto's DataLocation)
_OPEN_FLAGS = (os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) |
               getattr(os, "O_NOFOLLOW", 0))
_ONNX = None  # the onnx module, imported on first use (importing this module stays light)


def _onnx():
    global _ONNX
    if _ONNX is None:
        import onnx

        _ONNX = onnx
    return _ONNX


def _type_name(data_type: int) -> str:
    name = _NAMES.get(data_type)
    if name is None:
        name = _NAMES[data_type] = _onnx().TensorProto.DataType.Name(data_type).lower()
    return name


def _inside(real_root: str, real_path: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def _head(rel: str, where: str) -> str:
    """How a message about a tensor starts: `rel: where `."""
    return f"{rel}: {where} " if where else f"{rel}: "


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class _CaseDir:
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
        self.parsed: dict | None = None  # where check_case keeps each checked tensor

    @property
    def real(self) -> str:
        """The case directory's real path, resolved only when a symlink inside it must be
        judged: a path of plain folders and a regular file is opened through `dir` as listed."""
        if self._real is None:
            self._real = os.path.realpath(self.dir)
        return self._real

    # -- files -------------------------------------------------------------------------------

    def _listing(self, folder: str) -> dict[str, str] | None:
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

    def _kind(self, rel: str) -> str | None:
        """What `rel` is, when no symlink is on the way to it ('absent' when it does not exist);
        None when a symlink is (or the path is not a plain relative one): resolve it."""
        parts = rel.split("/")
        if "" in parts or "." in parts or ".." in parts:
            return None
        folder = ""
        last = len(parts) - 1
        listings = self._listings
        for i, part in enumerate(parts):
            listing = listings[folder] if folder in listings else self._listing(folder)
            if listing is None:
                return None
            kind = listing.get(part, "absent")
            if kind == "link":
                return None
            if i == last or kind != "dir":
                return kind if i == last else "absent"
            folder = f"{folder}/{part}" if folder else part
        return None

    def _resolve(self, rel: str) -> str:
        """The real path of `rel` (relative to the case), refused when it resolves outside."""
        if self._kind(rel) is not None:  # no symlink on the way: it is where it says
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
        real = self._resolve(rel)
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
        """`kind`: what _kind(rel) says, when the caller has it from a listing already; `most`:
        a file larger than this raises Later, unread."""
        limit = self.limits.file_bytes
        if (kind or self._kind(rel)) == "file":  # listed as a regular file: open's own fstat says its size
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

    def model(self, most: int | None = None):
        """(the ModelProto, and the bytes it was parsed from when they are at most AHEAD_BYTES)."""
        import onnx

        data = self.read(MODEL, most=most)
        if not data:
            raise UnsafeCase(f"{MODEL} is empty")
        model = onnx.ModelProto()
        try:
            model.ParseFromString(data)
        except Exception:  # DecodeError, or recursion too deep: the same thing to a reader
            raise UnsafeCase(f"{MODEL}: truncated or not an ONNX model") from None
        if not model.HasField("graph"):
            raise UnsafeCase(f"{MODEL}: not an ONNX model (no graph)")
        return model, data if len(data) <= AHEAD_BYTES else None

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
        external = t.data_location == _EXTERNAL
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

    # -- test data ---------------------------------------------------------------------------

    def check_data_sets(self, model, expect_error: bool) -> None:
        graph = model.graph
        initialized = {t.name for t in graph.initializer}
        declared = list(graph.input)
        required = [v for v in declared if v.name not in initialized]
        top = self._listing("")
        listed = None
        if self.parsed is not None:
            listed = self.parsed[SET_FILES] = []
        graph_outputs = list(graph.output)
        check_type = not expect_error
        for set_name in numbered(top if top is not None else os.listdir(self.dir), "test_data_set_"):
            kind = self._kind(set_name)
            plain = None  # the set folder's listing, when no symlink leads to it
            if kind == "dir":
                plain = self._listing(set_name)
                files = list(plain or ())
            else:
                real = self._resolve(set_name)
                if not os.path.isdir(real):
                    raise UnsafeCase(f"{set_name} is not a directory")
                files = os.listdir(real)
            inputs, outputs = self._split(set_name, files)
            if not required_count_ok(len(inputs), len(required), len(declared)):
                n = len(required) if len(inputs) < len(required) else len(declared)
                raise UnsafeCase(f"{MODEL} declares {_plural(n, 'input')}, {set_name} has "
                                 f"{_plural(len(inputs), 'input file')}")
            if len(outputs) > len(graph_outputs):
                raise UnsafeCase(f"{MODEL} declares {_plural(len(graph_outputs), 'output')}, "
                                 f"{set_name} has {_plural(len(outputs), 'output file')}")
            if len(outputs) < len(graph_outputs) and not expect_error:
                raise UnsafeCase(f"{set_name}/output_{len(outputs)}.pb missing")
            for k, name in enumerate(inputs):
                self._check_value(f"{set_name}/{name}", set_name,
                                  required[k] if k < len(required) else declared[k],
                                  "input", check_type, plain and plain.get(name))
            for k, name in enumerate(outputs):
                self._check_value(f"{set_name}/{name}", set_name, graph_outputs[k], "output",
                                  check_type, plain and plain.get(name))
            if listed is not None:
                listed.append((set_name, inputs, outputs))

    def _split(self, set_name: str, files) -> tuple[list[str], list[str]]:
        """A test_data_set_N's input and output files, each in number order (one pass over the
        listing; `_files` says what is wrong with either)."""
        inputs, outputs = [], []
        for n in files:
            m = NUMBERED.match(n)
            if m:
                if n.startswith("input_"):
                    inputs.append((int(m.group(1)), n))
                elif n.startswith("output_"):
                    outputs.append((int(m.group(1)), n))
        inputs.sort()
        outputs.sort()
        if any(number != k for k, (number, _) in enumerate(inputs)):
            self._files(set_name, files, "input")
        if any(number != k for k, (number, _) in enumerate(outputs)):
            self._files(set_name, files, "output")
        return [n for _, n in inputs], [n for _, n in outputs]

    def _files(self, set_name: str, files: list[str], prefix: str) -> list[str]:
        """input_0.pb .. input_{N-1}.pb in order; a gap or a duplicate number is an error."""
        names = numbered(files, prefix + "_")
        numbers = [int(re.search(r"_(\d+)", n).group(1)) for n in names]
        for k, (number, name) in enumerate(zip(numbers, names)):
            if number != k:
                if k and numbers[k - 1] == number:
                    raise UnsafeCase(f"{set_name} has two files for {prefix} {number}: "
                                     f"{names[k - 1]} and {name}")
                raise UnsafeCase(f"{set_name}/{prefix}_{k}.pb missing")
        return names

    def _check_value(self, rel: str, set_name: str, value_info, role: str,
                     check_type: bool, listed: str | None = None) -> None:
        """`listed`: the file's kind in its set folder's listing, when no symlink leads there."""
        onnx = _onnx()
        value_type = value_info.type
        kind = value_type.WhichOneof("value")
        proto = (onnx.TensorProto if kind == "tensor_type" else
                 {"sequence_type": onnx.SequenceProto, "optional_type": onnx.OptionalProto,
                  "map_type": onnx.MapProto}.get(kind, onnx.TensorProto))
        data = self.read(rel, listed)
        if not data and proto is onnx.TensorProto:
            raise UnsafeCase(f"{rel} is empty")
        value = proto()
        try:
            value.ParseFromString(data)
        except Exception:
            raise UnsafeCase(f"{rel}: truncated or not a {proto.__name__}") from None
        if proto is not onnx.TensorProto:
            for where, tensor in _value_tensors(value, ""):
                self.check_tensor(tensor, rel, where.strip(), set_name)
            return
        self.check_tensor(value, rel, "", set_name)
        if self.parsed is not None:
            self.parsed[rel] = value
        if not check_type or kind != "tensor_type":
            return
        declared = value_type.tensor_type
        want = declared.elem_type
        if want and value.data_type != want:
            got = onnx.TensorProto.DataType.Name(value.data_type).lower()
            raise UnsafeCase(f"{rel}: {got} tensor, the model's {role} {value_info.name!r} is "
                             f"{onnx.TensorProto.DataType.Name(want).lower()}")
        if role == "input" and declared.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else None
                    for d in declared.shape.dim]
            got = list(value.dims)
            if len(dims) != len(got) or [g if d is None else d for d, g in zip(dims, got)] != got:
                shown = [d if d is not None else (s.dim_param or "?")
                         for d, s in zip(dims, declared.shape.dim)]
                raise UnsafeCase(f"{rel}: shape {got}, the model's {role} "
                                 f"{value_info.name!r} is {shown}".replace("'?'", "?"))


def required_count_ok(files: int, required: int, declared: int) -> bool:
    """input_k feeds the k-th graph input that has no initializer; inputs with one may be fed."""
    return required <= files <= declared


def _itemsize(data_type: int) -> int:
    from onnx import helper

    return helper.tensor_dtype_to_np_dtype(data_type).itemsize


def _field(data_type: int) -> str:
    from onnx import helper

    return helper.tensor_dtype_to_field(data_type)


def _model_tensors(model):
    """(where, TensorProto) for every tensor the model holds, subgraphs and functions included."""
    yield from _graph_tensors(model.graph, "")
    for f in model.functions:
        for node in f.node:
            yield from _node_tensors(node, f"function '{f.name}' > ")


def _graph_tensors(graph, prefix: str):
    for t in graph.initializer:
        yield f"{prefix}initializer {t.name!r}", t
    for s in graph.sparse_initializer:
        yield f"{prefix}sparse initializer {s.values.name!r}", s.values
        yield f"{prefix}sparse initializer {s.values.name!r} indices", s.indices
    for node in graph.node:
        yield from _node_tensors(node, prefix)


# AttributeProto's types that hold tensors or graphs (onnx.proto); an attribute of another type
# is still looked into, should its file set a tensor or graph field all the same.
_TENSOR, _GRAPH, _SPARSE_TENSOR = 4, 5, 11


def _node_tensors(node, prefix: str):
    for a in node.attribute:
        kind = a.type
        t, g, sparse = (kind == _TENSOR or a.HasField("t"), kind == _GRAPH or a.HasField("g"),
                        kind == _SPARSE_TENSOR or a.HasField("sparse_tensor"))
        if not (t or g or sparse or a.tensors or a.sparse_tensors or a.graphs):
            continue  # the names below are built only for an attribute that holds something
        where = f"{prefix}node {(node.name or node.op_type)!r} attribute {a.name!r}"
        if t:
            yield where, a.t
        for i, tensor in enumerate(a.tensors):
            yield f"{where}[{i}]", tensor
        if sparse:
            yield where, a.sparse_tensor.values
            yield f"{where} indices", a.sparse_tensor.indices
        for i, s in enumerate(a.sparse_tensors):
            yield f"{where}[{i}]", s.values
            yield f"{where}[{i}] indices", s.indices
        if g:
            yield from _graph_tensors(a.g, f"{where} > ")
        for i, graph in enumerate(a.graphs):
            yield from _graph_tensors(graph, f"{where}[{i}] > ")


def _value_tensors(value, where: str):
    """The tensors inside a SequenceProto, MapProto or OptionalProto, however deeply nested."""
    import onnx

    if isinstance(value, onnx.TensorProto):
        yield where, value
    elif isinstance(value, onnx.SparseTensorProto):
        yield where, value.values
        yield f"{where} indices", value.indices
    elif isinstance(value, onnx.SequenceProto):
        for field in ("tensor_values", "sparse_tensor_values", "sequence_values",
                      "map_values", "optional_values"):
            for i, v in enumerate(getattr(value, field)):
                yield from _value_tensors(v, f"{where} element {i}")
    elif isinstance(value, onnx.MapProto):
        yield from _value_tensors(value.values, f"{where} values")
    elif isinstance(value, onnx.OptionalProto):
        for field in ("tensor_value", "sparse_tensor_value", "sequence_value", "map_value",
                      "optional_value"):
            if value.HasField(field):
                yield from _value_tensors(getattr(value, field), where)


def parse_size(text: str) -> int | None:
    """'4G', '512M', '1.5GiB', '1048576' -> bytes (powers of 1024); '0' -> None, no limit."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", str(text), re.IGNORECASE)
    if not m:
        raise ValueError(f"a size is a number of bytes with an optional K, M, G or T "
                         f"(4G, 512M; 0 for no limit), not {text!r}")
    scale = 1024 ** " KMGT".index(m.group(2).upper() or " ")
    return int(float(m.group(1)) * scale) or None
