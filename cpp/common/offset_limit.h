// The longest text the tokenizer.json encoders (pipeline/hf_spm_encoder.h,
// pipeline/bert_encoder.h) take: they keep byte and character positions in 32 bits, so a
// text, a normalized stretch of it or one word longer than 2^32 - 1 bytes would wrap.  They
// check each size where it is known (the raw text, the normalized buffer, the word) and
// refuse past the limit with an error message; they never wrap.
//
// The limit is a setting only so the tests reach the refusals without 4 GiB texts
// (tokenforge._native._testing.set_hf_text_limit); it never rises above kMaxOffsetBytes.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

namespace tf {

inline constexpr size_t kMaxOffsetBytes = 0xFFFFFFFFu;

// The current limit (kMaxOffsetBytes unless a test lowered it); read once a word, so inline.
extern std::atomic<size_t> g_hf_text_limit;
inline size_t hf_text_limit() { return g_hf_text_limit.load(std::memory_order_relaxed); }
// Sets it (clamped to kMaxOffsetBytes; 0 restores it) and returns the previous one.
size_t set_hf_text_limit(size_t bytes);

// The refusal: "<what> N bytes, past the ... bytes that 32-bit offsets allow; split the text".
std::string too_long_message(const char* what, size_t bytes);

}  // namespace tf
