// Text input for the readers: byte sources (files, stdin, streams, memory) with gzip inflated on
// the fly by zlib, a bounded-memory line cursor, tokens and numbers, and the memory budget.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <istream>
#include <limits>
#include <memory>
#include <new>

#include "backend/core/io/io_detail.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::io {
namespace detail {

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

void fail(const std::string& name, std::int64_t line, const std::string& reason) {
  if (line > 0) throw ParseError(name + ":" + std::to_string(line) + ": " + reason);
  throw ParseError(name + ": " + reason);
}

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 16;

class FileSource : public ByteSource {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    if (path == "-") {
      f_ = stdin;
      return;
    }
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) throw IoError(path + ": cannot open for reading (" + std::strerror(errno) + ")");
    owned_ = true;
    struct stat st {};
    if (::fstat(fileno(f_), &st) == 0 && S_ISREG(st.st_mode)) size_ = st.st_size;
    if (::fstat(fileno(f_), &st) == 0 && S_ISDIR(st.st_mode)) {
      std::fclose(f_);
      f_ = nullptr;
      throw IoError(path + ": cannot read: it is a directory");
    }
  }
  ~FileSource() override {
    if (owned_ && f_) std::fclose(f_);
  }
  std::size_t read(char* dst, std::size_t n) override {
    const std::size_t got = std::fread(dst, 1, n, f_);
    if (got == 0 && std::ferror(f_))
      throw IoError(path_ + ": read error (" + std::strerror(errno) + ")");
    return got;
  }
  std::int64_t size_hint() const override { return size_; }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  bool owned_ = false;
  std::int64_t size_ = -1;
};

class StreamSource : public ByteSource {
 public:
  StreamSource(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}
  std::size_t read(char* dst, std::size_t n) override {
    in_.read(dst, static_cast<std::streamsize>(n));
    if (in_.bad()) throw IoError(name_ + ": read error");
    return static_cast<std::size_t>(in_.gcount());
  }

 private:
  std::istream& in_;
  std::string name_;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : rest_(bytes), size_(bytes.size()) {}
  std::size_t read(char* dst, std::size_t n) override {
    const std::size_t k = std::min(n, rest_.size());
    std::memcpy(dst, rest_.data(), k);
    rest_.remove_prefix(k);
    return k;
  }
  std::int64_t size_hint() const override { return static_cast<std::int64_t>(size_); }

 private:
  std::string_view rest_;
  std::size_t size_;
};

