#include "pipeline/hf_spm_encoder.h"

#include <algorithm>
#include <cstring>

#include "common/offset_limit.h"
#include "common/unicode/grapheme.h"
#include "common/unicode/unicode.h"

namespace tf::hf {

namespace {

constexpr uint8_t kMarker[3] = {0xE2, 0x96, 0x81};  // U+2581 ▁

inline bool is_marker(const uint8_t* p, const uint8_t* end) {
  return end - p >= 3 && p[0] == 0xE2 && p[1] == 0x96 && p[2] == 0x81;
}

inline uint32_t count_chars(const uint8_t* p, size_t n) {
  uint32_t c = 0;
  for (size_t i = 0; i < n; ++i) c += (p[i] & 0xC0) != 0x80;
  return c;
}

}  // namespace

// Reused from text to text on one thread.
struct SpmStyleEncoder::Scratch {
  std::string pre;               // the stretch after the charsmap and space collapsing
  std::vector<uint32_t> pre_of;  // its bytes' original characters
  std::string norm;              // the normalized stretch
  std::vector<uint32_t> char_of;  // its bytes' original characters
  std::vector<HfToken> tokens;
  MergeRankBpe::Scratch* bpe = nullptr;
  ViterbiUnigram::Lattice lattice;
};

bool SpmStyleEncoder::prenormalize(const uint8_t* text, size_t n, uint32_t first, Scratch& scratch) const {
  std::string& out = scratch.pre;
  std::vector<uint32_t>& of = scratch.pre_of;
  // Written through raw pointers into buffers kept at least (bytes left + 16) past k, so
  // an unchanged character always fits; only a replacement checks for room.  Runs of 2+
  // spaces (collapse_spaces) are collapsed as they are written: a space written after a
  // space takes its place, so a run keeps its last space, as Replace(" {2,}", " ") does.
  const uint8_t* end = text + n;
  size_t k = 0;
  out.resize(n + 16);
  of.resize(n + 16);
  uint8_t* o = reinterpret_cast<uint8_t*>(&out[0]);
  uint32_t* f = of.data();
  const bool collapse = marking_.collapse_spaces;
  auto put = [&](uint8_t b, uint32_t at) {
    if (collapse && b == ' ' && k > 0 && o[k - 1] == ' ') --k;
    o[k] = b;
    f[k++] = at;
  };
  uint32_t c = first;
  const uint8_t* p = text;
  if (charsmap_ == nullptr) {
    for (; p < end; ++p) {
      c += (*p & 0xC0) != 0x80;
      put(*p, c - 1);
    }
  }
  // With a charsmap, grapheme by grapheme (the header comment).  `inserted`: the last
  // character written is an insertion (a replacement's character past the replaced ones).
  bool inserted = false;
  // Writes the replacement r[0, rlen) of m characters from c: its i-th character comes from
  // character c + min(i, m - 1), as `tokenizers` aligns a longer or shorter replacement.
  // A deletion (rlen 0) writes nothing; false where its alignment is not one the byte map
  // can hold (nothing written yet in this stretch, or an insertion just written).
  auto replace = [&](const char* r, size_t rlen, uint32_t m, const uint8_t* rest) {
    if (rlen == 0) return k > 0 && !inserted;
    const size_t need = k + rlen + static_cast<size_t>(end - rest) + 16;
    if (need > out.size()) {
      out.resize(2 * need);
      of.resize(2 * need);
      o = reinterpret_cast<uint8_t*>(&out[0]);
      f = of.data();
    }
    uint32_t i = 0;
    for (size_t j = 0; j < rlen; ++j) {
      i += j > 0 && (static_cast<uint8_t>(r[j]) & 0xC0) != 0x80;
      put(static_cast<uint8_t>(r[j]), c + (i < m - 1 ? i : m - 1));
    }
    inserted = i + 1 > m;
    return true;
  };
  // One character (len bytes, code point cp) looked up alone, through the memo.
  auto one = [&](const uint8_t* at, int len, uint32_t cp) {
    uint32_t entry = charsmap_memo_.get(cp);
    const char* r = nullptr;
    size_t rlen = 0;
    if (entry == CharsmapMemo::kUnknown || entry == CharsmapMemo::kAsk) {
      if ((r = charsmap_->shortest(at, static_cast<size_t>(len), &rlen)) == nullptr) {
        entry = CharsmapMemo::kKeep;
      } else if (rlen == 0) {
        entry = CharsmapMemo::kDelete;
      } else {
        entry = CharsmapMemo::replacement(static_cast<size_t>(r - charsmap_->strings()), rlen);
      }
      charsmap_memo_.put(cp, entry);
    }
    if (entry == CharsmapMemo::kKeep) {
      for (int i = 0; i < len; ++i) put(at[i], c);
      inserted = false;
      return true;
    }
    if (entry == CharsmapMemo::kDelete) return replace(nullptr, 0, 1, at + len);
    if (entry != CharsmapMemo::kAsk) {
      r = charsmap_->strings() + CharsmapMemo::offset(entry);
      rlen = CharsmapMemo::length(entry);
    }
    return replace(r, rlen, 1, at + len);
  };
  while (p < end) {
    const uint8_t b = *p;
    // ASCII followed by ASCII is a grapheme of its own (but for CR LF).
    if (b < 0x80 && (p + 1 == end || p[1] < 0x80) && b != '\r' && !charsmap_->ascii_may_change(b)) {
      put(b, c++);
      ++p;
      inserted = false;
      continue;
    }
    int len = 1;
    const uint32_t cp = b < 0x80 ? b : decode_utf8(p, end, &len);
    // The grapheme [p, q), m characters.
    const uint8_t* q = p + len;
    uint32_t m = 1;
    GraphemeRun run(grapheme_class(cp));
    while (q < end) {
      int next_len = 1;
      const uint32_t next = *q < 0x80 ? *q : decode_utf8(q, end, &next_len);
      if (!run.joins(grapheme_class(next))) break;
      q += next_len;
      ++m;
    }
    // Under six bytes, a grapheme of two or more characters is looked up whole first; a hit
    // replaces all of it.  Otherwise each character is looked up alone.
    size_t rlen = 0;
    const char* r = m > 1 && q - p < 6 ? charsmap_->shortest(p, static_cast<size_t>(q - p), &rlen) : nullptr;
    if (r != nullptr) {
      if (!replace(r, rlen, m, q)) return false;
      c += m;
    } else if (m == 1) {
      if (!one(p, len, cp)) return false;
      ++c;
    } else {
      for (const uint8_t* at = p; at < q; ++c) {
        int l = 1;
        const uint32_t x = *at < 0x80 ? *at : decode_utf8(at, q, &l);
        if (!one(at, l, x)) return false;
        at += l;
      }
    }
    p = q;
  }
  out.resize(k);
  of.resize(k);
  if (marking_.strip_edges) {
    if (!out.empty() && out.back() == ' ') {
      out.pop_back();
      of.pop_back();
    }
    if (!out.empty() && out[0] == ' ') {
      out.erase(0, 1);
      of.erase(of.begin());
    }
  }
  return true;
}

size_t SpmStyleEncoder::marked_size(const uint8_t* text, size_t n) const {
  size_t k = n + (marking_.prepend ? 3 : 0);
  if (marking_.replace_spaces) {
    for (size_t i = 0; i < n; ++i) k += text[i] == ' ' ? 2 : 0;
  }
  return k;
}

bool SpmStyleEncoder::encode_stretch(const uint8_t* text, size_t n, const uint32_t* of, uint32_t first,
                                     uint32_t* word, HfEncoded* out, bool ids_only, Scratch& scratch,
                                     std::string* error) const {
  if (marking_.split_words == 0) return encode_marked(text, n, of, first, word, out, ids_only, scratch, error);
  // Words: each maximal run of one kind of character, whitespace dropped (WhitespaceSplit:
  // one kind besides whitespace; Whitespace: word characters and the others).  `first` for
  // a word is its first character in the original text (Metaspace's "first" scheme asks if
  // it is 0).
  const uint8_t* end = text + n;
  const bool classes = marking_.split_words == 2;
  auto kind_at = [&](size_t at, int* len) {  // WhitespaceClasses' kinds (WhitespaceSplit: blank or a word's)
    *len = 1;
    const uint32_t cp = text[at] < 0x80 ? text[at] : decode_utf8(text + at, end, len);
    if (!classes) return char_class(cp) == kSpace ? WhitespaceClasses::kBlank : WhitespaceClasses::kWordChar;
    return whitespace_->kind(cp);
  };
  size_t i = 0;
  uint32_t c = first;  // the character at text[i] when `of` is null
  int len = 1;
  int kind = n > 0 ? kind_at(0, &len) : WhitespaceClasses::kBlank;
  while (i < n) {
    if (kind == WhitespaceClasses::kBlank) {
      i += static_cast<size_t>(len);
      ++c;
      if (i < n) kind = kind_at(i, &len);
      continue;
    }
    const size_t start = i;
    const uint32_t start_char = of != nullptr ? of[start] : c;
    const int word_kind = kind;
    do {
      i += static_cast<size_t>(len);
      ++c;
    } while (i < n && (kind = kind_at(i, &len)) == word_kind);
    if (!encode_marked(text + start, i - start, of != nullptr ? of + start : nullptr, start_char, word, out,
                       ids_only, scratch, error)) {
      return false;
    }
  }
  return true;
}

bool SpmStyleEncoder::encode_marked(const uint8_t* text, size_t n, const uint32_t* of, uint32_t first,
                                    uint32_t* word, HfEncoded* out, bool ids_only, Scratch& scratch,
                                    std::string* error) const {
  if (n == 0) return true;
  // Normalized positions (HfToken, the models' base) are 32-bit.  The buffers take at most
  // 3 bytes per input byte (a space becomes ▁) and two ▁ in front; where that bound passes
  // the limit, the exact size is counted first (and the buffers sized to it).
  const size_t limit = hf_text_limit();
  size_t room = 3 * n + 6;
  if (room > limit) {
    room = marked_size(text, n);
    const size_t size = room + (marking_.metaspace_prepend != 0 ? 3 : 0);
    if (size > limit) {
      *error = too_long_message("a stretch of the text normalizes to", size);
      return false;
    }
  }
  // Metaspace's ▁ in front, unless the normalized stretch starts with one already (from the
  // Prepend normalizer, a replaced space, or the text's own), decided before the stretch is
  // written so that it need not be moved.
  const bool starts_marked = marking_.prepend || (marking_.replace_spaces && text[0] == ' ') || is_marker(text, text + n);
  const bool metaspace = marking_.metaspace_prepend != 0 && !starts_marked &&
                         (marking_.metaspace_prepend == 1 || first == 0);
  room += metaspace ? 3 : 0;
  std::string& norm = scratch.norm;
  std::vector<uint32_t>& char_of = scratch.char_of;  // normalized byte -> original character
  std::vector<HfToken>& tokens = scratch.tokens;
  // Grown, never shrunk: each stretch overwrites what it uses (resizing to each stretch's
  // size zero-filled the buffers every time).
  if (norm.size() < room) norm.resize(room);
  if (char_of.size() < room) char_of.resize(room);
  uint8_t* w = reinterpret_cast<uint8_t*>(&norm[0]);
  uint32_t* a = char_of.data();
  size_t k = 0;
  auto marker = [&](uint32_t at) {
    std::memcpy(w + k, kMarker, 3);
    a[k] = a[k + 1] = a[k + 2] = at;
    k += 3;
  };
  if (marking_.prepend || metaspace) marker(of ? of[0] : first);
  uint32_t c = first;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = text[i];
    // A continuation byte belongs to the character its lead byte started.
    c += (b & 0xC0) != 0x80;
    const uint32_t at = of ? of[i] : c - 1;
    if (b == ' ' && marking_.replace_spaces) {
      marker(at);
      continue;
    }
    w[k] = b;
    a[k++] = at;
  }
  const uint8_t* s = w;
  const size_t m = k;
  // Pieces: the whole stretch, or with split one starting at each ▁ (MergedWithNext).
  size_t piece = 0;
  while (piece < m) {
    size_t stop = m;
    if (marking_.split) {
      stop = piece + 1;
      while (stop < m && !is_marker(s + stop, s + m)) ++stop;
    }
    tokens.clear();
    const std::string_view view(norm.data() + piece, stop - piece);
    if (bpe_) {
      bpe_->encode(view, static_cast<uint32_t>(piece), &tokens, *scratch.bpe);
    } else {
      unigram_->encode(view, static_cast<uint32_t>(piece), &tokens, scratch.lattice);
    }
    // Written by index into the lists grown once per piece (a push_back per field per token
    // was a capacity check each).
    const size_t at = out->ids.size(), count = tokens.size();
    out->ids.resize(at + count);
    uint32_t* ids = out->ids.data() + at;
    for (size_t i = 0; i < count; ++i) ids[i] = tokens[i].id;
    if (!ids_only) {
      out->starts.resize(at + count);
      out->ends.resize(at + count);
      out->words.resize(at + count, *word);
      uint32_t* starts = out->starts.data() + at;
      uint32_t* ends = out->ends.data() + at;
      for (size_t i = 0; i < count; ++i) {
        const HfToken& t = tokens[i];
        starts[i] = char_of[t.begin];
        ends[i] = char_of[t.end - 1] + 1;
        if (unigram_ && t.id == unigram_->unk_id()) {
          out->surface_at.push_back(static_cast<uint32_t>(at + i));
          out->surface.append(norm.data() + t.begin, t.end - t.begin);
          out->surface_end.push_back(static_cast<uint32_t>(out->surface.size()));
        }
      }
    }
    if (*word >= limit) {  // word ids are 32-bit too (a piece per ▁: up to two per character)
      *error = "a text of more than " + std::to_string(limit) + " words (pieces) is longer than 32-bit word ids allow";
      return false;
    }
    ++*word;
    piece = stop;
  }
  return true;
}

