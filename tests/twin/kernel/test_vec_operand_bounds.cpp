// The closed-form highest element offset of a mask-form operand (vec_engine.h MaxElemOffset, used by
// PrepareMasked's bounds check) equals the maximum of the element-wise walk over every element size,
// block stride, repeat stride, repeat and last enabled element, so the check accepts and rejects
// exactly the same operands as before.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernel_operator.h"

using twin::kernel::ElemOffset;
using twin::kernel::MaxElemOffset;
using twin::kernel::VecOperand;

TEST(VecOperandBounds, closed_form_max_offset_equals_the_elementwise_walk)
{
    long checked = 0;
    for (uint32_t elemSize : {1u, 2u, 4u, 8u}) {
        const uint32_t perRepeat = 256 / elemSize;
        for (uint32_t blk = 0; blk <= 9; ++blk) {
            for (uint32_t rep = 0; rep <= 9; ++rep) {
                const VecOperand o{nullptr, elemSize, blk, rep, 0, "op"};
                for (uint64_t r = 0; r < 4; ++r) {
                    uint64_t walk = 0;
                    for (uint32_t lastE = 0; lastE < perRepeat; ++lastE) {
                        walk = std::max(walk, ElemOffset(o, r, lastE)); // max over 0..lastE
                        ASSERT_EQ(MaxElemOffset(o, r, lastE), walk)
                            << "elemSize " << elemSize << " blkStride " << blk << " repStride " << rep << " r " << r
                            << " lastE " << lastE;
                        ++checked;
                    }
                }
            }
        }
    }
    EXPECT_GT(checked, 100000);
}
