// The trie merge of SafeCuts' chunks (cpp/models/byte_level/merge/trie_chunk_merge.h) alone, on a megabyte
// of random letters: thread CPU time per byte, best of N, and a hash of the ids (so two
// builds can be compared for both speed and output).  No Python in the loop, so perf
// annotate and A/B comparisons of the merge see only it; ~2% run to run on a busy machine
// where the Python-level benchmarks swing by 5-10%.
//
// Not part of the CMake build.  After /work/devbuild (or any build of build/dev):
//   g++ -O2 -std=c++17 -march=x86-64-v2 -Icpp benchmarks/native/bench_trie_chunk_merge.cc \
//       build/dev/libtf_core.a -o /tmp/bench_trie_chunk_merge -lpthread
//   taskset -c 1 /tmp/bench_trie_chunk_merge ../shared/models/tiktoken/cl100k_base.tiktoken 30
// A third argument picks the merge's build (trie_merge_level: 0 the baseline, 1 AVX2 and
// BMI2 where the CPU has them; the default is the best the CPU runs).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/byte_level/chunking/safe_cuts.h"
#include "models/byte_level/vocab/token_table.h"
#include "models/byte_level/vocab/token_trie.h"
#include "models/byte_level/merge/trie_chunk_merge.h"

namespace {

std::string base64_decode(const std::string& s) {
  static const std::string digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int value = 0, bits = -8;
  for (char c : s) {
    size_t d = digits.find(c);
    if (d == std::string::npos) break;  // '=' padding
    value = (value << 6) + static_cast<int>(d);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((value >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

double thread_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.tiktoken [REPEAT [LEVEL]]\n", argv[0]);
    return 2;
  }
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 20;
  if (argc > 3) tf::set_trie_merge_level(std::atoi(argv[3]));
  std::ifstream file(argv[1]);
  std::vector<std::pair<std::string, uint32_t>> tokens;
  for (std::string line; std::getline(file, line);) {
    std::istringstream fields(line);
    std::string token;
    uint32_t rank;
    if (fields >> token >> rank) tokens.emplace_back(base64_decode(token), rank);
  }
  tf::TokenTable vocab;
  std::string error;
  if (!vocab.build(tokens, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  tf::TokenTrie trie;
  tf::SafeCuts cuts;
  if (!trie.build(vocab)) return 1;
  cuts.build(vocab);

  std::mt19937 rng(1);
  std::string text(size_t{1} << 20, 'a');
  for (char& c : text) c = static_cast<char>('a' + rng() % 26);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  std::vector<std::pair<size_t, size_t>> chunks;  // those merge_chunks gives the trie merge
  size_t start = 0, bytes = 0;
  for (size_t b = cuts.next(p, n, 1);; b = cuts.next(p, n, b + 1)) {
    if (b - start >= 3 && b - start <= tf::kMaxTrieChunk) {
      chunks.emplace_back(start, b - start);
      bytes += b - start;
    }
    start = b;
    if (b == n) break;
  }
  std::vector<uint32_t> ids;
  ids.reserve(n);
  double best = 1e9;
  for (int r = 0; r < repeat; ++r) {
    ids.clear();
    const double t0 = thread_seconds();
    for (auto [at, len] : chunks) tf::trie_chunk_merge(trie, p + at, len, &ids);
    best = std::min(best, thread_seconds() - t0);
  }
  uint64_t hash = 0;
  for (uint32_t id : ids) hash = hash * 1000003 + id;
  std::printf("level %d, %zu chunks, %zu bytes, %zu ids (hash %016llx): %.2f ns/byte\n", tf::trie_merge_level(),
              chunks.size(), bytes, ids.size(), static_cast<unsigned long long>(hash),
              best * 1e9 / static_cast<double>(bytes));
}
