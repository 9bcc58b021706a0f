"""Finds a backend adapter by name: built-in module, entry point, or dotted module path."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

from onnx_conformance.harness.backends import base

ENTRY_POINT_GROUP = "onnx_conformance.backends"

# Modules of this package that are not backends themselves (template.py is the adapter writer's
# template: it runs by its dotted path, onnx_conformance.harness.backends.template, not as a built-in).
_NOT_BACKENDS = {"base", "registry", "template"}


class BackendNotFound(LookupError):
    """The named backend cannot be loaded; the message is one line saying why."""


def load(name: str, options: dict[str, str]) -> base.Adapter:
    """Construct the adapter for `name` with `options` (from --backend-option KEY=VALUE).

    Tried in order: a module `onnx_conformance.harness.backends.<name>`, an entry point `<name>` in the
    `onnx_conformance.backends` group, then `name` as an importable module (optionally
    `module:attribute`) holding an Adapter subclass or the standard onnx Backend API.
    """
    factory = _builtin(name) or _entry_point(name) or _dotted(name)
    try:
        return factory(dict(options))
    except BackendNotFound:
        raise
    except ImportError as exc:
        raise BackendNotFound(f"backend {name!r}: {_import_failure(exc)}") from exc
    except (ValueError, TypeError) as exc:
        # Adapters reject unknown or malformed options with ValueError at construction.
        raise BackendNotFound(f"backend {name!r}: {_one_line(exc, with_type=False)}") from exc


def builtin_names() -> list[str]:
    """Names of the adapters shipped in harness/backends/, without importing them."""
    import pkgutil

    import onnx_conformance.harness.backends as package

    return sorted(
        info.name for info in pkgutil.iter_modules(package.__path__) if info.name not in _NOT_BACKENDS
    )


def scoreboard_backends() -> dict[str, dict]:
    """The built-in adapters on the committed scoreboard (update-scoreboard), in its order, each with
    its module's SCOREBOARD facts: read from the source, not imported, since a backend whose extra is
    not installed is still on the scoreboard (its run says so).

    SCOREBOARD is a literal dict: "order" (its place in the table) and, for a backend the scoreboard
    runs on one case per cell instead of every case, "sampled" (why). Its extra is
    `onnx-conformance[<name>]` and its baseline reports/<name>/expectations.txt (update-scoreboard writes it).
    """
    import onnx_conformance.harness.backends as package

    facts = {}
    for name in builtin_names():
        found = _literal(Path(package.__path__[0]) / f"{name}.py", "SCOREBOARD")
        if found is not None:
            facts[name] = found
    return dict(sorted(facts.items(), key=lambda item: (item[1].get("order", 0), item[0])))


def _literal(path: Path, name: str):
    """The value of a module's top-level `name = <literal>`, or None, without running the module."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
        if isinstance(target, ast.Name) and target.id == name and node.value is not None:
            return ast.literal_eval(node.value)
    return None


def adapter_class(module: ModuleType) -> type[base.Adapter] | None:
    """The Adapter subclass a module offers: its `Adapter`/`adapter` attribute, else the one it defines."""
    for attr in ("Adapter", "adapter"):
        candidate = getattr(module, attr, None)
        if _is_adapter_class(candidate):
            return candidate
    defined = [
        obj
        for obj in vars(module).values()
        if _is_adapter_class(obj) and obj.__module__ == module.__name__
    ]
    return defined[0] if len(defined) == 1 else None


def _builtin(name: str):
    if not name.isidentifier() or name in _NOT_BACKENDS:
        return None
    module_name = f"{__package__}.{name}"
    if importlib.util.find_spec(module_name) is None:
        return None
    module = _import(name, module_name)
    cls = adapter_class(module)
    if cls is None:
        raise BackendNotFound(f"backend {name!r}: {module_name} defines no Adapter subclass")
    return cls


def _entry_point(name: str):
    matches = [ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        return None
    entry = matches[0]
    try:
        target = entry.load()
    except ImportError as exc:
        raise BackendNotFound(f"backend {name!r}: entry point {entry.value}: {_import_failure(exc)}") from exc
    factory = _factory_for(target)
    if factory is None:
        raise BackendNotFound(
            f"backend {name!r}: entry point {entry.value} is neither an Adapter subclass "
            "nor a module exposing one"
        )
    return factory


def _dotted(name: str):
    module_name, _, attr = name.partition(":")
    if not module_name or not all(part.isidentifier() for part in module_name.split(".")):
        raise BackendNotFound(f"backend {name!r}: {_unknown(name)}")
    module = _import(name, module_name)
    target: Any = module
    if attr:
        target = getattr(module, attr, None)
        if target is None:
            raise BackendNotFound(f"backend {name!r}: module {module_name} has no attribute {attr!r}")
    factory = _factory_for(target)
    if factory is None:
        raise BackendNotFound(
            f"backend {name!r}: {name} has no Adapter subclass and does not implement the "
            "onnx backend API (prepare and run/run_model, or a Backend subclass)"
        )
    return factory


def _factory_for(target: Any):
    """An Adapter subclass, a module with one, or anything speaking the onnx Backend API."""
    if _is_adapter_class(target):
        return target
    if isinstance(target, ModuleType):
        cls = adapter_class(target)
        if cls is not None:
            return cls
    api = _standard_api(target)
    if api is None:
        return None
    from onnx_conformance.harness.backends import standard

    return lambda options: standard.StandardAdapter(options, api=api)


def _standard_api(target: Any):
    """The object whose prepare()/run_model() follow onnx.backend.base.Backend, or None."""
    if _has_backend_api(target):
        return target
    if isinstance(target, ModuleType):
        from onnx.backend.base import Backend

        classes = [
            obj
            for obj in vars(target).values()
            if inspect.isclass(obj) and issubclass(obj, Backend) and obj is not Backend
        ]
        # Prefer the class defined in the module itself over ones it merely imports.
        own = [c for c in classes if c.__module__ == target.__name__]
        chosen = own or classes
        if len(chosen) == 1:
            return chosen[0]
    return None


def _has_backend_api(target: Any) -> bool:
    # Modules export the classmethods at top level; onnxruntime.backend names run_model `run`.
    runs = callable(getattr(target, "run_model", None)) or callable(getattr(target, "run", None))
    return callable(getattr(target, "prepare", None)) and runs


def _is_adapter_class(obj: Any) -> bool:
    return inspect.isclass(obj) and issubclass(obj, base.Adapter) and obj is not base.Adapter


def _import(name: str, module_name: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        missing = getattr(exc, "name", None)
        if isinstance(exc, ModuleNotFoundError) and missing and _is_prefix(missing, module_name):
            raise BackendNotFound(f"backend {name!r}: {_unknown(name)}") from exc
        raise BackendNotFound(f"backend {name!r}: {_import_failure(exc)}") from exc


def _is_prefix(missing: str, module_name: str) -> bool:
    return module_name == missing or module_name.startswith(missing + ".")


def _unknown(name: str) -> str:
    return (
        f"no built-in adapter ({', '.join(builtin_names())}), no entry point in group "
        f"{ENTRY_POINT_GROUP!r} and no importable module of that name"
    )


def _import_failure(exc: ImportError) -> str:
    missing = getattr(exc, "name", None)
    if isinstance(exc, ModuleNotFoundError) and missing:
        return f"importing it failed: module {missing!r} is not installed"
    return f"importing it failed: {_one_line(exc)}"


def _one_line(exc: BaseException, with_type: bool = True) -> str:
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else ""
    return f"{type(exc).__name__}: {text}".rstrip(": ") if with_type else text
