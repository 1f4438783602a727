// Removes files on a thread of its own, for a writer that replaces
// thousands of files and should not wait while the old ones go.
//
// Why a thread: removing a file the kernel has already written back frees
// its blocks, and on a filesystem mounted with `discard` the kernel may
// wait for the device there. On this VM (ext4 without a journal, `discard`)
// removing 1,000 written-back files of 2 KiB took 60-73 ms, 11 ms of it CPU
// time; the dashboard replaces 1,000 such files a push. systemd hands
// blocking removals to a thread for the same reason (asynchronous_rm_rf).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace bb {

class BackgroundRemover {
 public:
  BackgroundRemover() = default;
  // Removes what is still handed to it, then stops its thread.
  ~BackgroundRemover();
  BackgroundRemover(const BackgroundRemover&) = delete;
  BackgroundRemover& operator=(const BackgroundRemover&) = delete;

  // Unlinks `path` soon, on the thread (started on the first call). A file
  // that is gone already, or cannot be removed, is left as it is: what is
  // handed here is a writer's leftover, never something a reader needs.
  void remove(std::string path);
  // Returns once every path handed so far is removed (or could not be).
  void wait();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable work_, done_;
  std::vector<std::string> queue_;
  size_t handed_ = 0, finished_ = 0;  // paths handed to remove(), and removed since
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace bb
