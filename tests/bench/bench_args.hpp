// Helpers shared by the benchmark programs: comma-separated lists and the "name contains one of
// the words" filter behind their --ops / --inputs / --kinds options, an option's value, the
// reports' date, and the splitmix64 generator their generated inputs are drawn from.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace ringblas::bench {

/// The non-empty comma-separated words of s.
inline std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');)
    if (!t.empty()) out.push_back(t);
  return out;
}

/// Does `name` contain one of `words` (an empty list selects everything)?
inline bool selected(const std::vector<std::string>& words, const std::string& name) {
  if (words.empty()) return true;
  for (const std::string& w : words)
    if (name.find(w) != std::string::npos) return true;
  return false;
}

/// The value of the option argv[i] (argv[i + 1], i advanced past it); without one, says so on
/// stderr, naming `program`, and exits with status 2.
inline std::string option_value(int argc, char** argv, int& i, const char* program) {
  if (i + 1 >= argc) {
    std::cerr << program << ": " << argv[i] << " needs a value\n";
    std::exit(2);
  }
  return argv[++i];
}

/// Today (UTC) in strftime's `format`: the date stamped on the programs' reports.
inline std::string utc_date(const char* format = "%Y-%m-%d") {
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, format, std::gmtime(&now));
  return date;
}

/// splitmix64: the next value of the sequence whose state is s.
inline std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/// A uniform double in [0, 1) from splitmix64's top 53 bits.
inline double unit(std::uint64_t& s) { return double(splitmix(s) >> 11) * 0x1.0p-53; }

}  // namespace ringblas::bench
