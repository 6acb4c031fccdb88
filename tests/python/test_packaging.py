"""Packaging facts a user relies on: one version, the true torch lower bound, the npu marker, a
plain `pytest` collecting every test directory, no sys.path manipulation in the package's tools."""
import os
import re
import subprocess
import sys

import pytest

import ascend_dcn

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _pyproject():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        return f.read()


def test_version_is_defined_once():
    text = _pyproject()
    assert re.search(r'^version\s*=', text, re.M) is None, "pyproject.toml must not repeat the version"
    assert 'dynamic = ["version"]' in text and "python/ascend_dcn/__init__.py" in text
    try:
        from importlib.metadata import version
        installed = version("ascend_dcn")
    except Exception as e:  # noqa: BLE001 - not installed as a distribution (source checkout)
        pytest.skip(f"ascend_dcn is not installed as a distribution ({e})")
    assert installed == ascend_dcn.__version__


def test_torch_lower_bound_is_the_custom_op_api():
    assert '"torch>=2.4"' in _pyproject()
    import torch
    assert hasattr(torch.library, "custom_op")   # what library.py needs (added in torch 2.4)


def test_licence_is_declared():
    assert 'license = { text = "Apache-2.0" }' in _pyproject()
    with open(os.path.join(ROOT, "LICENSE")) as f:
        assert "Apache License" in f.read(200)


def test_tools_do_not_edit_sys_path():
    """The package is found as installed (pip install . / -e .) and scripts import their siblings
    from their own directory (pytest: the pythonpath setting); nothing patches sys.path. (A
    subprocess helper of test_binding_loader imports a test module by its directory: not a tool.)"""
    offenders = []
    for d in ("scripts", "python/ascend_dcn", "tests/python", "tests"):
        for name in os.listdir(os.path.join(ROOT, d)):
            if name.endswith(".py") and name not in (os.path.basename(__file__), "test_binding_loader.py"):
                with open(os.path.join(ROOT, d, name)) as f:
                    text = f.read()
                for line in text.splitlines():   # a path to the package sources stands in for an install
                    if ("sys.path.insert" in line or "sys.path.append" in line) and "python" in line:
                        offenders.append(f"{d}/{name}: {line.strip()}")
    assert not offenders, offenders


def test_plain_pytest_collects_every_test_directory():
    text = _pyproject()
    assert 'testpaths = ["tests"]' in text          # tests/python and tests/npu, from the root
    assert re.search(r'^\s*"npu: ', text, re.M)       # the marker is registered (no unknown-mark warning)


class _Item:
    def __init__(self, marked):
        self.marked, self.added = marked, []

    def get_closest_marker(self, name):
        return object() if (self.marked and name == "npu") else None

    def add_marker(self, marker):
        self.added.append(marker)


def test_npu_marker_skips_with_the_reason_off_an_ascend_host(monkeypatch):
    import importlib.util
    spec = importlib.util.spec_from_file_location("root_conftest", os.path.join(ROOT, "tests", "conftest.py"))
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    marked, plain = _Item(True), _Item(False)
    monkeypatch.setattr(conftest, "_npu_problem", ["requires an Ascend NPU (probe: no device)"])
    conftest.pytest_collection_modifyitems(None, [marked, plain])
    assert plain.added == []
    (mark,) = marked.added
    assert mark.name == "skip" and mark.kwargs["reason"].startswith("requires an Ascend NPU")
    monkeypatch.setattr(conftest, "_npu_problem", [None])      # on an Ascend host: runs
    marked = _Item(True)
    conftest.pytest_collection_modifyitems(None, [marked])
    assert marked.added == []
    reason = conftest.NPU_SKIP_REASON
    assert reason.startswith("requires an Ascend NPU")


def test_npu_tests_skip_with_their_reason_here():
    try:
        from ascend_dcn import npu
        (npu.get_extension if hasattr(npu, "get_extension") else npu.get_opapi)()
        pytest.skip("an Ascend NPU is present: the NPU tests run instead")
    except Exception:  # noqa: BLE001
        pass
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests/npu"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode in (0, 5), r.stdout[-2000:]       # 5: every module skipped at collection
    assert "skipped" in r.stdout and "requires an Ascend NPU" in r.stdout and "failed" not in r.stdout
