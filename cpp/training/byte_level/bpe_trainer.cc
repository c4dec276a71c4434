// BpeTrainer (see bpe_trainer.h): word layout, initial pair count, the merge loop.
#include "training/byte_level/bpe_trainer.h"

#include <algorithm>

namespace tf::train {

ByteOrder::ByteOrder() {
  // GPT-2's bytes_to_unicode: printable Latin-1 bytes keep their code point, the other 68
  // bytes map to U+0100.. in byte order; sorting by that code point gives this order.
  uint32_t r = 0;
  bool printable[256] = {};
  for (int b = 0; b < 256; ++b)
    printable[b] = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  for (int b = 0; b < 256; ++b)
    if (printable[b]) byte_of_rank[r++] = static_cast<uint8_t>(b);
  for (int b = 0; b < 256; ++b)
    if (!printable[b]) byte_of_rank[r++] = static_cast<uint8_t>(b);
  for (uint32_t k = 0; k < 256; ++k) rank_of_byte[byte_of_rank[k]] = k;
}

namespace {
const ByteOrder kByteOrder;

// Heap order: higher count first, then the smaller pair, then the older entry.
struct EntryLess {
  template <typename E>
  bool operator()(const E& x, const E& y) const {
    if (x.count != y.count) return x.count < y.count;
    if (x.a != y.a) return x.a > y.a;
    if (x.b != y.b) return x.b > y.b;
    return x.list > y.list;
  }
};
}  // namespace

BpeTrainer::BpeTrainer() {
  for (uint32_t r = 0; r < 256; ++r) tokens_.add(std::string(1, static_cast<char>(kByteOrder.byte_of_rank[r])));
  units_.push_back(Unit{kSentinel, 0});  // the unit before the first word
}

bool BpeTrainer::add_word(const uint8_t* p, size_t n, uint64_t count) {
  total_bytes_ += n * count;
  if (n < 2 || count == 0) {  // a single byte never takes part in a pair
    single_bytes_ += n * count;
    return true;
  }
  ++num_words_;
  for (; count != 0; count -= std::min(count, kMaxUnitCount)) {
    if (units_.size() + n + 1 >= kInside) return false;
    uint32_t c = static_cast<uint32_t>(std::min(count, kMaxUnitCount));
    word_start_.push_back(static_cast<uint32_t>(units_.size()));
    Unit* u = units_.extend_uninitialized(n + 1);
    for (size_t i = 0; i < n; ++i) u[i] = Unit{kByteOrder.rank_of_byte[p[i]], c};
    u[n] = Unit{kSentinel, 0};
    units_.commit(n + 1);
  }
  return true;
}

bool BpeTrainer::add_words(const PieceMap& words) {
  size_t units = units_.size(), n_words = word_start_.size();
  words.for_each([&](const uint8_t*, size_t n, uint64_t count) {
    if (n >= 2 && count != 0) {
      size_t copies = (count + kMaxUnitCount - 1) / kMaxUnitCount;
      units += (n + 1) * copies, n_words += copies;
    }
  });
  units_.reserve(units);  // exactly: doubling would leave up to half of the largest table unused
  word_start_.reserve(n_words);
  bool ok = true;
  words.for_each([&](const uint8_t* p, size_t n, uint64_t count) { ok = ok && add_word(p, n, count); });
  return ok;
}

std::pair<uint64_t, uint64_t> BpeTrainer::text_size() const {
  uint64_t tokens = single_bytes_;
  for (size_t u = 1; u < units_.size(); ++u)
    if (units_[u].id != kSentinel && units_[u].id != kInside) tokens += units_[u].x;
  return {total_bytes_, tokens};
}

void BpeTrainer::push(const Entry& e) {
  if (e.count >= 1 && e.count <= defer_max_) {
    deferred_[e.count].push_back(Deferred{e.rec, e.list});
    ++num_deferred_;
    return;
  }
  heap_.push_back(e);
  std::push_heap(heap_.begin(), heap_.end(), EntryLess());
}

// Gives the top entry its record's current count: a count that grew keeps it on top, one
// that fell sinks it (sift-down from the root, which stops early when the fall is small).
void BpeTrainer::requeue_top(int64_t count) {
  if (count >= 1 && count <= defer_max_) {
    Entry e = pop();
    e.count = count;
    push(e);
    return;
  }
  Entry e = heap_[0];
  e.count = count;
  size_t n = heap_.size(), hole = 0;
  EntryLess less;
  for (;;) {
    size_t c = 2 * hole + 1;
    if (c >= n) break;
    if (c + 1 < n && less(heap_[c], heap_[c + 1])) ++c;
    if (!less(e, heap_[c])) break;
    heap_[hole] = heap_[c];
    hole = c;
  }
  heap_[hole] = e;
}

// The highest count with deferred entries (0: none).
int64_t BpeTrainer::highest_deferred() const {
  for (int64_t c = defer_max_; c >= 1; --c)
    if (!deferred_[c].empty()) return c;
  return 0;
}

// Moves the deferred entries of `count` (the highest deferred count) into the heap; from
// then on entries of that count go there directly.
void BpeTrainer::undefer(int64_t count) {
  for (const Deferred& d : deferred_[count])
    heap_.push_back(Entry{count, pairs_[d.rec].a, pairs_[d.rec].b, d.list, d.rec});
  std::make_heap(heap_.begin(), heap_.end(), EntryLess());
  num_deferred_ -= deferred_[count].size();
  BigVector<Deferred>().swap(deferred_[count]);
  defer_max_ = count - 1;
}

BpeTrainer::Entry BpeTrainer::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), EntryLess());
  Entry e = heap_.back();
  heap_.pop_back();
  return e;
}

