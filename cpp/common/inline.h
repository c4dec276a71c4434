// TF_ALWAYS_INLINE: for the few small functions on the hot path that the compiler would
// otherwise call (each lookup inside a merge step, for instance).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define TF_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define TF_ALWAYS_INLINE inline
#endif
