// MIT/IEEE Graph Challenge sparse DNN files: weight layers, sparse images and truth categories.
//
// Official formats (graphchallenge.mit.edu/data-sets): `neuron{N}/n{N}-l{k}.tsv` and
// `sparse-images-{N}.tsv` hold 1-based `row<TAB>col<TAB>value` lines; `neuron{N}-l{L}-categories.tsv`
// holds one 1-based image id per line. The copies in shared/data/graphchallenge_dnn are Matrix
// Market (`.mtx`, `.mtx.gz`); every reader here accepts either, plain or gzip, detected by content.
#pragma once
#include <string>
#include <vector>

#include "ringblas/matrix.hpp"

namespace ringblas::graph_challenge {

/// The official bias per network size: -0.3, -0.35, -0.4, -0.45 for 1024, 4096, 16384, 65536
/// neurons (Kepner's runSparseDNNchallenge.m); InvalidValue for any other size.
float bias_for(Index neurons);

/// A Matrix Market file (by its banner) or a TSV of 1-based `row col value` triples, as an fp32
/// nrows x ncols matrix with 32-bit indices. For TSV, nrows = -1 takes the largest row id.
/// ParseError "file:line: reason" for malformed lines, out-of-range ids or duplicates.
Matrix read_triples(const std::string& path, Index nrows, Index ncols);

/// The path of layer k (1-based) of the N-neuron network under `dir` or `dir/neuron{N}`, trying
/// n{N}-l{k}.tsv, .tsv.gz, .mtx, .mtx.gz; empty when none exists.
std::string find_layer(const std::string& dir, Index neurons, Index k);
/// Reads layer k (IoError naming the tried paths when it is absent).
Matrix read_layer(const std::string& dir, Index neurons, Index k);

/// The input images as an images x neurons fp32 matrix (pixel value 1.0): sparse-images-{N}.tsv
/// (.gz) or the .mtx(.gz) subset, searched in `dir`. IoError when absent.
std::string find_images(const std::string& dir, Index neurons);
Matrix read_images(const std::string& path, Index neurons);

/// Truth categories, 0-based and sorted: a TSV of 1-based ids one per line, or a Matrix Market
/// n x 1 pattern vector.
std::vector<Index> read_categories(const std::string& path);
/// `dir`/neuron{N}-l{L}-categories.tsv when it exists, else empty.
std::string find_categories(const std::string& dir, Index neurons, Index layers);

/// The first `count` rows of `features`, repeating them cyclically when count exceeds nrows
/// (the benchmark's 60,000 features are the 1200 real images replicated 50 times).
Matrix take_rows(const Matrix& features, Index count);
/// The categories of take_rows(features, count) given those of `features` (nrows of them).
std::vector<Index> replicate_categories(const std::vector<Index>& categories, Index nrows,
                                        Index count);

/// Images of side sqrt(neurons) (row-major pixels) upsampled by pixel replication to side
/// sqrt(neurons) * factor: the inputs of the larger networks, whose official images are not here.
Matrix upsample_images(const Matrix& images, Index factor);

}  // namespace ringblas::graph_challenge
