"""The PrivateUse1 kernel of csrc/npu_extension.cpp registers against the schema torch.library.custom_op
gives ascend_dcn::deformable_conv2d_backward, and the dispatcher calls it with the arguments.

The syntax check (test_npu_extension_build.py) cannot see a kernel signature the dispatcher
refuses at load time (a type that does not match the schema). Here the parameter list of
``BackwardKernel`` is taken from the real source and compiled, with a body that echoes its
arguments, into a CPU-key kernel of the same op (CPU torch, no torch_npu needed); a call through
torch.ops must reach it with the values passed. Runs in a child process: the CPU kernel would
otherwise replace the op's CPU implementation for the rest of the test session.
"""
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2] / "python" / "ascend_dcn" / "csrc" / "npu_extension.cpp"


def kernel_parameters():
    text = SOURCE.read_text()
    match = re.search(r"BackwardKernel\((?P<params>[^)]*)\)\s*\{", text)
    assert match, "BackwardKernel not found in npu_extension.cpp"
    assert "TORCH_FN(ascend_dcn::BackwardKernel)" in text
    return " ".join(match["params"].split())


CHILD = textwrap.dedent("""
    import json, sys, torch
    import ascend_dcn  # defines the op
    from torch.utils.cpp_extension import load_inline
    load_inline(name="ascend_dcn_kernel_signature_check", cpp_sources=[sys.argv[1]], is_python_module=False,
                build_directory=sys.argv[2], verbose=False)
    x = torch.zeros(1)
    out = torch.ops.ascend_dcn.deformable_conv2d_backward(x, x, x, x, x, [3, 5], [1, 1, 2, 2], [1, 2, 3, 4],
                                                          [1, 1, 1, 1], 2, 4, False)
    print(json.dumps(out[1].tolist()))
""")


def test_kernel_signature_registers_and_is_called(tmp_path):
    if shutil.which("c++") is None and shutil.which("g++") is None:
        pytest.skip("no C++ compiler")
    params = kernel_parameters()
    names = re.findall(r"(\w+)\s*(?:,|$)", params)
    assert names[5:] == ["kernelSize", "stride", "padding", "dilation", "groups", "deformableGroups", "modulated"]
    source = f"""
#include <torch/extension.h>
#include <torch/library.h>
static double I(const c10::SymInt &s) {{ return double(s.expect_int()); }}
static double I(int64_t s) {{ return double(s); }}
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> Echo({params}) {{
  std::vector<double> v;
  for (const auto &l : {{kernelSize, stride, padding, dilation}})
    for (const auto &s : l) v.push_back(I(s));
  v.push_back(I(groups));
  v.push_back(I(deformableGroups));
  v.push_back(modulated ? 1.0 : 0.0);
  at::Tensor t = at::tensor(v, at::kDouble);
  return std::make_tuple(t + input.sum(), t, t, t);
}}
TORCH_LIBRARY_IMPL(ascend_dcn, CPU, m) {{ m.impl("deformable_conv2d_backward", TORCH_FN(Echo)); }}
"""
    proc = subprocess.run([sys.executable, "-c", CHILD, source, str(tmp_path)], capture_output=True, text=True,
                          timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [3, 5, 1, 1, 2, 2, 1, 2, 3, 4, 1, 1, 1, 1, 2, 4, 0]
