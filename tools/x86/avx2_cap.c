// A preloaded library that makes an AVX-512 host answer cpuid like an
// AVX2-only one, for binaries whose cpuid instructions were rewritten by
// tools/python/mace_tools/avx2_cap.py into `int3; nop`.
//
// x86 cannot trap cpuid from user space on hosts without CPUID faulting, so
// the rewritten binaries trap instead: the SIGTRAP handler runs the real
// cpuid for the leaf and subleaf in EAX and ECX, clears the AVX-512,
// AVX-VNNI, AVX10 and AMX bits, writes EAX..EDX back and resumes after the
// nop. Everything else (caches, vendor, family, XCR0) is the host's, so code
// that selects kernels from cpuid picks its AVX2 ones and runs them on this
// core.
//
// An int3 that is not followed by a nop is not one of ours: the handler
// puts the default action back and re-raises, so the process stops as it
// would have.

#define _GNU_SOURCE
#include <cpuid.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static atomic_ulong emulated;

#define BIT(n) (1u << (n))
// Leaf 7 subleaf 0. EBX: AVX512 F, DQ, IFMA, PF, ER, CD, BW, VL.
static const uint32_t kLeaf7Ebx =
    BIT(16) | BIT(17) | BIT(21) | BIT(26) | BIT(27) | BIT(28) | BIT(30) | BIT(31);
// ECX: AVX512 VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ.
static const uint32_t kLeaf7Ecx = BIT(1) | BIT(6) | BIT(11) | BIT(12) | BIT(14);
// EDX: AVX512 4VNNIW, 4FMAPS, VP2INTERSECT, FP16; AMX BF16, TILE, INT8.
static const uint32_t kLeaf7Edx = BIT(2) | BIT(3) | BIT(8) | BIT(23) | BIT(22) | BIT(24) | BIT(25);
// Leaf 7 subleaf 1. EAX: AVX-VNNI, AVX512 BF16, AMX FP16, AVX-IFMA.
static const uint32_t kLeaf71Eax = BIT(4) | BIT(5) | BIT(21) | BIT(23);
// EDX: AVX-VNNI-INT8, AVX-NE-CONVERT, AVX-VNNI-INT16, AVX10.
static const uint32_t kLeaf71Edx = BIT(4) | BIT(5) | BIT(10) | BIT(19);

// The masked answer for one leaf and subleaf.
EXPORT void avx2_cap_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]) {
  uint32_t a = 0, b = 0, c = 0, d = 0;
  __cpuid_count(leaf, subleaf, a, b, c, d);
  if (leaf == 7 && subleaf == 0) {
    b &= ~kLeaf7Ebx;
    c &= ~kLeaf7Ecx;
    d &= ~kLeaf7Edx;
  } else if (leaf == 7 && subleaf == 1) {
    a &= ~kLeaf71Eax;
    d &= ~kLeaf71Edx;
  } else if (leaf == 0x24 || leaf == 0x1d || leaf == 0x1e) {
    a = b = c = d = 0;  // AVX10 and AMX tile leaves
  }
  out[0] = a;
  out[1] = b;
  out[2] = c;
  out[3] = d;
}

// How many cpuid instructions the handler answered in this process.
EXPORT unsigned long avx2_cap_emulated(void) { return atomic_load(&emulated); }

static void OnTrap(int signal_number, siginfo_t* info, void* context) {
  (void)info;
  ucontext_t* uc = (ucontext_t*)context;
  greg_t* regs = uc->uc_mcontext.gregs;
  const unsigned char* rip = (const unsigned char*)regs[REG_RIP];
  // After int3 the saved RIP is the byte after it.
  if (rip[-1] != 0xcc || rip[0] != 0x90) {
    signal(signal_number, SIG_DFL);
    raise(signal_number);
    return;
  }
  uint32_t out[4];
  avx2_cap_cpuid((uint32_t)regs[REG_RAX], (uint32_t)regs[REG_RCX], out);
  // cpuid zero-extends its results into the 64-bit registers.
  regs[REG_RAX] = out[0];
  regs[REG_RBX] = out[1];
  regs[REG_RCX] = out[2];
  regs[REG_RDX] = out[3];
  regs[REG_RIP] += 1;
  atomic_fetch_add(&emulated, 1);
}

// With AVX2_CAP_REPORT set, the count goes to stderr at exit, so a caller
// can check that a binary's feature probes went through the handler.
static void Report(void) {
  char line[64];
  int n = snprintf(line, sizeof line, "avx2_cap: %lu cpuid emulated\n", avx2_cap_emulated());
  if (n > 0) {
    ssize_t ignored = write(2, line, (size_t)n);
    (void)ignored;
  }
}

__attribute__((constructor)) static void Install(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = OnTrap;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGTRAP, &action, NULL) != 0) {
    static const char kMessage[] = "avx2_cap: cannot install the SIGTRAP handler\n";
    ssize_t ignored = write(2, kMessage, sizeof kMessage - 1);
    (void)ignored;
    _exit(70);
  }
  if (getenv("AVX2_CAP_REPORT") != NULL) atexit(Report);
}