// The first position where e's pair still occurs (lists are in unit order in first_seen_
// mode, see train()); kSentinel if none.
uint32_t BpeTrainer::first_position(const Entry& e) const {
  for (uint32_t pos : lists_.get(e.list))
    if (units_[pos].id == e.a && units_[pos + span_at(pos)].id == e.b) return pos;
  return kSentinel;
}

// minbpe's tie rule: `top` (popped, current) and every other current entry of its count
// leave the heap; the one whose pair occurs first in the text wins and the rest go back.
// O(tied entries x their stale positions) per merge.
BpeTrainer::Entry BpeTrainer::take_first_seen(Entry top) {
  uint32_t best_pos = first_position(top);
  std::vector<Entry> others;
  while (!heap_.empty() && heap_[0].count == top.count) {
    Entry e = pop();
    int64_t now = pairs_[e.rec].count;
    if (now != e.count) {  // stale: back with its current count
      e.count = now;
      if (now > 0) push(e);
      continue;
    }
    uint32_t pos = first_position(e);
    if (pos < best_pos) std::swap(e, top), best_pos = pos;
    others.push_back(e);
  }
  for (const Entry& e : others) push(e);
  return top;
}

// Counts the byte pairs of all words: at most 65 536 of them, so dense arrays do it.
void BpeTrainer::count_initial_pairs() {
  std::vector<int64_t> count(1 << 16, 0);
  std::vector<uint32_t> occurrences(1 << 16, 0);
  for (size_t u = 1; u + 1 < units_.size(); ++u) {
    if (units_[u].id == kSentinel || units_[u + 1].id == kSentinel) continue;
    uint32_t k = units_[u].id << 8 | units_[u + 1].id;
    count[k] += units_[u].x;
    ++occurrences[k];
  }
  // One list per pair, sized first and then filled in unit order (a counting sort written
  // straight into the lists, so positions are sorted and never copied).
  uint64_t pooled = 0;
  for (uint32_t k = 0; k < (1u << 16); ++k) pooled += occurrences[k] > 1 ? occurrences[k] : 0;
  lists_.reserve(pooled);
  std::vector<uint32_t> list_of(1 << 16, 0);
  for (uint32_t k = 0; k < (1u << 16); ++k) {
    if (occurrences[k] == 0) continue;
    uint32_t list = list_of[k] = lists_.add_uninitialized(occurrences[k]);
    uint32_t a = k >> 8, b = k & 255, rec = static_cast<uint32_t>(pairs_.size());
    pairs_.push_back(PairRecord{count[k], a, b, 0, 0, list});
    index_.insert(PairIndex::key(a, b), key_of());
    if (count[k] > 0) push(Entry{count[k], a, b, list, rec});
  }
  std::vector<uint32_t*> next(1 << 16, nullptr);  // where the pair's next position goes
  for (uint32_t k = 0; k < (1u << 16); ++k)
    if (occurrences[k] != 0) next[k] = lists_.data(list_of[k]);
  for (size_t u = 1; u + 1 < units_.size(); ++u) {
    if (units_[u].id == kSentinel || units_[u + 1].id == kSentinel) continue;
    *next[units_[u].id << 8 | units_[u + 1].id]++ = static_cast<uint32_t>(u);
  }
}