/// Bytes already read from an inner source (to sniff the magic) followed by the rest of it.
class PrefixedSource : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> inner)
      : prefix_(std::move(prefix)), inner_(std::move(inner)) {}
  std::size_t read(char* dst, std::size_t n) override {
    if (pos_ < prefix_.size()) {
      const std::size_t k = std::min(n, prefix_.size() - pos_);
      std::memcpy(dst, prefix_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return inner_->read(dst, n);
  }
  std::int64_t size_hint() const override { return inner_->size_hint(); }

 private:
  std::string prefix_;
  std::size_t pos_ = 0;
  std::unique_ptr<ByteSource> inner_;
};

/// gzip (all members, trailing zero padding allowed) inflated chunk by chunk: one compressed
/// chunk and zlib's window are all it holds, whatever the inflated size.
class GzipSource : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> inner, std::string name)
      : inner_(std::move(inner)), name_(std::move(name)), in_(kChunk, '\0') {
    // 16 + MAX_WBITS: expect a gzip header and trailer.
    if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) fail(name_, 0, "zlib inflateInit2 failed");
  }
  ~GzipSource() override { inflateEnd(&zs_); }
  std::size_t read(char* dst, std::size_t n) override {
    std::size_t produced = 0;
    while (produced == 0 && !done_) {
      if (zs_.avail_in == 0 && !refill()) {
        if (!member_started_) {
          done_ = true;  // clean end after a complete member
          break;
        }
        fail(name_, 0, "truncated gzip data");
      }
      if (!member_started_) {
        // Between members: another gzip member, or zero padding up to the end.
        if (!start_member()) break;
      }
      zs_.next_out = reinterpret_cast<Bytef*>(dst);
      zs_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
      const uInt before_out = zs_.avail_out;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      produced = before_out - zs_.avail_out;
      if (rc == Z_STREAM_END) {
        member_started_ = false;
        if (inflateReset(&zs_) != Z_OK) fail(name_, 0, "zlib inflateReset failed");
        continue;
      }
      if (rc == Z_BUF_ERROR) {
        if (zs_.avail_in == 0) continue;  // needs more input: refill on the next round
        fail(name_, 0, "truncated gzip data");
      }
      if (rc != Z_OK)
        fail(name_, 0,
             std::string("corrupt gzip data (zlib: ") + (zs_.msg ? zs_.msg : "error") + ")");
    }
    return produced;
  }

 private:
  bool refill() {
    const std::size_t got = inner_->read(in_.data(), in_.size());
    zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
    zs_.avail_in = static_cast<uInt>(got);
    return got > 0;
  }
  /// Looks at the bytes after a member: a gzip magic starts the next one (true); zeros to the end
  /// are padding (false, done); anything else is an error.
  bool start_member() {
    if (first_member_) {
      first_member_ = false;
      member_started_ = true;
      return true;
    }
    // Need two bytes to see the magic.
    if (zs_.avail_in == 1) {
      const unsigned char b0 = *zs_.next_in;
      const std::size_t got = inner_->read(in_.data() + 1, in_.size() - 1);
      in_[0] = static_cast<char>(b0);
      zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
      zs_.avail_in = static_cast<uInt>(got + 1);
    }
    const std::string_view rest(reinterpret_cast<const char*>(zs_.next_in), zs_.avail_in);
    if (is_gzip(rest)) {
      member_started_ = true;
      return true;
    }
    // Trailing padding: zeros until the end of the input.
    while (true) {
      const std::string_view r(reinterpret_cast<const char*>(zs_.next_in), zs_.avail_in);
      if (r.find_first_not_of('\0') != std::string_view::npos)
        fail(name_, 0, "unexpected bytes after the end of the gzip data");
      if (!refill()) break;
    }
    done_ = true;
    return false;
  }

  std::unique_ptr<ByteSource> inner_;
  std::string name_;
  std::string in_;
  z_stream zs_{};
  bool first_member_ = true;
  bool member_started_ = false;
  bool done_ = false;
};

/// `src` itself, or its inflation when it starts with the gzip magic.
std::unique_ptr<ByteSource> maybe_inflating(std::unique_ptr<ByteSource> src,
                                            const std::string& name) {
  std::string head(2, '\0');
  std::size_t got = 0;
  while (got < 2) {
    const std::size_t k = src->read(head.data() + got, 2 - got);
    if (k == 0) break;
    got += k;
  }
  head.resize(got);
  const bool gz = is_gzip(head);
  auto whole = std::make_unique<PrefixedSource>(std::move(head), std::move(src));
  if (!gz) return whole;
  return std::make_unique<GzipSource>(std::move(whole), name);
}

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

std::unique_ptr<ByteSource> open_source(const std::string& path) {
  const std::string name = path == "-" ? "<stdin>" : path;
  return maybe_inflating(std::make_unique<FileSource>(path), name);
}

std::unique_ptr<ByteSource> open_source(std::istream& in, const std::string& name) {
  return maybe_inflating(std::make_unique<StreamSource>(in, name), name);
}

std::unique_ptr<ByteSource> open_source(std::string_view bytes, const std::string& name) {
  return maybe_inflating(std::make_unique<MemorySource>(bytes), name);
}

std::string maybe_gunzip(std::string data, const std::string& name) {
  if (!is_gzip(data)) return data;
  auto src = open_source(std::string_view(data), name);
  std::string out;
  out.reserve(data.size() * 4);
  char chunk[kChunk];
  std::size_t got;
  while ((got = src->read(chunk, sizeof(chunk))) > 0) out.append(chunk, got);
  return out;
}

bool LineCursor::fill() {
  if (eof_) return false;
  // Keep the unread bytes, move them to the front, and read behind them.
  const std::size_t keep = view_.size();
  if (keep >= kMaxLine)
    fail(name_, line_ + 1,
         "line longer than " + std::to_string(kMaxLine >> 20) + " MiB (not a text matrix file?)");
  if (!view_.empty() && view_.data() != buf_.data()) std::memmove(buf_.data(), view_.data(), keep);
  const std::size_t want = std::max<std::size_t>(kChunk, keep * 2);
  if (buf_.size() < want) buf_.resize(want);
  const std::size_t got = src_->read(buf_.data() + keep, buf_.size() - keep);
  if (got == 0) eof_ = true;
  view_ = std::string_view(buf_.data(), keep + got);
  return got > 0;
}

