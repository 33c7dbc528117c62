// Regression tests for issue 10 (input and output that never invent or lose data), through the
// `ringblas` binary: each numbered case of the issue asserts the exit code, the message (file and
// line) and that no output file was created or changed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ringblas/ringblas.hpp"
#include "test_cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ringblas;
using namespace ringblas::test_cli;

const std::string kRepoData = RINGBLAS_REPO_DATA_DIR;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// A fresh folder per test.
fs::path case_dir(const std::string& name) {
  const fs::path d = temp_dir() / ("io_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string put(const fs::path& dir, const std::string& name, const std::string& text) {
  const auto p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

/// Files in `dir` whose name starts with '.' (the writer's temporaries).
std::vector<std::string> hidden_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string()[0] == '.') out.push_back(e.path().filename().string());
  return out;
}

const std::string kPrevious = "previous good output\n";

// 3 x 3: A(1,2) = -1, A(2,3) = 2, A(3,1) = 4; A*A has exactly (1,3) = -2, (2,1) = 8, (3,2) = -4.
const std::string kBody = "3 3 3\n1 2 -1\n2 3 2\n3 1 4\n";
const std::string kBanner = "%%MatrixMarket matrix coordinate real general\n";

// Issue 10, case 1: a banner not at byte 0 (BOM, blank line, space) is still Matrix Market, and a
// file that looks like Matrix Market but is malformed is an error naming the line, whatever its
// name; never an edge list.
TEST(CliIo, Case1BannerVariantsAreMatrixMarketOrErrors) {
  const auto dir = case_dir("case1");
  for (const std::string& prefix : {std::string("\xEF\xBB\xBF"), std::string("\n"),
                                    std::string("  "), std::string("\xEF\xBB\xBF\r\n \n")}) {
    for (const std::string name : {"a.txt", "a.mtx", "a.data"}) {
      const std::string f = put(dir, name, prefix + kBanner + kBody);
      const auto r = run_cli({"mxm", f, f, "-o", (dir / "c.mtx").string()});
      ASSERT_EQ(r.code, 0) << name << ": " << r.err;
      EXPECT_EQ(slurp(dir / "c.mtx"),
                "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 3 -2\n2 1 8\n3 2 -4\n")
          << name;
    }
  }
  put(dir, "c.mtx", kPrevious);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"%MatrixMarket matrix coordinate real general\n",
       ":1: malformed Matrix Market banner: "
       "'%MatrixMarket'"},
      {"% MatrixMarket matrix coordinate real general\n", ":1: malformed Matrix Market banner"},
      {"%%MatrixMarkt matrix coordinate real general\n",
       ":1: malformed Matrix Market banner: "
       "'%%MatrixMarkt'"},
      {"\n%%MatrixMarket matrix coordinat real general\n", ":2: unknown format 'coordinat'"},
  };
  for (const auto& [banner, message] : bad) {
    const std::string f = put(dir, "bad.txt", banner + kBody);
    const auto r = run_cli({"mxm", f, f, "-o", (dir / "c.mtx").string()});
    EXPECT_EQ(r.code, 1) << banner;
    EXPECT_TRUE(contains(r.err, f + message)) << r.err;
  }
  EXPECT_EQ(slurp(dir / "c.mtx"), kPrevious);
  // No banner and an extension that says nothing: an error asking for --format, not a guess.
  const std::string plain = put(dir, "edges.data", "0 1\n1 2\n");
  const auto unknown = run_cli({"info", plain});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_TRUE(contains(unknown.err, plain + ": cannot tell the format")) << unknown.err;
  EXPECT_TRUE(contains(unknown.err, "--format")) << unknown.err;
  const auto named = run_cli({"info", plain, "--format", "snap"});
  EXPECT_EQ(named.code, 0) << named.err;
  EXPECT_TRUE(contains(named.out, "nnz: 2\n")) << named.out;
  // A .mtx file without its banner is a Matrix Market error, not an edge list.
  const std::string nob = put(dir, "nob.mtx", "3 3 1\n1 1 1\n");
  const auto r = run_cli({"info", nob});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, nob + ":1: missing Matrix Market banner")) << r.err;
}

