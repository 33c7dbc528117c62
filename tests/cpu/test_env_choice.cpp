// env_choice (backend/cuda/common/env_choice.hpp): a developer switch (RINGBLAS_EWISE_MERGE)
// takes one of its named values; unset or empty is the default, anything
// else an error naming the variable and its values (never silently the default).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backend/cuda/common/env_choice.hpp"
#include "ringblas/error.hpp"

namespace {

constexpr const char* kVar = "RINGBLAS_TEST_ENV_CHOICE";

int choice() { return ringblas::cuda::env_choice(kVar, {"first", "second"}); }

TEST(EnvChoice, UnsetEmptyNamedAndUnknownValues) {
  unsetenv(kVar);
  EXPECT_EQ(choice(), -1);
  setenv(kVar, "", 1);
  EXPECT_EQ(choice(), -1);
  setenv(kVar, "first", 1);
  EXPECT_EQ(choice(), 0);
  setenv(kVar, "second", 1);
  EXPECT_EQ(choice(), 1);
  setenv(kVar, "secnd", 1);
  try {
    (void)choice();
    ADD_FAILURE() << "a misspelt value was taken";
  } catch (const ringblas::InvalidValue& e) {
    EXPECT_NE(std::string(e.what()).find("RINGBLAS_TEST_ENV_CHOICE=secnd: not one of first, second"),
              std::string::npos)
        << e.what();
  }
  unsetenv(kVar);
}

}  // namespace
