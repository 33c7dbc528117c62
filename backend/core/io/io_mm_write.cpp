// Matrix Market writers: coordinate general (real / integer / pattern) and array general, to a
// stream, a plain file or a gzip file (".gz" suffix); to_chars formatting, 17 digits for floats.
// Files are replaced atomically: temporary file in the same folder, fsync, rename.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>

#include "backend/core/containers/host_access.hpp"
#include "backend/core/io/io_detail.hpp"
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

/// Runs `body` with a Writer on `path`, written atomically (gzip when the name ends in ".gz").
template <class Body>
void write_file(const std::string& path, Body&& body) {
  write_file_atomically(path, [&](const std::function<void(const char*, std::size_t)>& sink) {
    Writer w(sink);
    body(w);
  });
}

// The temporary file of the write in progress, for remove_temporary_output (a signal handler):
// a fixed buffer and a flag, which are all a handler may touch.
char g_temp_path[4096];
volatile std::sig_atomic_t g_temp_active = 0;

void set_temp(const std::string& tmp) {
  if (tmp.size() >= sizeof(g_temp_path)) return;  // too long to register: left to the catch
  std::memcpy(g_temp_path, tmp.c_str(), tmp.size() + 1);
  g_temp_active = 1;
}

std::string errno_text() { return std::strerror(errno); }

/// write(2) of all `n` bytes, retried on EINTR; IoError with the system's reason otherwise.
void write_all(int fd, const char* p, std::size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      throw IoError(path + ": write failed (" + errno_text() + ")");
    }
    p += k;
    n -= static_cast<std::size_t>(k);
  }
}

}  // namespace

void remove_temporary_output() noexcept {
  if (g_temp_active) {
    ::unlink(g_temp_path);
    g_temp_active = 0;
  }
}

void write_file_atomically(
    const std::string& path,
    const std::function<void(const std::function<void(const char*, std::size_t)>&)>& write) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) throw IoError(path + ": cannot open for writing (not a file name)");
  std::string tmp = (slash == std::string::npos ? std::string() : dir) + "." + base + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) throw IoError(path + ": cannot open for writing (" + errno_text() + ")");
  set_temp(tmp);
  bool fd_open = true;
  gzFile gz = nullptr;
  try {
    // The new file gets the old one's mode, or what open(2) would have given it.
    struct stat st {};
    mode_t mode;
    if (::stat(path.c_str(), &st) == 0) {
      mode = st.st_mode & 07777;
    } else {
      const mode_t mask = ::umask(0);
      ::umask(mask);
      mode = 0666 & ~mask;
    }
    if (::fchmod(fd, mode) != 0)
      throw IoError(path + ": cannot set the mode of the temporary file (" + errno_text() + ")");
    if (ends_with(path, ".gz")) {
      gz = gzdopen(::dup(fd), "wb6");
      if (!gz) throw IoError(path + ": cannot open for writing (gzip)");
      write([&](const char* p, std::size_t n) {
        if (n && gzwrite(gz, p, static_cast<unsigned>(n)) != static_cast<int>(n)) {
          int zerr = 0;
          const char* msg = gzerror(gz, &zerr);
          throw IoError(path + ": write failed (" +
                        (zerr == Z_ERRNO ? errno_text() : std::string(msg ? msg : "zlib")) + ")");
        }
      });
      const int rc = gzclose(gz);
      gz = nullptr;
      if (rc != Z_OK) throw IoError(path + ": write failed on close (" + errno_text() + ")");
    } else {
      write([&](const char* p, std::size_t n) { write_all(fd, p, n, path); });
    }
    if (::fsync(fd) != 0) throw IoError(path + ": write failed on fsync (" + errno_text() + ")");
    fd_open = false;
    if (::close(fd) != 0) throw IoError(path + ": write failed on close (" + errno_text() + ")");
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      throw IoError(path + ": cannot replace the file (" + errno_text() + ")");
    g_temp_active = 0;
  } catch (...) {
    if (gz) gzclose(gz);
    if (fd_open) ::close(fd);
    g_temp_active = 0;
    ::unlink(tmp.c_str());
    throw;
  }
  // Make the rename itself durable (best effort: some file systems refuse fsync on folders).
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

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
