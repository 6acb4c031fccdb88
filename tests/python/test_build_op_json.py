"""The msOpGen op description (cmake/cann/deformable_conv2d_backward.json, the input of the msOpGen
build route) against the OpDef that op_host registers (OP_ADD), read from the twin's registry: names
and order, required/optional, dtypes, formats, attribute types and defaults must agree, so the two
cannot drift. The comparison itself is checked on altered copies of the JSON (it must report each change).
"""
import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OP_JSON = ROOT / "cmake" / "cann" / "deformable_conv2d_backward.json"

PROBE = r"""
#include <cstdio>
#include "register/op_def_factory.h"
static void Params(const char *tag, const std::deque<ops::OpParamDef> &ps) {
    for (const auto &p : ps) {
        std::printf("%s %s %d", tag, p.GetParamName().GetString(), (int)p.GetParamType());
        for (auto t : p.GetDataTypes()) std::printf(" dt%d", (int)t);
        for (auto f : p.GetFormats()) std::printf(" fm%d", (int)f);
        std::printf("\n");
    }
}
int main() {
    using K = ops::OpAttrDef::Kind;
    for (const auto &name : ops::OpDefFactory::GetAllOp()) {
        ops::OpDef op = ops::OpDefFactory::OpDefCreate(name.GetString());
        std::printf("op %s\n", name.GetString());
        Params("input", op.GetInputs());
        Params("output", op.GetOutputs());
        for (const auto &a : op.GetAttrs()) {
            std::printf("attr %s %d %d %d", a.GetName().GetString(), (int)a.IsRequired(), (int)a.GetKind(),
                        (int)a.HasDefault());
            if (a.HasDefault()) {
                if (a.GetKind() == K::INT) std::printf(" %lld", (long long)a.GetDefaultInt());
                if (a.GetKind() == K::BOOL) std::printf(" %d", (int)a.GetDefaultBool());
                if (a.GetKind() == K::LIST_INT)
                    for (auto v : a.GetDefaultListInt()) std::printf(" %lld", (long long)v);
            }
            std::printf("\n");
        }
    }
    return 0;
}
"""

DTYPES = {0: "float", 1: "float16", 27: "bfloat16", 3: "int32", 9: "int64", 2: "int8", 12: "bool"}
FORMATS = {0: "NCHW", 1: "NHWC", 2: "ND"}
PARAM_TYPES = {0: "optional", 1: "optional", 2: "required", 3: "dynamic"}
KINDS = {1: "bool", 2: "float", 3: "int", 4: "str", 5: "list_bool", 6: "list_float", 7: "list_int"}


def parse_registry(lines):
    """Probe output -> {op: {"input_desc": [...], "output_desc": [...], "attr": [...]}} in msOpGen's terms."""
    ops, cur = {}, None
    for fields in (line.split() for line in lines):
        if fields[0] == "op":
            cur = ops.setdefault(fields[1], {"input_desc": [], "output_desc": [], "attr": []})
        elif fields[0] in ("input", "output"):
            cur[fields[0] + "_desc"].append({
                "name": fields[1], "param_type": PARAM_TYPES.get(int(fields[2]), fields[2]),
                "type": [DTYPES.get(int(f[2:]), f) for f in fields[3:] if f.startswith("dt")],
                "format": [FORMATS.get(int(f[2:]), f) for f in fields[3:] if f.startswith("fm")]})
        elif fields[0] == "attr":
            kind = KINDS.get(int(fields[3]), fields[3])
            attr = {"name": fields[1], "param_type": "required" if fields[2] == "1" else "optional", "type": kind}
            if fields[4] == "1":
                values = [int(v) for v in fields[5:]]
                attr["default_value"] = (values if kind.startswith("list") else
                                         bool(values[0]) if kind == "bool" else values[0])
            cur["attr"].append(attr)
    return ops


