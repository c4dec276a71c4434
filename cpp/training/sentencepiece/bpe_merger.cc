#include "training/sentencepiece/bpe_merger.h"
#include "training/sentencepiece/utf8_chars.h"

#include <algorithm>
#include <unordered_set>

namespace tf::spm_train {


int32_t BpeMerger::char_symbol(char32_t c) {
  if (c < kDirectChars) {
    if (direct_ids_.empty()) direct_ids_.assign(kDirectChars, -1);
    if (direct_ids_[c] >= 0) return direct_ids_[c];
  } else if (auto it = char_ids_.find(c); it != char_ids_.end()) {
    return it->second;
  }
  const auto id = static_cast<int32_t>(symbols_.size());
  Symbol& s = symbols_.add();
  heap_pos_.push_back(-1);
  s.chars_begin = static_cast<uint32_t>(chars_.size());
  s.chars_size = 1;
  s.unknown = c == kUnknownMark;
  if (s.unknown) unknown_id_ = id;
  chars_.push_back(c);
  if (c < kDirectChars) direct_ids_[c] = id; else char_ids_.emplace(c, id);
  return id;
}

int32_t BpeMerger::pair_symbol(int32_t left, int32_t right) {
  if (left < 0 || right < 0) return -1;
  const uint64_t key = (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right);
  // Within one merge (one generation) a pair's answer does not change: only `best` turns
  // inactive, and only after its merge.  Most neighbours repeat, so a small cache answers.
  MemoEntry& memo = memo_[static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - kMemoBits))];
  if (memo.key == key && memo.generation == generation_) return memo.id;
  const int32_t id = find_pair_symbol(left, right);
  memo = {key, generation_, id};
  return id;
}

int32_t BpeMerger::find_pair_symbol(int32_t left, int32_t right) {
  if (left == unknown_id_ || right == unknown_id_) return -1;  // only the unknown mark is unknown
  bool inserted;
  int32_t& known = pair_ids_.slot(static_cast<uint32_t>(left), static_cast<uint32_t>(right), -1, &inserted);
  // An accepted or dropped pair made again is a new symbol, as sentencepiece erases it from its cache.
  if (!inserted && (known < 0 || symbols_[known].active)) return known;
  const Symbol& l = symbols_[static_cast<size_t>(left)];
  const Symbol& r = symbols_[static_cast<size_t>(right)];
  scratch_.assign(chars_.begin() + l.chars_begin, chars_.begin() + l.chars_begin + l.chars_size);
  scratch_.insert(scratch_.end(), chars_.begin() + r.chars_begin, chars_.begin() + r.chars_begin + r.chars_size);
  if (!rules_.valid(scratch_.data(), scratch_.size())) return known = -1;  // validity never changes: kept
  const auto id = static_cast<int32_t>(symbols_.size());
  Symbol& s = symbols_.add();
  heap_pos_.push_back(-1);
  s.left = left;
  s.right = right;
  s.chars_begin = static_cast<uint32_t>(chars_.size());
  s.chars_size = static_cast<uint16_t>(scratch_.size());
  chars_.insert(chars_.end(), scratch_.begin(), scratch_.end());
  known = id;
  return id;
}

void BpeMerger::reserve(size_t words, size_t chars) {
  syms_.reserve(chars);
  starts_.reserve(words + 1);
  counts_.reserve(words);
}

bool BpeMerger::add_word(const char32_t* chars, size_t n, int64_t count) {
  if (n == 0) return true;  // no pairs; and every word owns its start position (word_of)
  if (n >= kNone - syms_.size()) return false;
  for (size_t i = 0; i < n; ++i) syms_.push_back(char_symbol(chars[i]));
  starts_.push_back(static_cast<uint32_t>(syms_.size()));
  counts_.push_back(count);
  return true;
}