// Merges the symbol at `pos` with the next one if they are (a, b), recording how the
// neighbouring pairs change (the same changes HF's Word::merge reports).
void BpeTrainer::merge_at(uint32_t pos, uint32_t a, uint32_t b, uint32_t r) {
  if (units_[pos].id != a) return;
  uint32_t j = pos + span_at(pos);
  if (units_[j].id != b) return;
  int64_t w = units_[pos].x;
  uint32_t k = j + span_at(j);
  if (units_[pos - 1].id != kSentinel) {
    uint32_t prev_start = start_before(pos);
    uint32_t x = units_[prev_start].id;
    if (!touched_left_[x]) {
      touched_left_[x] = 1;
      touched_left_ids_.push_back(x);
    }
    lost_left_[x] += w;
    gain_left_[x] += w;
    gain_left_pos_[x].push_back(prev_start);
  }
  if (units_[k].id != kSentinel) {
    uint32_t x = units_[k].id;
    if (!touched_right_[x]) {
      touched_right_[x] = 1;
      touched_right_ids_.push_back(x);
    }
    lost_right_[x] += w;
    gain_right_[x] += w;
    gain_right_pos_[x].push_back(pos);
  }
  uint32_t len = k - pos;
  units_[pos].id = r;
  units_[j].id = kInside;
  units_[pos + 1] = Unit{kInside, len};  // (j itself when a was one unit)
  units_[pos + len - 1] = Unit{kInside, len};
}

// HF merges a pair in every word of an entry's position set, scanning each word left to
// right; only needed for pairs that gained occurrences in two different steps.
void BpeTrainer::merge_words(uint32_t list, uint32_t a, uint32_t b, uint32_t r) {
  PositionLists::View v = lists_.get(list);
  std::vector<uint32_t> positions(v.begin(), v.end());
  std::sort(positions.begin(), positions.end());
  uint32_t scanned = 0;  // units before this belong to words already merged
  for (uint32_t pos : positions) {
    if (pos < scanned) continue;
    uint32_t u = *(std::upper_bound(word_start_.begin(), word_start_.end(), pos) - 1);
    for (; units_[u].id != kSentinel; u += span_at(u)) merge_at(u, a, b, r);
    scanned = u;
  }
}

// Empties a per-step position buffer; a big one gives its memory back, since one buffer per
// neighbour id kept at its largest size adds up to more than the lists themselves.
namespace {
void release(std::vector<uint32_t>* positions) {
  if (positions->capacity() > 64)
    std::vector<uint32_t>().swap(*positions);
  else
    positions->clear();
}
}  // namespace

// Adds occurrences of (a, b) found in this step to its record (*rec).  True if they start a
// new position list, which needs its own heap entry.  `is_new`: the pair cannot have a
// record yet (it holds a token that did not exist before this step), so the index is not
// searched.
bool BpeTrainer::add_pair_occurrences(uint32_t a, uint32_t b, int64_t count, std::vector<uint32_t>* positions,
                                      bool is_new, uint32_t* rec) {
  *rec = is_new ? PairIndex::kMissing : find(a, b);
  bool inserted = *rec == PairIndex::kMissing;
  if (inserted) {
    *rec = static_cast<uint32_t>(pairs_.size());
    pairs_.push_back(PairRecord{0, a, b, 0, 0, 0});
    index_.insert(PairIndex::key(a, b), key_of());
  }
  PairRecord& p = pairs_[*rec];
  p.count += count;
  if (inserted || p.step != step_) {
    if (!inserted) p.multi = true;  // occurrences from two steps: HF merges it word by word
    p.step = step_;
    p.list = lists_.add(positions->data(), positions->size());
    release(positions);
    return true;
  }
  lists_.extend(p.list, positions->data(), positions->size());  // (r, r) gained on both sides of r
  release(positions);
  return false;
}

void BpeTrainer::skip_pair(uint32_t a, uint32_t b, int64_t count, std::vector<uint32_t>* positions) {
  skipped_.add(a, b, count, positions->data(), positions->size());
  release(positions);
}

// A pair lost occurrences; a skipped pair has no record to update (restore_skipped counts
// what is left of it).
void BpeTrainer::lose(uint32_t a, uint32_t b, int64_t count) {
  uint32_t rec = find(a, b);
  if (rec != PairIndex::kMissing) pairs_[rec].count -= count;
}

