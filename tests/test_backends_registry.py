"""Backend resolution: built-in module, entry point, dotted path; one-line reasons when none fits."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from onnx_conformance.harness.backends import base, registry, standard

pytestmark = pytest.mark.filterwarnings("ignore:onnx.version is deprecated:DeprecationWarning")


def test_builtins_are_found_by_module_name():
    names = registry.builtin_names()
    assert {"onnxruntime", "reference", "standard"} <= set(names) and not {"base", "registry"} & set(names)
    assert registry.load("reference", {}).name == "reference"
    assert registry.load("onnxruntime", {}).name == "onnxruntime"


def test_a_builtin_is_imported_only_when_chosen():
    code = textwrap.dedent("""
        import sys
        from onnx_conformance.harness.backends import registry
        registry.load("reference", {})
        print(sorted(m for m in sys.modules if m.startswith("onnx_conformance.harness.backends.")), "onnxruntime" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['onnx_conformance.harness.backends.base', 'onnx_conformance.harness.backends.reference', 'onnx_conformance.harness.backends.registry'] False"


def test_dotted_standard_api_module_is_wrapped():
    adapter = registry.load("onnxruntime.backend", {})
    assert isinstance(adapter, standard.StandardAdapter) and adapter.name == "onnxruntime.backend"
    by_option = registry.load("standard", {"module": "onnxruntime.backend"})
    assert by_option.name == "onnxruntime.backend"


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("nosuch", {}, "backend 'nosuch': no built-in adapter ("),
        ("os.path", {}, "backend 'os.path': os.path has no Adapter subclass and does not implement the onnx "
                        "backend API (prepare and run/run_model, or a Backend subclass)"),
        ("onnxruntime.backend:Nope", {}, "backend 'onnxruntime.backend:Nope': module onnxruntime.backend has no attribute 'Nope'"),
        ("reference", {"chek": "0"}, "backend 'reference': unknown option 'chek'; known options: check ("),
        ("standard", {}, "backend 'standard': option module=<dotted module name> is required"),
    ],
)
def test_not_found_says_why_in_one_line(name, options, message):
    with pytest.raises(registry.BackendNotFound) as info:
        registry.load(name, options)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)
    if name == "nosuch":
        assert ", ".join(registry.builtin_names()) in str(info.value)
        assert str(info.value).endswith(
            "), no entry point in group 'onnx_conformance.backends' and no importable module of that name"
        )


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    """A directory on sys.path holding third-party backends and an installed distribution's metadata."""
    (tmp_path / "thirdparty_backend.py").write_text(textwrap.dedent("""
        from onnx_conformance.harness.backends.base import Adapter

        class ThirdParty(Adapter):
            name = "thirdparty"

            @property
            def version(self):
                return "9.9"
    """))
    (tmp_path / "broken_backend.py").write_text("import no_such_dependency_xyz\n")
    dist = tmp_path / "thirdparty_backend-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: thirdparty-backend\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[onnx_conformance.backends]\n"
        "thirdparty = thirdparty_backend:ThirdParty\n"
        "thirdparty-module = thirdparty_backend\n"
        "broken = broken_backend\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for mod in ("thirdparty_backend", "broken_backend"):
        sys.modules.pop(mod, None)


def test_entry_point_to_class_or_module(plugin_dir):
    for name in ("thirdparty", "thirdparty-module"):
        adapter = registry.load(name, {"k": "v"})
        assert isinstance(adapter, base.Adapter) and adapter.name == "thirdparty" and adapter.version == "9.9"
        assert adapter.options == {"k": "v"}


def test_dotted_module_with_adapter_class(plugin_dir):
    assert registry.load("thirdparty_backend", {}).name == "thirdparty"


def test_missing_dependency_of_a_backend_is_named(plugin_dir):
    with pytest.raises(registry.BackendNotFound) as info:
        registry.load("broken", {})
    assert str(info.value) == (
        "backend 'broken': entry point broken_backend: importing it failed: "
        "module 'no_such_dependency_xyz' is not installed"
    )
    with pytest.raises(registry.BackendNotFound) as info:
        registry.load("broken_backend", {})
    assert str(info.value) == "backend 'broken_backend': importing it failed: module 'no_such_dependency_xyz' is not installed"
