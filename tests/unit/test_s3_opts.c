/* S3 credentials through ringscan_options alone (issue 20 item 1; ringscan.h's rule: with
 * s3_access_key_id given, the key, secret and token are the options' alone, whatever the
 * environment holds; region and endpoint each the option's first), against a real SeaweedFS
 * that tests/cli/http_s3.sh starts and names in RINGSCAN_TEST_S3_{URL,ENDPOINT,KEY,SECRET,
 * LOCAL} (the object and the local file it was put from). Without them every case skips:
 * run alone by tests/run.sh it has no server; http_s3.sh runs it with one and wants 0 skipped.
 * Each case sets the AWS_* environment itself (getenv is read at the open); the endpoint and
 * region are always given in the options (AWS_ENDPOINT_URL unset: the option is the only way
 * the open finds the server).
 *  1. Options alone (no AWS_* at all): the object opens and scans to the local file's rows
 *     and l_orderkey sum.
 *  2. Options with a wrong secret: the open fails with -EACCES, naming the URL, HTTP 403 and
 *     S3's code (SignatureDoesNotMatch), never either secret.
 *  3. Wrong keys and a session token in the environment, right ones in the options: the
 *     options win (the environment's token is not sent) and the scan equals the local file.
 *  4. Right keys in the environment, the right key id with a wrong secret in the options: the
 *     options win, so the open fails with 403.
 *  5. A key id in the options without a secret (the environment holds the right one): refused,
 *     -EINVAL, naming the missing secret (never a set mixed from two places).
 *  6. No key id in the options: the environment's right keys open it (the fallback). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ringscan.h"

static const char *url, *endpoint, *key, *secret, *local;
#define WRONG "ringscanWRONGsecret9876543210"

#define NEED_SERVER()                                                            \
    do {                                                                         \
        if (!have_server()) {                                                    \
            SKIP("no RINGSCAN_TEST_S3_* (tests/cli/http_s3.sh sets them)");      \
            return;                                                              \
        }                                                                        \
    } while (0)

static bool have_server(void)
{
    url = getenv("RINGSCAN_TEST_S3_URL"), endpoint = getenv("RINGSCAN_TEST_S3_ENDPOINT");
    key = getenv("RINGSCAN_TEST_S3_KEY"), secret = getenv("RINGSCAN_TEST_S3_SECRET");
    local = getenv("RINGSCAN_TEST_S3_LOCAL");
    return url && endpoint && key && secret && local;
}

/* The AWS_* environment: keys (NULL: unset) and a session token (NULL: unset); the region and
 * endpoint variables always unset. */
