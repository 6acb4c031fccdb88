// TWIN_API_TALLY (twin/kernel/api_tally.h): a launch's vector instructions per (stage, API) over all vector cores,
// and its PipeBarrier<PIPE_V>s per call site, appended to the file when the launch ends; nothing is written without
// the variable.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "kernel_operator.h"
#include "kernel_test_util.h"

using namespace AscendC;
using twin::KernelType;

namespace {

std::string ReadAll(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
}

// Per vector core: 2 Duplicates, 3 Adds and a UB->UB copy, SyncAll, 1 Mul (64 fp32 each: one repeat).
twin::LaunchResult TwoStageKernel()
{
    return ktest::Run(2, KernelType::MIX_AIV_1_0, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 6 * 64 * 4);
        LocalTensor<float> a = buf.Get<float>(), b = a[64], c = a[128], d = a[192], e = a[256], f = a[320];
        Duplicate(a, 1.0f, 64);
        Duplicate(b, 2.0f, 64);
        PipeBarrier<PIPE_V>();
        Add(c, a, b, 64);
        Add(d, a, b, 64);
        Add(e, a, b, 64);
        DataCopy(f, a, 64);
        PipeBarrier<PIPE_V>();
        SyncAll();
        Mul(a, c, d, 64);
    });
}

TEST(ApiTally, counts_instructions_per_stage_and_api_over_all_vector_cores)
{
    const std::string path = "twin_test_api_tally_" + std::to_string(getpid()) + ".txt";
    std::remove(path.c_str());
    setenv("TWIN_API_TALLY", path.c_str(), 1);
    const twin::LaunchResult first = TwoStageKernel();
    const twin::LaunchResult second = TwoStageKernel();
    unsetenv("TWIN_API_TALLY");
    EXPECT_TRUE(ktest::ExpectOk(first));
    EXPECT_TRUE(ktest::ExpectOk(second));
    const std::string text = ReadAll(path);
    std::remove(path.c_str());
    // per launch: stage 0 has 2 cores x (2 Duplicates, 3 Adds, 1 copy), stage 1 2 cores x 1 Mul; the cycles are the
    // cost table's for one fp32 repeat each (the copy's PIPE_V cost is per byte, outside the table: 0)
    EXPECT_TRUE(ktest::HasSubstr(text, "launch 1\n")) << text;
    EXPECT_TRUE(ktest::HasSubstr(text, "launch 2\n")) << text;
    EXPECT_TRUE(ktest::HasSubstr(text, "0\tAdd\t6\t")) << text;
    EXPECT_TRUE(ktest::HasSubstr(text, "0\tDuplicate\t4\t")) << text;
    EXPECT_TRUE(ktest::HasSubstr(text, "0\tDataCopy(UB->UB)\t2\t0\n")) << text;
    EXPECT_TRUE(ktest::HasSubstr(text, "1\tMul\t2\t")) << text;
    EXPECT_FALSE(ktest::HasSubstr(text, "1\tAdd")) << text;
    // each PipeBarrier<PIPE_V> call site: 2 cores x 1 barrier, pipe_barrier_cycles (16) each
    const std::string site = "\tPipeBarrier<PIPE_V> test_api_tally.cpp:";
    size_t sites = 0;
    for (size_t at = text.find(site); at != std::string::npos && at < text.find("launch 2\n");
         at = text.find(site, at + 1)) {
        ++sites;
        EXPECT_EQ(text.substr(at - 1, 1), "0") << text; // stage 0
        EXPECT_NE(text.find("\t2\t32\n", at), std::string::npos) << text;
        EXPECT_EQ(text.find("\t2\t32\n", at), text.find('\t', at + site.size())) << text;
    }
    EXPECT_EQ(sites, 2u) << text;
    // both launches tallied alike (the tally is cleared between launches)
    const size_t second_at = text.find("launch 2\n");
    ASSERT_NE(second_at, std::string::npos);
    EXPECT_EQ(text.substr(text.find('\n') + 1, second_at - text.find('\n') - 1),
              text.substr(second_at + std::string("launch 2\n").size()));
}

TEST(ApiTally, off_without_the_variable)
{
    const std::string path = "twin_test_api_tally_off_" + std::to_string(getpid()) + ".txt";
    std::remove(path.c_str());
    unsetenv("TWIN_API_TALLY");
    EXPECT_TRUE(ktest::ExpectOk(TwoStageKernel()));
    std::ifstream in(path);
    EXPECT_FALSE(in.good());
}

}  // namespace
