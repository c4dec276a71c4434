// WordBpe's symbols and merges (word_bpe.h).
#include "models/wordpiece/word_bpe.h"

#include <atomic>
#include <functional>
#include <queue>
#include <tuple>

namespace tf::wordpiece {

WordBpe::WordBpe(const std::vector<std::pair<std::string, int32_t>>& vocab, const std::vector<Merge>& merges,
                 int32_t unk_id, bool fuse_unk, std::string prefix, std::string suffix)
    : unk_id_(unk_id), fuse_unk_(fuse_unk), prefix_(std::move(prefix)), suffix_(std::move(suffix)) {
  static std::atomic<uint64_t> next_serial{1};
  serial_ = next_serial.fetch_add(1, std::memory_order_relaxed);
  vocab_.reserve(vocab.size());
  for (const auto& [token, id] : vocab) vocab_.emplace(token, id);
  merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const Merge& m = merges[rank];
    // A pair listed twice keeps its last rank, as tokenizers' merge map (collected in order) does.
    merges_.set(pack_pair(m.left, m.right), (static_cast<uint64_t>(rank) << 32) | m.merged);
  }
}

int32_t WordBpe::lookup(const std::string& s) const {
  const auto it = vocab_.find(s);
  return it == vocab_.end() ? -1 : it->second;
}

namespace {

// A thread's words of one model (the last one it used), with their tokens.
struct WordCache {
  static constexpr size_t kMaxWords = size_t{1} << 16;
  uint64_t owner = 0;
  std::unordered_map<std::string, std::vector<SubwordSpan>> words;
};

}  // namespace

void WordBpe::tokenize(std::string_view word, size_t chars, std::vector<SubwordSpan>& out) const {
  thread_local WordCache cache;
  if (cache.owner != serial_) {
    cache.words.clear();
    cache.owner = serial_;
  }
  std::string key(word);
  const auto hit = cache.words.find(key);
  if (hit != cache.words.end()) {
    out.insert(out.end(), hit->second.begin(), hit->second.end());
    return;
  }
  const size_t first = out.size();
  merge(word, chars, out);
  if (cache.words.size() >= WordCache::kMaxWords) cache.words.clear();
  cache.words.emplace(std::move(key), std::vector<SubwordSpan>(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()));
}

void WordBpe::merge(std::string_view word, size_t /*chars*/, std::vector<SubwordSpan>& out) const {
  struct Sym {
    int32_t id;
    uint32_t start, end;
    int32_t prev, next;  // neighbours' indices, -1 at the ends
  };
  std::vector<Sym> syms;
  std::string s;
  bool unk_open = false;  // the last symbol is an unknown token that fuse_unk may extend
  for (size_t i = 0; i < word.size();) {
    size_t len = 1;
    const auto lead = static_cast<uint8_t>(word[i]);
    if (lead >= 0xF0) len = 4;
    else if (lead >= 0xE0) len = 3;
    else if (lead >= 0xC0) len = 2;
    const bool first = i == 0, last = i + len >= word.size();
    s.clear();
    if (!first) s += prefix_;
    s.append(word.data() + i, len);
    if (last) s += suffix_;
    const int32_t id = lookup(s);
    const auto a = static_cast<uint32_t>(i), b = static_cast<uint32_t>(i + len);
    if (id >= 0) {
      syms.push_back({id, a, b, 0, 0});
      unk_open = false;
    } else if (unk_id_ >= 0) {
      if (unk_open && fuse_unk_) {
        syms.back().end = b;
      } else {
        syms.push_back({unk_id_, a, b, 0, 0});
        unk_open = true;
      }
    }  // else: no unknown token, the character is dropped (as tokenizers drops it)
    i += len;
  }
  const auto n = static_cast<int32_t>(syms.size());
  for (int32_t k = 0; k < n; ++k) {
    syms[static_cast<size_t>(k)].prev = k - 1;
    syms[static_cast<size_t>(k)].next = k + 1 < n ? k + 1 : -1;
  }
  // Candidates (rank, left index, merged id, left id, right id): the lowest rank first, then
  // the leftmost; stale ones (a side merged since) are skipped when taken.
  using Cand = std::tuple<uint32_t, int32_t, uint32_t, int32_t, int32_t>;
  std::priority_queue<Cand, std::vector<Cand>, std::greater<Cand>> heap;
  auto push = [&](int32_t left) {
    if (left < 0) return;
    const int32_t right = syms[static_cast<size_t>(left)].next;
    if (right < 0) return;
    const int32_t l = syms[static_cast<size_t>(left)].id, r = syms[static_cast<size_t>(right)].id;
    const uint64_t* v = merges_.find(pack_pair(static_cast<uint32_t>(l), static_cast<uint32_t>(r)));
    if (v != nullptr) heap.emplace(static_cast<uint32_t>(*v >> 32), left, static_cast<uint32_t>(*v), l, r);
  };
  for (int32_t k = 0; k + 1 < n; ++k) push(k);
  while (!heap.empty()) {
    const auto [rank, left, merged, l, r] = heap.top();
    heap.pop();
    Sym& a = syms[static_cast<size_t>(left)];
    if (a.id != l || a.next < 0 || syms[static_cast<size_t>(a.next)].id != r) continue;  // stale
    Sym& b = syms[static_cast<size_t>(a.next)];
    a.id = static_cast<int32_t>(merged);
    a.end = b.end;
    a.next = b.next;
    if (b.next >= 0) syms[static_cast<size_t>(b.next)].prev = left;
    b.id = -1;  // gone
    push(a.prev);
    push(left);
  }
  for (int32_t k = n > 0 ? 0 : -1; k >= 0; k = syms[static_cast<size_t>(k)].next) {
    const Sym& x = syms[static_cast<size_t>(k)];
    out.push_back({x.id, x.start, x.end});
  }
}

}  // namespace tf::wordpiece
