#include "training/sentencepiece/unigram_trainer.h"
#include "training/sentencepiece/utf8_chars.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <thread>

namespace tf::spm_train {

namespace {

constexpr uint64_t kHashSeed = 0x9E3779B97F4A7C15ull;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

uint64_t hash_step(uint64_t h, char32_t c) { return (h ^ (static_cast<uint64_t>(c) + 1)) * 0x100000001B3ull + 0x2545F491ull; }

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  return a > b ? a + std::log1p(std::exp(b - a)) : b + std::log1p(std::exp(a - b));
}

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

// Runs fn(begin, end, thread) over [0, n) split into `threads` parts.
void parallel_parts(size_t n, int threads, const std::function<void(size_t, size_t, int)>& fn) {
  if (threads <= 1 || n < 1000) {
    fn(0, n, 0);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(fn, n * t / threads, n * (t + 1) / threads, t);
  for (auto& th : pool) th.join();
}

}  // namespace

void UnigramTrainer::add_word(const std::vector<char32_t>& chars, int64_t count) {
  words_.push_back(chars);
  counts_.push_back(count);
}

void UnigramTrainer::make_seeds(const UnigramOptions& o) {
  struct Cand {
    int64_t count = 0;
    uint32_t word = 0, start = 0;
    char32_t next = 0;       // the character after the first occurrence (kWordEnd at the end)
    bool branching = false;  // some occurrence is followed by something else
  };
  constexpr char32_t kWordEnd = 0xFFFFFFFF;
  struct Scored {
    int64_t score;
    uint32_t word, start, len;
  };
  std::vector<Scored> found;
  std::unordered_set<uint64_t> kept;  // strings of the previous level seen at least twice
  auto blocked = [](char32_t c) { return c == kUnknownMark || c == kBoundaryMark || c == 0; };
  const size_t max_len = static_cast<size_t>(rules_.max_length);
  // prefix_hash[offset[w] + s]: the hash of word w's substring of the previous level's length at s.
  std::vector<size_t> offset(words_.size() + 1, 0);
  for (size_t w = 0; w < words_.size(); ++w) offset[w + 1] = offset[w] + words_[w].size();
  std::vector<uint64_t> prefix_hash(offset.back());
  for (size_t w = 0; w < words_.size(); ++w)
    for (size_t s = 0; s < words_[w].size(); ++s) prefix_hash[offset[w] + s] = hash_step(kHashSeed, words_[w][s]);
  for (size_t len = 2; len <= max_len; ++len) {
    std::unordered_map<uint64_t, Cand> level;
    for (uint32_t w = 0; w < words_.size(); ++w) {
      const auto& word = words_[w];
      if (word.size() < len) continue;
      for (uint32_t s = 0; s + len <= word.size(); ++s) {
        const char32_t* p = word.data() + s;
        uint64_t& h = prefix_hash[offset[w] + s];
        const uint64_t prefix = h;
        h = hash_step(h, p[len - 1]);
        if (blocked(p[len - 1]) || (len == 2 && blocked(p[0]))) continue;
        if (len > 2 && kept.count(prefix) == 0) continue;
        Cand& c = level[h];
        const char32_t next = s + len < word.size() ? word[s + len] : kWordEnd;
        if (c.count == 0) {
          c.word = w, c.start = s, c.next = next;
        } else if (c.next != next) {
          c.branching = true;
        }
        c.count += counts_[w];
      }
    }
    kept.clear();
    for (const auto& [h, c] : level) {
      if (c.count < 2) continue;
      kept.insert(h);
      // Only right-branching strings are seeds (the suffix tree's inner nodes, as spm_train
      // takes them): "informati", always followed by "o", is left to "information".
      if (c.branching && rules_.valid(words_[c.word].data() + c.start, len))
        found.push_back({c.count * static_cast<int64_t>(len), c.word, c.start, static_cast<uint32_t>(len)});
    }
    if (kept.empty()) break;
  }
  auto better = [this](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    const auto& wa = words_[a.word];
    const auto& wb = words_[b.word];
    return std::lexicographical_compare(wa.begin() + a.start, wa.begin() + a.start + a.len, wb.begin() + b.start,
                                        wb.begin() + b.start + b.len);
  };
  if (found.size() > o.seed_size) {
    std::nth_element(found.begin(), found.begin() + static_cast<long>(o.seed_size), found.end(), better);
    found.resize(o.seed_size);
  }
  std::sort(found.begin(), found.end(), better);
  pieces_.clear();
  double total = 0;
  for (const auto& [c, n] : alphabet_) {
    pieces_.push_back({{c}, static_cast<double>(n)});
    total += static_cast<double>(n);
  }
  for (const Scored& f : found) {
    const auto& word = words_[f.word];
    pieces_.push_back({std::vector<char32_t>(word.begin() + f.start, word.begin() + f.start + f.len),
                       static_cast<double>(f.score)});
    total += static_cast<double>(f.score);
  }
  const double log_total = std::log(total);
  for (Piece& p : pieces_) p.score = std::log(std::max(p.score, 1.0)) - log_total;
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
}

void UnigramTrainer::edges_of(const char32_t* chars, size_t n, std::vector<Edge>* edges) const {
  edges->clear();
  const size_t max_len = static_cast<size_t>(rules_.max_length);
  for (size_t i = 0; i < n; ++i) {
    int32_t node = 0;
    bool single = false;
    for (size_t len = 1; len <= max_len && i + len <= n; ++len) {
      node = index_.step(node, chars[i + len - 1]);
      if (node < 0) break;
      const int32_t id = index_.piece_at(node);
      if (id < 0) continue;
      edges->push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(i + len), id});
      single = single || len == 1;
    }
    if (!single) edges->push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(i + 1), -1});
  }
}

