// Large, short-lived matrices on transparent huge pages.
//
// The identification keeps every trial's regressor rows at once (tens of
// megabytes a trial; 380 MB for JVRC-1's protocol). Written for the first
// time, each 4 kB page costs a page fault, and in a virtual machine a
// fault is dear: on a 2-core VM, about 110 000 of them cost 12 % of the
// evaluator's CPU time and 11 % of its wall time (docs/benchmarks.md).
// Where the kernel gives huge pages on request only (transparent_hugepage
// "madvise", Debian's default), asking for them on such a block before its
// first write cuts the faults 512-fold, and the TLB misses of the products
// over it with them. The contents are unchanged: this is advice, and a
// kernel without huge pages ignores it.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace suitsim::eval::detail {

/// Advises huge pages for the whole 2 MB pages inside [data, data + count),
/// which must not have been written yet to gain anything.
inline void adviseHugePages(double* data, std::size_t count) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data + count)) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
#else
  (void)data;
  (void)count;
#endif
}

}  // namespace suitsim::eval::detail
