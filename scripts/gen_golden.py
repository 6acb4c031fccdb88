#!/usr/bin/env python3
"""Write a named golden case for aclnnDeformableConv2dBackward: inputs and expected outputs (from the
float64 reference, in the case dtype and as float64 copies) as .bin files + manifest.json.

    python scripts/gen_golden.py --case NAME --out DIR [--dtype float32|float16|bfloat16] [--seed S]
    python scripts/gen_golden.py --list

Cases and file format: python/ascend_dcn/golden_cases.py.
"""
import argparse
import sys

from ascend_dcn import golden_cases  # the installed package (pip install . or pip install -e .)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", help="case name (see --list)")
    p.add_argument("--out", help="output directory")
    p.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--list", action="store_true", help="list the case names and exit")
    args = p.parse_args(argv)
    if args.list:
        for name, case in golden_cases.CASES.items():
            print(f"{name:20s} {case.note}")
        return 0
    if not args.case or not args.out:
        p.error("--case and --out are required (or --list)")
    if args.case not in golden_cases.CASES:
        p.error(f"--case: unknown case {args.case!r}; known: {', '.join(golden_cases.CASES)}")
    golden = golden_cases.make_golden(args.case, args.dtype, args.seed)
    path = golden_cases.write_golden(golden, args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