bool SpmStyleEncoder::encode(std::string_view text, HfEncoded* out, bool ids_only, std::string* error) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  if (n > hf_text_limit()) {  // character offsets are 32-bit
    *error = too_long_message("a text of", n);
    return false;
  }
  size_t done = 0;
  uint32_t chars = 0;  // characters in [0, done)
  uint32_t word = 0;
  thread_local Scratch scratch;
  if (bpe_) scratch.bpe = &bpe_->scratch();
  const bool pre = charsmap_ != nullptr || marking_.collapse_spaces || marking_.strip_edges;
  while (done <= n) {
    const SpecialMatcher::Match m = added_.find(s, n, done);
    const size_t stop = m.found ? m.pos : n;
    const uint32_t stretch_chars = count_chars(s + done, stop - done);
    if (pre) {
      if (!prenormalize(s + done, stop - done, chars, scratch)) return false;
      if (!encode_stretch(reinterpret_cast<const uint8_t*>(scratch.pre.data()), scratch.pre.size(),
                          scratch.pre_of.data(), chars, &word, out, ids_only, scratch, error)) {
        return false;
      }
    } else if (!encode_stretch(s + done, stop - done, nullptr, chars, &word, out, ids_only, scratch, error)) {
      return false;
    }
    chars += stretch_chars;
    if (!m.found) break;
    if (word >= hf_text_limit()) {
      *error = "a text of more than " + std::to_string(word) + " words (pieces) is longer than 32-bit word ids allow";
      return false;
    }
    const uint32_t token_chars = count_chars(s + m.pos, m.len);
    out->ids.push_back(m.id);
    if (!ids_only) {
      out->starts.push_back(chars);
      out->ends.push_back(chars + token_chars);
      out->words.push_back(word);
    }
    ++word;
    chars += token_chars;
    done = m.pos + m.len;
  }
  return true;
}

}  // namespace tf::hf
