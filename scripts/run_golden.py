#!/usr/bin/env python3
"""Run the operator on a golden case written by scripts/gen_golden.py and write its outputs where
scripts/verify_result.py expects them: step 2 of the golden loop

    python scripts/gen_golden.py   --case NAME --out golden/NAME [--dtype float16]   # 1. inputs + expected
    python scripts/run_golden.py   --manifest golden/NAME/manifest.json --out out/NAME   # 2. run
    python scripts/verify_result.py --manifest golden/NAME/manifest.json --actual out/NAME  # 3. compare

The operator runs through the best backend available (--backend auto): the installed vendor package
on an Ascend NPU when torch_npu, CANN and our package are present (ascend_dcn.npu.backend_info()),
else the CPU twin. Inputs are read in the manifest's dtype; the four gradients are written as raw
little-endian .bin files in that dtype, named as the manifest's "outputs" entries. With --forward the
layer's forward output "out" (ascend_dcn's forward) is written too (verify with --forward).
Exit status: 0 = outputs written; 2 = bad manifest or unavailable backend (message on stderr).
"""
import argparse
import os
import sys

import torch

from ascend_dcn import golden_cases  # the installed package (pip install . or pip install -e .)

GRAD_NAMES = ("grad_input", "grad_weight", "grad_offset", "grad_bias")


class GoldenLoopError(Exception):
    """A bad manifest or an unavailable backend (reported without a traceback)."""


def pick_backend(choice):
    """("npu" | "cpu", description). "auto" takes the NPU when the vendor package is usable."""
    if choice == "cpu":
        return "cpu", "CPU twin"
    try:
        from ascend_dcn import npu
        info = npu.backend_info()
        usable = info.get("selected_backend") == "npu"
        detail = "; ".join(info.get("problems", [])) or "no Ascend NPU / vendor package found"
    except Exception as e:  # noqa: BLE001 - any failure to find the NPU path means: no NPU
        usable, detail = False, f"{type(e).__name__}: {e}"
    if usable:
        return "npu", "NPU (installed vendor package)"
    if choice == "npu":
        raise GoldenLoopError(f"--backend npu: the NPU backend is not usable here ({detail})")
    return "cpu", "CPU twin"


def load_inputs(manifest, manifest_path, device):
    """{name: tensor in the case dtype on ``device``} from the manifest's "inputs" entries."""
    golden_dir = os.path.dirname(os.path.abspath(manifest_path))
    dtype = golden_cases.TORCH_DTYPES[manifest["dtype"]]
    tensors = {}
    for e in manifest["inputs"]:
        t = golden_cases.load_bin(os.path.join(golden_dir, e["file"]), e["dtype"], e["shape"])
        tensors[e["name"]] = t.to(device=device, dtype=dtype)
    return tensors


def run(manifest_path, out_dir, backend="auto", forward=False, log=print):
    try:
        manifest = golden_cases.load_manifest(manifest_path)
        a = manifest["attrs"]
        names = {e["name"]: e for e in manifest["outputs"]}
    except FileNotFoundError:
        raise GoldenLoopError(f"--manifest: {manifest_path} does not exist; write a golden case first with "
                           "`python scripts/gen_golden.py --case NAME --out DIR`") from None
    except (ValueError, KeyError, TypeError) as e:
        raise GoldenLoopError(f"--manifest: {manifest_path} is not a golden manifest of "
                           f"scripts/gen_golden.py ({type(e).__name__}: {e})") from None
    device, description = pick_backend(backend)
    log(f"case {manifest.get('case')} dtype {manifest['dtype']}: running on the {description}")
    x = load_inputs(manifest, manifest_path, device)
    attrs = (a["kernel_size"], a["stride"], a["padding"], a["dilation"], a["groups"],
             a["deformable_groups"], a["modulated"])
    from ascend_dcn import ops
    grads = ops.deformable_conv2d_backward(x["input"], x["grad_output"], x["offset_out"], x["weight"],
                                           x["offset"], *attrs)
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, g in zip(GRAD_NAMES, grads):
        e = names[name]
        golden_cases.save_bin(os.path.join(out_dir, e["file"]), g.cpu(), e["dtype"])
        written.append(e["file"])
    if forward:
        out, _ = torch.ops.ascend_dcn.deformable_conv2d(x["input"], x["weight"], x["offset"], x["bias"],
                                                        *attrs, True)
        e = {f["name"]: f for f in manifest["forward_outputs"]}["out"]
        golden_cases.save_bin(os.path.join(out_dir, e["file"]), out.cpu(), e["dtype"])
        written.append(e["file"])
    log(f"wrote {', '.join(written)} to {out_dir}")
    return written


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--manifest", required=True, help="manifest.json written by scripts/gen_golden.py")
    p.add_argument("--out", required=True, help="directory for the output .bin files")
    p.add_argument("--backend", default="auto", choices=["auto", "npu", "cpu"],
                   help="auto: the NPU when usable, else the CPU twin")
    p.add_argument("--forward", action="store_true", help="also write the forward output 'out'")
    args = p.parse_args(argv)
    try:
        run(args.manifest, args.out, args.backend, args.forward)
    except GoldenLoopError as e:
        print(f"run_golden.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
