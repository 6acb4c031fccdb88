"""The benchmark suite of landscape.md §5 (realistic DCN layers) as GoldenCase rows, full size.

Used by tests/npu only when ASCEND_DCN_NPU_FULL_SUITE=1 (the float64 CPU reference of the
largest rows takes minutes and several GiB). Columns: N, Cin, Cout, H, W, stride, groups, dg.
"""
from ascend_dcn.golden_cases import GoldenCase


def _row(N, Cin, Cout, H, W, s=1, g=1, dg=1, note=""):
    return GoldenCase(N, Cin, Cout, H, W, stride=(1, 1, s, s), groups=g, deformable_groups=dg, note=note)


FULL_SUITE = {
    "row1_r50_c3_entry": _row(2, 128, 128, 200, 336, s=2, note="mmdet R50-DCN c3 entry"),
    "row2_r50_c3_body": _row(2, 128, 128, 100, 168, note="mmdet R50-DCN c3 body"),
    "row3_r50_c4_body": _row(2, 256, 256, 50, 84, note="mmdet R50-DCN c4 body"),
    "row4_r50_c5_body": _row(2, 512, 512, 25, 42, note="mmdet R50-DCN c5 body"),
    "row5_mdconv_dg4": _row(2, 256, 256, 50, 84, dg=4, note="mmdet mdconv dg=4 c4"),
    "row6_x101_groups32": _row(2, 512, 512, 50, 84, g=32, note="X101-32x4d dconv c4"),
    "row7_centernet_up1": _row(32, 512, 256, 16, 16, note="CenterNet R18-DCN up #1"),
    "row8_centernet_up3": _row(32, 128, 64, 64, 64, note="CenterNet R18-DCN up #3"),
    "row9_edvr_l1": _row(8, 64, 64, 64, 64, dg=8, note="EDVR PCD L1"),
    "row10_edvr_l3": _row(8, 64, 64, 16, 16, dg=8, note="EDVR PCD L3"),
    "row11_basicvsrpp": _row(8, 128, 64, 64, 64, dg=16, note="BasicVSR++ second-order alignment"),
    "row12_ppyolo_c5": _row(8, 512, 512, 19, 19, note="PP-YOLO R50vd-DCN c5"),
}