bool LineCursor::next(std::string_view& line) {
  std::size_t scanned = 0;
  while (true) {
    const void* nl = view_.size() > scanned
                         ? std::memchr(view_.data() + scanned, '\n', view_.size() - scanned)
                         : nullptr;
    if (nl) {
      std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - view_.data());
      line = view_.substr(0, len);
      view_.remove_prefix(len + 1);
      break;
    }
    scanned = view_.size();
    if (!fill()) {
      if (view_.empty()) return false;
      line = view_;  // last line without a terminator
      view_ = std::string_view();
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++line_;
  return true;
}

void LineCursor::next_block(std::string& out, std::size_t want) {
  out.assign(view_.data(), view_.size());  // the unread bytes first (a partial line, a peek)
  view_ = std::string_view();
  std::size_t size = out.size();
  while (!eof_) {
    if (size >= want) {
      const void* nl = memrchr(out.data(), '\n', size);
      if (nl) {
        // Whole lines go out; the partial last line waits for the next block.
        const std::size_t end = static_cast<const char*>(nl) - out.data() + 1;
        buf_.assign(out.data() + end, size - end);
        view_ = buf_;
        out.resize(end);
        return;
      }
      if (size >= kMaxLine)
        fail(name_, line_ + 1,
             "line longer than " + std::to_string(kMaxLine >> 20) +
                 " MiB (not a text matrix file?)");
      want = 2 * size;
    }
    // Reads grow with what was read (64 KiB, then doubling up to `want`): a small file does
    // not pay for a block-sized buffer.
    out.resize(size + std::max(kChunk, std::min(size, want > size ? want - size : kChunk)));
    std::size_t got = 0;
    try {
      got = src_->read(out.data() + size, out.size() - size);
    } catch (...) {
      if (size == 0) throw;
      // Keep the whole lines read so far; their errors come before this one.
      const void* nl = memrchr(out.data(), '\n', size);
      size = nl ? static_cast<const char*>(nl) - out.data() + 1 : 0;
      error_ = std::current_exception();
      eof_ = true;
      break;
    }
    if (got == 0) eof_ = true;
    size += got;
  }
  out.resize(size);
}

std::string_view LineCursor::peek(std::size_t n) {
  while (view_.size() < n && fill()) {
  }
  return view_.substr(0, std::min(n, view_.size()));
}

std::int64_t LineCursor::size_hint() const {
  if (!src_) return static_cast<std::int64_t>(view_.size());
  return src_->size_hint();
}

std::string_view strip_bom(std::string_view line) {
  if (line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  return line;
}

std::size_t split(std::string_view line, std::string_view* tokens, std::size_t max_tokens) {
  std::size_t n = 0, i = 0;
  const std::size_t len = line.size();
  while (true) {
    while (i < len && is_space(line[i])) ++i;
    if (i >= len) return n;
    if (n == max_tokens) return n + 1;
    const std::size_t start = i;
    while (i < len && !is_space(line[i])) ++i;
    tokens[n++] = line.substr(start, i - start);
  }
}

bool is_blank(std::string_view line) {
  for (char c : line)
    if (!is_space(c)) return false;
  return true;
}

namespace {
std::string_view without_plus(std::string_view tok) {
  if (!tok.empty() && tok[0] == '+') tok.remove_prefix(1);
  return tok;
}
}  // namespace

bool parse_int(std::string_view tok, std::int64_t& v) {
  tok = without_plus(tok);
  if (tok.empty() || tok[0] == '+') return false;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  return ec == std::errc() && p == tok.data() + tok.size();
}

std::string int_problem(std::string_view tok) {
  const std::string_view t = without_plus(tok);
  std::int64_t v;
  if (!t.empty() && t[0] != '+') {
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range && p == t.data() + t.size())
      return quote(tok) + " is out of range (int64)";
  }
  return quote(tok) + " is not an integer";
}

bool parse_real(std::string_view tok, double& v) {
  tok = without_plus(tok);
  if (tok.empty() || tok[0] == '+') return false;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (p != tok.data() + tok.size()) return false;
  if (ec == std::errc()) return true;
  if (ec != std::errc::result_out_of_range) return false;
  // Out of range: an underflow (1e-400) is a valid real, rounded as strtod does (to 0 or a
  // subnormal); an overflow (1e999) cannot be represented and is an error.
  const std::string copy(tok);
  errno = 0;
  const double d = std::strtod(copy.c_str(), nullptr);
  if (std::isinf(d)) return false;
  v = d;
  return true;
}

std::string quote(std::string_view tok) {
  std::string s = "'";
  for (char c : tok.substr(0, 40))
    s += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (tok.size() > 40) s += "...";
  return s + "'";
}

std::size_t effective_budget(std::size_t opt_budget) {
  return opt_budget ? opt_budget : default_memory_budget();
}

std::string human_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) bytes /= 1024, ++u;
  char text[48];
  std::snprintf(text, sizeof(text), u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return text;
}

