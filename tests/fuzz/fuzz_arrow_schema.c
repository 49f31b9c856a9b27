/* libFuzzer target: format/arrow_schema.c on any bytes, both as a raw IPC message and as
 * base64 text; every string of a parsed schema must be terminated inside its buffer. */
#include <stdlib.h>
#include <string.h>

#include "format/arrow_schema.h"

static void walk(const pqa_schema *s)
{
    size_t total = 0;
    for (int32_t i = 0; i < s->nall; i++) { /* every field, children too */
        for (int32_t c = 0; c < s->fields[i].nchildren; c++) total += pqa_field_child(s, &s->fields[i], c)->nchildren >= 0;
        total += strlen(s->fields[i].name);
        if (s->fields[i].timezone) total += strlen(s->fields[i].timezone);
        for (int32_t k = 0; k < s->fields[i].nmeta; k++)
            if (strlen(s->fields[i].meta[k].key) > s->fields[i].meta[k].key_len) abort();
    }
    (void)total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size + 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    pqa_schema s;
    if (pqa_schema_parse(copy, size, &s, NULL) == 0) walk(&s), pqa_schema_free(&s);
    else free(copy);
    if (pqa_schema_from_b64((const char *)data, size, &s, NULL) == 0) walk(&s), pqa_schema_free(&s);
    return 0;
}