void BpeMerger::index_word_starts() {
  const size_t n = syms_.size();
  std::vector<WordStarts>(n / 64 + 1).swap(word_starts_);
  for (size_t w = 0; w + 1 < starts_.size(); ++w) word_starts_[starts_[w] >> 6].bits |= uint64_t{1} << (starts_[w] & 63);
  uint32_t rank = 0;
  for (WordStarts& ws : word_starts_) {
    ws.rank = rank;
    rank += static_cast<uint32_t>(__builtin_popcountll(ws.bits));
  }
}

size_t BpeMerger::word_of(uint32_t pos) const {
  const WordStarts& ws = word_starts_[pos >> 6];
  const uint64_t upto = (uint64_t{2} << (pos & 63)) - 1;  // bits 0..pos&63 (all 64 when it is 63)
  return ws.rank + static_cast<size_t>(__builtin_popcountll(ws.bits & upto)) - 1;
}

uint32_t BpeMerger::next_index(uint32_t i, uint32_t end) const {
  for (uint32_t j = i + 1; j < end; ++j)
    if (syms_[j] >= 0) return j;
  return kNone;
}

uint32_t BpeMerger::prev_index(uint32_t i, uint32_t begin) const {
  for (uint32_t j = i; j > begin; --j)
    if (syms_[j - 1] >= 0) return j - 1;
  return kNone;
}

void BpeMerger::touch(int32_t id) {
  Symbol& s = symbols_[static_cast<size_t>(id)];
  if (!s.pending) {
    s.pending = true;
    pending_.push_back(id);
  }
}

void BpeMerger::add_pair(uint32_t word, uint32_t left, uint32_t right) {
  if (left == kNone || right == kNone) return;
  const int32_t id = pair_symbol(syms_[left], syms_[right]);
  if (id < 0) return;
  Symbol& s = symbols_[id];
  s.positions.push_back(left);
  s.freq += counts_[word];
  touch(id);
}

void BpeMerger::remove_pair(uint32_t word, uint32_t left, uint32_t right, int32_t best) {
  if (left == kNone || right == kNone) return;
  const int32_t id = pair_symbol(syms_[left], syms_[right]);
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

// a ranks below b: lower frequency, else more characters, else the larger string, else the
// larger id (the first one made).
bool BpeMerger::ranks_below(const HeapEntry& a, const HeapEntry& b) const {
  if (a.freq != b.freq) return a.freq < b.freq;
  if (a.chars_size != b.chars_size) return a.chars_size > b.chars_size;
  const Symbol& sa = symbols_[static_cast<size_t>(a.symbol)];
  const Symbol& sb = symbols_[static_cast<size_t>(b.symbol)];
  const int c = compare_chars(sa, sb);
  if (c != 0) return c > 0;
  return a.symbol > b.symbol;
}

void BpeMerger::heap_place(size_t i, const HeapEntry& e) {
  heap_[i] = e;
  heap_pos_[static_cast<size_t>(e.symbol)] = static_cast<int32_t>(i);
}

void BpeMerger::sift_up(size_t i) {
  const HeapEntry e = heap_[i];
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!ranks_below(heap_[parent], e)) break;
    heap_place(i, heap_[parent]);
    i = parent;
  }
  heap_place(i, e);
}

void BpeMerger::sift_down(size_t i) {
  const HeapEntry e = heap_[i];
  const size_t n = heap_.size();
  while (true) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && ranks_below(heap_[child], heap_[child + 1])) ++child;
    if (!ranks_below(e, heap_[child])) break;
    heap_place(i, heap_[child]);
    i = child;
  }
  heap_place(i, e);
}

void BpeMerger::heap_remove(int32_t id) {
  int32_t& pos = heap_pos_[static_cast<size_t>(id)];
  if (pos < 0) return;
  const auto i = static_cast<size_t>(pos);
  pos = -1;
  const HeapEntry last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;
  heap_place(i, last);
  sift_up(i);
  sift_down(static_cast<size_t>(heap_pos_[static_cast<size_t>(last.symbol)]));
}

