#include "training/sentencepiece/unigram_trainer.h"
#include "training/sentencepiece/utf8_chars.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace tf::spm_train {

namespace {

// digamma(x) for x > 0: recurrence up to x >= 6, then the asymptotic series.
double digamma(double x) {
  double r = 0.0;
  while (x < 6.0) {
    r -= 1.0 / x;
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  return r + std::log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

}  // namespace

void UnigramTrainer::run_parts(size_t n, const std::function<void(size_t, size_t, int)>& fn) const {
  if (threads_ <= 1 || n < 1000) {
    fn(0, n, 0);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 1; t < threads_; ++t) pool.emplace_back(fn, n * t / threads_, n * (t + 1) / threads_, t);
  fn(0, n / threads_, 0);
  for (auto& th : pool) th.join();
}

void UnigramTrainer::add_word(const std::vector<char32_t>& chars, int64_t count, uint16_t ends) {
  chars_.insert(chars_.end(), chars.begin(), chars.end());
  starts_.push_back(chars_.size());
  counts_.push_back(count);
  ends_.push_back(ends);
}

void UnigramTrainer::index_pieces() {
  std::vector<const std::vector<char32_t>*> all;
  all.reserve(pieces_.size());
  double min_score = 0.0;
  for (const Piece& p : pieces_) {
    all.push_back(&p.chars);
    min_score = std::min(min_score, p.score);
  }
  index_.build(all);
  unk_score_ = min_score - 10.0;
  unk_prob_ = std::exp(unk_score_);
  probs_.resize(pieces_.size());
  for (size_t i = 0; i < pieces_.size(); ++i) probs_[i] = std::exp(pieces_[i].score);
}

void UnigramTrainer::em_step(const UnigramOptions& o, UnigramProgress* progress) {
  index_pieces();
  std::vector<std::vector<int64_t>> per_thread(static_cast<size_t>(threads_));
  std::vector<double> objectives(static_cast<size_t>(threads_), 0.0);
  run_parts(word_count(), [&](size_t b, size_t e, int t) {
    auto& counts = per_thread[static_cast<size_t>(t)];
    counts.assign(pieces_.size(), 0);
    objectives[static_cast<size_t>(t)] = expect(b, e, &counts);
  });
  std::vector<double> expected(pieces_.size(), 0.0);
  double objective = 0.0, total_freq = 0.0;
  for (size_t i = 0; i < pieces_.size(); ++i) {
    int64_t sum = 0;
    for (const auto& counts : per_thread)
      if (!counts.empty()) sum += counts[i];
    expected[i] = static_cast<double>(sum) / kUnigramCountScale;
  }
  per_thread.clear();
  for (double x : objectives) objective += x;
  for (int64_t c : counts_) total_freq += static_cast<double>(c);
  std::vector<Piece> kept;
  double sum = 0.0;
  for (size_t i = 0; i < pieces_.size(); ++i) {
    // As spm_train, characters go too: the lattice covers them with the unknown edge, and
    // finish() puts every alphabet character back.
    if (expected[i] < 0.5) continue;
    kept.push_back({std::move(pieces_[i].chars), expected[i]});
    sum += kept.back().score;
  }
  const double log_sum = digamma(sum);
  for (Piece& p : kept) p.score = digamma(p.score) - log_sum;
  pieces_ = std::move(kept);
  if (progress != nullptr) {
    progress->size.store(pieces_.size());
    progress->objective.store(total_freq > 0 ? -objective / total_freq : 0.0);
  }
  (void)o;
}

void UnigramTrainer::prune(const UnigramOptions& o, size_t desired) {
  index_pieces();
  const size_t n = pieces_.size();
  std::vector<char> drop(n, 0), keep(n, 0);
  std::vector<std::vector<int32_t>> alternatives(n);
  // Each piece's best split into other pieces (pieces split over threads, results by index).
  run_parts(n, [&](size_t b, size_t e, int) {
    Scratch s;
    for (size_t i = b; i < e; ++i) {
      const auto& chars = pieces_[i].chars;
      if (chars.size() == 1) {
        keep[i] = 1;
        continue;
      }
      double alt_score;
      // A split may need the unknown edge (a character the EM dropped): the piece is then
      // judged like any other, the unknown counted as a piece with no uses of its own.
      viterbi(chars.data(), chars.size(), static_cast<int32_t>(i), &s, &alternatives[i], &alt_score);
      if (alt_score > pieces_[i].score) drop[i] = 1;  // its own Viterbi path splits it
    }
  });
  std::vector<std::vector<double>> per_thread(static_cast<size_t>(threads_), std::vector<double>(n, 0.0));
  run_parts(word_count(), [&](size_t b, size_t e, int t) { viterbi_counts(b, e, &per_thread[static_cast<size_t>(t)]); });
  std::vector<double> freq(n, 0.0);
  for (const auto& part : per_thread)
    for (size_t i = 0; i < n; ++i) freq[i] += part[i];
  double sum = 0.0;
  for (double f : freq) sum += f;
  const double log_sum = std::log(sum);
  std::vector<std::pair<double, int32_t>> candidates;
  std::vector<Piece> out;
  for (size_t i = 0; i < n; ++i) {
    if (drop[i] || freq[i] == 0) continue;  // characters unused by Viterbi go too (finish() restores them)
    if (keep[i]) {
      out.push_back(pieces_[i]);
      continue;
    }
    const double logprob = std::log(freq[i]) - log_sum;
    const double alt_log_sum = std::log(sum + freq[i] * (static_cast<double>(alternatives[i].size()) - 1));
    double alt = 0.0;
    for (int32_t a : alternatives[i]) alt += std::log((a >= 0 ? freq[a] : 0.0) + freq[i]) - alt_log_sum;
    candidates.emplace_back(freq[i] / sum * (logprob - alt), static_cast<int32_t>(i));
  }
  const size_t target = std::max(desired, static_cast<size_t>(o.shrinking_factor * static_cast<double>(n)));
  std::sort(candidates.begin(), candidates.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (const auto& [loss, i] : candidates) {
    if (out.size() >= target) break;
    out.push_back(pieces_[static_cast<size_t>(i)]);
  }
  pieces_ = std::move(out);
}

void UnigramTrainer::finish(const UnigramOptions& o) {
  std::unordered_map<char32_t, double> char_score;
  double min_score = 0.0;
  for (const Piece& p : pieces_) {
    min_score = std::min(min_score, p.score);
    if (p.chars.size() == 1) char_score[p.chars[0]] = p.score;
  }
  std::vector<std::pair<std::vector<char32_t>, double>> final_pieces;
  std::unordered_set<char32_t> chars_in;
  double penalty = 0.0;
  auto by_count = alphabet_;
  std::sort(by_count.begin(), by_count.end(),
            [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  for (const auto& [c, n] : by_count) {
    auto it = char_score.find(c);
    // A character the EM dropped scores the lowest score plus a growing penalty, as spm_train does.
    double s = it != char_score.end() ? it->second : min_score + penalty;
    if (it == char_score.end()) penalty += 1e-4;
    final_pieces.push_back({{c}, s});
    chars_in.insert(c);
  }
  std::vector<const Piece*> order;
  for (const Piece& p : pieces_) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const Piece* a, const Piece* b) { return a->score > b->score; });
  for (const Piece* p : order) {
    if (final_pieces.size() >= o.vocab_size) break;
    if (p->chars.size() == 1 && chars_in.count(p->chars[0]) != 0) continue;
    final_pieces.push_back({p->chars, p->score});
  }
  result_.clear();
  for (const auto& [chars, s] : final_pieces) {
    std::string u;
    for (char32_t c : chars) append_utf8(c, &u);
    result_.emplace_back(std::move(u), static_cast<float>(s));
  }
  std::stable_sort(result_.begin(), result_.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
}

void UnigramTrainer::train(const UnigramOptions& o, UnigramProgress* progress) {
  threads_ = std::max(1, o.threads);
  make_seeds(o);
  const size_t desired = static_cast<size_t>(static_cast<double>(o.vocab_size) * 1.1);
  if (progress != nullptr) progress->size.store(pieces_.size());
  for (uint32_t round = 1;; ++round) {
    for (int k = 0; k < o.sub_iterations; ++k) em_step(o, progress);
    if (progress != nullptr) progress->round.store(round);
    if (pieces_.size() <= desired) break;
    const size_t before = pieces_.size();
    prune(o, desired);
    if (pieces_.size() >= before) break;  // only characters and unsplittable pieces are left
  }
  finish(o);
}

}  // namespace tf::spm_train
