#!/usr/bin/env python3
"""Compare actual operator outputs with a golden written by gen_golden.py, by the project's CANN-style
precision standard (ascend_dcn.precision: fp32 double ten-thousandth, fp16/bf16 double thousandth).

    python scripts/verify_result.py --manifest DIR/manifest.json --actual DIR2 [--forward]

DIR2 holds one raw .bin per output with the manifest's file name (e.g. grad_input.bin) in the
manifest dtype. Prints per output the error ratio, max relative error and PASS/FAIL, then a final
PASS/FAIL; exit code 0 on PASS, 1 on FAIL (also when a file is missing or has the wrong size).
"""
import argparse
import os
import sys

from ascend_dcn import golden_cases, precision  # the installed package (pip install . or -e .)


class ManifestError(Exception):
    """The manifest is missing or not one of scripts/gen_golden.py (reported without a traceback)."""


def read_manifest(manifest_path):
    try:
        manifest = golden_cases.load_manifest(manifest_path)
        manifest["outputs"]
        return manifest
    except FileNotFoundError:
        raise ManifestError(f"--manifest: {manifest_path} does not exist; write a golden case first with "
                            "`python scripts/gen_golden.py --case NAME --out DIR`") from None
    except IsADirectoryError:
        raise ManifestError(f"--manifest: {manifest_path} is a directory; give its manifest.json") from None
    except (ValueError, KeyError, TypeError) as e:
        raise ManifestError(f"--manifest: {manifest_path} is not a golden manifest of scripts/gen_golden.py "
                            f"({type(e).__name__}: {e})") from None


def verify(manifest_path, actual_dir, forward=False, out=sys.stdout):
    """Return True if every output passes; print one line per output and a final verdict."""
    manifest = read_manifest(manifest_path)
    golden_dir = os.path.dirname(os.path.abspath(manifest_path))
    entries = manifest["outputs"] + (manifest.get("forward_outputs", []) if forward else [])
    all_ok = True
    for e in entries:
        golden = golden_cases.load_bin(os.path.join(golden_dir, e["file_fp64"]), "float64", e["shape"])
        path = os.path.join(actual_dir, e["file"])
        if not os.path.exists(path):
            print(f"{e['name']}: FAIL (missing file {path})", file=out)
            all_ok = False
            continue
        try:
            actual = golden_cases.load_bin(path, e["dtype"], e["shape"])
        except ValueError as err:
            print(f"{e['name']}: FAIL ({err})", file=out)
            all_ok = False
            continue
        result = precision.check_precision(actual, golden, e["dtype"])
        print(result.summary(e["name"]), file=out)
        all_ok = all_ok and result.passed
    print(f"case {manifest.get('case')} dtype {manifest.get('dtype')}: {'PASS' if all_ok else 'FAIL'}",
          file=out)
    return all_ok


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--manifest", required=True)
    p.add_argument("--actual", required=True, help="directory with the actual output .bin files")
    p.add_argument("--forward", action="store_true", help="also compare the forward output 'out'")
    args = p.parse_args(argv)
    try:
        return 0 if verify(args.manifest, args.actual, args.forward) else 1
    except ManifestError as e:
        print(f"verify_result.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
