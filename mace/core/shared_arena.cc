#include "mace/core/shared_arena.h"

#include <algorithm>
#include <map>

#include "mace/utils/status.h"

namespace mace {
namespace {

int64_t AlignRegion(int64_t bytes) {
  return (bytes + SharedArena::kRegionAlignment - 1) / SharedArena::kRegionAlignment *
         SharedArena::kRegionAlignment;
}

}  // namespace

std::unique_ptr<SharedArena::Member> SharedArena::Join(int group, const std::string& name) {
  std::unique_ptr<Member> member(new Member(shared_from_this(), group, name));
  std::lock_guard<std::mutex> lock(mutex_);
  members_.push_back(member.get());
  return member;
}

int64_t SharedArena::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

MaceStatus SharedArena::RelayoutLocked(Member* also) {
  // Groups in number order, then the members of no group in joining order.
  std::map<int, int64_t> group_bytes;
  for (const Member* member : members_) {
    if (member->group_ >= 0) {
      group_bytes[member->group_] = std::max(group_bytes[member->group_], member->bytes_);
    }
  }
  std::map<int, int64_t> group_offset;
  int64_t total = 0;
  for (const auto& [group, bytes] : group_bytes) {
    group_offset[group] = total;
    total += AlignRegion(bytes);
  }
  // A running member stays where it is until its Run ends, so any move
  // takes a new buffer: the old layout stays intact under it meanwhile.
  bool moved = false;
  for (Member* member : members_) {
    int64_t offset = 0;
    if (member->group_ >= 0) {
      offset = group_offset[member->group_];
    } else {
      offset = total;
      total += AlignRegion(member->bytes_);
    }
    moved = moved || offset != member->region_offset_;
    member->region_offset_ = offset;
  }
  if (total != bytes_ || moved || buffer_ == nullptr) {
    std::unique_ptr<Memory> memory = NewHostMemory(MemoryType::CPU_BUFFER, std::max<int64_t>(total, 1));
    if (memory == nullptr) {
      return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                        StrCat("cannot allocate the context's shared CPU arena of ", total,
                               " bytes"));
    }
    buffer_ = std::move(memory);
    bytes_ = total;
  }
  for (Member* member : members_) {
    if (!member->running_ || member == also) member->BindLocked();
  }
  return MaceStatus();
}

SharedArena::Member::~Member() {
  std::lock_guard<std::mutex> lock(arena_->mutex_);
  arena_->members_.remove(this);
  // Shrinking is best effort: the remaining members keep their bindings if
  // a smaller buffer cannot be had.
  arena_->RelayoutLocked(nullptr);
}

MaceStatus SharedArena::Member::SetPlan(int64_t bytes, std::vector<Binding> bindings) {
  std::lock_guard<std::mutex> lock(arena_->mutex_);
  bytes_ = bytes;
  bindings_ = std::move(bindings);
  return arena_->RelayoutLocked(this);
}

void SharedArena::Member::BindLocked() {
  for (const Binding& binding : bindings_) {
    binding.tensor->Bind(arena_->buffer_.get(), region_offset_ + binding.offset, binding.size);
  }
  bound_ = arena_->buffer_;
}

MaceStatus SharedArena::Member::BeginRun() {
  std::lock_guard<std::mutex> lock(arena_->mutex_);
  for (const Member* other : arena_->members_) {
    if (!other->running_) continue;
    if (other == this) {
      return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                        StrCat("engine '", name_, "' is already running on another thread; "
                               "an engine runs one call at a time"));
    }
    if (group_ >= 0 && other->group_ == group_) {
      return MaceStatus(MaceStatus::MACE_RUNTIME_ERROR,
                        StrCat("engine '", name_, "' and engine '", other->name_,
                               "' are in sequential group ", group_,
                               " and share its arena region, but '", other->name_,
                               "' is running now; run them one after another, or put them in "
                               "different groups"));
    }
  }
  running_ = true;
  if (bound_ != arena_->buffer_) BindLocked();
  return MaceStatus();
}

void SharedArena::Member::EndRun() {
  std::lock_guard<std::mutex> lock(arena_->mutex_);
  running_ = false;
  // Laid out again during the run: move to the current buffer now, so the
  // old one is freed.
  if (bound_ != arena_->buffer_) BindLocked();
}

int64_t SharedArena::Member::region_offset() const {
  std::lock_guard<std::mutex> lock(arena_->mutex_);
  return region_offset_;
}

int64_t SharedArena::Member::arena_bytes() const {
  std::lock_guard<std::mutex> lock(arena_->mutex_);
  return arena_->bytes_;
}

}  // namespace mace
