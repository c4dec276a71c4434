// PieceCounter (see piece_counter.h): blocks, windows over files, worker threads.
#include "training/byte_level/piece_counter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "training/byte_level/piece_tally.h"
#include "training/byte_level/text_chunks.h"

namespace tf::train {

namespace {

constexpr uint64_t kReadStep = uint64_t{1} << 20;

}  // namespace

// One text: a file (opened only while one of its blocks is counted, so thousands of
// files never hold thousands of descriptors), or bytes in memory.
struct PieceCounter::Source {
  const uint8_t* mem = nullptr;
  uint64_t size = 0;
  std::string name;  // the path of a file
};

namespace {

// The bytes [base, loaded) of a source, read on demand; memory sources are not copied.
class Window {
 public:
  Window(const PieceCounter::Source& s, int fd, std::vector<uint8_t>* buf, uint64_t base)
      : s_(s), fd_(fd), buf_(buf), base_(base), loaded_(base) {
    buf_->clear();
  }

  // Makes [base, min(to, size)) readable.  False (with errno's message) on a read error.
  bool load(uint64_t to, std::string* error) {
    to = std::min(to, s_.size);
    if (to <= loaded_) return true;
    if (s_.mem != nullptr) {
      loaded_ = to;
      return true;
    }
    size_t old = buf_->size();
    buf_->resize(to - base_);
    while (loaded_ < to) {
      ssize_t got = ::pread(fd_, buf_->data() + (loaded_ - base_), to - loaded_, static_cast<off_t>(loaded_));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        *error = s_.name + ": " + (got < 0 ? std::strerror(errno) : "file shrank while reading");
        buf_->resize(old);
        return false;
      }
      loaded_ += static_cast<uint64_t>(got);
    }
    return true;
  }

  uint64_t loaded() const { return loaded_; }
  const uint8_t* data() const { return s_.mem != nullptr ? s_.mem + base_ : buf_->data(); }

