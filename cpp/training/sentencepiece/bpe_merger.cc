#include "training/sentencepiece/bpe_merger.h"
#include "training/sentencepiece/utf8_chars.h"

#include <algorithm>
#include <unordered_set>

namespace tf::spm_train {

namespace {

uint64_t encode_pos(uint32_t word, int32_t left, int32_t right) {
  return (static_cast<uint64_t>(word) << 32) | (static_cast<uint64_t>(left) << 16) | static_cast<uint64_t>(right);
}

}  // namespace

int32_t BpeMerger::char_symbol(char32_t c) {
  auto it = char_ids_.find(c);
  if (it != char_ids_.end()) return it->second;
  Symbol s;
  s.chars_begin = static_cast<uint32_t>(chars_.size());
  s.chars_size = 1;
  s.unknown = c == kUnknownMark;
  chars_.push_back(c);
  symbols_.push_back(std::move(s));
  const auto id = static_cast<int32_t>(symbols_.size() - 1);
  char_ids_.emplace(c, id);
  return id;
}

int32_t BpeMerger::pair_symbol(int32_t left, int32_t right) {
  if (left < 0 || right < 0 || symbols_[left].unknown || symbols_[right].unknown) return -1;
  const uint64_t key = (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right);
  // An accepted or dropped pair made again is a new symbol, as sentencepiece erases it from its cache.
  if (const int32_t* v = pair_ids_.find(key); v != nullptr && (*v < 0 || symbols_[*v].active)) return *v;
  const Symbol& l = symbols_[left];
  const Symbol& r = symbols_[right];
  scratch_.assign(chars_.begin() + l.chars_begin, chars_.begin() + l.chars_begin + l.chars_size);
  scratch_.insert(scratch_.end(), chars_.begin() + r.chars_begin, chars_.begin() + r.chars_begin + r.chars_size);
  if (!rules_.valid(scratch_.data(), scratch_.size())) {
    pair_ids_.set(key, -1);  // validity never changes: remember the answer
    return -1;
  }
  Symbol s;
  s.left = left;
  s.right = right;
  s.chars_begin = static_cast<uint32_t>(chars_.size());
  s.chars_size = static_cast<uint32_t>(scratch_.size());
  chars_.insert(chars_.end(), scratch_.begin(), scratch_.end());
  symbols_.push_back(std::move(s));
  const auto id = static_cast<int32_t>(symbols_.size() - 1);
  pair_ids_.set(key, id);
  return id;
}

void BpeMerger::add_word(const std::vector<char32_t>& chars, int64_t count) {
  std::vector<int32_t> ids;
  ids.reserve(chars.size());
  for (char32_t c : chars) ids.push_back(char_symbol(c));
  words_.push_back(std::move(ids));
  counts_.push_back(count);
}

int32_t BpeMerger::next_index(uint32_t word, int32_t i) const {
  const auto& w = words_[word];
  for (size_t j = static_cast<size_t>(i) + 1; j < w.size(); ++j)
    if (w[j] >= 0) return static_cast<int32_t>(j);
  return -1;
}

int32_t BpeMerger::prev_index(uint32_t word, int32_t i) const {
  const auto& w = words_[word];
  for (int32_t j = i - 1; j >= 0; --j)
    if (w[j] >= 0) return j;
  return -1;
}

void BpeMerger::touch(int32_t id) {
  Symbol& s = symbols_[id];
  if (!s.pending) {
    s.pending = true;
    pending_.push_back(id);
  }
}

void BpeMerger::add_pair(uint32_t word, int32_t left, int32_t right) {
  if (left < 0 || right < 0) return;
  const int32_t id = pair_symbol(words_[word][left], words_[word][right]);
  if (id < 0) return;
  Symbol& s = symbols_[id];
  s.positions.push_back(encode_pos(word, left, right));
  s.freq += counts_[word];
  touch(id);
}

void BpeMerger::remove_pair(uint32_t word, int32_t left, int32_t right, int32_t best) {
  if (left < 0 || right < 0) return;
  const int32_t id = pair_symbol(words_[word][left], words_[word][right]);
  if (id < 0 || id == best) return;
  // The position itself stays in the list and is skipped when it no longer matches.
  symbols_[id].freq -= counts_[word];
  touch(id);
}

int BpeMerger::compare_chars(const Symbol& a, const Symbol& b) const {
  // UTF-8 byte order is code point order.
  const char32_t* pa = chars_.data() + a.chars_begin;
  const char32_t* pb = chars_.data() + b.chars_begin;
  const uint32_t n = std::min(a.chars_size, b.chars_size);
  for (uint32_t i = 0; i < n; ++i)
    if (pa[i] != pb[i]) return pa[i] < pb[i] ? -1 : 1;
  return a.chars_size == b.chars_size ? 0 : (a.chars_size < b.chars_size ? -1 : 1);
}

bool BpeMerger::heap_less(const HeapEntry& a, const HeapEntry& b) const {
  if (a.freq != b.freq) return a.freq < b.freq;
  const Symbol& sa = symbols_[a.symbol];
  const Symbol& sb = symbols_[b.symbol];
  if (sa.chars_size != sb.chars_size) return sa.chars_size > sb.chars_size;
  const int c = compare_chars(sa, sb);
  if (c != 0) return c > 0;
  return a.symbol > b.symbol;
}

void BpeMerger::push(int32_t symbol) {
  heap_.push_back({symbols_[symbol].freq, symbol});
  std::push_heap(heap_.begin(), heap_.end(), [this](const HeapEntry& a, const HeapEntry& b) { return heap_less(a, b); });
}

void BpeMerger::accept(int32_t best) {
  Symbol& b = symbols_[best];
  std::vector<uint64_t> positions = std::move(b.positions);
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  const int32_t bl = b.left, br = b.right;
  for (uint64_t pos : positions) {
    const uint32_t w = static_cast<uint32_t>(pos >> 32);
    const auto l = static_cast<int32_t>((pos >> 16) & 0xFFFF);
    const auto r = static_cast<int32_t>(pos & 0xFFFF);
    auto& word = words_[w];
    if (word[l] != bl || word[r] != br) continue;  // overlapped by the previous merge ("aaa")
    const int32_t next = next_index(w, r);
    const int32_t prev = prev_index(w, l);
    remove_pair(w, prev, l, best);
    remove_pair(w, r, next, best);
    word[l] = best;
    word[r] = -1;
    add_pair(w, prev, l);
    add_pair(w, l, next);
  }
  symbols_[best].active = false;
}

std::string BpeMerger::to_utf8(const Symbol& s) const {
  std::string out;
  for (uint32_t i = 0; i < s.chars_size; ++i) append_utf8(chars_[s.chars_begin + i], &out);
  return out;
}

void BpeMerger::train(size_t pieces, std::atomic<uint32_t>* done) {
  size_t positions = 0;
  for (const auto& w : words_) positions += w.size();
  pair_ids_.reserve(positions / 4 + 1024);
  for (uint32_t w = 0; w < words_.size(); ++w)
    for (size_t i = 1; i < words_[w].size(); ++i) add_pair(w, static_cast<int32_t>(i - 1), static_cast<int32_t>(i));
  auto cmp = [this](const HeapEntry& a, const HeapEntry& b) { return heap_less(a, b); };
  auto flush_pending = [&] {
    for (int32_t id : pending_) {
      Symbol& s = symbols_[id];
      s.pending = false;
      if (s.active && s.freq > 0) push(id);
    }
    pending_.clear();
  };
  flush_pending();
  std::unordered_set<std::string> learned_set;
  while (learned_.size() < pieces) {
    int32_t best = -1;
    while (!heap_.empty()) {
      const HeapEntry top = heap_.front();
      std::pop_heap(heap_.begin(), heap_.end(), cmp);
      heap_.pop_back();
      Symbol& s = symbols_[top.symbol];
      if (!s.active || top.freq != s.freq) continue;  // a fresher entry exists
      best = top.symbol;
      break;
    }
    if (best < 0) break;
    std::string piece = to_utf8(symbols_[best]);
    if (!learned_set.insert(piece).second) {
      symbols_[best].active = false;
      continue;
    }
    learned_.push_back(std::move(piece));
    if (done != nullptr) done->store(static_cast<uint32_t>(learned_.size()), std::memory_order_relaxed);
    accept(best);
    flush_pending();
  }
}

}  // namespace tf::spm_train
