// NFD, NFKD, NFC and NFKC as `tokenizers` applies them, with its alignment: each output
// character knows the original character it came from.
//
// The steps and the Unicode data are those of the readable normalizer
// (src/tokenforge/normalizers/unicode.py, the oracle of the tests): Unicode 11.0's
// decompositions, combining classes and composites (unicode_forms_tables.inc, generated from
// it by scripts/gen_normalize_tables.py).  Only the runs of characters the form may change,
// each with the character before it, go through the steps; every other character is a
// starter that stays as it is and composes with nothing before it, so it is copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tf {

enum class UnicodeForm : uint8_t { kNFD = 0, kNFKD = 1, kNFC = 2, kNFKC = 3 };

// Normalizes text (n code points) into out; starts[i], ends[i] are the original character
// range of out[i].  Returns false, leaving the outputs empty, when the form leaves the text
// as it is.
bool normalize_unicode(const uint32_t* text, size_t n, UnicodeForm form, std::vector<uint32_t>* out,
                       std::vector<uint32_t>* starts, std::vector<uint32_t>* ends);

}  // namespace tf
