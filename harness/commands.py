"""The options that are commands instead of a run (--list-backends, --check-adapter), started by run-conformance or by the plugin."""

from __future__ import annotations

from pathlib import Path


def wanted(values) -> bool:
    """Whether the options (`values`: a dest's value) ask for a command rather than a run."""
    return bool(values("list_backends") or values("check_adapter"))


def run(settings) -> int:
    """The command's exit code; nothing of a run is read or written (no corpus, no results), except the
    probes --check-adapter writes under REPORT_DIR/check-adapter."""
    if settings.list_backends:
        from onnx_conformance.harness import backend_list

        return backend_list.main()
    from onnx_conformance.harness import adapter_check
    from onnx_conformance.harness.results import report_dir_for

    report_dir = Path(settings.report_dir) if settings.report_dir else report_dir_for(settings.backend)
    return adapter_check.main(settings, report_dir.resolve())