// Issue 10, case 2: -o is atomic. A failing run leaves the previous file untouched and no
// temporary file behind.
TEST(CliIo, Case2FailedRunLeavesPreviousOutput) {
  const auto dir = case_dir("case2");
  const std::string out = put(dir, "c.mtx", kPrevious);
  const std::string a = put(dir, "a.mtx", kBanner + kBody);
  const std::string b = put(dir, "b.mtx", kBanner + "2 2 1\n1 1 1\n");  // wrong shape
  const auto r = run_cli({"mxm", a, b, "-o", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(slurp(out), kPrevious);
  EXPECT_TRUE(hidden_files(dir).empty());
}

TEST(CliIo, Case2FileSizeLimitLeavesPreviousOutput) {
  const auto dir = case_dir("case2f");
  put(dir, "c.mtx", kPrevious);
  const std::string karate = kRepoData + "/suitesparse/karate.mtx";
  // C = A*A of karate is about 9 KB of text; 4 KB may be written.
  const auto r = run_sh(
      "ulimit -f 4; \"$RINGBLAS\" mxm '" + karate + "' '" + karate + "' --type int64 -o c.mtx",
      dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "c.mtx: write failed (File too large)")) << r.err;
  EXPECT_EQ(slurp(dir / "c.mtx"), kPrevious);
  EXPECT_TRUE(hidden_files(dir).empty()) << hidden_files(dir)[0];
  // Without the limit the same run replaces the file.
  const auto ok =
      run_sh("\"$RINGBLAS\" mxm '" + karate + "' '" + karate + "' --type int64 -o c.mtx", dir);
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(contains(slurp(dir / "c.mtx"), "%%MatrixMarket matrix coordinate integer general\n"));
}

TEST(CliIo, Case2KilledWriterLeavesPreviousOutput) {
  const auto dir = case_dir("case2k");
  put(dir, "c.mtx", kPrevious);
  // A 1 x 1500 row: C = A' A is 1500 x 1500 dense, about 40 MB of text, written long enough for
  // the script to see the temporary file and kill the writer.
  std::string row = kBanner + "1 1500 1500\n";
  for (int j = 1; j <= 1500; ++j) row += "1 " + std::to_string(j) + " 0.1234567\n";
  put(dir, "row.mtx", row);
  const auto r = run_sh(
      "\"$RINGBLAS\" mxm row.mtx row.mtx --transpose-a -o c.mtx & pid=$!\n"
      "for i in $(seq 1 3000); do\n"
      "  t=$(ls -A | grep '^\\.c\\.mtx\\.tmp' | head -1)\n"
      "  if [ -n \"$t\" ] && [ -s \"$t\" ]; then break; fi\n"
      "  kill -0 $pid 2>/dev/null || break\n"
      "  sleep 0.005\n"
      "done\n"
      "kill -TERM $pid; wait $pid; echo \"status=$?\"",
      dir);
  EXPECT_TRUE(contains(r.out, "status=143"))
      << "the writer was not killed mid-way: " << r.out << r.err;
  EXPECT_EQ(slurp(dir / "c.mtx"), kPrevious);
  EXPECT_TRUE(hidden_files(dir).empty()) << hidden_files(dir)[0];
}

// Issue 10, case 3: empty, blank, comment-only and one-line garbage files are errors, not 0 x 0.
TEST(CliIo, Case3EmptyAndGarbageFilesAreErrors) {
  const auto dir = case_dir("case3");
  struct Case {
    std::string name, text, message;
  };
  const std::vector<Case> cases = {
      {"e.mtx", "", "e.mtx:1: empty file: missing Matrix Market banner"},
      {"b.mtx", "\n  \n", "b.mtx:2: empty file: missing Matrix Market banner"},
      {"e.txt", "", "e.txt: no edges: the file is empty"},
      {"b.txt", "\n \t\n", "b.txt: no edges"},
      {"c.txt", "# only\n% comments\n", "c.txt: no edges"},
      {"g.txt", "hello\n", "g.txt:1: expected 'src dst [weight]', found 1 field"},
      {"g2.txt", "hello world again and more\n", "g2.txt:1: unexpected extra field"},
      {"e.abc", "# nothing\n", "e.abc: no label pairs"},
      {"g.abc", "lonely\n", "g.abc:1: expected 'label label [weight]'"},
      {"c.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n",
       "c.mtx:2: file ends before the size line"},
  };
  for (const auto& c : cases) {
    const std::string f = put(dir, c.name, c.text);
    const auto r = run_cli({"mxm", f, f, "-o", (dir / "out.mtx").string()});
    EXPECT_EQ(r.code, 1) << c.name;
    EXPECT_TRUE(contains(r.err, dir.string() + "/" + c.message)) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.mtx")) << c.name;
  }
}

// Issue 10, case 4: a malformed first line of an edge list is an error, never a dropped header.
TEST(CliIo, Case4MalformedFirstEdgeIsAnError) {
  const auto dir = case_dir("case4");
  const std::string neg = put(dir, "neg.txt", "0 -1\n1 2\n2 3\n");
  auto r = run_cli({"info", neg});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, neg + ":1: vertex id -1 out of range (ids are 0-based)")) << r.err;
  const std::string x = put(dir, "x.txt", "1 2 x\n1 2\n");
  r = run_cli({"info", x});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, x + ":1: weight 'x' is not a real number")) << r.err;
  for (const auto& f : {neg, x}) {
    r = run_cli({"mxm", f, f, "-o", (dir / "out.mtx").string()});
    EXPECT_EQ(r.code, 1) << f;
    EXPECT_FALSE(fs::exists(dir / "out.mtx")) << f;
  }
  // A real header is skipped, and said so on stderr.
  const std::string h = put(dir, "h.txt", "nd nw\n0 1\n1 2\n");
  r = run_cli({"info", h});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "nnz: 2\n")) << r.out;
  EXPECT_TRUE(contains(r.err, h + ":1: line 'nd nw' is not an edge; skipped as a header")) << r.err;
  const std::string nm = put(dir, "nm.txt", "3 2\n0 1\n1 2\n");
  r = run_cli({"info", nm});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "nnz: 2\n")) << r.out;
  EXPECT_TRUE(contains(r.err, nm + ":1: line '3 2' read as a header 'n m'")) << r.err;
}

