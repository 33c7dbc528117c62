// Parallel parsing for the line readers: the input is read in large blocks of whole lines (the
// next block read, or inflated, while the current one is parsed), each block is cut at line
// boundaries into one chunk per thread, the chunks are parsed in parallel with their true line
// numbers, and then merged in file order on the calling thread. A reader keeps its sequential
// meaning by merging in order and checking, at the merge, what depends on earlier lines (the
// memory budget, a declared entry count, label numbering); a chunk stops at its first bad line,
// so the first chunk that stopped names the file's first bad line.
// Also the label table of the abc reader (open addressing; first-insertion numbering).
#pragma once
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "backend/core/io/io_detail.hpp"

namespace ringblas::io::detail {

/// How the input is cut. Process-wide; tests shrink the sizes to put chunk and block boundaries
/// inside every few lines.
struct ChunkConfig {
  std::size_t block_bytes = 0;              ///< read at a time; 0: 4 MiB per thread, 16..256 MiB
  std::size_t min_chunk_bytes = 256 << 10;  ///< a smaller block is parsed by fewer threads
  unsigned threads = 0;                     ///< 0: std::thread::hardware_concurrency()
};
ChunkConfig& chunk_config();
/// The number of chunks a block is cut into at most (the slots parse() is called with).
std::size_t chunk_slots();
/// Starts f on thread t, or, where no thread can be started (a process at its limit), runs it
/// here instead (t then stays unjoinable).
void start_or_run(std::thread& t, const std::function<void()>& f);

/// Reads the rest of `cur` (its line numbers continue) block by block: parse(slot, lines) runs in
/// parallel over each chunk of the block (`lines` walks the chunk with the file's line numbers),
/// then merge(slot) on the calling thread for each chunk in order. An exception escaping parse
/// is rethrown in place of its merge, after the earlier chunks merged.
void for_each_chunk(LineCursor& cur, const std::function<void(std::size_t, LineCursor&)>& parse,
                    const std::function<void(std::size_t)>& merge);

/// Where a chunk's parse stopped early: at `line` (0: it reached the chunk's end), with `error`
/// (null when it stopped only because its own entries already exceed what the merge allows).
/// `checked` says the line parsed and the budget check applies to it before `error` (the
/// sequential order of the checks on that line).
struct ChunkStop {
  std::int64_t line = 0;
  bool checked = false;
  std::exception_ptr error;
  /// Records the exception being handled at `ln` (call inside a catch block).
  void at(std::int64_t ln, bool parsed) {
    line = ln;
    checked = parsed;
    error = std::current_exception();
  }
};

/// Runs parse_line(line, number) over the lines of a chunk until it returns false; a line that
/// throws stops the chunk, its exception and number kept in `stop`.
template <class F>
void parse_chunk_lines(LineCursor& lines, ChunkStop& stop, F&& parse_line) {
  std::string_view line;
  while (lines.next(line)) {
    try {
      if (!parse_line(line, lines.line_number())) return;
    } catch (...) {
      stop.at(lines.line_number(), false);
      return;
    }
  }
}

/// Label -> id, numbered from 0 in order of first insertion: open addressing over 64-bit hashes;
/// the label bytes are copied into one arena (so a key outlives the text it came from), and a
/// label of up to 8 bytes is also kept in its slot, so that finding it touches one cache line.
class LabelTable {
 public:
  LabelTable() { rehash(1024); }
  /// The id of `s` (a new one, the next number, when `s` is new).
  Index intern(std::string_view s);
  std::size_t size() const { return offsets_.size() - 1; }
  std::string_view label(Index id) const {
    return std::string_view(arena_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]);
  }
  std::vector<std::string> labels() const;

 private:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};
  struct Slot {
    std::uint64_t hash;
    std::uint32_t id;  // kEmpty: an empty slot
    std::uint32_t len;
    std::uint64_t key;  // the bytes of a label of len <= 8 (zero-padded), else unused
  };
  static std::uint64_t short_key(std::string_view s);
  bool matches(const Slot& slot, std::uint64_t h, std::string_view s, std::uint64_t key) const;
  void rehash(std::size_t slots);
  std::vector<Slot> slots_;
  std::string arena_;
  std::vector<std::size_t> offsets_{0};  // label k is arena_[offsets_[k], offsets_[k + 1])
};

}  // namespace ringblas::io::detail