static void env_set(const char *k, const char *s, const char *token)
{
    const char *names[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"};
    const char *values[] = {k, s, token};
    for (int i = 0; i < 3; i++) {
        if (values[i]) setenv(names[i], values[i], 1);
        else unsetenv(names[i]);
    }
    const char *others[] = {"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                            "AWS_ENDPOINT_URL_S3", "AWS_PROFILE"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) unsetenv(others[i]);
}

static void opts_set(ringscan_options *o, const char *k, const char *s)
{
    ringscan_options_init(o);
    o->s3_access_key_id = k;
    o->s3_secret_access_key = s;
    o->s3_region = "us-east-1";
    o->s3_endpoint = endpoint;
}

/* Rows and the sum of l_orderkey over a scan of f (-1 rows on an error). */
static int64_t scan_sum(ringscan_file *f, int64_t *sum)
{
    ringscan_options o;
    ringscan_options_init(&o);
    const char *cols[] = {"l_orderkey"};
    o.columns = cols, o.ncolumns = 1, o.threads = 2;
    ringscan_scan *s = NULL;
    ringscan_error err;
    *sum = 0;
    if (ringscan_scan_start(f, &o, &s, &err) != 0) return -1;
    struct ArrowArray a;
    int64_t rows = 0;
    int rc;
    while ((rc = ringscan_scan_next(s, &a, &err)) == 1) {
        const int64_t *v = a.children[0]->buffers[1];
        for (int64_t i = 0; i < a.length; i++) *sum += v[a.children[0]->offset + i];
        rows += a.length;
        a.release(&a);
    }
    ringscan_scan_free(s);
    return rc == 0 ? rows : -1;
}

/* Opens url with o and checks it scans to the local file's rows and sum. */
static void opens_same(const ringscan_options *o)
{
    ringscan_file *lf = NULL, *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(local, &lf, &err), 0);
    int rc = ringscan_open_with(url, o, &f, &err);
    if (rc) printf("  open: %s\n", err.message);
    CHECK_EQ_I64(rc, 0);
    if (lf && f) {
        int64_t want_sum, got_sum, want = scan_sum(lf, &want_sum), got = scan_sum(f, &got_sum);
        CHECK(want > 0);
        CHECK_EQ_I64(got, want);
        CHECK_EQ_I64(got_sum, want_sum);
    }
    ringscan_close(f);
    ringscan_close(lf);
}

/* Opens url with o and checks it fails with status and a message holding each of want (and
 * neither secret). */
static void open_fails(const ringscan_options *o, int status, const char *want1, const char *want2)
{
    ringscan_file *f = NULL;
    ringscan_error err = {0};
    int rc = ringscan_open_with(url, o, &f, &err);
    printf("  refused (%d): %s\n", rc, strstr(err.message, secret) ? "<holds the secret>" : err.message);
    CHECK_EQ_I64(rc, status);
    CHECK(f == NULL);
    CHECK(strstr(err.message, url) != NULL);
    CHECK(strstr(err.message, want1) != NULL);
    CHECK(!want2 || strstr(err.message, want2) != NULL);
    CHECK(strstr(err.message, secret) == NULL);
    CHECK(strstr(err.message, WRONG) == NULL);
    ringscan_close(f);
}

/* One case: the AWS_* environment (env_set), the options' key and secret (opts_set), and the
 * outcome: 0 (the object scans to the local file) or the status the open fails with and what
 * its message holds. NULL stands for "unset"; SECRET and KEY for the server's own. */
typedef struct s3_case {
    const char *name, *env_key, *env_secret, *env_token, *opt_key, *opt_secret;
    int status;
    const char *want1, *want2;
} s3_case;

#define KEY "\x01"
#define SECRET "\x02"
static const s3_case cases[] = {
    {"1. options alone", NULL, NULL, NULL, KEY, SECRET, 0, NULL, NULL},
    {"2. options, wrong secret", NULL, NULL, NULL, KEY, WRONG, -EACCES,
     "403", "SignatureDoesNotMatch"},
    {"3. options over a wrong environment", "ringscanOTHERKEY", WRONG,
     "ringscanOTHERtoken", KEY, SECRET, 0, NULL, NULL},
    {"4. options over a right environment", KEY, SECRET, NULL, KEY,
     WRONG, -EACCES, "403", "SignatureDoesNotMatch"},
    {"5. a key id without its secret", KEY, SECRET, NULL, KEY, NULL, -EINVAL,
     "without its secret", NULL},
    {"6. the environment's", KEY, SECRET, NULL, NULL, NULL, 0, NULL, NULL},
};

/* v with KEY and SECRET replaced by the server's. */
static const char *real(const char *v)
{
    return v && strcmp(v, KEY) == 0 ? key : v && strcmp(v, SECRET) == 0 ? secret : v;
}

static void run_cases(void)
{
    NEED_SERVER();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const s3_case *c = &cases[i];
        printf("  %s\n", c->name);
        ringscan_options o;
        env_set(real(c->env_key), real(c->env_secret), c->env_token);
        opts_set(&o, real(c->opt_key), real(c->opt_secret));
        if (c->status == 0) opens_same(&o);
        else open_fails(&o, c->status, c->want1, c->want2);
    }
}

int main(void)
{
    RUN(run_cases);
    CHECK_DONE("test_s3_opts");
}