// Issue 10, case 5: memory is bounded by the input. A tiny file declaring 10^9 x 10^9 is refused
// at once with the numbers; under an address-space limit the default budget shrinks with it.
TEST(CliIo, Case5HugeDimensionsRefusedAtOnce) {
  const auto dir = case_dir("case5");
  put(dir, "huge.mtx", kBanner + "1000000000 1000000000 1\n1 1 1\n");
  auto r = run_sh("ulimit -v 3000000; \"$RINGBLAS\" info huge.mtx", dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "huge.mtx:2: the row pointers of 1000000000 rows")) << r.err;
  EXPECT_TRUE(contains(r.err, "over the memory budget of")) << r.err;
  EXPECT_TRUE(contains(r.err, "hypersparse")) << r.err;
  // An explicit budget, as an option and from the environment.
  r = run_sh("\"$RINGBLAS\" info huge.mtx --memory-budget 1G", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "over the memory budget of 1.0 GiB")) << r.err;
  r = run_sh("RINGBLAS_MEMORY_BUDGET=512M \"$RINGBLAS\" info huge.mtx", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "over the memory budget of 512.0 MiB")) << r.err;
  // A budget above what the address space allows: the allocation fails, named by file.
  r = run_sh("ulimit -v 3000000; \"$RINGBLAS\" info huge.mtx --memory-budget 100G", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "huge.mtx: out of memory while reading")) << r.err;
  // Edge lists: a huge id.
  put(dir, "id.txt", "0 1\n5 999999999999\n");
  r = run_sh("\"$RINGBLAS\" info id.txt --memory-budget 1G", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "id.txt:2: vertex ids up to 999999999999")) << r.err;
  EXPECT_TRUE(contains(r.err, "--compact-ids")) << r.err;
  r = run_sh("\"$RINGBLAS\" info id.txt --compact-ids --memory-budget 1G", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "rows: 4\n")) << r.out;
  r = run_sh("\"$RINGBLAS\" info huge.mtx --memory-budget lots", dir);
  EXPECT_EQ(r.code, 2);
  // No output is created by a refused input.
  r = run_sh("ulimit -v 3000000; \"$RINGBLAS\" mxm huge.mtx huge.mtx -o out.mtx", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "huge.mtx:2: the row pointers of 1000000000 rows")) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out.mtx"));
}

