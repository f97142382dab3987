// A qemu-user TCG plugin that counts the guest instructions a program
// executes and prints the total on exit, as
//   insn_count: <instructions>
// to qemu's log, which `-d plugin` enables (stderr by default). Built for
// the host (x86-64) and loaded with
//   qemu-aarch64 -d plugin -plugin /path/libinsn_count.so ./program
//
// With the argument symbols=N (`-plugin /path/libinsn_count.so,symbols=20`)
// it also prints the N guest functions that executed the most, as
//   insn_symbol: <instructions> <percent>% <name>
// charging each translated block to the symbol of its first instruction (a
// block does not span functions). Names come from the binary's ELF symbol
// table, so it must not be stripped; code with no symbol is "[unknown]".
//
// With l1d=BYTES:WAYS and l2=BYTES:WAYS it also runs every data access the
// guest makes through a model of two cache levels (64-byte lines, least
// recently used replacement; a line L1d misses is looked up in L2, and
// both keep it) and prints
//   cache_accesses: <lines accessed> l1d_misses: <n> l2_misses: <n>
// An access that straddles two lines counts both. Prefetch instructions
// make no access in qemu and hardware prefetchers are not modelled, so the
// misses are those of the program's own loads and stores: what its blocking
// leaves to the memory system, not the stalls a core would see.
//
// Each translated block adds its instruction count to a counter when it runs
// (an inline add, no callback per block), so the overhead is small; the
// cache model is a callback per access, which makes a run about 1.5 times
// as long. The adds and the model are not atomic: count single-threaded
// programs (one guest thread, as `mace_run --omp_num_threads=1` is) or
// totals may lose updates.
//
// Debian ships no qemu-plugin.h, so the few entry points used are declared
// here, as the plugin API of qemu 7.2 (API version 1) defines them.

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;  // only passed through
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef uint32_t qemu_plugin_meminfo_t;

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
const char* qemu_plugin_insn_symbol(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op,
                                              void* ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void* userdata);
void qemu_plugin_outs(const char* string);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn* insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
                                      void* userdata);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);

PLUGIN_EXPORT int qemu_plugin_version = 1;

static uint64_t executed;

// Per-symbol counters: an open-addressing table keyed by name. Translation
// callbacks may run on several guest threads at once, hence the lock; the
// counters themselves are bumped by generated code, without it.
enum { kSymbolSlots = 1 << 16 };
struct SymbolCount {
  const char* name;  // owned copy; null marks a free slot
  uint64_t count;
};
static struct SymbolCount* symbols;
static int symbols_wanted;
static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static struct SymbolCount overflow = {"[table full]", 0};

static uint64_t HashName(const char* name) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (; *name != '\0'; ++name) hash = (hash ^ (unsigned char)*name) * 1099511628211ull;
  return hash;
}

static uint64_t* CounterFor(const char* name) {
  uint64_t* counter = &overflow.count;
  pthread_mutex_lock(&symbols_lock);
  for (uint64_t i = HashName(name), probes = 0; probes < kSymbolSlots; ++i, ++probes) {
    struct SymbolCount* slot = &symbols[i % kSymbolSlots];
    if (slot->name == NULL) {
      slot->name = strdup(name);
      if (slot->name != NULL) counter = &slot->count;
      break;
    }
    if (strcmp(slot->name, name) == 0) {
      counter = &slot->count;
      break;
    }
  }
  pthread_mutex_unlock(&symbols_lock);
  return counter;
}

// One cache level: `sets` sets of `ways` lines, each slot holding a line
// number (its address over 64) and the time of its last use.
struct Cache {
  uint64_t sets, ways;
  uint64_t* lines;  // sets * ways; ~0 is an empty slot
  uint64_t* used;
  uint64_t clock, misses;
};
static struct Cache l1d, l2;
static int caches_on;
static uint64_t line_accesses;
enum { kLineShift = 6 };

// Looks line up, making it the most recently used; 1 on a hit.
static int Touch(struct Cache* cache, uint64_t line) {
  const uint64_t base = (line & (cache->sets - 1)) * cache->ways;
  uint64_t* lines = cache->lines + base;
  uint64_t* used = cache->used + base;
  uint64_t oldest = 0;
  ++cache->clock;
  for (uint64_t w = 0; w < cache->ways; ++w) {
    if (lines[w] == line) {
      used[w] = cache->clock;
      return 1;
    }
    if (used[w] < used[oldest]) oldest = w;
  }
  ++cache->misses;
  lines[oldest] = line;
  used[oldest] = cache->clock;
  return 0;
}

