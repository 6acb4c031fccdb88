"""The OpDef as registered by OP_ADD in the built operator library, and its graph-mode InferShape /
InferDataType, checked on the twin.

A small C++ probe (source below) is compiled against the twin headers and linked with the built
libcust_opapi.so (which registers DeformableConv2dBackward at load time) and libnnopbase.so. It prints
the registered declaration order, attribute kinds/defaults, dtype/format columns and SoC configs,
then runs the registered infer functions on the DOC-B example shapes. Skips (saying why) when no C++
compiler, twin headers or built libraries are available.
"""

import os
import shutil
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

PROBE = r"""
#include <cstdio>
#include <string>
#include "context_data.h"
#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "register/op_def_factory.h"

static const char *KindName(ops::OpAttrDef::Kind k) {
    switch (k) {
        case ops::OpAttrDef::Kind::BOOL: return "Bool";
        case ops::OpAttrDef::Kind::INT: return "Int";
        case ops::OpAttrDef::Kind::LIST_INT: return "ListInt";
        default: return "other";
    }
}

static void PrintShape(const char *name, const gert::Shape &s) {
    std::printf("shape %s", name);
    for (size_t i = 0; i < s.GetDimNum(); ++i) std::printf(" %lld", (long long)s.GetDim(i));
    std::printf("\n");
}

int main() {
    if (!ops::OpDefFactory::Exists("DeformableConv2dBackward")) { std::printf("missing\n"); return 2; }
    ops::OpDef op = ops::OpDefFactory::OpDefCreate("DeformableConv2dBackward");
    for (const auto &p : op.GetInputs()) {
        std::printf("input %s %d %d", p.GetParamName().GetString(), (int)p.GetParamType(), (int)p.GetAutoContiguous());
        for (auto t : p.GetDataTypes()) std::printf(" dt%d", (int)t);
        for (auto f : p.GetFormats()) std::printf(" fm%d", (int)f);
        std::printf("\n");
    }
    for (const auto &a : op.GetAttrs()) {
        std::printf("attr %s %d %s %d", a.GetName().GetString(), (int)a.IsRequired(), KindName(a.GetKind()),
                    (int)a.HasDefault());
        if (a.HasDefault() && a.GetKind() == ops::OpAttrDef::Kind::LIST_INT)
            for (auto v : a.GetDefaultListInt()) std::printf(" %lld", (long long)v);
        if (a.HasDefault() && a.GetKind() == ops::OpAttrDef::Kind::INT) std::printf(" %lld", (long long)a.GetDefaultInt());
        if (a.HasDefault() && a.GetKind() == ops::OpAttrDef::Kind::BOOL) std::printf(" %d", (int)a.GetDefaultBool());
        std::printf("\n");
    }
    for (const auto &p : op.GetOutputs()) {
        std::printf("output %s %d", p.GetParamName().GetString(), (int)p.GetParamType());
        for (auto t : p.GetDataTypes()) std::printf(" dt%d", (int)t);
        for (auto f : p.GetFormats()) std::printf(" fm%d", (int)f);
        std::printf("\n");
    }
    for (const auto &c : op.AICore().GetConfigOrder()) std::printf("config %s\n", c.GetString());
    std::printf("tiling %d\n", op.AICore().GetTiling() != nullptr);

    twin_host::ContextData ctx;
    ctx.nodeType = "DeformableConv2dBackward";
    const std::initializer_list<int64_t> shapes[5] = {{1, 6, 2, 4}, {1, 4, 2, 4}, {1, 6, 10, 20}, {4, 3, 5, 5}, {1, 75, 2, 4}};
    const ge::DataType dtypes[5] = {ge::DT_BF16, ge::DT_FLOAT16, ge::DT_BF16, ge::DT_BF16, ge::DT_BF16};
    ctx.inputs.resize(5);
    for (int i = 0; i < 5; ++i) {
        ctx.inputs[i].present = true;
        ctx.inputs[i].shape = gert::StorageShape(shapes[i], shapes[i]);
        ctx.inputs[i].desc.SetDataType(dtypes[i]);
    }
    ctx.outputs.resize(4);
    for (auto &o : ctx.outputs) o.present = true;
    ctx.InitAttrs();
    gert::InferShapeContext shapeCtx(&ctx);
    std::printf("infershape %u\n", (unsigned)op.GetInferShape()(&shapeCtx));
    const char *names[4] = {"grad_input", "grad_weight", "grad_offset", "grad_bias"};
    for (int i = 0; i < 4; ++i) PrintShape(names[i], *shapeCtx.GetOutputShape(i));
    gert::InferDataTypeContext dtypeCtx(&ctx);
    std::printf("inferdtype %u\n", (unsigned)op.GetInferDataType()(&dtypeCtx));
    for (int i = 0; i < 4; ++i) std::printf("dtype %s %d\n", names[i], (int)dtypeCtx.GetOutputDataType(i));
    return 0;
}
"""


