// Counts heap allocations made by this process while a guard is alive, by
// interposing malloc, calloc, realloc and the aligned allocators of glibc
// (operator new and Eigen's allocator both end in them). A test binary that
// includes this header, in exactly one source, checks a library's
// no-allocation promise on the library as built, without compiling it a
// second time with Eigen's EIGEN_RUNTIME_NO_MALLOC.
//
// Under AddressSanitizer the sanitizer owns malloc: kAllocationCounterWorks
// is false there and tests skip.
#pragma once

#include <malloc.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__)
#define SUITSIM_ALLOCATION_COUNTER 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SUITSIM_ALLOCATION_COUNTER 0
#endif
#endif
#ifndef SUITSIM_ALLOCATION_COUNTER
#define SUITSIM_ALLOCATION_COUNTER 1
#endif

namespace suitsim::testing {

inline constexpr bool kAllocationCounterWorks = SUITSIM_ALLOCATION_COUNTER != 0;

inline std::atomic<bool> g_count_allocations{false};
inline std::atomic<long> g_allocations{0};

/// Counts every allocation of the process for its lifetime.
class CountAllocations {
 public:
  CountAllocations() {
    g_allocations = 0;
    g_count_allocations = true;
  }
  ~CountAllocations() { g_count_allocations = false; }
  long count() const { return g_allocations.load(); }
};

}  // namespace suitsim::testing

#if SUITSIM_ALLOCATION_COUNTER
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);

static inline void noteAllocation() {
  if (suitsim::testing::g_count_allocations.load(std::memory_order_relaxed)) ++suitsim::testing::g_allocations;
}
void* malloc(std::size_t size) noexcept {
  noteAllocation();
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) noexcept {
  noteAllocation();
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) noexcept {
  noteAllocation();
  return __libc_realloc(p, size);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  noteAllocation();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  noteAllocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  noteAllocation();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return 12;  // ENOMEM
  *out = p;
  return 0;
}
}
#endif
