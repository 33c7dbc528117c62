// Block reading, chunk cutting and the parallel parse / in-order merge of for_each_chunk; the
// abc reader's label table.
#include "backend/core/io/io_chunks.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace ringblas::io::detail {

ChunkConfig& chunk_config() {
  static ChunkConfig config;
  return config;
}

void start_or_run(std::thread& t, const std::function<void()>& f) {
  try {
    t = std::thread(f);
  } catch (const std::system_error&) {
    f();
  }
}

std::size_t chunk_slots() {
  const unsigned t = chunk_config().threads;
  return std::clamp<std::size_t>(t ? t : std::thread::hardware_concurrency(), 1, 256);
}

namespace {

/// A block of whole lines cut into chunks: chunk i is text[cuts[i], cuts[i + 1]) and its first
/// line is number lines_before[i] + 1. `error`: reading after this block failed (rethrown when
/// the next block is wanted, so that the lines before the failure are parsed first).
struct Block {
  std::string text;
  std::vector<std::size_t> cuts;
  std::vector<std::int64_t> lines_before;
  std::exception_ptr error;
  bool empty() const { return text.empty(); }
};

std::size_t block_bytes() {
  const std::size_t b = chunk_config().block_bytes;
  return b ? b
           : std::clamp<std::size_t>(chunk_slots() << 22, std::size_t{16} << 20,
                                     std::size_t{256} << 20);
}

/// The next block of `cur`, cut into at most chunk_slots() chunks of at least min_chunk_bytes.
void read_block(LineCursor& cur, Block& b) {
  const std::int64_t first = cur.line_number();
  b.cuts.clear();
  b.lines_before.clear();
  b.error = nullptr;
  try {
    cur.next_block(b.text, block_bytes());
  } catch (...) {
    // next_block keeps what it read before the failure and throws only when nothing was read.
    b.text.clear();
    b.error = std::current_exception();
    return;
  }
  b.error = cur.take_error();
  const std::size_t n = b.text.size();
  const std::size_t k = std::clamp<std::size_t>(
      n / std::max<std::size_t>(chunk_config().min_chunk_bytes, 1), 1, chunk_slots());
  std::int64_t lines = first;
  b.cuts.push_back(0);
  b.lines_before.push_back(first);
  for (std::size_t i = 1; i <= k; ++i) {
    std::size_t at = i == k ? n : std::max(n / k * i, b.cuts.back());
    if (i < k) {
      const void* nl = at < n ? std::memchr(b.text.data() + at, '\n', n - at) : nullptr;
      at = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - b.text.data()) + 1 : n;
    }
    lines += std::count(b.text.data() + b.cuts.back(), b.text.data() + at, '\n');
    b.cuts.push_back(at);
    b.lines_before.push_back(lines);
    if (at == n) break;
  }
  cur.advance_lines(lines - first + (n && b.text[n - 1] != '\n'));
}

}  // namespace

void for_each_chunk(LineCursor& cur, const std::function<void(std::size_t, LineCursor&)>& parse,
                    const std::function<void(std::size_t)>& merge) {
  Block now, next;
  read_block(cur, now);
  if (now.empty() && now.error) std::rethrow_exception(now.error);
  std::vector<std::exception_ptr> failed;
  while (!now.empty()) {
    const std::size_t chunks = now.cuts.size() - 1;
    failed.assign(chunks, nullptr);
    auto run = [&](std::size_t i) {
      try {
        LineCursor lines(
            std::string_view(now.text).substr(now.cuts[i], now.cuts[i + 1] - now.cuts[i]),
            now.lines_before[i]);
        parse(i, lines);
      } catch (...) {
        failed[i] = std::current_exception();
      }
    };
    // The next block is read (inflated) while this one is parsed.
    const bool more = !now.error && !cur.at_end();
    std::thread reader;
    if (more) start_or_run(reader, [&] { read_block(cur, next); });
    std::vector<std::thread> workers(chunks);
    for (std::size_t i = 1; i < chunks; ++i) start_or_run(workers[i], [&, i] { run(i); });
    run(0);
    for (auto& w : workers)
      if (w.joinable()) w.join();
    if (reader.joinable()) reader.join();
    for (std::size_t i = 0; i < chunks; ++i) {
      if (failed[i]) std::rethrow_exception(failed[i]);
      merge(i);
    }
    if (now.error) std::rethrow_exception(now.error);
    if (!more) break;
    std::swap(now, next);
    if (now.empty() && now.error) std::rethrow_exception(now.error);
  }
}

namespace {

/// A hash of short strings, 8 bytes at a time (labels are mostly under 32 bytes).
std::uint64_t hash_bytes(std::string_view s) {
  constexpr std::uint64_t m = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = s.size() * m;
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * m;
    h ^= h >> 29;
  }
  if (i < s.size()) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    h = (h ^ w) * m;
  }
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  return h ^ (h >> 32);
}

}  // namespace

std::uint64_t LabelTable::short_key(std::string_view s) {
  std::uint64_t key = 0;
  if (s.size() <= 8) std::memcpy(&key, s.data(), s.size());
  return key;
}

bool LabelTable::matches(const Slot& slot, std::uint64_t h, std::string_view s,
                         std::uint64_t key) const {
  if (slot.hash != h || slot.len != s.size()) return false;
  return s.size() <= 8 ? slot.key == key : label(slot.id) == s;
}

void LabelTable::rehash(std::size_t slots) {
  slots_.assign(slots, Slot{0, kEmpty, 0, 0});
  const std::size_t mask = slots - 1;
  for (std::size_t id = 0; id < size(); ++id) {
    const std::string_view s = label(static_cast<Index>(id));
    const std::uint64_t h = hash_bytes(s);
    std::size_t p = h & mask;
    while (slots_[p].id != kEmpty) p = (p + 1) & mask;
    slots_[p] =
        Slot{h, static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(s.size()), short_key(s)};
  }
}

Index LabelTable::intern(std::string_view s) {
  const std::uint64_t h = hash_bytes(s), key = short_key(s);
  const std::size_t mask = slots_.size() - 1;
  std::size_t p = h & mask;
  for (; slots_[p].id != kEmpty; p = (p + 1) & mask)
    if (matches(slots_[p], h, s, key)) return slots_[p].id;
  const std::size_t id = size();
  if (id >= kEmpty) throw std::length_error("more than 2^32 labels");
  arena_.append(s);
  offsets_.push_back(arena_.size());
  slots_[p] = Slot{h, static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(s.size()), key};
  if (2 * size() > slots_.size()) rehash(2 * slots_.size());  // at most half full
  return static_cast<Index>(id);
}

std::vector<std::string> LabelTable::labels() const {
  std::vector<std::string> out;
  out.reserve(size());
  for (std::size_t id = 0; id < size(); ++id) out.emplace_back(label(static_cast<Index>(id)));
  return out;
}

}  // namespace ringblas::io::detail
