// The packed upload's kept threads (backend/cuda/sparse_layer/crew.hpp), on the cpu: every run
// calls each worker exactly once, worker 0 on the caller and the others on the same threads from
// run to run; an exception is rethrown only after every worker has finished; a crew of one runs
// on the caller alone.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backend/cuda/sparse_layer/crew.hpp"

namespace {

using ringblas::cuda::sparse_layer::Crew;

TEST(Crew, EveryWorkerRunsOncePerRunOnTheSameThreads) {
  Crew crew(5);
  ASSERT_EQ(crew.size(), 5u);
  std::vector<std::thread::id> first(5);
  for (int run = 0; run < 200; ++run) {
    std::vector<int> calls(5, 0);
    std::vector<std::thread::id> where(5);
    crew.run([&](unsigned t) {
      ++calls[t];  // each t is one thread's own slot
      where[t] = std::this_thread::get_id();
    });
    EXPECT_EQ(calls, std::vector<int>(5, 1)) << "run " << run;
    EXPECT_EQ(where[0], std::this_thread::get_id()) << "run " << run;
    EXPECT_EQ(std::set<std::thread::id>(where.begin(), where.end()).size(), 5u) << "run " << run;
    if (run == 0) first = where;
    EXPECT_EQ(where, first) << "run " << run << ": the threads are kept";
  }
}

TEST(Crew, AFailureIsRethrownAfterEveryWorkerFinished) {
  Crew crew(4);
  for (unsigned failing : {0u, 2u}) {
    std::atomic<int> finished{0};
    EXPECT_THROW(crew.run([&](unsigned t) {
      if (t == failing) throw std::runtime_error("worker failed");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ++finished;
    }),
                 std::runtime_error);
    EXPECT_EQ(finished.load(), 3) << "worker " << failing << " failing";
  }
  // The crew still works after a failure.
  std::atomic<int> ran{0};
  crew.run([&](unsigned) { ++ran; });
  EXPECT_EQ(ran.load(), 4);
}

TEST(Crew, OfOneRunsOnTheCaller) {
  for (unsigned size : {0u, 1u}) {
    Crew crew(size);
    EXPECT_EQ(crew.size(), 1u);
    std::vector<std::thread::id> where;
    crew.run([&](unsigned t) {
      EXPECT_EQ(t, 0u);
      where.push_back(std::this_thread::get_id());
    });
    ASSERT_EQ(where.size(), 1u);
    EXPECT_EQ(where[0], std::this_thread::get_id());
  }
}

}  // namespace
