// normalize_unicode (unicode_forms.h): the readable normalizer's three steps over the runs a
// form may change.
//
// 1. each character becomes its full decomposition; the first character of it stands in the
//    original's place (change 0), the others are inserted after it (change 1);
// 2. each run of non-starters is sorted by combining class, stably, carrying the changes;
// 3. NFC/NFKC: a character that composes with the last starter and is not blocked is
//    absorbed into it; the composite's change is the sum of both, minus one.
// The change of each output character then says which original character it is aligned to,
// as tokenizers' NormalizedString::transform reads an edit list.
#include "normalize/unicode_forms.h"

#include <algorithm>

namespace tf {

namespace {

#include "normalize/unicode_forms_tables.inc"

constexpr uint8_t kSecond = 1 << 4;
constexpr uint32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr uint32_t kLCount = 19, kVCount = 21, kTCount = 28, kSCount = kLCount * kVCount * kTCount;

inline uint32_t record(uint32_t cp) {
  if (cp >= 0x110000) return 0;
  return kFormStage2[(static_cast<uint32_t>(kFormStage1[cp >> kFormBlockShift]) << kFormBlockShift) |
                     (cp & ((1u << kFormBlockShift) - 1))];
}

struct Item {
  uint32_t c;
  uint8_t ccc;
  int32_t change;
};

// Stable sort of items [from, end) by combining class (the runs are short).
void sort_run(std::vector<Item>& items, size_t from) {
  for (size_t i = from + 1; i < items.size(); ++i) {
    const Item x = items[i];
    size_t j = i;
    for (; j > from && items[j - 1].ccc > x.ccc; --j) items[j] = items[j - 1];
    items[j] = x;
  }
}

// Steps 1 and 2 over one span.
void decompose(const uint32_t* s, size_t n, bool compat, std::vector<Item>& items) {
  items.clear();
  size_t run = 0;  // where the current run of non-starters begins
  uint32_t parts[4];
  for (size_t i = 0; i < n; ++i) {
    const uint32_t cp = s[i];
    const uint32_t* p = parts;
    size_t len = 1;
    parts[0] = cp;
    if (cp - kSBase < kSCount) {
      const uint32_t k = cp - kSBase;
      parts[0] = kLBase + k / (kVCount * kTCount);
      parts[1] = kVBase + (k % (kVCount * kTCount)) / kTCount;
      len = 2;
      if (k % kTCount != 0) parts[len++] = kTBase + k % kTCount;
    } else if (const uint32_t r = record(cp); r != 0) {
      const uint32_t at = compat ? kFormNfkdAt[r] : kFormNfdAt[r];
      const uint32_t dl = compat ? kFormNfkdLen[r] : kFormNfdLen[r];
      if (dl != 0) {
        p = kFormPool + at;
        len = dl;
      }
    }
    for (size_t t = 0; t < len; ++t) {
      const uint32_t c = p[t];
      const uint8_t ccc = kFormCcc[record(c)];
      if (ccc == 0) {
        if (items.size() - run > 1) sort_run(items, run);
        items.push_back({c, 0, t == 0 ? 0 : 1});
        run = items.size();
      } else {
        items.push_back({c, ccc, t == 0 ? 0 : 1});
      }
    }
  }
  if (items.size() - run > 1) sort_run(items, run);
}

// The primary composite of first and second, or 0.
uint32_t composite(uint32_t first, uint32_t second) {
  if (first - kLBase < kLCount && second - kVBase < kVCount)
    return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
  if (first - kSBase < kSCount && (first - kSBase) % kTCount == 0 && second - kTBase - 1 < kTCount - 1)
    return first + (second - kTBase);
  const uint64_t key = (static_cast<uint64_t>(first) << 32) | second;
  const uint64_t* end = kFormPairs + sizeof(kFormPairs) / sizeof(kFormPairs[0]);
  const uint64_t* it = std::lower_bound(kFormPairs, end, key);
  return it != end && *it == key ? kFormComposites[it - kFormPairs] : 0;
}

// Step 3: items recomposed in place.
void recompose(std::vector<Item>& items) {
  size_t w = 0;                 // items written
  bool have_starter = false;    // the last starter, which may still absorb marks
  Item starter{};
  std::vector<Item> waiting;    // marks after it that it did not absorb
  uint8_t last_class = 0;       // the class of the last waiting mark (0: none waits)
  for (size_t i = 0; i < items.size(); ++i) {
    const Item it = items[i];
    if (!have_starter) {
      if (it.ccc != 0) {
        items[w++] = it;  // a mark before any starter
      } else {
        starter = it;
        have_starter = true;
      }
      continue;
    }
    if ((kFormFlags[record(it.c)] & kSecond) && !(last_class != 0 && last_class >= it.ccc)) {
      if (const uint32_t made = composite(starter.c, it.c)) {
        starter.c = made;
        starter.change += it.change - 1;
        continue;
      }
    }
    if (it.ccc == 0) {
      items[w++] = starter;
      for (const Item& m : waiting) items[w++] = m;
      waiting.clear();
      starter = it;
      last_class = 0;
    } else {
      waiting.push_back(it);
      last_class = it.ccc;
    }
  }
  if (have_starter) items[w++] = starter;
  for (const Item& m : waiting) items[w++] = m;
  items.resize(w);
}

}  // namespace

bool normalize_unicode(const uint32_t* text, size_t n, UnicodeForm form, std::vector<uint32_t>* out,
                       std::vector<uint32_t>* starts, std::vector<uint32_t>* ends) {
  out->clear();
  starts->clear();
  ends->clear();
  const uint8_t bit = static_cast<uint8_t>(1u << static_cast<unsigned>(form));
  const bool compat = form == UnicodeForm::kNFKD || form == UnicodeForm::kNFKC;
  const bool compose = form == UnicodeForm::kNFC || form == UnicodeForm::kNFKC;
  std::vector<Item> items;
  size_t done = 0;  // text[0, done) is in out
  bool changed = false;
  size_t i = 0;
  const auto changing = [bit](uint32_t c) { return c >= 0x80 && (kFormFlags[record(c)] & bit); };
  while (i < n) {
    if (!changing(text[i])) {
      ++i;
      continue;
    }
    // a span: the run of characters the form may change, with the character before it
    const size_t a = i > 0 ? i - 1 : 0;
    size_t b = i + 1;
    for (;;) {
      while (b < n && changing(text[b])) ++b;
      // one unchanged character between two runs: one span (its character before is in it)
      if (b + 1 < n && changing(text[b + 1])) {
        b += 2;
        continue;
      }
      break;
    }
    decompose(text + a, b - a, compat, items);
    if (compose) recompose(items);
    bool same = items.size() == b - a;
    for (size_t k = 0; same && k < items.size(); ++k) same = items[k].c == text[a + k] && items[k].change == 0;
    if (!same) {
      if (!changed) {
        out->reserve(n + 16);
        starts->reserve(n + 16);
        ends->reserve(n + 16);
        changed = true;
      }
      for (size_t k = done; k < a; ++k) {
        out->push_back(text[k]);
        starts->push_back(static_cast<uint32_t>(k));
        ends->push_back(static_cast<uint32_t>(k + 1));
      }
      size_t pos = 0;  // the next original character of the span
      for (const Item& it : items) {
        out->push_back(it.c);
        if (it.change > 0) {
          const size_t at = pos > 0 ? a + pos - 1 : a;
          starts->push_back(static_cast<uint32_t>(at));
          ends->push_back(static_cast<uint32_t>(pos > 0 ? at + 1 : at));
        } else {
          starts->push_back(static_cast<uint32_t>(a + pos));
          ends->push_back(static_cast<uint32_t>(a + pos + 1));
          pos += 1 - it.change;
        }
      }
      done = b;
    }
    i = b;
  }
  if (!changed) return false;
  for (size_t k = done; k < n; ++k) {
    out->push_back(text[k]);
    starts->push_back(static_cast<uint32_t>(k));
    ends->push_back(static_cast<uint32_t>(k + 1));
  }
  return true;
}

}  // namespace tf