// Gives every logged pair of count `floor` or more what it would have had if it had not
// been skipped: a record holding its current count (never merged, so the count is what
// its positions still hold), its position list, and a queue entry with the count it was
// created with (as stale as the entry it would have had; the lazy requeue corrects both
// alike).  O(logged pairs and their positions).
void BpeTrainer::restore_skipped(int64_t floor) {
  skipped_.take_if([&](const SkippedPairs::Pair& s) {
    if (s.count < floor) return false;
    const uint32_t* pos = skipped_.positions(s);
    int64_t now = 0;
    for (uint32_t k = 0; k < s.size; ++k) {
      const Unit& u = units_[pos[k]];
      if (u.id == s.a && units_[pos[k] + span_at(pos[k])].id == s.b) now += u.x;
    }
    uint32_t rec = static_cast<uint32_t>(pairs_.size());
    uint32_t list = lists_.add(pos, s.size);
    pairs_.push_back(PairRecord{now, s.a, s.b, 0, 0, list});  // step 0: a later gain is another step
    index_.insert(PairIndex::key(s.a, s.b), key_of());
    if (s.count > 0) push(Entry{s.count, s.a, s.b, list, rec});
    return true;
  }, [&](const SkippedPairs::Pair& s) {
    if (s.count >= floor) prefetch_around(skipped_.positions(s)[0]);
  });
}

// Applies the changes gathered while merging (a, b) into r, then pushes the pairs that
// gained occurrences, as HF does after each merge.  `fresh`: r is a new token, not one an
// earlier merge built already, so every pair that gains is new, except (r, r) the second
// time (it gains on both sides of r).
void BpeTrainer::flush(uint32_t a, uint32_t b, uint32_t r, bool fresh) {
  std::vector<uint32_t>& gained = gained_;
  gained.clear();
  uint32_t rec;
  // Each step below probes the index at random: the slot of the pair a few ahead is
  // fetched while this one is worked on.
  constexpr size_t kAhead = 8;
  const std::vector<uint32_t>& left = touched_left_ids_;
  const std::vector<uint32_t>& right = touched_right_ids_;
  for (size_t i = 0; i < std::min(kAhead, left.size()); ++i) index_.prefetch(PairIndex::key(left[i], r));
  for (size_t i = 0; i < left.size(); ++i) {
    if (i + kAhead < left.size()) index_.prefetch(PairIndex::key(left[i + kAhead], r));
    uint32_t x = left[i];
    if (gain_left_pos_[x].empty()) continue;
    if (fresh && skip_floor_ != 0 && x != r) {
      int64_t net = gain_left_[x] - (x == b ? lost_right_[r] : 0);  // (b, r) can also lose in this step
      if (net < skip_floor_) {
        skip_pair(x, r, net, &gain_left_pos_[x]);
        continue;
      }
    }
    if (add_pair_occurrences(x, r, gain_left_[x], &gain_left_pos_[x], fresh, &rec)) gained.push_back(rec);
  }
  for (size_t i = 0; i < std::min(kAhead, right.size()); ++i) index_.prefetch(PairIndex::key(r, right[i]));
  for (size_t i = 0; i < right.size(); ++i) {
    if (i + kAhead < right.size()) index_.prefetch(PairIndex::key(r, right[i + kAhead]));
    uint32_t x = right[i];
    if (gain_right_pos_[x].empty()) continue;
    if (fresh && skip_floor_ != 0 && x != r) {
      int64_t net = gain_right_[x] - (x == a ? lost_left_[r] : 0);  // (r, a) can also lose in this step
      if (net < skip_floor_) {
        skip_pair(r, x, net, &gain_right_pos_[x]);
        continue;
      }
    }
    if (add_pair_occurrences(r, x, gain_right_[x], &gain_right_pos_[x], fresh && x != r, &rec)) gained.push_back(rec);
  }
  for (size_t i = 0; i < std::min(kAhead, left.size()); ++i) index_.prefetch(PairIndex::key(left[i], a));
  for (size_t i = 0; i < std::min(kAhead, right.size()); ++i) index_.prefetch(PairIndex::key(b, right[i]));
  for (size_t i = 0; i < left.size(); ++i) {
    if (i + kAhead < left.size()) index_.prefetch(PairIndex::key(left[i + kAhead], a));
    uint32_t x = left[i];
    if (lost_left_[x] != 0) lose(x, a, lost_left_[x]);
    lost_left_[x] = gain_left_[x] = 0;
    touched_left_[x] = 0;
  }
  for (size_t i = 0; i < right.size(); ++i) {
    if (i + kAhead < right.size()) index_.prefetch(PairIndex::key(b, right[i + kAhead]));
    uint32_t x = right[i];
    if (lost_right_[x] != 0) lose(b, x, lost_right_[x]);
    lost_right_[x] = gain_right_[x] = 0;
    touched_right_[x] = 0;
  }
  touched_left_ids_.clear();
  touched_right_ids_.clear();
  for (uint32_t g : gained) {
    const PairRecord& p = pairs_[g];
    if (p.count > 0) push(Entry{p.count, p.a, p.b, p.list, g});
  }
}

