/* Helpers shared by the unit tests: cmocka in one include, the samples
 * folder, a scratch folder, and an allocator that fails on demand. */
#ifndef ETWCAP_TEST_SUPPORT_H
#define ETWCAP_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* The samples folder (ETWCAP_SAMPLES), or NULL when absent. */
const char *test_samples_dir(void);
/* Skips the current test with a message when the samples are absent;
 * otherwise writes "<samples>/<name>" into buf and returns buf. */
const char *test_sample_path(const char *name, char *buf, size_t size);
/* "<scratch>/<name>": a writable folder inside the build tree. */
const char *test_tmp_path(const char *name, char *buf, size_t size);
/* Creates a folder (0 also when it exists). */
int test_mkdir(const char *path);
/* Extracts the member of `zip` whose name ends with `suffix` to `out`
 * (minizip's reader: independent of etwcap's own). */
void test_extract_member(const char *zip, const char *suffix, const char *out);

/* "<ETWCAP_PE_FIXTURES>/<name>" (tests/pe/pe_fixtures.cmake) into buf;
 * skips the current test with a message when the fixtures were not built. */
const char *test_pe_fixture(const char *name, char *buf, size_t size);
/* The header of a small 64-bit kernel trace a test writes (logger `logger`,
 * one CPU, QPC at 10 MHz, Windows 10 build 19041). */
struct etl_writer_config;
void test_kernel_trace_config(struct etl_writer_config *cfg, const char *logger);

/* A text member of a zip, NUL-terminated into buf, or fails the test. */
void test_zip_text(const char *zip, const char *name, char *buf, size_t cap);
/* The time the capture manifest (etwcap-capture.json) of `zip` gives for
 * the fire of `name` (its "utc": ISO 8601 to 100 ns, a FILETIME exactly),
 * into buf; fails the test when it names another trigger or none. */
const char *test_manifest_fire(const char *zip, const char *name, char *buf, size_t cap);
/* Fails unless the manifest of `zip` says `name` fired at `filetime`. */
void test_assert_fired_at(const char *zip, const char *name, int64_t filetime);

/* A collection_wait turn (collection.h) that ends the wait once
 * *(uint64_t *)ctx milliseconds have passed, as a trigger named "Test". */
struct manifest_trigger;
int test_stop_after_ms(void *ctx, uint64_t elapsed_ms, struct manifest_trigger *fired);

/* From now on the Nth allocation (1-based) and every later one fail;
 * 0 turns failures off.  Returns how many allocations happened so far. */
void test_fail_alloc_after(unsigned n);
unsigned test_alloc_count(void);

#endif
