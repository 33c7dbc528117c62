// Matrix Market, edge-list and label-triple (mcl --abc) readers and writers; .gz read directly,
// format detection (read_matrix), the readers' memory budget and atomic file output.
#pragma once
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::io {

enum class Symmetry : std::uint8_t { general, symmetric, skew_symmetric };
enum class Field : std::uint8_t { real, integer, pattern };

/// What a reader found, besides the matrix itself.
struct MatrixInfo {
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  bool array_format = false;  ///< "array" (dense) rather than "coordinate"
  Index stored_entries = 0;   ///< entries in the file, before symmetric expansion
};

/// Reads a Matrix Market file (coordinate or array; real, integer or pattern; general,
/// symmetric or skew-symmetric; plain or gzip, detected by its magic bytes, not its name).
/// real -> fp64, integer -> int64, pattern -> bool (all true). Symmetric storage is expanded to
/// both triangles; skew-symmetric sets a(j,i) = -a(i,j). An array file gives every element as an
/// entry, zeros included. Keywords are case-insensitive; '%' comment lines and blank lines are
/// skipped anywhere after the banner.
/// Strict policies (ParseError "file.mtx:17: reason", never a guess):
/// - duplicate coordinates are rejected (Matrix Market allows none), naming both lines;
/// - a symmetric / skew-symmetric file must store only the lower triangle (i >= j, and i > j for
///   skew: its diagonal is zero and stored nowhere); an entry above the diagonal is an error
///   (a file storing both triangles would otherwise double them);
/// - indices outside 1..n ("column index 9 out of range 1..8"), fewer or more entries than the
///   size line declares, non-numeric values, integers that overflow int64, extra fields, a
///   missing/malformed banner, unknown keywords, complex / hermitian (unsupported), pattern with
///   array or skew-symmetric (meaningless).
/// A UTF-8 byte-order mark and whitespace (blank lines too) before the banner are skipped.
/// The file is read as a stream (constant memory besides the matrix); the size line is checked
/// against the memory budget (default_memory_budget()) before anything is allocated: rows that
/// would need more than the budget for their row pointers, or an array larger than it, give
/// OutOfMemory naming the file, the line and the numbers, at once (hypersparse matrices, far more
/// rows than entries, are refused this way rather than held in a compact form).
/// Errors: ParseError as above; IoError if the file cannot be read; OutOfMemory.
Matrix read_matrix_market(const std::string& path, MatrixInfo* info = nullptr);
/// The same from a stream (plain or gzip bytes); `name` is used in error messages. A size line
/// declaring more than `max_rows` rows is a ParseError before anything is allocated (the CSR row
/// pointers take nrows + 1 entries); the fuzz target lowers it.
Matrix read_matrix_market(std::istream& in, const std::string& name, MatrixInfo* info = nullptr,
                          Index max_rows = Index{1} << 40);
/// A Matrix Market file into a dense row-major matrix (array files directly; coordinate files
/// with zeros where no entry is stored). Types and errors as read_matrix_market.
DenseMatrix read_dense_matrix_market(const std::string& path);

/// Writes coordinate general Matrix Market (1-based, row by row): field real with 17
/// significant digits for fp32/fp64 (round-trips exactly), integer for int32/int64 and bool
/// (0/1), pattern (no values) when `pattern` is set. A path ending in ".gz" is written gzip.
/// Files are written atomically (see write_file_atomically): a failure leaves the previous file.
/// The matrix must be on the host (InvalidValue otherwise); IoError when the file cannot be
/// written.
void write_matrix_market(const std::string& path, const Matrix& a, bool pattern = false);
void write_matrix_market(std::ostream& out, const Matrix& a, bool pattern = false);
/// Writes array general Matrix Market (column-major, as the format requires).
void write_dense_matrix_market(const std::string& path, const DenseMatrix& a);

struct EdgeListOptions {
  int base = 0;              ///< 0- or 1-based vertex ids
  bool symmetrize = false;   ///< add (j, i) for every (i, j)
  bool compact_ids = false;  ///< renumber the ids that occur to 0..n-1 in increasing order
  Index nvertices = -1;      ///< -1: max id + 1 (after compaction, the number of ids)
  Dup dup = Dup::first;      ///< how repeated edges combine (SNAP lists repeat some)
  /// Triplet files (SuiteSparse `i j x`): max row + 1 rows and max col + 1 columns, sized
  /// separately; symmetrize, compact_ids and nvertices must then be left unset (InvalidValue).
  bool rectangular = false;
  bool pattern = false;  ///< ignore a weight column: every value 1.0
  /// Skip a first data line that is a header rather than an edge: only tokens that are not
  /// numbers ("nd nw"), or "n m" where m is the number of edge lines that follow and n the number
  /// of distinct ids (or the largest id + 1) in them. A malformed line ("0 -1", "1 2 x") is
  /// never taken for a header: it is an error naming its line.
  bool detect_header = false;
  std::size_t memory_budget = 0;  ///< bytes; 0: default_memory_budget()
};
/// Edge list `i j [w]` per line, whitespace separated (SNAP style); lines starting with `#` or
/// `%` and blank lines are comments; the first `skip_header_lines` lines of the file are skipped
/// whatever they hold (use read_graph to detect SNAP copies' header lines). Without a weight the
/// value is 1.0. Repeated edges (also those created by symmetrize) combine by opt.dup, in file
/// order; Dup::error throws ParseError naming both lines. Self-loops are kept (not mirrored).
/// Result fp64, nvertices x nvertices. ParseError "file:line: reason" for ids below `base`,
/// ids >= nvertices, non-numeric fields, a missing or extra field, and for a file with no edge
/// at all (empty, blank or comment-only) unless nvertices is set. OutOfMemory when the largest id
/// needs more row pointers than the memory budget allows (naming the line), or the edges more
/// than it.
Matrix read_edge_list(const std::string& path, const EdgeListOptions& opt = {},
                      int skip_header_lines = 0);

/// A graph for benchmarks and tools, as ../shared/ANCHORS.md defines the inputs: a Matrix
/// Market file (detected by its banner; symmetric ones expanded) with values as fp64 (pattern ->
/// 1.0); any other file as a SNAP edge list: ids compacted to 0..n-1 in increasing order,
/// symmetrized, every value 1.0, self-loops kept. A first data line that is not an edge is
/// skipped: non-numeric tokens ("nd nw"), or two integers "n m" where m equals the number of
/// edge lines that follow and n the number of distinct ids in them; a malformed first line is an
/// error, never a header. A file with a Matrix Market banner after a BOM or whitespace, or one
/// starting "%%", is read as Matrix Market (a malformed banner is then an error).
Matrix read_graph(const std::string& path);

/// Label triples `a b w` (mcl --abc): labels are arbitrary strings, numbered in order of first
/// appearance; `labels` receives them. Result n x n fp64; repeated pairs keep the larger weight
/// (mcl's default). Only '#' starts a comment ('%' may begin a label). No pair at all is a
/// ParseError.
Matrix read_abc(const std::string& path, std::vector<std::string>* labels = nullptr,
                bool symmetrize = true);
/// The same with edge-list options: symmetrize, pattern, memory_budget and dup are used; base,
/// compact_ids, nvertices and rectangular must be left unset (InvalidValue).
Matrix read_abc(const std::string& path, std::vector<std::string>* labels,
                const EdgeListOptions& opt);

/// File formats read_matrix knows. `mci` is mcl's native matrix format.
enum class Format : std::uint8_t { automatic, matrix_market, edge_list, abc, mci };
/// "mm", "snap", "abc", "mci" ("auto" for automatic).
const char* format_name(Format f);
/// The inverse of format_name; also accepts "matrix-market", "mtx", "edge-list", "edges".
/// InvalidValue listing the valid names otherwise.
Format parse_format(const std::string& name);

/// The format of a file named `name` whose first bytes (inflated) are `head`:
/// 1. text that looks like Matrix Market (after a BOM and whitespace: "%%MatrixMarket" in any
///    case, any "%%" line, or "% MatrixMarket") is Matrix Market, whatever the name, so a
///    malformed banner is an error naming the line, never another format;
/// 2. else the extension (a ".gz" suffix removed): .mtx .mm -> mm; .txt .el .edges .edgelist
///    .snap .tsv -> snap; .abc -> abc; .mci -> mci;
/// 3. else ParseError "name: cannot tell the format ...; give --format mm|snap|abc|mci".
Format detect_format(const std::string& name, std::string_view head);

/// How read_matrix reads a file. symmetrize / compact_ids / pattern / nvertices / base apply to
/// edge lists (and symmetrize / pattern to abc files); given for a Matrix Market file, which says
/// its own field and symmetry, they are an InvalidValue.
struct ReadOptions {
  Format format = Format::automatic;  ///< automatic: detect_format
  bool symmetrize = false;            ///< add (j, i) for every (i, j)
  bool compact_ids = false;           ///< renumber edge-list ids to 0..n-1
  bool pattern = false;               ///< ignore weights: every value 1.0
  Index nvertices = -1;               ///< edge lists: n x n (-1: largest id + 1)
  int base = 0;                       ///< edge lists: 0- or 1-based ids
  std::size_t memory_budget = 0;      ///< bytes; 0: default_memory_budget()
};

/// A matrix read by read_matrix and what was learnt on the way.
struct LoadedMatrix {
  Matrix matrix;
  Format format = Format::automatic;  ///< the format it was read as
  MatrixInfo info;                    ///< for edge lists: field real (pattern with
                                      ///< opt.pattern), symmetry general (symmetric when
                                      ///< symmetrized), stored_entries = edge lines
  std::vector<std::string> labels;    ///< abc: vertex k's label; empty otherwise
  std::vector<std::string> notes;     ///< decisions the user should hear of (a skipped header)
};

/// Reads any supported file: `path` "-" is standard input; gzip is detected by its magic bytes;
/// the format is opt.format or detect_format's rule. Edge lists are read as given: ids are
/// vertex numbers (n = largest id + 1), a third column is the value (fp64), no mirrored edges,
/// unless opt asks otherwise; repeated edges are a ParseError naming both lines. abc files keep
/// their labels and weights (repeated pairs keep the larger weight, as mcl). Errors as the
/// format's reader; mci from a named file only (NotImplemented for streams).
LoadedMatrix read_matrix(const std::string& path, const ReadOptions& opt = {});
/// The same from a stream (plain or gzip bytes); `name` is used for detection and in messages.
LoadedMatrix read_matrix(std::istream& in, const std::string& name, const ReadOptions& opt = {});

/// The memory budget readers use by default: half of the smaller of physical memory and the
/// address-space limit (RLIMIT_AS). Library code never reads the environment; the CLI's
/// --memory-budget / RINGBLAS_MEMORY_BUDGET set ReadOptions::memory_budget.
std::size_t default_memory_budget();
/// Parses "4G", "512M", "1.5GiB", "1000000" (bytes) or "25%" (of physical memory);
/// InvalidValue otherwise.
std::size_t parse_memory_size(const std::string& text);

/// Writes a file atomically: `write` receives a sink for the bytes (gzip-compressed when the path
/// ends in ".gz"); they go to a temporary file in the same folder, which is fsync'ed and renamed
/// over `path` only when everything succeeded. On any exception the temporary file is removed
/// and `path` is left as it was; IoError names the path and the system's reason. The mode of an
/// existing file is kept (new files get 0666 minus the umask).
void write_file_atomically(
    const std::string& path,
    const std::function<void(const std::function<void(const char*, std::size_t)>&)>& write);
/// Removes the temporary file of a write in progress, if any. Async-signal-safe: a program's
/// SIGINT/SIGTERM handler calls it before dying so that an interrupted write leaves nothing
/// behind (the target is untouched anyway: it is replaced only by the final rename).
void remove_temporary_output() noexcept;

/// mcl's native matrix format (.mci, plain or gzip): a "(mclheader ... dimensions RxC)" block,
/// then "(mclmatrix begin" and one vector per column, "c r1[:v1] r2[:v2] ... $" (value 1.0 when
/// omitted), up to ")". Text before the header is skipped; '#' starts a comment. The result is
/// mcl's matrix itself: entry (r, c) of column c is A(r, c), fp64, R x C. ParseError
/// "file:line: reason" for indices out of range, a column given twice, a repeated row within a
/// column (duplicate entry), non-numeric fields, a missing '$' or ')'; NotImplemented for
/// domain blocks (mcldoms, mclrows, mclcols: non-canonical indices).
Matrix read_mci(const std::string& path);

/// The whole content of a possibly gzip-compressed file (gzip detected by its magic bytes, all
/// members inflated). Throws IoError naming the path when it cannot be read, ParseError when the
/// gzip data is corrupt or truncated.
std::string read_file_text(const std::string& path);
/// The first `max_bytes` bytes of the same content (fewer when the file is shorter): format
/// sniffing without reading, or inflating, the whole file. The same errors.
std::string read_file_head(const std::string& path, std::size_t max_bytes);

/// Calls f(n, line) for every line of `text`, n counting from 1; "\n" or "\r\n" ends a line
/// (not part of it) and the last line needs no terminator. The readers' own line walk, for
/// tools that parse formats of their own (blank and comment lines are the caller's to judge).
void for_each_line(std::string_view text, const std::function<void(Index, std::string_view)>& f);

}  // namespace ringblas::io