// Sizes the per-step tables (indexed by token id) for ids below n.
void BpeTrainer::grow_step_tables(size_t n) {
  for (auto* v : {&lost_left_, &lost_right_, &gain_left_, &gain_right_}) v->resize(n, 0);
  gain_left_pos_.resize(n);
  gain_right_pos_.resize(n);
  touched_left_.resize(n, 0);
  touched_right_.resize(n, 0);
}

void BpeTrainer::train(uint32_t vocab_size, uint64_t min_frequency, std::atomic<uint32_t>* done, bool word_level,
                       int64_t skip_floor) {
  skip_floor_ = skip_floor > 1 ? std::min<int64_t>(skip_floor, INT32_MAX) : 0;  // logged counts are 32-bit
  if (first_seen_) skip_floor_ = 0;  // (ties are resolved by position, which logged pairs lack)
  count_initial_pairs();
  int64_t floor = static_cast<int64_t>(std::max<uint64_t>(min_frequency, 1));
  while (tokens_.size() < vocab_size && !(heap_.empty() && num_deferred_ == 0 && skipped_.empty())) {
    if (num_deferred_ != 0) {
      int64_t c = highest_deferred();
      if (heap_.empty() || heap_[0].count <= c) {
        undefer(c);
        continue;
      }
    }
    if (skip_floor_ != 0 && (heap_.empty() || heap_[0].count < skip_floor_)) {
      // The next merge could be a skipped pair: restore those of the upper half.
      skip_floor_ /= 2;
      restore_skipped(skip_floor_ > 1 ? skip_floor_ : INT64_MIN);
      if (skip_floor_ <= 1) skip_floor_ = 0;
      continue;
    }
    Entry top = heap_[0];
    PairRecord rec = pairs_[top.rec];
    if (top.count != rec.count) {  // stale: requeue with the current count
      requeue_top(rec.count);
      continue;
    }
    if (top.count < floor) break;
    pop();
    if (first_seen_) top = take_first_seen(top), rec = pairs_[top.rec];
    ++step_;
    size_t known = tokens_.size();
    // A new token, or (HF's rule) the existing id if another merge built it.
    uint32_t r = first_seen_ ? tokens_.append(top.a, top.b) : tokens_.join(top.a, top.b);
    if (tokens_.size() == known && skip_floor_ != 0) {  // r was built before: pairs may gain twice from now on
      restore_skipped(INT64_MIN);
      skip_floor_ = 0;
    }
    merges_.emplace_back(top.a, top.b);
    merge_ids_.push_back(r);
    if (tokens_.size() > lost_left_.size()) grow_step_tables(2 * tokens_.size());  // neighbours are any id
    // Merging a list out of unit order would merge "aaa" as a(aa), not (aa)a; in first_seen_
    // mode every pair gains in one step, in order, so this is only a safeguard.
    PositionLists::View positions = lists_.get(top.list);
    if (rec.multi || word_level || (first_seen_ && !std::is_sorted(positions.begin(), positions.end()))) {
      merge_words(top.list, top.a, top.b, r);
    } else {
      // Positions are scattered in memory: fetch kAhead merges ahead, starting with the
      // first ones (most merges late in training have only a few positions).
      constexpr size_t kAhead = 16;
      PositionLists::View list = lists_.get(top.list);
      for (size_t i = 0; i < std::min(kAhead, list.size); ++i) prefetch_around(list.data[i]);
      for (size_t i = 0; i < list.size; ++i) {
        if (i + kAhead < list.size) prefetch_around(list.data[i + kAhead]);
        merge_at(list.data[i], top.a, top.b, r);
      }
    }
    lists_.drop(top.list);
    if (!heap_.empty()) {  // likely the next merge: its record and first positions load during flush
      __builtin_prefetch(&pairs_[heap_[0].rec]);
      PositionLists::View next = lists_.get(heap_[0].list);
      for (size_t i = 0; i < std::min<size_t>(8, next.size); ++i) prefetch_around(next.data[i]);
    }
    flush(top.a, top.b, r, tokens_.size() != known);
    if (done != nullptr) done->store(static_cast<uint32_t>(merges_.size()), std::memory_order_relaxed);
  }
}

}  // namespace tf::train