@pytest.fixture(scope="module")
def probe_output(tmp_path_factory):
    from ascend_dcn import _backend
    try:
        opapi, runtime = _backend.twin_library_paths()
    except _backend.BackendUnavailableError as e:
        pytest.skip(f"twin libraries not built: {e}")
    cxx = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler found to build the OpDef probe")
    if not os.path.isfile(os.path.join(REPO, "twin", "src", "host", "context_data.h")):
        pytest.skip("twin sources (twin/src/host/context_data.h) not present in this checkout")
    d = tmp_path_factory.mktemp("opdef_probe")
    src = d / "probe.cpp"
    src.write_text(PROBE)
    exe = d / "probe"
    libdir = os.path.dirname(opapi)
    cmd = [cxx, "-std=c++17", "-O0", "-w", str(src), "-o", str(exe),
           "-I", os.path.join(REPO, "twin", "include"), "-I", os.path.join(REPO, "twin", "src", "host"),
           "-Wl,--no-as-needed", opapi, runtime[0], f"-Wl,-rpath,{libdir}", f"-Wl,-rpath,{os.path.dirname(runtime[0])}"]
    build = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    return [line.split() for line in run.stdout.splitlines()]


def _rows(lines, kind):
    return [l[1:] for l in lines if l[0] == kind]


DT = ["dt0", "dt1", "dt27", "dt0", "dt1", "dt27"]        # float32, float16, bfloat16 (twice)
FM_4D = ["fm0", "fm0", "fm0", "fm2", "fm2", "fm2"]       # NCHW x3, ND x3
FM_ND = ["fm2"] * 6


def test_inputs_in_order_required_autocontiguous_with_positional_dtype_format_pairs(probe_output):
    rows = _rows(probe_output, "input")
    assert [r[0] for r in rows] == ["input", "grad_output", "offset_out", "weight", "offset"]
    for r in rows:
        assert r[1] == "2" and r[2] == "1"  # REQUIRED, AutoContiguous
        assert r[3:] == DT + FM_4D


def test_attrs_in_declaration_order_with_kinds_and_defaults(probe_output):
    assert _rows(probe_output, "attr") == [
        ["kernel_size", "1", "ListInt", "0"],
        ["stride", "1", "ListInt", "0"],
        ["padding", "1", "ListInt", "0"],
        ["dilation", "1", "ListInt", "0"],
        ["groups", "0", "Int", "1", "1"],
        ["deformable_groups", "0", "Int", "1", "1"],
        ["modulated", "0", "Bool", "1", "1"],
    ]


def test_outputs_in_order_and_grad_bias_is_nd(probe_output):
    rows = _rows(probe_output, "output")
    assert [r[0] for r in rows] == ["grad_input", "grad_weight", "grad_offset", "grad_bias"]
    for r in rows[:3]:
        assert r[1] == "2" and r[2:] == DT + FM_4D
    assert rows[3][1] == "2" and rows[3][2:] == DT + FM_ND


def test_soc_configs_and_tiling(probe_output):
    assert _rows(probe_output, "config") == [["ascend910b"], ["ascend910_93"]]
    assert _rows(probe_output, "tiling") == [["1"]]


def test_infer_shape(probe_output):
    assert _rows(probe_output, "infershape") == [["0"]]
    shapes = {r[0]: [int(v) for v in r[1:]] for r in _rows(probe_output, "shape")}
    assert shapes == {"grad_input": [1, 6, 2, 4], "grad_weight": [4, 3, 5, 5], "grad_offset": [1, 75, 2, 4],
                      "grad_bias": [4]}


def test_infer_dtype_follows_input_and_grad_output(probe_output):
    assert _rows(probe_output, "inferdtype") == [["0"]]
    dtypes = {r[0]: int(r[1]) for r in _rows(probe_output, "dtype")}
    # inputs are bf16 except grad_output (fp16): grad_bias takes grad_output's dtype.
    assert dtypes == {"grad_input": 27, "grad_weight": 27, "grad_offset": 27, "grad_bias": 1}
