// Matrix Market, edge-list and label-triple (mcl --abc) readers and writers; .gz read directly.
#pragma once
#include <iosfwd>
#include <string>
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
/// The matrix must be on the host (InvalidValue otherwise); IoError when the file cannot be written.
void write_matrix_market(const std::string& path, const Matrix& a, bool pattern = false);
void write_matrix_market(std::ostream& out, const Matrix& a, bool pattern = false);
/// Writes array general Matrix Market (column-major, as the format requires).
void write_dense_matrix_market(const std::string& path, const DenseMatrix& a);

struct EdgeListOptions {
  int base = 0;                 ///< 0- or 1-based vertex ids
  bool symmetrize = false;      ///< add (j, i) for every (i, j)
  bool compact_ids = false;     ///< renumber the ids that occur to 0..n-1 in increasing order
  Index nvertices = -1;         ///< -1: max id + 1 (after compaction, the number of ids)
  Dup dup = Dup::first;         ///< how repeated edges combine (SNAP lists repeat some)
  /// Triplet files (SuiteSparse `i j x`): max row + 1 rows and max col + 1 columns, sized
  /// separately; symmetrize, compact_ids and nvertices must then be left unset (InvalidValue).
  bool rectangular = false;
};
/// Edge list `i j [w]` per line, whitespace separated (SNAP style); lines starting with `#` or
/// `%` and blank lines are comments; the first `skip_header_lines` lines of the file are skipped
/// whatever they hold (use read_graph to detect SNAP copies' header lines). Without a weight the
/// value is 1.0. Repeated edges (also those created by symmetrize) combine by opt.dup, in file
/// order; Dup::error throws ParseError naming both lines. Self-loops are kept (not mirrored).
/// Result fp64, nvertices x nvertices. ParseError "file:line: reason" for ids below `base`,
/// ids >= nvertices, non-numeric fields, a missing or extra field.
Matrix read_edge_list(const std::string& path, const EdgeListOptions& opt = {},
                      int skip_header_lines = 0);

/// A graph for benchmarks and tools, as ../shared/ANCHORS.md defines the inputs: a Matrix
/// Market file (detected by its banner; symmetric ones expanded) with values as fp64 (pattern ->
/// 1.0); any other file as a SNAP edge list: ids compacted to 0..n-1 in increasing order,
/// symmetrized, every value 1.0, self-loops kept. A first data line that is not an edge is
/// skipped: non-numeric tokens ("nd nw"), or two integers "n m" where m equals the number of
/// edge lines that follow and n the number of distinct ids in them.
Matrix read_graph(const std::string& path);

/// Label triples `a b w` (mcl --abc): labels are arbitrary strings, numbered in order of first
/// appearance; `labels` receives them. Result n x n fp64; repeated pairs keep the larger weight
/// (mcl's default).
Matrix read_abc(const std::string& path, std::vector<std::string>* labels = nullptr,
                bool symmetrize = true);

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

}  // namespace ringblas::io
