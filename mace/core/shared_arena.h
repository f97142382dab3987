// One CPU arena for the intermediates of the engines of a MaceContext.
//
// Each engine is a member with its own plan (bytes, and the tensors bound
// at offsets inside them). Members of one sequential group never run at
// the same time, so the group's region is as large as its largest plan;
// a member outside any group (group -1) is a region of its own. Regions
// are laid end to end, each aligned to kRegionAlignment.
//
// Every join, leave or new plan lays the arena out again. When its size
// changes a new buffer is allocated and every member that is not running
// is bound to it at once; a running member keeps the buffer it runs on
// (its reference keeps it alive) and is bound to the new one when its Run
// ends. All of this happens under one mutex, which BeginRun takes too, so
// no member's tensors are rebound while it runs.
#ifndef MACE_CORE_SHARED_ARENA_H_
#define MACE_CORE_SHARED_ARENA_H_

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mace/core/runtime.h"
#include "mace/core/tensor.h"
#include "mace/public/mace.h"

namespace mace {

class SharedArena : public std::enable_shared_from_this<SharedArena> {
 public:
  static constexpr int64_t kRegionAlignment = 64;

  struct Binding {
    Tensor* tensor;
    int64_t offset;  // in the member's plan
    int64_t size;
  };

  class Member {
   public:
    ~Member();  // leaves the arena
    Member(const Member&) = delete;
    Member& operator=(const Member&) = delete;

    // The member's plan: `bytes` in all, and where its tensors go. Binds
    // them before returning; a member may call it during its own Run (a
    // new input shape planned again).
    MaceStatus SetPlan(int64_t bytes, std::vector<Binding> bindings);
    // Marks the member running until EndRun; fails with
    // MACE_RUNTIME_ERROR when the member, or another of its group, runs.
    MaceStatus BeginRun();
    void EndRun();
    // Where this member's region starts, and the arena's bytes now.
    int64_t region_offset() const;
    int64_t arena_bytes() const;
    int group() const { return group_; }

   private:
    friend class SharedArena;
    Member(std::shared_ptr<SharedArena> arena, int group, std::string name)
        : arena_(std::move(arena)), group_(group), name_(std::move(name)) {}
    // Points the tensors at the arena's current buffer (under the mutex).
    void BindLocked();

    std::shared_ptr<SharedArena> arena_;
    const int group_;
    const std::string name_;
    int64_t bytes_ = 0;
    std::vector<Binding> bindings_;
    int64_t region_offset_ = 0;
    bool running_ = false;
    // The buffer the tensors point into, kept alive while they do.
    std::shared_ptr<Memory> bound_;
  };

  // A new member of sequential group `group` (-1: a region of its own),
  // named (the model's name) in errors.
  std::unique_ptr<Member> Join(int group, const std::string& name);
  int64_t bytes() const;

 private:
  // Lays the regions out again, replaces the buffer when the size changed
  // and binds every member not running (plus `also`, a member planning
  // during its own Run).
  MaceStatus RelayoutLocked(Member* also);

  mutable std::mutex mutex_;
  std::list<Member*> members_;
  std::shared_ptr<Memory> buffer_;
  int64_t bytes_ = 0;
};

}  // namespace mace

#endif  // MACE_CORE_SHARED_ARENA_H_