double UnigramTrainer::expect(size_t begin, size_t end, std::vector<double>* counts) const {
  std::vector<Edge> edges;
  std::vector<double> alpha, beta;
  double objective = 0.0;
  for (size_t w = begin; w < end; ++w) {
    const auto& word = words_[w];
    const size_t n = word.size();
    if (n == 0) continue;
    edges_of(word.data(), n, &edges);
    alpha.assign(n + 1, kNegInf);
    beta.assign(n + 1, kNegInf);
    alpha[0] = 0.0;
    beta[n] = 0.0;
    for (const Edge& e : edges) alpha[e.end] = log_add(alpha[e.end], alpha[e.start] + edge_score(e));
    for (auto it = edges.rbegin(); it != edges.rend(); ++it)
      beta[it->start] = log_add(beta[it->start], edge_score(*it) + beta[it->end]);
    const double z = alpha[n];
    const auto freq = static_cast<double>(counts_[w]);
    objective += freq * z;
    for (const Edge& e : edges) {
      if (e.piece < 0) continue;
      (*counts)[e.piece] += freq * std::exp(alpha[e.start] + edge_score(e) + beta[e.end] - z);
    }
  }
  return objective;
}

bool UnigramTrainer::viterbi(const char32_t* chars, size_t n, int32_t skip_whole, std::vector<int32_t>* path,
                             double* score) const {
  std::vector<Edge> edges;
  edges_of(chars, n, &edges);
  std::vector<double> best(n + 1, kNegInf);
  std::vector<int32_t> back(n + 1, -1);
  best[0] = 0.0;
  for (size_t k = 0; k < edges.size(); ++k) {
    const Edge& e = edges[k];
    if (e.piece == skip_whole && e.start == 0 && e.end == n) continue;
    const double s = best[e.start] + edge_score(e);
    if (s > best[e.end]) best[e.end] = s, back[e.end] = static_cast<int32_t>(k);
  }
  path->clear();
  *score = best[n];
  if (best[n] == kNegInf) return false;
  bool has_unknown = false;
  for (size_t pos = n; pos > 0;) {
    const Edge& e = edges[back[pos]];
    path->push_back(e.piece);
    has_unknown = has_unknown || e.piece < 0;
    pos = e.start;
  }
  std::reverse(path->begin(), path->end());
  return !has_unknown;
}

void UnigramTrainer::viterbi_counts(size_t begin, size_t end, std::vector<double>* counts,
                                    std::vector<double>* /*word_share*/) const {
  std::vector<int32_t> path;
  double score;
  for (size_t w = begin; w < end; ++w) {
    viterbi(words_[w].data(), words_[w].size(), -2, &path, &score);
    for (int32_t id : path)
      if (id >= 0) (*counts)[id] += static_cast<double>(counts_[w]);
  }
}

void UnigramTrainer::em_step(const UnigramOptions& o, UnigramProgress* progress) {
  index_pieces();
  std::vector<std::vector<double>> per_thread(static_cast<size_t>(threads_), std::vector<double>(pieces_.size(), 0.0));
  std::vector<double> objectives(static_cast<size_t>(threads_), 0.0);
  parallel_parts(words_.size(), threads_, [&](size_t b, size_t e, int t) {
    objectives[t] = expect(b, e, &per_thread[static_cast<size_t>(t)]);
  });
  std::vector<double> expected(pieces_.size(), 0.0);
  double objective = 0.0, total_freq = 0.0;
  for (int t = 0; t < threads_; ++t) {
    objective += objectives[static_cast<size_t>(t)];
    for (size_t i = 0; i < pieces_.size(); ++i) expected[i] += per_thread[static_cast<size_t>(t)][i];
  }
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
  for (size_t i = 0; i < n; ++i) {
    const auto& chars = pieces_[i].chars;
    if (chars.size() == 1) {
      keep[i] = 1;
      continue;
    }
    double alt_score;
    if (!viterbi(chars.data(), chars.size(), static_cast<int32_t>(i), &alternatives[i], &alt_score)) {
      keep[i] = 1;  // no split into known pieces
      alternatives[i].clear();
      continue;
    }
    if (alt_score > pieces_[i].score) drop[i] = 1;  // its own Viterbi path splits it
  }
  std::vector<std::vector<double>> per_thread(static_cast<size_t>(threads_), std::vector<double>(n, 0.0));
  parallel_parts(words_.size(), threads_, [&](size_t b, size_t e, int t) {
    viterbi_counts(b, e, &per_thread[static_cast<size_t>(t)], nullptr);
  });
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
    for (int32_t a : alternatives[i]) alt += std::log(freq[a] + freq[i]) - alt_log_sum;
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
