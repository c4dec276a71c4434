// trie_chunk_merge.h's merge, built twice: for the baseline target, and with GCC on x86-64
// for CPUs with AVX2, BMI1/2 and LZCNT, picked once at load by the CPU's features.  The
// second build scans eight keys a vector (two_smallest8) and finds part starts with
// tzcnt/lzcnt/blsr and shifts that take no flags, a little faster on both vocabularies
// (figures: benchmarks/README.md).  Only this file is built for the newer target, not the
// whole core, so a baseline wheel runs anywhere.
//
// The body (trie_chunk_merge_body.inc) is included once per target, each time in a
// namespace of its own.  TokenTrie's inline functions come from the header above the
// `#pragma GCC target`, so they stay baseline functions: the newer build inlines them in
// its own code, and an out-of-line copy the linker keeps is always the baseline one.
#include "models/byte_level/merge/trie_chunk_merge.h"

#include <atomic>

#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

// The second build needs GCC's target pragma, and a baseline with SSE4.1 (the default
// -march, x86-64-v2) whose scan it widens.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__SSE4_1__)
#include <immintrin.h>
#define TF_TRIE_MERGE_AVX2 1
#else
#define TF_TRIE_MERGE_AVX2 0
#endif

namespace tf::byte_level {

// TF_TRIE_WIDE: the body is built for AVX2 (GCC's target pragma does not define __AVX2__).
namespace trie_merge_base {
#define TF_TRIE_WIDE 0
#include "models/byte_level/merge/trie_chunk_merge_body.inc"
#undef TF_TRIE_WIDE
}  // namespace trie_merge_base

#if TF_TRIE_MERGE_AVX2
#pragma GCC push_options
#pragma GCC target("avx2,bmi,bmi2,lzcnt,popcnt")
namespace trie_merge_avx2 {
#define TF_TRIE_WIDE 1
#include "models/byte_level/merge/trie_chunk_merge_body.inc"
#undef TF_TRIE_WIDE
}  // namespace trie_merge_avx2
#pragma GCC pop_options
#endif

namespace {

int best_level() {
#if TF_TRIE_MERGE_AVX2
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
      __builtin_cpu_supports("lzcnt") && __builtin_cpu_supports("popcnt")) {
    return 1;
  }
#endif
  return 0;
}

const int kBestLevel = best_level();
std::atomic<int> g_level{kBestLevel};

}  // namespace

int trie_merge_level() { return g_level.load(std::memory_order_relaxed); }

int set_trie_merge_level(int level) {
  const int old = trie_merge_level();
  g_level.store(level < 0 ? 0 : level > kBestLevel ? kBestLevel : level, std::memory_order_relaxed);
  return old;
}

void trie_chunk_merge(const TokenTrie& trie, const uint8_t* p, size_t n, std::vector<uint32_t>* out) {
#if TF_TRIE_MERGE_AVX2
  if (g_level.load(std::memory_order_relaxed) == 1) return trie_merge_avx2::merge(trie, p, n, out);
#endif
  trie_merge_base::merge(trie, p, n, out);
}

}  // namespace tf::byte_level
