// A benchmark's slow measurement in a child process that can be stopped at a deadline: the
// program runs itself again (/proc/self/exe, posix_spawn: fork plus exec, never a bare fork,
// since OpenMP cannot be used in a child forked after the parent used it) with arguments that
// select the one measurement and name the write end of a pipe. The child reports through it:
//   'S'                  its setup (reading the input) is done and the timed part begins,
//   'D' payload | 'E' message   the measurement's result, or why it failed.
// The deadline counts from 'S', so reading a large input is not charged to the measurement; at
// the deadline the parent kills the child's process group (SIGKILL) and reaps it. The child dies
// with the parent too (PR_SET_PDEATHSIG), so an interrupted benchmark leaves no process behind.
#pragma once
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringblas::bench {

/// What the child of run_self_timed reported: its payload, or nothing when it was stopped.
struct TimedChild {
  bool timed_out = false;
  std::string payload;
};

/// Runs this program with `args` followed by `fd_option` and the pipe's descriptor, and waits
/// for its result: at most `timeout_s` seconds from its 'S'. Throws with the child's message
/// ('E') or when it ended without a result (a crash, killed for memory).
inline TimedChild run_self_timed(const std::string& argv0, std::vector<std::string> args,
                                 const std::string& fd_option, double timeout_s) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);  // the read end stays here; the child inherits the other
  args.insert(args.begin(), argv0);
  args.push_back(fd_option);
  args.push_back(std::to_string(fds[1]));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group (killed as one), SIGPIPE at its default: a child whose parent is gone
  // dies at its next write.
  sigset_t deflt;
  sigemptyset(&deflt);
  sigaddset(&deflt, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &deflt);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, "/proc/self/exe", nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  if (err != 0) {
    close(fds[0]);
    throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(err));
  }
  using Clock = std::chrono::steady_clock;
  TimedChild out;
  std::string got;  // everything the child wrote
  Clock::time_point deadline{};
  for (;;) {
    // No limit before 'S' (the input being read) and after the measurement's first result byte.
    int wait_ms = -1;
    if (got.size() == 1 && got[0] == 'S') {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      wait_ms = int(std::clamp<long long>(left.count(), 0, INT_MAX));
    }
    pollfd p{fds[0], POLLIN, 0};
    const int k = poll(&p, 1, wait_ms);
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) {  // past the deadline
      kill(-pid, SIGKILL);
      out.timed_out = true;
      break;
    }
    char buf[1 << 16];
    const ssize_t m = read(fds[0], buf, sizeof(buf));
    if (m < 0 && errno == EINTR) continue;
    if (m <= 0) break;  // the child closed its end: it has ended
    if (got.empty() && buf[0] == 'S')
      deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(timeout_s));
    got.append(buf, std::size_t(m));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (out.timed_out) return out;
  const std::size_t at = !got.empty() && got[0] == 'S' ? 1 : 0;
  // A result counts however the child ended after it (its reader checks that it is whole).
  if (got.size() > at && got[at] == 'D') {
    out.payload = got.substr(at + 1);
    return out;
  }
  if (got.size() > at && got[at] == 'E') throw std::runtime_error(got.substr(at + 1));
  throw std::runtime_error("the child process ended without a result (" +
                           (WIFSIGNALED(status)
                                ? "signal " + std::to_string(WTERMSIG(status))
                                : "exit status " + std::to_string(WEXITSTATUS(status))) +
                           ")");
}

/// The child's side of run_self_timed: the write end `fd` given by `fd_option`.
class TimedChildChannel {
 public:
  /// Dies with the parent from here on; a parent already gone is noticed at start()'s write.
  explicit TimedChildChannel(int fd) : fd_(fd) { prctl(PR_SET_PDEATHSIG, SIGKILL); }
  void start() { write_all("S"); }
  void finish(const std::string& payload) { write_all("D" + payload); }
  void fail(const std::string& message) { write_all("E" + message); }

 private:
  void write_all(const std::string& s) {
    for (std::size_t at = 0; at < s.size();) {
      const ssize_t m = write(fd_, s.data() + at, s.size() - at);
      if (m < 0 && errno == EINTR) continue;
      if (m <= 0) throw std::runtime_error(std::string("pipe write: ") + std::strerror(errno));
      at += std::size_t(m);
    }
  }
  int fd_;
};

}  // namespace ringblas::bench
