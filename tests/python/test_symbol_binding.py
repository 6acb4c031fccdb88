"""Which aclnnDeformableConv2dBackward the loader binds (docs/optype-collision.md).

CANN's libopapi.so exports a built-in aclnnDeformableConv2dBackward[GetWorkspaceSize] of the same
name as ours, and on an Ascend host it is loaded globally (torch_npu's op-plugin loads it). A decoy
library exporting both names is loaded RTLD_GLOBAL first, the way it would be there; then the
loader used by ascend_dcn._C and by the torch_npu extension (OpApiLibrary: dlopen RTLD_LOCAL of our
libcust_opapi.so by path + dlsym on that handle) must still bind and call ours: the decoy's status
codes never appear, the results are right, and dladdr names our library as the symbol's file.
A by-name lookup in the global scope (what a name-based resolver would do) finds the decoy.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from ascend_dcn import _backend

DECOY = textwrap.dedent("""
    #include <cstdint>
    extern "C" int aclnnDeformableConv2dBackwardGetWorkspaceSize(...) { return 999001; }
    extern "C" int aclnnDeformableConv2dBackward(void *, uint64_t, void *, void *) { return 999002; }
""")

CHILD = textwrap.dedent("""
    import ctypes, json, os, sys, torch
    decoy = ctypes.CDLL({decoy!r}, mode=ctypes.RTLD_GLOBAL)   # CANN's libopapi.so stand-in, global
    from ascend_dcn import _backend, ops
    sys.path.insert(0, {tests_dir!r})
    from test_aclnn_entry import make_case, golden, _outputs_like
    from ascend_dcn.precision import check_precision
    ext = _backend.load_extension()
    opapi, runtime = _backend.twin_library_paths()
    api = ext.OpApi(opapi, runtime)
    inputs, attrs = make_case()
    outputs = _outputs_like(inputs)
    size, executor = ops.get_workspace_size(*inputs, attrs["kernel_size"], attrs["stride"], attrs["padding"],
                                            attrs["dilation"], attrs["groups"], attrs["deformable_groups"],
                                            attrs["modulated"], *outputs, opapi=api)
    ops.execute(torch.empty(size, dtype=torch.uint8), size, executor, opapi=api)
    passed = [bool(check_precision(o, g, torch.float32)) for o, g in zip(outputs, golden(inputs, attrs))]
    glob = ctypes.CDLL(None).aclnnDeformableConv2dBackward
    glob.restype = ctypes.c_int
    glob.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p]
    print(json.dumps({{"passed": passed, "bound_file": api.execute_symbol_file, "ours": os.path.realpath(opapi),
                      "global_by_name_status": glob(None, 0, None, None)}}))
""")


def test_loader_binds_our_library_even_with_a_global_builtin_of_the_same_name(tmp_path):
    try:
        _backend.load_extension()
        _backend.twin_library_paths()
    except _backend.BackendUnavailableError as exc:
        pytest.skip(f"the twin's libraries are not built here: {exc}")
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        pytest.skip(f"no C++ compiler ({cxx}) to build the decoy libopapi.so")
    (tmp_path / "decoy.cpp").write_text(DECOY)
    decoy = tmp_path / "libopapi.so"
    subprocess.run([cxx, "-shared", "-fPIC", "-o", str(decoy), str(tmp_path / "decoy.cpp")], check=True)
    tests_dir = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, "-c", CHILD.format(decoy=str(decoy), tests_dir=tests_dir)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["global_by_name_status"] == 999002, "the decoy is what a by-name lookup finds"
    assert result["passed"] == [True, True, True, True], "our operator ran, not the decoy"
    assert result["bound_file"] == result["ours"] != str(decoy)
