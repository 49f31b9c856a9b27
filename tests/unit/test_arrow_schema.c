/* tests for format/arrow_schema.c: an ARROW:schema value pyarrow 26 wrote, read back field by
 * field; every truncation and every byte flip of it refused cleanly or read within bounds. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/arrow_schema.h"

/* pa.schema([field('ts', timestamp('us', tz='America/New_York'), metadata={'fk': 'fv'}),
 *            field('ls', large_string(), nullable=False),
 *            field('dic', dictionary(int32(), string())), field('u', uuid()),
 *            field('l', list_(int32()))], metadata={'k': 'v'}).serialize(), base64 */
static const char SCHEMA_B64[] =
    "/////6gCAAAQAAAAAAAKAA4ABgAFAAgACgAAAAABBAAQAAAAAAAKAAwAAAAEAAgACgAAACwAAAAEAAAAAQAAAAQAAADk"
    "/f//EAAAAAQAAAABAAAAdgAAAAEAAABrAAAABQAAANABAACQAQAALAEAAHAAAAAEAAAA2P///wAAAQwUAAAAGAAAAAQA"
    "AAABAAAAIAAAAAEAAABsAAAAvP7//xAAFAAIAAYABwAMAAAAEAAQAAAAAAABAhAAAAAYAAAABAAAAAAAAAAEAAAAaXRl"
    "bQAAAAAI////AAAAASAAAAC+/v//AAABDxQAAACUAAAACAAAABAAAAAAAAAAAQAAAHUAAAACAAAAQAAAAAQAAACw/v//"
    "GAAAAAQAAAAKAAAAYXJyb3cudXVpZAAAFAAAAEFSUk9XOmV4dGVuc2lvbjpuYW1lAAAAAOj+//8QAAAABAAAAAAAAAAA"
    "AAAAGAAAAEFSUk9XOmV4dGVuc2lvbjptZXRhZGF0YQAABgAIAAQABgAAABAAAAAQABgACAAGAAcADAAQABQAEAAAAAAA"
    "AQUUAAAAQAAAABwAAAAEAAAAAAAAAAMAAABkaWMACAAIAAAABAAIAAAADAAAAAgADAAIAAcACAAAAAAAAAEgAAAABAAE"
    "AAQAAAAQABQACAAAAAcADAAAABAAEAAAAAAAABQQAAAAGAAAAAQAAAAAAAAAAgAAAGxzAAAEAAYABAAAAAAAEgAYAAgA"
    "BgAHAAwAAAAQABQAEgAAAAAAAQoUAAAATAAAAAgAAAAQAAAAAAAAAAIAAAB0cwAAAQAAAAwAAAAIAAwABAAIAAgAAAAQ"
    "AAAABAAAAAIAAABmdgAAAgAAAGZrAAAIAAwABgAIAAgAAAAAAAIABAAAABAAAABBbWVyaWNhL05ld19Zb3JrAAAAAA==";