/// Runs the CLI on `args` in `dir` (output discarded) and returns its exit code and its own peak
/// resident set in KiB, from wait4: a bound on what the reader held, whatever the shared
/// libraries (the CUDA ones take gigabytes of address space, so `ulimit -v` cannot bound it).
std::pair<int, long> run_cli_peak_rss(const std::vector<std::string>& args, const fs::path& dir) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    std::vector<char*> argv{const_cast<char*>(RINGBLAS_CLI_PATH)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(RINGBLAS_CLI_PATH, argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) return {-1, 0};
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ru.ru_maxrss};
}

TEST(CliIo, Case5GzipBombStreamsInBoundedMemory) {
  const auto dir = case_dir("case5g");
  // 256 MiB of comment lines between the size line and the entry, compressed to about 1 MB.
  const auto path = dir / "bomb.mtx.gz";
  gzFile gz = gzopen(path.c_str(), "wb1");
  ASSERT_NE(gz, nullptr);
  const std::string head = kBanner + "2 2 1\n";
  gzwrite(gz, head.data(), static_cast<unsigned>(head.size()));
  const std::string comment = "%" + std::string(1022, 'x') + "\n";
  std::string block;
  for (int k = 0; k < 1024; ++k) block += comment;
  for (int k = 0; k < 256; ++k) gzwrite(gz, block.data(), static_cast<unsigned>(block.size()));
  const std::string entry = "2 1 0.5\n";
  gzwrite(gz, entry.data(), static_cast<unsigned>(entry.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
  const auto r = run_cli({"info", (dir / "bomb.mtx.gz").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "nnz: 1\n")) << r.out;
  // The whole text is 256 MiB (held several times by a non-streaming reader); the streaming
  // reader stays near the program's own footprint (about 45 MiB with the CUDA libraries loaded).
  const auto [code, peak_kib] = run_cli_peak_rss({"info", "bomb.mtx.gz"}, dir);
  ASSERT_EQ(code, 0);
  EXPECT_LT(peak_kib, 160 * 1024) << "peak resident set " << peak_kib << " KiB";
}

// Issue 10, case 6: abc label triples through the CLI, weights kept; SNAP weights kept.
TEST(CliIo, Case6LabelsAndWeightsKept) {
  const auto dir = case_dir("case6");
  const std::string abc = put(dir, "g.abc", "geneA geneB 0.5\ngeneB geneC 0.25\n");
  auto r = run_cli({"info", abc});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "format: abc label triples (as given, 3 labels)\n")) << r.out;
  r = run_cli({"mxm", abc, abc, "--semiring", "min_plus", "-o", (dir / "c.mtx").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(dir / "c.mtx"),
            "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 3 0.75\n");
  // The same triples in a .txt file are an edge list: labels are then an error naming the line.
  const std::string txt = put(dir, "g.txt", "1 2 0.5\ngeneB geneC 0.25\n");
  r = run_cli({"info", txt});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, txt + ":2: vertex id 'geneB' is not an integer")) << r.err;
  r = run_cli({"mxm", txt, txt, "-o", (dir / "out.mtx").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(fs::exists(dir / "out.mtx"));
  r = run_cli({"info", txt, "--format", "abc"});
  EXPECT_EQ(r.code, 0) << r.err;
  // Real data: Krogan's core PPI network (kept in tests/data), 2,708 proteins.
  r = run_cli({"info", kRepoData + "/mcl/krogan2006_core.txt.gz", "--format=abc", "--symmetric"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "rows: 2708\n")) << r.out;
  // --pattern drops the weights on request only.
  r = run_cli(
      {"mxm", abc, abc, "--semiring", "min_plus", "--pattern", "-o", (dir / "p.mtx").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(slurp(dir / "p.mtx"), "\n1 3 2\n"));
}

// Issue 10, case 7: edge lists are read as given: no mirroring, renumbering or 1.0 weights.
TEST(CliIo, Case7EdgeListsAsGiven) {
  const auto dir = case_dir("case7");
  const std::string a = put(dir, "a.txt", "10 20 0.5\n");
  const std::string b = put(dir, "b.txt", "20 30 0.25\n");
  auto r = run_cli({"mxm", a, b, "--semiring", "min_plus", "-o", (dir / "c.mtx").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  // One vertex set (0..30) for both files; C(10, 30) = 0.75 is the only entry (1-based in .mtx).
  EXPECT_EQ(slurp(dir / "c.mtx"),
            "%%MatrixMarket matrix coordinate real general\n31 31 1\n11 31 0.75\n");
  r = run_cli({"info", a});
  EXPECT_TRUE(contains(r.out, "rows: 21\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "nnz: 1\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "format: edge list (as given)\n")) << r.out;
  // Asked for: mirrored, compacted.
  r = run_cli({"info", a, "--symmetric", "--compact-ids"});
  EXPECT_TRUE(contains(r.out, "rows: 2\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "nnz: 2\n")) << r.out;
  r = run_cli({"info", a, "--nvertices", "40", "--base=1"});
  EXPECT_TRUE(contains(r.out, "rows: 40\n")) << r.out;
  r = run_cli({"info", a, "--nvertices", "15"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, a + ":1: vertex 20 does not fit in nvertices = 15")) << r.err;
  // A repeated edge with another weight is an error naming both lines; the same weight is kept.
  const std::string dup = put(dir, "dup.txt", "1 2 0.5\n2 3 1\n1 2 0.75\n");
  r = run_cli({"info", dup});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, dup + ":3: duplicate entry (1, 2), first given on line 1")) << r.err;
  // Matrix Market files state their own symmetry: the edge-list options are refused for them.
  const std::string m = put(dir, "m.mtx", kBanner + kBody);
  r = run_cli({"info", m, "--symmetric"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "apply to edge lists and abc files")) << r.err;
  // Every command's --help says how each format is read.
  for (const std::string cmd : {"info", "mxm", "spmm"}) {
    r = run_cli({cmd, "--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(contains(r.out, "--format mm|snap|abc|mci")) << cmd;
    EXPECT_TRUE(contains(r.out, "read as given")) << cmd;
  }
}

// Issue 10, case 8: --version.
TEST(CliIo, Case8Version) {
  const auto r = run_cli({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(contains(r.out, "ringblas 0.1.0\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "backends: cpu")) << r.out;
}

// Issue 10, case 9: the smaller ones.
TEST(CliIo, Case9NumbersOptionsStdinAndMaskName) {
  const auto dir = case_dir("case9");
  // An integer beyond int64 is out of range, not "not an integer".
  const std::string big = put(dir, "big.mtx", kBanner + "99999999999999999999 3 0\n");
  auto r = run_cli({"info", big});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, big + ":2: row count '99999999999999999999' is out of range (int64)"))
      << r.err;
  // 1e-400 is a valid real (it underflows to 0); 1e999 is not representable.
  const std::string tiny = put(dir, "tiny.mtx", kBanner + "1 1 1\n1 1 1e-400\n");
  r = run_cli({"mxm", tiny, tiny, "-o", (dir / "t.mtx").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(dir / "t.mtx"), "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0\n");
  const std::string huge = put(dir, "hv.mtx", kBanner + "1 1 1\n1 1 1e999\n");
  r = run_cli({"info", huge});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, huge + ":3: value '1e999' is not a real number")) << r.err;
  // --name=value works for every option, including the shared input options.
  const std::string a = put(dir, "a.mtx", kBanner + kBody);
  r = run_cli({"mxm", a, a, "--semiring=min_plus"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "semiring min_plus")) << r.out;
  r = run_cli({"info", a, "--format=bogus"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "unknown format 'bogus' (valid: mm, snap, abc, mci")) << r.err;
  // The mask-shape error names the mask file.
  const std::string m = put(dir, "mask2.mtx", kBanner + "2 2 1\n1 1 1\n");
  r = run_cli({"mxm", a, a, "--mask", m});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "mask " + m + " is 2 x 2, but C = A (+).(x) B is 3 x 3")) << r.err;
  // '-' reads standard input, plain or gzip (by its magic bytes).
  r = run_sh("\"$RINGBLAS\" info - < a.mtx", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "file: <stdin>\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "nnz: 3\n")) << r.out;
  r = run_sh("gzip -c a.mtx | \"$RINGBLAS\" mxm - a.mtx -o c.mtx", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(slurp(dir / "c.mtx"), "\n1 3 -2\n"));
  r = run_sh("printf '0 1 2\\n' | \"$RINGBLAS\" info -", dir);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "<stdin>: cannot tell the format")) << r.err;
  r = run_sh("printf '0 1 2\\n' | \"$RINGBLAS\" info - --format snap", dir);
  EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace
