// Per-API vector instruction tally (twin/kernel/api_tally.h).
#include "twin/kernel/api_tally.h"
#include "twin/kernel/cost_table.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace twin {
namespace kernel {

std::atomic<bool> g_apiTallyOn{false};

namespace {

struct Tally {
    std::mutex mu;
    std::string path;
    uint64_t launches = 0;
    std::map<std::pair<uint64_t, std::string>, std::pair<uint64_t, uint64_t>> counts; // -> instructions, cycles
};

Tally &State()
{
    static Tally t;
    return t;
}

}  // namespace

void ApiTallyBegin()
{
    Tally &t = State();
    std::lock_guard<std::mutex> lock(t.mu);
    const char *path = std::getenv("TWIN_API_TALLY");
    t.path = path != nullptr ? path : "";
    t.counts.clear();
    g_apiTallyOn.store(!t.path.empty(), std::memory_order_relaxed);
}

void ApiTallyAdd(uint64_t stage, const char *api, uint64_t cycles)
{
    Tally &t = State();
    std::lock_guard<std::mutex> lock(t.mu);
    std::pair<uint64_t, uint64_t> &e = t.counts[{stage, api}];
    ++e.first;
    e.second += cycles;
}

void ApiTallyBarrier(uint64_t stage, const char* file, int line)
{
    const char* base = file != nullptr ? std::strrchr(file, '/') : nullptr;
    const std::string site = std::string("PipeBarrier<PIPE_V> ") + (base != nullptr ? base + 1 : (file ? file : "?")) +
                             ":" + std::to_string(line);
    ApiTallyAdd(stage, site.c_str(), static_cast<uint64_t>(cost::ConstantValue("pipe_barrier_cycles")));
}

void ApiTallyEnd()
{
    Tally &t = State();
    std::lock_guard<std::mutex> lock(t.mu);
    if (t.path.empty()) {
        return;
    }
    g_apiTallyOn.store(false, std::memory_order_relaxed);
    std::FILE *f = std::fopen(t.path.c_str(), "a");
    if (f != nullptr) {
        std::fprintf(f, "launch %llu\n", static_cast<unsigned long long>(++t.launches));
        for (const auto &kv : t.counts) {
            std::fprintf(f, "%llu\t%s\t%llu\t%llu\n", static_cast<unsigned long long>(kv.first.first),
                         kv.first.second.c_str(), static_cast<unsigned long long>(kv.second.first),
                         static_cast<unsigned long long>(kv.second.second));
        }
        std::fclose(f);
    }
    t.counts.clear();
}

}  // namespace kernel
}  // namespace twin
