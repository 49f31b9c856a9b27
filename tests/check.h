/* Minimal test harness shared by every tests/unit program.
 * A test case is a function; it passes when none of its CHECKs fails. Each program ends by
 * printing "<program>: N passed, N failed" (tests/run.sh adds them up) and exits non-zero
 * when anything failed. CHECKs report file:line and the failed expression. */
#ifndef RINGSCAN_TESTS_CHECK_H
#define RINGSCAN_TESTS_CHECK_H
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int chk_cases_passed, chk_cases_failed, chk_cases_skipped, chk_case_failed, chk_case_skipped;

/* Marks the running case skipped (it cannot run on this machine), printing why; counted apart
 * in the closing line. With RINGSCAN_REQUIRE_URING=1 in the environment (CI on a machine
 * whose kernel has io_uring), a case skipped for want of io_uring fails instead, so a ring
 * setup regression cannot hide as a skip: use SKIP_URING for those. */
#define SKIP(why)                                                                    \
    do {                                                                             \
        printf("  SKIP %s:%d: %s\n", __FILE__, __LINE__, why);                       \
        chk_case_skipped = 1;                                                        \
    } while (0)

#define SKIP_URING(why)                                                              \
    do {                                                                             \
        const char *chk_req_ = getenv("RINGSCAN_REQUIRE_URING");                     \
        if (chk_req_ && strcmp(chk_req_, "1") == 0) {                                \
            fprintf(stderr, "  FAIL %s:%d: io_uring required here: %s\n", __FILE__,  \
                    __LINE__, why);                                                  \
            chk_case_failed = 1;                                                     \
        } else {                                                                     \
            SKIP(why);                                                               \
        }                                                                            \
    } while (0)

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
            chk_case_failed = 1;                                                     \
        }                                                                            \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                           \
    do {                                                                             \
        long long chk_a_ = (long long)(a), chk_b_ = (long long)(b);                  \
        if (chk_a_ != chk_b_) {                                                      \
            fprintf(stderr, "  FAIL %s:%d: %s == %s (%lld != %lld)\n", __FILE__,     \
                    __LINE__, #a, #b, chk_a_, chk_b_);                               \
            chk_case_failed = 1;                                                     \
        }                                                                            \
    } while (0)

#define CHECK_STR(a, b)                                                              \
    do {                                                                             \
        const char *chk_a_ = (a), *chk_b_ = (b);                                     \
        if (!chk_a_ || !chk_b_ || strcmp(chk_a_, chk_b_) != 0) {                     \
            fprintf(stderr, "  FAIL %s:%d: %s == %s (\"%s\" != \"%s\")\n", __FILE__, \
                    __LINE__, #a, #b, chk_a_ ? chk_a_ : "(null)",                    \
                    chk_b_ ? chk_b_ : "(null)");                                     \
            chk_case_failed = 1;                                                     \
        }                                                                            \
    } while (0)

#define RUN(fn)                                                                      \
    do {                                                                             \
        chk_case_failed = chk_case_skipped = 0;                                      \
        fn();                                                                        \
        if (chk_case_failed) {                                                       \
            chk_cases_failed++;                                                      \
            fprintf(stderr, "FAILED %s\n", #fn);                                     \
        } else if (chk_case_skipped) {                                               \
            chk_cases_skipped++;                                                     \
        } else {                                                                     \
            chk_cases_passed++;                                                      \
        }                                                                            \
    } while (0)

#define CHECK_DONE(name)                                                             \
    (printf("%s: %d passed, %d failed, %d skipped\n", name, chk_cases_passed,         \
            chk_cases_failed, chk_cases_skipped),                                    \
     chk_cases_failed ? 1 : 0)

#endif
