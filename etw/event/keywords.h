/* Named keyword sets (kernel flags, CLR keywords, CLR rundown keywords, TPL) and
 * trace levels, with PerfView's names and values (docs/perfview-collection.md
 * §4.1, §4.3, §4.4; TPL from the TplEventSource manifest), parsed and printed
 * both ways.  Pure tables and functions. */
#ifndef ETWCAP_KEYWORDS_H
#define ETWCAP_KEYWORDS_H

#include <stddef.h>
#include <stdint.h>

struct keyword_def {
  const char *name;
  uint64_t value;
};

struct keyword_set {
  const char *qualifier;             /* "KernelEvents", for messages */
  const struct keyword_def *bits;    /* one bit each; the first name of a value prints */
  size_t bit_count;
  const struct keyword_def *composites; /* Default, ThreadTime, ... (parse only) */
  size_t composite_count;
};

extern const struct keyword_set keywords_kernel;
extern const struct keyword_set keywords_clr;
extern const struct keyword_set keywords_clr_rundown;
extern const struct keyword_set keywords_tpl;

/* Kernel values used by the plan (§4.1). */
#define KW_KERNEL_PROCESS 0x1ull
#define KW_KERNEL_THREAD 0x2ull
#define KW_KERNEL_IMAGELOAD 0x4ull
#define KW_KERNEL_CONTEXTSWITCH 0x10ull
#define KW_KERNEL_DPC 0x20ull
#define KW_KERNEL_INTERRUPT 0x40ull
#define KW_KERNEL_DRIVER 0x800000ull
#define KW_KERNEL_DISPATCHER 0x800ull
#define KW_KERNEL_VIRTUALALLOC 0x4000ull
#define KW_KERNEL_VAMAP 0x8000ull
#define KW_KERNEL_PROFILE 0x1000000ull
#define KW_KERNEL_PMCPROFILE 0x80000000ull /* TraceEvent's pseudo-flag; /CpuCounters */
#define KW_KERNEL_FILEIOINIT 0x4000000ull
#define KW_KERNEL_REFERENCESET 0x40000000ull
#define KW_KERNEL_DEFAULT 0x0101270Full
#define KW_KERNEL_THREADTIME 0x01012F1Full
/* Keywords TraceEvent implements itself, never passed to the OS as
 * EnableFlags; VAMap is one only before Windows 8. */
#define KW_KERNEL_NONOS 0xF84C8000ull
#define KW_KERNEL_NONCONTAINER_KEEP 0x0100001Full

/* CLR values used by the plan (§4.3). */
#define KW_CLR_GC 0x1ull
#define KW_CLR_LOADER 0x8ull
#define KW_CLR_JIT 0x10ull
#define KW_CLR_NGEN 0x20ull
#define KW_CLR_ILTONATIVEMAP 0x20000ull
#define KW_CLR_SUPRESSNGEN 0x40000ull
#define KW_CLR_TYPE 0x80000ull
#define KW_CLR_GCSAMPLED_HIGH 0x200000ull
#define KW_CLR_GCHEAPSURVIVAL 0x400000ull
#define KW_CLR_GCSAMPLED_LOW 0x2000000ull
#define KW_CLR_STACK 0x40000000ull
#define KW_CLR_DEFAULT 0x14C14FCCBDull
#define KW_CLR_CORE 0x14C14BCC9Dull /* Default minus NGen and SupressNGen */
#define KW_CLR_GCONLY 0x414C8099ull
#define KW_CLR_RUNTIME_LOADING 0xE000000000ull

/* CLR rundown values (§4.4). */
#define KW_RUNDOWN_LOADER 0x8ull
#define KW_RUNDOWN_JIT 0x10ull
#define KW_RUNDOWN_NGEN 0x20ull
#define KW_RUNDOWN_FORCEEND 0x100ull
#define KW_RUNDOWN_ILTONATIVEMAP 0x20000ull
#define KW_RUNDOWN_SUPRESSNGEN 0x40000ull
#define KW_RUNDOWN_DEFAULT 0x1080060139ull
#define KW_RUNDOWN_MINIMAL 0x1000000101ull

/* Parses PerfView's flags-enum syntax (commandLine.cs ParseCompositeEnumValue):
 * tokens separated by ',' '+' or '|' are ORed, a token after '-' is removed,
 * left to right; a token is a name (case-insensitive), 0xHEX or decimal.
 * On error returns ETWCAP_E_USAGE and writes a message naming the token. */
int keywords_parse(const struct keyword_set *set, const char *text, uint64_t *out, char *err,
                   size_t err_size);
/* Value of one name (bit or composite); 0 when found, -1 otherwise. */
int keywords_lookup(const struct keyword_set *set, const char *name, size_t len,
                    uint64_t *out);
/* "Process|Thread|0x80000000000": bit names, then unnamed bits in hex;
 * "0" for none.  Returns the length it wanted (snprintf style). */
size_t keywords_format(const struct keyword_set *set, uint64_t value, char *buf, size_t size);
/* Name of a single bit, or NULL. */
const char *keywords_bit_name(const struct keyword_set *set, uint64_t bit);

/* Trace levels: Always 0, Critical 1, Error 2, Warning 3, Informational 4,
 * Verbose 5, or a number 0-255 (PerfView's TraceEventLevel names, any case;
 * "Info" too).  Returns 0 or -1. */
int level_parse(const char *text, size_t len, uint8_t *out);
/* "Verbose", or NULL for levels without a name. */
const char *level_name(uint8_t level);

#define LEVEL_ALWAYS 0
#define LEVEL_CRITICAL 1
#define LEVEL_ERROR 2
#define LEVEL_WARNING 3
#define LEVEL_INFORMATIONAL 4
#define LEVEL_VERBOSE 5

#endif
