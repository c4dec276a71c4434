// Hand-written scanners for the split patterns of the GPT model family (and DeepSeek V3's
// three Splits, which the scanner runs as one).
//
// Each scanner returns where the piece that starts at `p` ends, exactly as the regex
// engine's find-iter would (leftmost-first alternation with backtracking), in one forward
// pass over the characters: O(length of the piece + one character of look-ahead).
// Every character of the text falls into some piece with these patterns, so the encoder
// simply calls the scanner until it reaches the end.
#pragma once

#include <cstdint>

#include "pretokenize/cl100k_scanner.h"
#include "pretokenize/deepseek_v3_scanner.h"
#include "pretokenize/gpt2_scanner.h"
#include "pretokenize/o200k_scanner.h"

namespace tf {

enum class SplitPattern : uint8_t {
  kGpt2 = 0,    // r50k / p50k / GPT-2 / Whisper
  kCl100k = 1,  // cl100k_base as tiktoken spells it today (possessive, `\s++$`)
  kLlama3 = 2,  // cl100k's older spelling, used by Llama 3 (no `\s++$`, so it splits differently at the end)
  kO200k = 3,   // o200k_base
  kQwen2 = 4,   // Llama 3's spelling with one digit a piece (Qwen 2, 2.5, 3)
  kDeepSeekV3 = 5,  // DeepSeek V3's tokenizer.json: three Splits on Oniguruma's classes
  kTekken = 6,      // Mistral's Tekken: o200k's without contractions, one digit a piece
};
constexpr int kLastSplitPattern = 6;

using NextPieceFn = const uint8_t* (*)(const uint8_t* p, const uint8_t* end);

inline NextPieceFn scanner_for(SplitPattern pattern) {
  switch (pattern) {
    case SplitPattern::kGpt2: return next_piece_gpt2;
    case SplitPattern::kCl100k: return next_piece_cl100k;
    case SplitPattern::kLlama3: return next_piece_llama3;
    case SplitPattern::kO200k: return next_piece_o200k;
    case SplitPattern::kQwen2: return next_piece_qwen2;
    case SplitPattern::kDeepSeekV3: return next_piece_deepseek_v3;
    case SplitPattern::kTekken: return next_piece_tekken;
  }
  return next_piece_gpt2;
}

// Calls f with the scanner as a stateless functor type, so that a loop templated on it
// inlines the scanner (a function pointer per piece would cost a call each).
template <typename F>
decltype(auto) with_scanner(SplitPattern pattern, F&& f) {
  switch (pattern) {
    case SplitPattern::kCl100k: return f([](const uint8_t* p, const uint8_t* e) { return next_piece_cl100k(p, e); });
    case SplitPattern::kLlama3: return f([](const uint8_t* p, const uint8_t* e) { return next_piece_llama3(p, e); });
    case SplitPattern::kO200k: return f([](const uint8_t* p, const uint8_t* e) { return next_piece_o200k(p, e); });
    case SplitPattern::kQwen2: return f([](const uint8_t* p, const uint8_t* e) { return next_piece_qwen2(p, e); });
    case SplitPattern::kDeepSeekV3:
      return f([](const uint8_t* p, const uint8_t* e) { return next_piece_deepseek_v3(p, e); });
    case SplitPattern::kTekken: return f([](const uint8_t* p, const uint8_t* e) { return next_piece_tekken(p, e); });
    case SplitPattern::kGpt2: break;
  }
  return f([](const uint8_t* p, const uint8_t* e) { return next_piece_gpt2(p, e); });
}

}  // namespace tf
