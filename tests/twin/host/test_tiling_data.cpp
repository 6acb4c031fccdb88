// register/tilingdata_base.h packing (placeholders, struct alignment, class padding) and save/restore.
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>
#include <gtest/gtest.h>

#include "host/host_errors.h"
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(PackingProbe)
TILING_DATA_FIELD_DEF(int32_t, a);
TILING_DATA_FIELD_DEF(uint8_t, b);
TILING_DATA_FIELD_DEF(int64_t, c);
TILING_DATA_FIELD_DEF(float, d);
TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, e);
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, mm);
TILING_DATA_FIELD_DEF(int8_t, f);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(PackingProbeOp, PackingProbe)
}  // namespace optiling

// Expected byte layout by CANN's rule: a@0, b@4, pad 3 ("cPH"), c@8, d@16, e@20..26, pad 6 ("mmPH"),
// mm@32..232, f@232, pad 7 ("PackingProbePH") -> 240 bytes.
struct PackingProbePod {
    int32_t a;
    uint8_t b;
    uint8_t cPH[3];
    int64_t c;
    float d;
    uint16_t e[3];
    uint8_t mmPH[6];
    int32_t mm[50];
    int8_t f;
    uint8_t tail[7];
};
static_assert(sizeof(PackingProbePod) == 240, "reference POD");

TEST(TilingData, tcube_tiling_is_50_int32)
{
    optiling::TCubeTiling t;
    EXPECT_EQ(t.GetDataSize(), 200);
    auto fields = t.GetFieldInfo();
    EXPECT_EQ(fields.size(), 50);
    EXPECT_EQ(std::string(fields[0].name_), "usedCoreNum");
    EXPECT_EQ(std::string(fields[26].name_), "stepKa");
    EXPECT_EQ(std::string(fields[49].name_), "mxTypePara");
}

TEST(TilingData, packing_offsets_and_placeholders)
{
    optiling::PackingProbe p;
    EXPECT_EQ(p.GetDataSize(), 240);
    std::vector<std::string> names;
    for (const auto &fi : p.GetFieldInfo()) { names.push_back(fi.name_); }
    const std::vector<std::string> expect = {"a", "b", "cPH", "c", "d", "e", "mmPH", "mm", "f", "PackingProbePH"};
    EXPECT_EQ(names, expect);
    auto fields = p.GetFieldInfo();
    EXPECT_EQ(std::string(fields[2].classType_), "1");
    EXPECT_EQ(fields[2].arrSize_, 3);
    EXPECT_EQ(std::string(fields[6].classType_), "1");
    EXPECT_EQ(fields[6].arrSize_, 6);
    EXPECT_EQ(std::string(fields[7].classType_), "2");
    EXPECT_EQ(fields[7].structSize_, 200);
    EXPECT_EQ(fields[9].arrSize_, 7);
}

TEST(TilingData, save_to_buffer_round_trip)
{
    optiling::PackingProbe p;
    p.set_a(-7);
    p.set_b(200);
    p.set_c(1234567890123LL);
    p.set_d(2.5f);
    uint16_t e[3] = {1, 2, 65535};
    p.set_e(e);
    p.mm.set_baseM(128);
    p.mm.set_mxTypePara(-3);
    p.set_f(-1);
    EXPECT_EQ(p.get_a(), -7);
    EXPECT_EQ(p.get_c(), 1234567890123LL);
    EXPECT_EQ(p.get_e()[2], 65535);
    std::vector<uint8_t> buf(256, 0xAB);
    p.SaveToBuffer(buf.data(), buf.size());
    PackingProbePod pod;
    std::memcpy(&pod, buf.data(), sizeof(pod));
    EXPECT_EQ(pod.a, -7);
    EXPECT_EQ(pod.b, 200);
    EXPECT_EQ(pod.c, 1234567890123LL);
    EXPECT_EQ(pod.d, 2.5f);
    EXPECT_EQ(pod.e[0], 1);
    EXPECT_EQ(pod.e[1], 2);
    EXPECT_EQ(pod.e[2], 65535);
    EXPECT_EQ(pod.mm[8], 128); // baseM is field 8 of TCubeTiling
    EXPECT_EQ(pod.mm[49], -3);
    EXPECT_EQ(pod.f, -1);
    EXPECT_EQ(pod.cPH[0], 0);
    EXPECT_EQ(pod.tail[6], 0); // placeholders are zero
    EXPECT_EQ(buf[240], 0xAB); // nothing written past GetDataSize()

    // A class constructed on an existing buffer writes through to it.
    optiling::PackingProbe view(buf.data());
    uint16_t e2[3] = {9, 9, 9};
    view.set_e(e2);
    view.set_a(11);
    std::memcpy(&pod, buf.data(), sizeof(pod));
    EXPECT_EQ(pod.a, 11);
    EXPECT_EQ(pod.e[1], 9);
}

TEST(TilingData, save_to_small_buffer_is_an_error)
{
    optiling::PackingProbe p;
    p.set_a(5);
    std::vector<uint8_t> buf(100, 0xCD);
    (void)twin_host::TakeHostError();
    p.SaveToBuffer(buf.data(), buf.size());
    const std::string err = twin_host::TakeHostError();
    EXPECT_NE(err.find("capacity 100 < tiling data size 240"), std::string::npos);
    EXPECT_EQ(buf[0], 0xCD);
}

TEST(TilingData, registered_class_is_found_by_op_type)
{
    auto inst = optiling::CTilingDataClassFactory::GetInstance().CreateTilingDataInstance("PackingProbeOp");
    EXPECT_NE(inst, nullptr);
    ASSERT_NE(inst, nullptr);
    EXPECT_EQ(std::string(inst->GetTilingClassName()), "PackingProbe");
    EXPECT_EQ(optiling::CTilingDataClassFactory::GetInstance().CreateTilingDataInstance("NoSuchOp"), nullptr);
    const auto &layouts = optiling::GetTilingClassLayouts();
    EXPECT_EQ(layouts.count("PackingProbe"), 1);
    EXPECT_EQ(layouts.at("PackingProbe").dataSize, 240);
    EXPECT_EQ(layouts.count("TCubeTiling"), 1);
}
