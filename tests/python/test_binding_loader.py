"""The Ascend-host load path of ascend_dcn._C, exercised with the twin's libraries standing in for CANN's.

On an Ascend host the binding dlopens CANN's runtime libraries (RTLD_GLOBAL) and then the installed
vendor package's ``vendors/<vendor>/op_api/lib/libcust_opapi.so``. Here the twin's
``libnnopbase.so`` plays CANN's runtime and the twin-built ``libcust_opapi.so`` plays the vendor
package: both are copied into such a directory layout and loaded by path in a fresh Python process
(so that no other copy of the libraries is already mapped), which then runs the DOC-B example and
checks that the libraries actually mapped are the copies. Loader error messages are checked too.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest


def _native():
    from ascend_dcn import _backend
    try:
        ext = _backend.load_extension()
        opapi, runtime = _backend.twin_library_paths()
    except _backend.BackendUnavailableError as e:
        pytest.skip(f"native pieces not built: {e}")
    return ext, opapi, runtime[0]


@pytest.fixture()
def vendor_layout(tmp_path):
    _, opapi, runtime = _native()
    vendor_lib = tmp_path / "opp" / "vendors" / "dcn_test_vendor" / "op_api" / "lib"
    runtime_lib = tmp_path / "cann" / "lib64"
    vendor_lib.mkdir(parents=True)
    runtime_lib.mkdir(parents=True)
    shutil.copy2(opapi, vendor_lib / "libcust_opapi.so")
    shutil.copy2(runtime, runtime_lib / "libnnopbase.so")
    return str(vendor_lib / "libcust_opapi.so"), str(runtime_lib / "libnnopbase.so")


CHILD = textwrap.dedent("""
    import json, sys, torch
    from ascend_dcn import _backend, ops
    sys.path.insert(0, {tests_dir!r})
    from test_aclnn_entry import make_case, golden, _outputs_like
    from ascend_dcn.precision import check_precision
    opapi_path, runtime_path = {opapi!r}, {runtime!r}
    ext = _backend.load_extension()
    api = ext.OpApi(opapi_path, [runtime_path])
    inputs, attrs = make_case()
    outputs = _outputs_like(inputs)
    size, executor = ops.get_workspace_size(*inputs, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                            attrs["dilation"], attrs["groups"], attrs["deformable_groups"],
                                            attrs["modulated"], *outputs, opapi=api)
    workspace = torch.empty(size, dtype=torch.uint8)
    ops.execute(workspace, size, executor, opapi=api)
    passed = [bool(check_precision(o, g, torch.float32)) for o, g in zip(outputs, golden(inputs, attrs))]
    maps = open("/proc/self/maps").read()
    libs = sorted({{line.split()[-1] for line in maps.splitlines()
                    if line.split()[-1].endswith(("libcust_opapi.so", "libnnopbase.so"))}})
    print(json.dumps({{"passed": passed, "libs": libs, "is_twin": api.is_twin,
                       "opapi": api.opapi_path, "runtime": api.runtime_paths}}))
""")


def test_vendor_layout_load_and_run(vendor_layout):
    opapi, runtime = vendor_layout
    tests_dir = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env.pop("ASCEND_DCN_TWIN_LIB_DIR", None)  # the child must not need the twin's own location
    ext_dir = os.path.dirname(sys.modules["ascend_dcn._C"].__file__)
    env.setdefault("ASCEND_DCN_EXT_DIR", ext_dir)
    pkg_parent = os.path.dirname(os.path.dirname(sys.modules["ascend_dcn"].__file__))
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent, env.get("PYTHONPATH", "")])
    script = CHILD.format(tests_dir=tests_dir, opapi=opapi, runtime=runtime)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["passed"] == [True, True, True, True]
    assert result["opapi"] == opapi and result["runtime"] == [runtime]
    assert result["is_twin"]  # the twin runtime exports twinSetPlatform; CANN's does not
    expected = sorted(os.path.realpath(p) for p in (opapi, runtime))
    assert sorted(os.path.realpath(p) for p in result["libs"]) == expected, result["libs"]


def test_missing_op_library_names_the_path(tmp_path):
    ext, _, runtime = _native()
    missing = str(tmp_path / "vendors" / "x" / "op_api" / "lib" / "libcust_opapi.so")
    with pytest.raises(RuntimeError, match="cannot load operator") as info:
        ext.OpApi(missing, [runtime])
    assert missing in str(info.value)


def test_missing_runtime_library_names_the_path(tmp_path):
    ext, opapi, _ = _native()
    missing = str(tmp_path / "lib64" / "libascendcl.so")
    with pytest.raises(RuntimeError, match="cannot load runtime") as info:
        ext.OpApi(opapi, [missing])
    assert missing in str(info.value)


def test_library_without_the_operator_symbols_is_rejected():
    ext, _, runtime = _native()
    with pytest.raises(RuntimeError, match="does not export aclnnDeformableConv2dBackwardGetWorkspaceSize"):
        ext.OpApi(runtime, [runtime])


def test_malformed_tensor_description_is_a_value_error():
    ext, opapi, runtime = _native()
    api = ext.OpApi(opapi, [runtime])
    good = (0, [4], [1], "float32", "ND")
    with pytest.raises(ValueError, match="unknown dtype name"):
        ext.check_backward_args([good] * 5, [[1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], 1, 1, True],
                                [(0, [4], [1], "complex64", "ND")] * 4)
    with pytest.raises(ValueError, match="expected 5 inputs"):
        api.get_workspace_size([good] * 4, [None] * 7, [good] * 4)
    with pytest.raises(ValueError, match="same length"):
        api.get_workspace_size([(0, [4, 4], [1], "float32", "ND")] * 5,
                               [[1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], 1, 1, True], [good] * 4)
    attrs_ok = [[1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], 1, 1, True]
    with pytest.raises(ValueError, match="input: data_ptr is 0"):
        api.get_workspace_size([good] * 5, attrs_ok, [good] * 4)
    good = (1 << 12, [4], [1], "float32", "ND")  # never dereferenced: the call stops at the first error
    with pytest.raises(ValueError, match="kernelSize: must be a sequence of ints"):
        api.get_workspace_size([good] * 5, [[1.5, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], 1, 1, True],
                               [good] * 4)
    with pytest.raises(ValueError, match="groups: must be an int"):
        api.get_workspace_size([good] * 5, [[1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], "2", 1, True],
                               [good] * 4)