 private:
  const PieceCounter::Source& s_;
  int fd_;
  std::vector<uint8_t>* buf_;
  uint64_t base_, loaded_;
};

struct Block {
  uint32_t source;
  uint64_t lo, hi;  // nominal extent; the block counts from the first boundary at or after lo
};

struct BlockError {
  bool failed = false;
  bool os_error = false;
  std::string message;
};

// What every block needs to know besides its bytes.
struct CountSettings {
  NextPieceFn next_piece;
  bool replace_invalid;
  const SpecialMatcher* specials;  // nullptr: none
  size_t max_special;              // length of the longest special token (0: none)
  bool by_line;                    // every line (with its '\n') is a text of its own
};

// A chunk boundary (text_chunks.h) that is not inside an occurrence of a special token;
// d[0..size) holds at least max_special - 1 bytes before q unless it starts the text.
bool is_cut(const uint8_t* d, size_t size, size_t q, const CountSettings& c) {
  if (!is_chunk_boundary(d, size, q)) return false;
  if (c.specials == nullptr) return true;
  size_t from = q >= c.max_special - 1 ? q - (c.max_special - 1) : 0;
  size_t to = std::min(size, q + c.max_special - 1);
  for (size_t at = from;;) {
    SpecialMatcher::Match m = c.specials->find(d, to, at);
    if (!m.found || m.pos >= q) return true;
    if (m.pos + m.len > q) return false;
    at = m.pos + 1;
  }
}

// Splits [p, stop) into pieces and tallies them; the pattern may look at [stop, scan_end).
// Special tokens cut the text first and are not counted.
void count_text(const uint8_t* p, const uint8_t* stop, const uint8_t* scan_end, const CountSettings& c,
                PieceTally* tally) {
  while (p < stop) {
    const uint8_t* seg_end = stop;
    const uint8_t* seg_ahead = scan_end;
    size_t skip = 0;
    if (c.specials != nullptr) {
      SpecialMatcher::Match m = c.specials->find(p, static_cast<size_t>(stop - p), 0);
      if (m.found) {
        seg_end = seg_ahead = p + m.pos;  // the text before a special ends there
        skip = m.len;
      }
    }
    while (p < seg_end) {
      const uint8_t* line_end = seg_end;
      const uint8_t* ahead = seg_ahead;
      if (c.by_line) {
        const void* nl = std::memchr(p, '\n', static_cast<size_t>(seg_end - p));
        if (nl != nullptr) line_end = ahead = static_cast<const uint8_t*>(nl) + 1;  // nothing after a line
      }
      while (p < line_end) {
        const uint8_t* e = std::min(c.next_piece(p, ahead), line_end);
        tally->add(p, static_cast<size_t>(e - p));
        p = e;
      }
    }
    p += skip;
  }
}

// Counts the pieces of block b: the text from the first cut at or after its nominal start to
// the first cut at or after its nominal end.
void count_block(const PieceCounter::Source& s, const Block& b, const CountSettings& c, PieceTally* tally,
                 std::vector<uint8_t>* buf, std::string* scratch, BlockError* err, uint64_t* bytes) {
  uint64_t lo = b.lo, hi = b.hi;
  uint64_t before = std::max<uint64_t>(1, c.max_special);  // bytes before a cut that is_cut reads
  uint64_t base = lo > before ? lo - before : 0;
  struct Fd {
    int fd = -1;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
  } file;
  if (s.mem == nullptr && (file.fd = ::open(s.name.c_str(), O_RDONLY | O_CLOEXEC)) < 0) {
    err->message = s.name + ": " + std::strerror(errno);
    err->failed = err->os_error = true;
    return;
  }
  Window w(s, file.fd, buf, base);
  if (!w.load(hi + before, &err->message)) {
    err->failed = err->os_error = true;
    return;
  }
  const uint8_t* d = w.data();  // d[i] is byte base + i
  uint64_t start = lo;
  if (lo > 0) {
    while (start < hi && !is_cut(d, w.loaded() - base, start - base, c)) ++start;
    if (start >= hi) return;  // no cut in this block: the previous block covers it
  }
  uint64_t end = hi;
  for (;;) {  // the first cut at or after hi; is_cut may read max_special bytes past it
    while (end + before < w.loaded() && !is_cut(d, w.loaded() - base, end - base, c)) ++end;
    if (end + before < w.loaded()) break;
    if (w.loaded() >= s.size) {
      while (end < s.size && !is_cut(d, w.loaded() - base, end - base, c)) ++end;
      break;
    }
    uint64_t have = w.loaded();
    if (!w.load(have + std::max(kReadStep, (have - base) / 2), &err->message)) {
      err->failed = err->os_error = true;
      return;
    }
    d = w.data();
  }
  uint64_t ahead = std::min(end + 1, s.size);  // one byte of look-ahead for `(?!\S)` and `$`
  const uint8_t* p = d + (start - base);
  const uint8_t* stop = d + (end - base);
  const uint8_t* scan_end = d + (ahead - base);
  size_t bad = s.mem != nullptr ? end - start : utf8_first_invalid(p, end - start);
  if (bad < end - start) {
    if (!c.replace_invalid) {
      err->failed = true;
      err->message = s.name + ": invalid UTF-8 at byte offset " + std::to_string(start + bad) +
                     " (errors=\"replace\" or --errors replace decode it as U+FFFD)";
      return;
    }
    scratch->clear();
    utf8_replace_invalid(p, end - start, scratch);
    size_t body = scratch->size();
    scratch->append(reinterpret_cast<const char*>(stop), ahead - end);
    p = reinterpret_cast<const uint8_t*>(scratch->data());
    stop = p + body;
    scan_end = p + scratch->size();
  }
  count_text(p, stop, scan_end, c, tally);
  tally->drain();
  *bytes = end - start;
}

}  // namespace

PieceCounter::PieceCounter(SplitPattern pattern, int threads, uint64_t block_bytes)
    : next_piece_(scanner_for(pattern)),
      threads_(std::max(1, threads)),
      block_bytes_(std::max<uint64_t>(16, block_bytes)),
      maps_(static_cast<size_t>(threads_)) {}

