#include "training/sentencepiece/piece_rules.h"

#include <algorithm>

namespace tf::spm_train {

namespace {

struct ScriptRun {
  uint32_t first, last;
  uint16_t script;
};

#include "training/sentencepiece/script_table.inc"

constexpr uint32_t kAnyScript = 0xFFFFFFFFu;

bool is_decimal_digit(char32_t c) { return (c >= 0x30 && c <= 0x39) || (c >= 0xFF10 && c <= 0xFF19); }

bool valid_code_point(char32_t c) { return c < 0xD800 || (c >= 0xE000 && c <= 0x10FFFF); }

}  // namespace

uint16_t script_of(char32_t c) {
  const ScriptRun* end = kScriptRuns + sizeof(kScriptRuns) / sizeof(kScriptRuns[0]);
  const ScriptRun* it = std::upper_bound(kScriptRuns, end, static_cast<uint32_t>(c),
                                         [](uint32_t v, const ScriptRun& r) { return v < r.first; });
  if (it == kScriptRuns) return kScriptCommon;
  --it;
  return c <= it->last ? it->script : kScriptCommon;
}

bool PieceRules::valid(const char32_t* chars, size_t n) const {
  if (n == 0 || n > static_cast<size_t>(max_length)) return false;
  const bool all_space = std::all_of(chars, chars + n, [](char32_t c) { return c == kSpaceMark; });
  uint32_t prev = kAnyScript;
  for (size_t pos = 0; pos < n; ++pos) {
    const char32_t c = chars[pos];
    if (c == kUnknownMark || c == 0 || c == kBoundaryMark || c == 0x20 || !valid_code_point(c)) return false;
    if (c == kSpaceMark) {
      if (allow_whitespace_only_pieces && all_space) continue;
      const bool last = pos + 1 == n;
      if (treat_whitespace_as_suffix) {
        if (split_by_whitespace ? !last : (!last && pos == 0)) return false;
      } else {
        if (split_by_whitespace ? pos > 0 : (pos > 0 && last)) return false;
      }
      continue;
    }
    uint32_t s = script_of(c);
    if (s == kScriptHiragana || s == kScriptKatakana || c == 0x30FC) {
      s = kScriptHan;
    } else if (s == kScriptInherited) {
      s = prev;
    }
    const bool digit = is_decimal_digit(c);
    if (!split_by_number && digit) s = kAnyScript;
    if (split_digits && digit && n > 1) return false;
    if (split_by_unicode_script && s != kAnyScript && prev != kAnyScript && prev != s) return false;
    prev = s;
  }
  return true;
}

}  // namespace tf::spm_train
