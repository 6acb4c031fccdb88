"""The peers' own deform-conv test suites, run against ascend_dcn.

torchvision's TestDeformConv (test/test_ops.py, with its common_utils.py, conftest.py and
optests_failures_dict.json) and mmcv's tests/test_ops/test_deform_conv.py and
test_modulated_deform_conv.py run unchanged — their references, expected values and assertions —
with torchvision.ops.deform_conv2d / DeformConv2d and mmcv.ops.* bound to ours by the plugin
tests/python/peer_shims/ascend_dcn_peer_plugin.py (which also points torchvision's opcheck tests at
the ascend_dcn op namespace). Every CPU case must pass; CUDA/MLU/MUSA cases skip with the peers'
own reasons.

Their code is never part of this repository: set ASCEND_DCN_PEER_TESTS to a directory holding
  vision/test/{test_ops.py, common_utils.py, conftest.py, optests_failures_dict.json}   (pytorch/vision)
  mmcv/tests/test_ops/{test_deform_conv.py, test_modulated_deform_conv.py}            (open-mmlab/mmcv)
Without it these tests skip, saying so.
"""
import os
import re
import subprocess
import sys

import pytest

PEER_DIR_ENV = "ASCEND_DCN_PEER_TESTS"
SHIMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer_shims")

SUITES = {
    # name: (directory under $ASCEND_DCN_PEER_TESTS, files, -k expression, CPU cases that must pass)
    "torchvision": ("vision/test", ["test_ops.py"], "TestDeformConv", 31),
    "mmcv": ("mmcv/tests/test_ops", ["test_deform_conv.py", "test_modulated_deform_conv.py"], None, 4),
}


def _peer_dir():
    root = os.environ.get(PEER_DIR_ENV)
    if not root:
        pytest.skip(f"{PEER_DIR_ENV} is not set: it must name a directory holding the peers' test files "
                    "(see this file's docstring); their code is not part of this repository")
    return root


def _run_suite(name):
    subdir, files, keyword, expected_passed = SUITES[name]
    where = os.path.join(_peer_dir(), subdir)
    missing = [f for f in files if not os.path.isfile(os.path.join(where, f))]
    if missing:
        pytest.skip(f"{PEER_DIR_ENV}={os.environ[PEER_DIR_ENV]} has no {subdir}/{', '.join(missing)}")
    cmd = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "ascend_dcn_peer_plugin",
           "-p", "no:cacheprovider", *files]
    if keyword:
        cmd += ["-k", keyword]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SHIMS, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(cmd, cwd=where, env=env, capture_output=True, text=True, timeout=1200)
    out = proc.stdout + proc.stderr
    summary = out.strip().splitlines()[-1] if out.strip() else ""
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|error|errors|skipped)", summary)}
    assert proc.returncode == 0 and counts.get("failed", 0) == 0, out[-6000:]
    assert counts.get("passed", 0) == expected_passed, out[-6000:]
    # every skip is a device the machine does not have, or (torchvision) an op of theirs we do not ship
    for reason in re.findall(r"SKIPPED \[\d+\] [^:]+:\d+: (.*)", out):
        assert re.search(r"CUDA|GPU|MLU|MUSA|MPS|Can't import operator torchvision::roi_", reason), reason
    return counts


def test_torchvision_test_deform_conv_passes_on_ascend_dcn():
    _run_suite("torchvision")


def test_mmcv_deform_conv_tests_pass_on_ascend_dcn_mmcv():
    _run_suite("mmcv")
