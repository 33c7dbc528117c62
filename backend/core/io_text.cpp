// Text input for the readers: whole files (gzip inflated by zlib), lines, tokens and numbers.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "backend/core/io_detail.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::io {
namespace detail {

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

namespace {
struct InflateStream {
  z_stream zs{};
  bool open = false;
  ~InflateStream() {
    if (open) inflateEnd(&zs);
  }
};
}  // namespace

std::string maybe_gunzip(std::string data, const std::string& name) {
  if (!is_gzip(data)) return data;
  InflateStream s;
  // 16 + MAX_WBITS: expect a gzip header and trailer.
  if (inflateInit2(&s.zs, 16 + MAX_WBITS) != Z_OK) fail(name, 0, "zlib inflateInit2 failed");
  s.open = true;
  std::string out;
  out.reserve(data.size() * 4);
  std::size_t in_pos = 0;
  char chunk[1 << 16];
  while (true) {
    s.zs.next_in = reinterpret_cast<Bytef*>(data.data() + in_pos);
    const std::size_t avail = std::min<std::size_t>(data.size() - in_pos, 1u << 30);
    s.zs.avail_in = static_cast<uInt>(avail);
    s.zs.next_out = reinterpret_cast<Bytef*>(chunk);
    s.zs.avail_out = sizeof(chunk);
    const int rc = inflate(&s.zs, Z_NO_FLUSH);
    in_pos += avail - s.zs.avail_in;
    out.append(chunk, sizeof(chunk) - s.zs.avail_out);
    if (rc == Z_STREAM_END) {
      // gzip allows several members one after another (cat a.gz b.gz); trailing zeros are padding.
      std::string_view rest(data.data() + in_pos, data.size() - in_pos);
      if (!is_gzip(rest)) {
        if (rest.find_first_not_of('\0') != std::string_view::npos)
          fail(name, 0, "unexpected bytes after the end of the gzip data");
        break;
      }
      if (inflateReset(&s.zs) != Z_OK) fail(name, 0, "zlib inflateReset failed");
      continue;
    }
    // With a fresh output chunk, Z_BUF_ERROR means inflate needs input that is not there.
    if (rc == Z_BUF_ERROR) fail(name, 0, "truncated gzip data");
    if (rc != Z_OK)
      fail(name, 0,
           std::string("corrupt gzip data (zlib: ") + (s.zs.msg ? s.zs.msg : "error") + ")");
  }
  return out;
}

void fail(const std::string& name, std::int64_t line, const std::string& reason) {
  if (line > 0) throw ParseError(name + ":" + std::to_string(line) + ": " + reason);
  throw ParseError(name + ": " + reason);
}

bool LineCursor::next(std::string_view& line) {
  if (pos_ >= text_.size()) return false;
  const char* begin = text_.data() + pos_;
  const void* nl = std::memchr(begin, '\n', text_.size() - pos_);
  std::size_t len =
      nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin) : text_.size() - pos_;
  pos_ += len + (nl ? 1 : 0);
  if (len > 0 && begin[len - 1] == '\r') --len;
  line = std::string_view(begin, len);
  ++line_;
  return true;
}

namespace {
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
}  // namespace

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

bool parse_int(std::string_view tok, std::int64_t& v) {
  if (!tok.empty() && tok[0] == '+') tok.remove_prefix(1);
  if (tok.empty() || tok[0] == '+') return false;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  return ec == std::errc() && p == tok.data() + tok.size();
}

bool parse_real(std::string_view tok, double& v) {
  if (!tok.empty() && tok[0] == '+') tok.remove_prefix(1);
  if (tok.empty() || tok[0] == '+') return false;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  // Out of range (1e999) is an error too: the file's value cannot be represented.
  return ec == std::errc() && p == tok.data() + tok.size();
}

std::string quote(std::string_view tok) {
  std::string s = "'";
  for (char c : tok.substr(0, 40))
    s += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (tok.size() > 40) s += "...";
  return s + "'";
}

}  // namespace detail

std::string read_file_text(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw IoError(path + ": cannot open for reading (" + std::strerror(errno) + ")");
  std::string data;
  char chunk[1 << 16];
  std::size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), f.get())) > 0) data.append(chunk, got);
  if (std::ferror(f.get())) throw IoError(path + ": read error (" + std::strerror(errno) + ")");
  try {
    return detail::maybe_gunzip(std::move(data), path);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(path + ": out of memory while inflating", 0);
  }
}

}  // namespace ringblas::io
