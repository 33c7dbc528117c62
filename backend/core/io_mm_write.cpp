// Matrix Market writers: coordinate general (real / integer / pattern) and array general, to a
// stream, a plain file or a gzip file (".gz" suffix); to_chars formatting, 17 digits for floats.
#include <zlib.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>

#include "backend/core/host_access.hpp"
#include "backend/core/io_detail.hpp"
#include "ringblas/error.hpp"
#include "ringblas/io.hpp"

namespace ringblas::io {

namespace {

using Sink = std::function<void(const char*, std::size_t)>;

/// Buffers formatted text and hands it to a sink in large chunks.
class Writer {
 public:
  explicit Writer(Sink sink) : sink_(std::move(sink)) { buf_.reserve(kChunk + 128); }
  void text(std::string_view s) {
    buf_.append(s);
    maybe_flush();
  }
  void integer(std::int64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
    buf_.append(tmp, r.ptr);
  }
  void real(double v) {
    char tmp[40];
    auto r = std::to_chars(tmp, tmp + sizeof(tmp), v, std::chars_format::general, 17);
    buf_.append(tmp, r.ptr);
  }
  void ch(char c) {
    buf_.push_back(c);
    if (c == '\n') maybe_flush();
  }
  void flush() {
    if (!buf_.empty()) sink_(buf_.data(), buf_.size());
    buf_.clear();
  }

 private:
  static constexpr std::size_t kChunk = 1 << 20;
  void maybe_flush() {
    if (buf_.size() >= kChunk) flush();
  }
  Sink sink_;
  std::string buf_;
};

const char* field_name(Type t, bool pattern) {
  if (pattern) return "pattern";
  return is_float(t) ? "real" : "integer";
}

template <class V>
void write_value(Writer& w, V v) {
  if constexpr (std::is_floating_point_v<V>)
    w.real(static_cast<double>(v));
  else
    w.integer(static_cast<std::int64_t>(v));
}

void write_coordinate(Writer& w, const Matrix& a, bool pattern) {
  ringblas::detail::require_host(a.location(), "io::write_matrix_market");
  w.text("%%MatrixMarket matrix coordinate ");
  w.text(field_name(a.type(), pattern));
  w.text(" general\n");
  w.integer(a.nrows());
  w.ch(' ');
  w.integer(a.ncols());
  w.ch(' ');
  w.integer(a.nnz());
  w.ch('\n');
  visit_index_type(a.index_type(), [&](auto ityp) {
    using I = decltype(ityp);
    const I* rp = a.row_ptr().as<I>();
    const I* ci = a.col_idx().as<I>();
    visit_type(a.type(), [&](auto vtyp) {
      using V = decltype(vtyp);
      const V* val = a.values().as<V>();
      for (Index i = 0; i < a.nrows(); ++i) {
        for (Index p = rp[i]; p < static_cast<Index>(rp[i + 1]); ++p) {
          w.integer(i + 1);
          w.ch(' ');
          w.integer(static_cast<Index>(ci[p]) + 1);
          if (!pattern) {
            w.ch(' ');
            write_value(w, val[p]);
          }
          w.ch('\n');
        }
      }
    });
  });
  w.flush();
}

void write_array(Writer& w, const DenseMatrix& a) {
  ringblas::detail::require_host(a.location(), "io::write_dense_matrix_market");
  w.text("%%MatrixMarket matrix array ");
  w.text(field_name(a.type(), false));
  w.text(" general\n");
  w.integer(a.nrows());
  w.ch(' ');
  w.integer(a.ncols());
  w.ch('\n');
  visit_type(a.type(), [&](auto vtyp) {
    using V = decltype(vtyp);
    const V* val = a.values().as<V>();
    for (Index j = 0; j < a.ncols(); ++j) {
      for (Index i = 0; i < a.nrows(); ++i) {
        const Index k = a.layout() == Layout::row_major ? i * a.ncols() + j : j * a.nrows() + i;
        write_value(w, val[k]);
        w.ch('\n');
      }
    }
  });
  w.flush();
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Runs `body` with a Writer on `path` (gzip when the name ends in ".gz").
template <class Body>
void write_file(const std::string& path, Body&& body) {
  if (ends_with(path, ".gz")) {
    gzFile gz = gzopen(path.c_str(), "wb6");
    if (!gz) throw IoError(path + ": cannot open for writing (" + std::strerror(errno) + ")");
    std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(gz, &gzclose);
    Writer w([&](const char* p, std::size_t n) {
      if (gzwrite(gz, p, static_cast<unsigned>(n)) != static_cast<int>(n))
        throw IoError(path + ": write failed");
    });
    body(w);
    if (gzclose(guard.release()) != Z_OK) throw IoError(path + ": write failed on close");
    return;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw IoError(path + ": cannot open for writing (" + std::strerror(errno) + ")");
  Writer w([&](const char* p, std::size_t n) {
    if (std::fwrite(p, 1, n, f.get()) != n)
      throw IoError(path + ": write failed (" + std::strerror(errno) + ")");
  });
  body(w);
  if (std::fclose(f.release()) != 0) throw IoError(path + ": write failed on close");
}

}  // namespace

void write_matrix_market(std::ostream& out, const Matrix& a, bool pattern) {
  Writer w([&](const char* p, std::size_t n) {
    out.write(p, static_cast<std::streamsize>(n));
    if (!out) throw IoError("io::write_matrix_market: stream write failed");
  });
  write_coordinate(w, a, pattern);
}

void write_matrix_market(const std::string& path, const Matrix& a, bool pattern) {
  ringblas::detail::require_host(a.location(), "io::write_matrix_market");
  write_file(path, [&](Writer& w) { write_coordinate(w, a, pattern); });
}

void write_dense_matrix_market(const std::string& path, const DenseMatrix& a) {
  ringblas::detail::require_host(a.location(), "io::write_dense_matrix_market");
  write_file(path, [&](Writer& w) { write_array(w, a); });
}

}  // namespace ringblas::io
