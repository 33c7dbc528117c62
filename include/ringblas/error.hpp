// The exception hierarchy of ringblas: every error the library raises derives from ringblas::Error.
#pragma once
#include <stdexcept>
#include <string>

namespace ringblas {

/// GraphBLAS-like error codes carried by every ringblas exception.
enum class ErrorCode {
  dimension_mismatch,
  invalid_value,
  invalid_index,
  out_of_memory,
  not_implemented,
  not_compiled,
  cuda_error,
  parse_error,
  verification_failed,
  io_error,
};

const char* error_code_name(ErrorCode c);

/// Base of every exception ringblas throws; what() says what went wrong and where.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

#define RINGBLAS_DEFINE_ERROR(Name, code_value)                                          \
  class Name : public Error {                                                            \
   public:                                                                               \
    explicit Name(const std::string& what) : Error(ErrorCode::code_value, what) {}       \
  };
RINGBLAS_DEFINE_ERROR(DimensionMismatch, dimension_mismatch)
RINGBLAS_DEFINE_ERROR(InvalidValue, invalid_value)
RINGBLAS_DEFINE_ERROR(InvalidIndex, invalid_index)
RINGBLAS_DEFINE_ERROR(NotImplemented, not_implemented)
RINGBLAS_DEFINE_ERROR(NotCompiled, not_compiled)
RINGBLAS_DEFINE_ERROR(CudaError, cuda_error)
RINGBLAS_DEFINE_ERROR(ParseError, parse_error)
RINGBLAS_DEFINE_ERROR(VerificationFailed, verification_failed)
RINGBLAS_DEFINE_ERROR(IoError, io_error)
#undef RINGBLAS_DEFINE_ERROR

/// Device or host allocation failure; carries the number of bytes that were requested.
class OutOfMemory : public Error {
 public:
  OutOfMemory(const std::string& what, std::size_t requested_bytes)
      : Error(ErrorCode::out_of_memory, what), requested_(requested_bytes) {}
  std::size_t requested_bytes() const noexcept { return requested_; }

 private:
  std::size_t requested_;
};

}  // namespace ringblas