void BpeMerger::heap_update(int32_t id) {
  Symbol& s = symbols_[static_cast<size_t>(id)];
  if (!s.active || s.freq <= 0) {
    heap_remove(id);
  } else if (heap_pos_[static_cast<size_t>(id)] < 0) {
    heap_.push_back({s.freq, id, s.chars_size});
    sift_up(heap_.size() - 1);
  } else {
    const auto i = static_cast<size_t>(heap_pos_[static_cast<size_t>(id)]);
    heap_[i].freq = s.freq;
    sift_up(i);
    sift_down(static_cast<size_t>(heap_pos_[static_cast<size_t>(id)]));
  }
}

void BpeMerger::accept(int32_t best) {
  Symbol& b = symbols_[static_cast<size_t>(best)];
  std::vector<uint32_t>& positions = taken_;
  positions.assign(b.positions.data(), b.positions.data() + b.positions.size());
  b.positions.release();
  if (!std::is_sorted(positions.begin(), positions.end())) std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  const int32_t bl = b.left, br = b.right;
  // The positions are known: fetch their symbols and word-start entries early, and their
  // words' bounds and counts a little later.
  constexpr size_t kAhead = 16, kWordAhead = 8;
  for (size_t k = 0; k < positions.size(); ++k) {
    if (k + kAhead < positions.size()) {
      __builtin_prefetch(syms_.data() + positions[k + kAhead]);
      __builtin_prefetch(word_starts_.data() + (positions[k + kAhead] >> 6));
    }
    if (k + kWordAhead < positions.size()) {
      const size_t ahead = word_of(positions[k + kWordAhead]);
      __builtin_prefetch(starts_.data() + ahead);
      __builtin_prefetch(counts_.data() + ahead);
    }
    const uint32_t l = positions[k];
    if (syms_[l] != bl) continue;  // merged since, or overlapped by the previous merge ("aaa")
    const size_t w = word_of(l);
    const uint32_t begin = starts_[w], end = starts_[w + 1];
    const uint32_t r = next_index(l, end);
    if (r == kNone || syms_[r] != br) continue;
    const uint32_t next = next_index(r, end);
    const uint32_t prev = prev_index(l, begin);
    const auto word = static_cast<uint32_t>(w);
    remove_pair(word, prev, l, best);
    remove_pair(word, r, next, best);
    syms_[l] = best;
    syms_[r] = -1;
    add_pair(word, prev, l);
    add_pair(word, l, next);
  }
  symbols_[static_cast<size_t>(best)].active = false;
  if (positions.capacity() > (size_t{1} << 20)) std::vector<uint32_t>().swap(positions);
}

std::string BpeMerger::to_utf8(const Symbol& s) const {
  std::string out;
  for (uint32_t i = 0; i < s.chars_size; ++i) append_utf8(chars_[s.chars_begin + i], &out);
  return out;
}

void BpeMerger::train(size_t pieces, std::atomic<uint32_t>* done) {
  index_word_starts();
  for (uint32_t w = 0; w + 1 < starts_.size(); ++w)
    for (uint32_t i = starts_[w] + 1; i < starts_[w + 1]; ++i) add_pair(w, i - 1, i);
  auto flush_pending = [&] {
    for (int32_t id : pending_) {
      symbols_[static_cast<size_t>(id)].pending = false;
      heap_update(id);
    }
    pending_.clear();
  };
  flush_pending();
  std::unordered_set<std::string> learned_set;
  while (learned_.size() < pieces) {
    if (heap_.empty()) break;
    const int32_t best = heap_.front().symbol;
    heap_remove(best);
    std::string piece = to_utf8(symbols_[static_cast<size_t>(best)]);
    if (!learned_set.insert(piece).second) {
      symbols_[static_cast<size_t>(best)].active = false;
      continue;
    }
    learned_.push_back(std::move(piece));
    if (done != nullptr) done->store(static_cast<uint32_t>(learned_.size()), std::memory_order_relaxed);
    ++generation_;
    accept(best);
    ++generation_;
    flush_pending();
  }
}

}  // namespace tf::spm_train