def mismatches(op_json, registry):
    """Every difference between the msOpGen JSON and the registered OpDefs, as readable lines."""
    bad = []
    for op in op_json:
        reg = registry.get(op["op"])
        if reg is None:
            bad.append(f"{op['op']}: not registered by op_host (OP_ADD)")
            continue
        for key in ("input_desc", "output_desc"):
            ours, theirs = op.get(key, []), reg[key]
            if [p["name"] for p in ours] != [p["name"] for p in theirs]:
                bad.append(f"{key} names {[p['name'] for p in ours]} vs OpDef {[p['name'] for p in theirs]}")
                continue
            for p, q in zip(ours, theirs):
                for field in ("param_type", "type", "format"):
                    if p.get(field) != q[field]:
                        bad.append(f"{key} {p['name']}: {field} {p.get(field)} vs OpDef {q[field]}")
        ours, theirs = op.get("attr", []), reg["attr"]
        if [a["name"] for a in ours] != [a["name"] for a in theirs]:
            bad.append(f"attr names {[a['name'] for a in ours]} vs OpDef {[a['name'] for a in theirs]}")
            continue
        for a, b in zip(ours, theirs):
            for field in ("param_type", "type"):
                if a.get(field) != b[field]:
                    bad.append(f"attr {a['name']}: {field} {a.get(field)} vs OpDef {b[field]}")
            if a.get("default_value") != b.get("default_value"):
                bad.append(f"attr {a['name']}: default {a.get('default_value')} vs OpDef {b.get('default_value')}")
    return bad


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    from ascend_dcn import _backend
    try:
        opapi, runtime = _backend.twin_library_paths()
    except _backend.BackendUnavailableError as e:
        pytest.skip(f"twin libraries not built: {e}")
    cxx = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler found to build the OpDef probe")
    d = tmp_path_factory.mktemp("op_json_probe")
    (d / "probe.cpp").write_text(PROBE)
    build = subprocess.run([cxx, "-std=c++17", "-O0", "-w", str(d / "probe.cpp"), "-o", str(d / "probe"),
                            "-I", str(ROOT / "twin" / "include"), "-Wl,--no-as-needed", opapi, runtime[0],
                            f"-Wl,-rpath,{os.path.dirname(opapi)}", f"-Wl,-rpath,{os.path.dirname(runtime[0])}"],
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(d / "probe")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    return parse_registry(run.stdout.splitlines())


def test_op_json_agrees_with_the_opdef(registry):
    op_json = json.loads(OP_JSON.read_text())
    assert [op["op"] for op in op_json] == ["DeformableConv2dBackward"]
    assert mismatches(op_json, registry) == []


def test_dilation_is_required_in_both(registry):
    (op,) = json.loads(OP_JSON.read_text())
    dilation = next(a for a in op["attr"] if a["name"] == "dilation")
    assert dilation["param_type"] == "required" and "default_value" not in dilation
    assert next(a for a in registry["DeformableConv2dBackward"]["attr"] if a["name"] == "dilation") == \
        {"name": "dilation", "param_type": "required", "type": "list_int"}


def _altered(path, value):
    op_json = json.loads(OP_JSON.read_text())
    target = op_json[0]
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return op_json


@pytest.mark.parametrize("path, value, expected", [
    (("attr", 3, "param_type"), "optional", "attr dilation: param_type optional vs OpDef required"),
    (("attr", 4, "default_value"), 2, "attr groups: default 2 vs OpDef 1"),
    (("attr", 6, "type"), "int", "attr modulated: type int vs OpDef bool"),
    (("input_desc", 0, "name"), "x", "input_desc names"),
    (("input_desc", 1, "type", 2), "float", "input_desc grad_output: type"),
    (("output_desc", 3, "format", 0), "NCHW", "output_desc grad_bias: format"),
    (("output_desc", 0, "param_type"), "optional", "output_desc grad_input: param_type optional vs OpDef required"),
    (("attr", 5, "default_value"), KeyError, "attr deformable_groups: default None vs OpDef 1"),
])
def test_comparison_reports_every_kind_of_drift(registry, path, value, expected):
    bad = mismatches(_altered(path, value), registry)
    assert any(expected in line for line in bad), bad


def test_comparison_reports_an_unregistered_op(registry):
    op_json = copy.deepcopy(json.loads(OP_JSON.read_text()))
    op_json[0]["op"] = "SomethingElse"
    assert mismatches(op_json, registry) == ["SomethingElse: not registered by op_host (OP_ADD)"]
