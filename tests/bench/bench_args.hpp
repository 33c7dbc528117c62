// Command-line helpers shared by the benchmark programs: comma-separated lists and the
// "name contains one of the words" filter behind their --ops / --inputs / --kinds options.
#pragma once
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

}  // namespace ringblas::bench
