#include "mace/libmace/context_impl.h"
#include "mace/utils/status.h"

namespace mace {

MaceContext::MaceContext() : impl_(new Impl) {}
MaceContext::~MaceContext() = default;

MaceStatus MaceContext::Create(int num_threads, CPUAffinityPolicy policy,
                               std::shared_ptr<MaceContext>* context) {
  MACE_CHECK_ARG(context != nullptr, "MaceContext::Create needs a context pointer");
  const int value = static_cast<int>(policy);
  MACE_CHECK_ARG(value >= 0 && value <= 2, "unknown CPU affinity policy ", value);
  return CatchExceptions(
      [&] {
        std::shared_ptr<MaceContext> created(new MaceContext());
        created->impl_->thread_pool = ThreadPool::Create(num_threads, policy);
        created->impl_->policy = policy;
        *context = std::move(created);
        return MaceStatus();
      },
      [] { return std::string("creating the context"); });
}

int MaceContext::num_threads() const { return impl_->thread_pool->num_threads(); }

CPUAffinityPolicy MaceContext::cpu_affinity_policy() const { return impl_->policy; }

int64_t MaceContext::arena_bytes() const { return impl_->arena->bytes(); }

}  // namespace mace
