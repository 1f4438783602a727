#include "util/remover.h"

#include <unistd.h>

#include <system_error>
#include <utility>

namespace bb {

BackgroundRemover::~BackgroundRemover() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void BackgroundRemover::remove(std::string path) {
  bool was_empty;
  {
    std::lock_guard lock(mutex_);
    // Started here, not in the constructor: most writers never replace a
    // file, and a thread is not made for them. Where none can be made (out
    // of threads or memory), the file goes here and now, as it did before.
    if (!thread_.joinable()) {
      try {
        thread_ = std::thread([this] { run(); });
      } catch (const std::system_error&) {
        ::unlink(path.c_str());
        return;
      }
    }
    was_empty = queue_.empty();
    queue_.push_back(std::move(path));
    ++handed_;
  }
  // The thread waits only on an empty queue: a wake-up (a futex call) for
  // the first path of a batch, not for each.
  if (was_empty) work_.notify_one();
}

void BackgroundRemover::wait() {
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return finished_ == handed_; });
}

void BackgroundRemover::run() {
  std::vector<std::string> batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopped, and nothing is left
    batch.swap(queue_);
    lock.unlock();
    for (const std::string& path : batch) ::unlink(path.c_str());
    lock.lock();
    finished_ += batch.size();
    batch.clear();
    done_.notify_all();
  }
}

}  // namespace bb