static void OnMemory(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
                     void* userdata) {
  (void)vcpu;
  (void)userdata;
  const uint64_t size = (uint64_t)1 << qemu_plugin_mem_size_shift(info);
  const uint64_t last = (vaddr + size - 1) >> kLineShift;
  for (uint64_t line = vaddr >> kLineShift; line <= last; ++line) {
    ++line_accesses;
    if (!Touch(&l1d, line)) Touch(&l2, line);
  }
}

// "BYTES:WAYS" into a cache of 64-byte lines whose set count is a power of
// two; 0 on a bad value.
static int ParseCache(const char* text, struct Cache* cache) {
  char* end = NULL;
  const unsigned long long bytes = strtoull(text, &end, 10);
  if (end == text || *end != ':') return 0;
  const char* ways_text = end + 1;
  const unsigned long long ways = strtoull(ways_text, &end, 10);
  if (end == ways_text || *end != '\0' || ways == 0 || ways > 64) return 0;
  if (bytes == 0 || bytes > (1ull << 32) || bytes % (ways << kLineShift) != 0) return 0;
  const uint64_t sets = bytes / (ways << kLineShift);
  if ((sets & (sets - 1)) != 0) return 0;
  cache->sets = sets;
  cache->ways = ways;
  cache->lines = malloc(sets * ways * sizeof(uint64_t));
  cache->used = calloc(sets * ways, sizeof(uint64_t));
  if (cache->lines == NULL || cache->used == NULL) return 0;
  memset(cache->lines, 0xff, sets * ways * sizeof(uint64_t));
  return 1;
}

static void OnTranslate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  if (caches_on) {
    for (size_t i = 0; i < n; ++i) {
      qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), OnMemory,
                                       QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
    }
  }
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, n);
  if (symbols != NULL && n > 0) {
    const char* name = qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0));
    uint64_t* counter = CounterFor(name != NULL ? name : "[unknown]");
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, counter, n);
  }
}

static int ByCountDescending(const void* a, const void* b) {
  const uint64_t x = ((const struct SymbolCount*)a)->count;
  const uint64_t y = ((const struct SymbolCount*)b)->count;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void OnExit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  char line[512];
  snprintf(line, sizeof(line), "insn_count: %" PRIu64 "\n", executed);
  qemu_plugin_outs(line);
  if (caches_on) {
    snprintf(line, sizeof(line),
             "cache_accesses: %" PRIu64 " l1d_misses: %" PRIu64 " l2_misses: %" PRIu64 "\n",
             line_accesses, l1d.misses, l2.misses);
    qemu_plugin_outs(line);
  }
  if (symbols == NULL) return;
  size_t used = 0;
  for (size_t i = 0; i < kSymbolSlots; ++i) {
    if (symbols[i].name != NULL) symbols[used++] = symbols[i];
  }
  if (overflow.count > 0) symbols[used++] = overflow;  // a slot is free: the table was full
  qsort(symbols, used, sizeof(symbols[0]), ByCountDescending);
  for (size_t i = 0; i < used && i < (size_t)symbols_wanted; ++i) {
    const double percent = executed > 0 ? 100.0 * (double)symbols[i].count / (double)executed : 0;
    snprintf(line, sizeof(line), "insn_symbol: %" PRIu64 " %.2f%% %s\n", symbols[i].count, percent,
             symbols[i].name);
    qemu_plugin_outs(line);
  }
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                      char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "symbols=", 8) == 0) {
      char* end = NULL;
      const long wanted = strtol(argv[i] + 8, &end, 10);
      if (end == argv[i] + 8 || *end != '\0' || wanted < 0 || wanted > 100000) {
        fprintf(stderr, "insn_count: bad argument '%s' (symbols=N, N in [0, 100000])\n", argv[i]);
        return -1;
      }
      symbols_wanted = (int)wanted;
    } else if (strncmp(argv[i], "l1d=", 4) == 0 || strncmp(argv[i], "l2=", 3) == 0) {
      const int first = argv[i][1] == '1';
      if (!ParseCache(strchr(argv[i], '=') + 1, first ? &l1d : &l2)) {
        fprintf(stderr,
                "insn_count: bad argument '%s' (BYTES:WAYS, whole 64-byte lines, a power of "
                "two of sets, at most 64 ways)\n",
                argv[i]);
        return -1;
      }
    } else {
      fprintf(stderr, "insn_count: unknown argument '%s'\n", argv[i]);
      return -1;
    }
  }
  if ((l1d.sets > 0) != (l2.sets > 0)) {
    fprintf(stderr, "insn_count: the cache model needs both l1d= and l2=\n");
    return -1;
  }
  caches_on = l1d.sets > 0;
  if (symbols_wanted > 0) {
    // One slot stays free for the overflow entry at exit.
    symbols = calloc(kSymbolSlots + 1, sizeof(symbols[0]));
    if (symbols == NULL) return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, OnTranslate);
  qemu_plugin_register_atexit_cb(id, OnExit, NULL);
  return 0;
}