void check_budget(const std::string& name, std::int64_t line, double bytes, std::size_t budget,
                  const std::string& what, const std::string& hint) {
  if (bytes <= static_cast<double>(budget)) return;
  std::string msg = name + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what +
                    " need " + human_bytes(bytes) + ", over the memory budget of " +
                    human_bytes(static_cast<double>(budget)) +
                    " (raise it with ReadOptions::memory_budget, or --memory-budget / "
                    "RINGBLAS_MEMORY_BUDGET on the command line)" +
                    hint;
  throw OutOfMemory(msg, bytes >= 1.8e19 ? SIZE_MAX : static_cast<std::size_t>(bytes));
}

}  // namespace detail

std::size_t default_memory_budget() {
  double total =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
    total = std::min(total, static_cast<double>(lim.rlim_cur));
  if (!(total > 0)) total = 4.0 * (1 << 30);  // unknown: assume a small machine
  return static_cast<std::size_t>(total / 2);
}

std::size_t parse_memory_size(const std::string& text) {
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s, &end);
  if (end == s || errno != 0 || !(v > 0) || !std::isfinite(v))
    throw InvalidValue("memory size '" + text + "' is not a positive number (e.g. 4G, 512M, 25%)");
  std::string unit(end);
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double bytes;
  if (unit == "%") {
    if (v > 100) throw InvalidValue("memory size '" + text + "' is over 100%");
    bytes = v / 100 * static_cast<double>(::sysconf(_SC_PHYS_PAGES)) *
            static_cast<double>(::sysconf(_SC_PAGESIZE));
  } else {
    double scale = 0;
    if (unit.empty() || unit == "b") scale = 1;
    if (unit == "k" || unit == "kb" || unit == "kib") scale = 1024.0;
    if (unit == "m" || unit == "mb" || unit == "mib") scale = 1024.0 * 1024;
    if (unit == "g" || unit == "gb" || unit == "gib") scale = 1024.0 * 1024 * 1024;
    if (unit == "t" || unit == "tb" || unit == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
    if (scale == 0)
      throw InvalidValue("memory size '" + text + "': unknown unit '" + std::string(end) +
                         "' (use K, M, G, T or %)");
    bytes = v * scale;
  }
  if (bytes < 1 || bytes > 1.8e19) throw InvalidValue("memory size '" + text + "' is out of range");
  return static_cast<std::size_t>(bytes);
}

std::string read_file_head(const std::string& path, std::size_t max_bytes) {
  try {
    auto src = detail::open_source(path);
    std::string data;
    if (src->size_hint() > 0)
      data.reserve(std::min(static_cast<std::size_t>(src->size_hint()), max_bytes));
    std::string chunk(std::min(detail::kChunk, std::max<std::size_t>(max_bytes, 1)), '\0');
    std::size_t got;
    while (data.size() < max_bytes &&
           (got = src->read(chunk.data(), std::min(chunk.size(), max_bytes - data.size()))) > 0)
      data.append(chunk.data(), got);
    return data;
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(path + ": out of memory while reading", 0);
  }
}

std::string read_file_text(const std::string& path) {
  return read_file_head(path, std::numeric_limits<std::size_t>::max());
}

void for_each_line(std::string_view text, const std::function<void(Index, std::string_view)>& f) {
  detail::LineCursor cursor(text);
  std::string_view line;
  while (cursor.next(line)) f(cursor.line_number(), line);
}

}  // namespace ringblas::io