bool PieceCounter::run(const std::vector<Source>& sources, bool replace_invalid, bool by_line, std::string* error,
                       bool* os_error) {
  std::vector<Block> blocks;
  uint64_t total = 0;
  for (const Source& s : sources) total += s.size;
  // Blocks of block_bytes_, smaller (down to 1 MB) when the input is not many blocks per
  // thread: a 5 MB file in 4 MB blocks leaves one thread counting 4 MB alone.
  uint64_t block = std::min(block_bytes_, std::max<uint64_t>(uint64_t{1} << 20, total / (4 * threads_)));
  for (uint32_t i = 0; i < sources.size(); ++i) {
    uint64_t n = std::max<uint64_t>(1, (sources[i].size + block - 1) / block);
    for (uint64_t k = 0; k < n; ++k) blocks.push_back(Block{i, k * block, std::min(sources[i].size, (k + 1) * block)});
  }
  std::vector<BlockError> errors(blocks.size());
  CountSettings settings{next_piece_, replace_invalid, specials_.empty() ? nullptr : &specials_, max_special_,
                         by_line};
  std::atomic<size_t> next{0};
  auto worker = [&](size_t t) {
    std::vector<uint8_t> buf;
    std::string scratch;
    PieceTally tally(&maps_[t]);
    for (size_t i; (i = next.fetch_add(1)) < blocks.size();) {
      if (sources[blocks[i].source].size == 0) continue;
      uint64_t bytes = 0;
      count_block(sources[blocks[i].source], blocks[i], settings, &tally, &buf, &scratch, &errors[i], &bytes);
      bytes_done_.fetch_add(bytes, std::memory_order_relaxed);
    }
  };
  size_t n_threads = std::min<size_t>(static_cast<size_t>(threads_), std::max<size_t>(1, blocks.size()));
  if (total < block) n_threads = 1;
  std::vector<std::thread> pool;
  for (size_t t = 1; t < n_threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& th : pool) th.join();
  for (const BlockError& e : errors) {  // the first error in input order, whatever thread saw it
    if (e.failed) {
      *error = e.message;
      *os_error = e.os_error;
      return false;
    }
  }
  return true;
}

bool PieceCounter::add_files(const std::vector<std::string>& paths, bool replace_invalid, bool by_line,
                             std::string* error, bool* os_error) {
  std::vector<Source> sources(paths.size());
  bool ok = true;
  for (size_t i = 0; i < paths.size() && ok; ++i) {
    Source& s = sources[i];
    s.name = paths[i];
    struct stat st;
    if (::stat(paths[i].c_str(), &st) != 0) {
      *error = paths[i] + ": " + std::strerror(errno);
      ok = false;
    } else if (S_ISDIR(st.st_mode)) {
      *error = paths[i] + ": is a directory";
      ok = false;
    } else {
      s.size = static_cast<uint64_t>(st.st_size);
    }
  }
  if (!ok) *os_error = true;
  return ok && run(sources, replace_invalid, by_line, error, os_error);
}

void PieceCounter::add_texts(const std::vector<std::string_view>& texts) {
  std::vector<Source> sources(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    sources[i].mem = reinterpret_cast<const uint8_t*>(texts[i].data());
    sources[i].size = texts[i].size();  // no name: memory sources cannot fail
  }
  std::string error;
  bool os_error = false;
  run(sources, false, false, &error, &os_error);  // memory sources are valid UTF-8 and cannot fail to read
}

void PieceCounter::set_specials(const std::vector<std::string>& specials) {
  std::vector<std::pair<std::string, uint32_t>> with_ids;
  max_special_ = 0;
  for (const std::string& t : specials) {
    if (t.empty()) continue;
    with_ids.emplace_back(t, 0);
    max_special_ = std::max(max_special_, t.size());
  }
  specials_ = SpecialMatcher(std::move(with_ids));
}

void PieceCounter::add_pieces(const std::vector<std::string_view>& pieces) {
  for (std::string_view p : pieces) {
    maps_[0].add(reinterpret_cast<const uint8_t*>(p.data()), p.size(), 1);
    bytes_done_.fetch_add(p.size(), std::memory_order_relaxed);
  }
}

const PieceMap& PieceCounter::merged() {
  for (size_t t = 1; t < maps_.size(); ++t) {
    maps_[0].merge_from(maps_[t]);
    maps_[t] = PieceMap();
  }
  return maps_[0];
}

}  // namespace tf::train