static void reads_pyarrow_schema(void)
{
    pqa_schema s;
    pq_err e = {0};
    CHECK(pqa_schema_from_b64(SCHEMA_B64, strlen(SCHEMA_B64), &s, &e) == 0);
    CHECK_EQ_I64(s.nfields, 5);
    CHECK_EQ_I64(s.nmeta, 1);
    CHECK(strcmp(s.meta[0].key, "k") == 0 && strcmp(s.meta[0].value, "v") == 0);
    const pqa_field *ts = &s.fields[0];
    CHECK(strcmp(ts->name, "ts") == 0 && ts->type == PQA_TYPE_TIMESTAMP && ts->nullable);
    CHECK_EQ_I64(ts->ts_unit, 2);
    CHECK(ts->timezone && strcmp(ts->timezone, "America/New_York") == 0);
    CHECK(ts->nmeta == 1 && strcmp(ts->meta[0].key, "fk") == 0 && strcmp(ts->meta[0].value, "fv") == 0);
    const pqa_field *ls = pqa_schema_field(&s, "ls");
    CHECK(ls && ls->type == PQA_TYPE_LARGE_UTF8 && !ls->nullable && !ls->dictionary);
    const pqa_field *dic = pqa_schema_field(&s, "dic");
    CHECK(dic && dic->dictionary && dic->type == PQA_TYPE_UTF8);
    const pqa_field *u = pqa_schema_field(&s, "u");
    CHECK(u && u->type == PQA_TYPE_FIXED_SIZE_BINARY && u->nmeta == 2);
    /* pyarrow writes the extension's metadata first, then its name */
    CHECK(u && strcmp(u->meta[0].key, "ARROW:extension:metadata") == 0 && u->meta[0].value_len == 0);
    CHECK(u && strcmp(u->meta[1].key, "ARROW:extension:name") == 0);
    CHECK(u && strcmp(u->meta[1].value, "arrow.uuid") == 0 && u->meta[1].value_len == 10);
    const pqa_field *l = pqa_schema_field(&s, "l");
    CHECK(l && l->type == PQA_TYPE_LIST && l->nchildren == 1 && l->ts_unit == -1);
    const pqa_field *item = l ? pqa_field_child(&s, l, 0) : NULL; /* children are read too */
    CHECK(item && strcmp(item->name, "item") == 0 && item->type == PQA_TYPE_INT && item->param == 32);
    CHECK(item && item->nchildren == 0 && item > l);
    CHECK_EQ_I64(s.nall, 6);
    CHECK(dic && dic->dict_index_bits == 32 && dic->dict_index_signed && !dic->dict_ordered);
    CHECK(pqa_schema_field(&s, "nope") == NULL);
    pqa_schema_free(&s);
    CHECK(s.buf == NULL && s.nfields == 0);
}

static void refuses_bad_base64(void)
{
    pqa_schema s;
    pq_err e = {0};
    CHECK(pqa_schema_from_b64("ab$d", 4, &s, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "not base64") != NULL);
    CHECK(pqa_schema_from_b64("abcde", 5, &s, &e) == RINGSCAN_EFORMAT);
    uint8_t *o;
    size_t n;
    CHECK(pqa_base64_decode("aGk=", 4, &o, &n, &e) == 0);
    CHECK(n == 2 && memcmp(o, "hi", 2) == 0);
    free(o);
    /* a message that is not a Schema: a zero-length body */
    CHECK(pqa_schema_from_b64("/////wAAAAA=", 12, &s, &e) == RINGSCAN_EFORMAT);
}

/* Every prefix and every single-byte change: 0 or a clean refusal (the sanitizer build
 * catches any read outside the buffer); every string handed out is terminated in bounds. */
static void mutations_stay_in_bounds(void)
{
    uint8_t *msg;
    size_t n;
    pq_err e = {0};
    CHECK(pqa_base64_decode(SCHEMA_B64, strlen(SCHEMA_B64), &msg, &n, &e) == 0);
    CHECK_EQ_I64((int64_t)n, 688);
    int ok = 0, refused = 0, other = 0;
    for (size_t cut = 0; cut <= n; cut++) {
        uint8_t *c = malloc(cut + 1);
        memcpy(c, msg, cut);
        pqa_schema s;
        int rc = pqa_schema_parse(c, cut, &s, &e);
        if (rc == 0) ok++, pqa_schema_free(&s);
        else free(c), rc == RINGSCAN_EFORMAT ? refused++ : other++;
    }
    CHECK_EQ_I64(ok, 1); /* only the whole message */
    CHECK_EQ_I64(other, 0);
    for (size_t i = 0; i < n; i++)
        for (int bit = 0; bit < 8; bit++) {
            uint8_t *c = malloc(n);
            memcpy(c, msg, n);
            c[i] ^= (uint8_t)(1u << bit);
            pqa_schema s;
            int rc = pqa_schema_parse(c, n, &s, &e);
            if (rc == 0) {
                for (int32_t f = 0; f < s.nfields; f++)
                    CHECK(strlen(s.fields[f].name) < n);
                pqa_schema_free(&s);
            } else {
                CHECK(rc == RINGSCAN_EFORMAT || rc == RINGSCAN_ELIMIT);
                free(c);
            }
        }
    free(msg);
    CHECK(refused > 600);
}

int main(void)
{
    RUN(reads_pyarrow_schema);
    RUN(refuses_bad_base64);
    RUN(mutations_stay_in_bounds);
    return CHECK_DONE("test_arrow_schema");
}
