/*
 * first-legal: a protocol 2 bot (version 1 alike: it reads only "type", "id" and
 * "legal") that answers every decide with the first element of "legal", copied
 * byte for byte from the request.
 *
 * It exists to measure what the protocol costs on top of a raw pipe echo: it
 * does no JSON decoding beyond walking the top level of each line (strings and
 * brackets aware) to find "type", "id" and "legal". Any game works.
 *
 *   start  -> {"type":"ready","name":"first-legal"}
 *   decide -> {"type":"decision","id":<id as sent>,"decision":<legal[0] as sent>}
 *   quit or end of input -> exit 0; end and unknown types -> no answer.
 *
 * Build: cc -O2 -o first-legal first-legal.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* A slice of the input line (a key with its quotes, or a raw value). */
typedef struct {
    const char *p;
    size_t n;
} span;

static const char *skip_ws(const char *s, const char *end) {
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')) s++;
    return s;
}

/* Byte classes for the scanners: what ends a run of ordinary bytes. */
enum { PLAIN = 0, QUOTE, BACKSLASH, OPEN, CLOSE };
static unsigned char in_string[256], in_value[256];

static void init_classes(void) {
    in_string['"'] = QUOTE;
    in_string['\\'] = BACKSLASH;
    in_value['"'] = QUOTE;
    in_value['{'] = in_value['['] = OPEN;
    in_value['}'] = in_value[']'] = CLOSE;
}

/* Past the end of the string starting at s (which points at the opening quote). */
static const char *skip_string(const char *s, const char *end) {
    for (s++; s < end; s++) {
        unsigned char c = in_string[(unsigned char)*s];
        if (c == PLAIN) continue;
        if (c == QUOTE) return s + 1;
        s++; /* a backslash: skip the escaped byte */
    }
    return NULL;
}

/* Past the end of the JSON value starting at s, or NULL if it is cut off. */
static const char *skip_value(const char *s, const char *end) {
    if (s >= end) return NULL;
    if (*s == '"') return skip_string(s, end);
    if (*s == '{' || *s == '[') {
        int depth = 0;
        while (s < end) {
            unsigned char c = in_value[(unsigned char)*s];
            if (c == PLAIN) {
                s++;
            } else if (c == QUOTE) {
                s = skip_string(s, end);
                if (!s) return NULL;
            } else {
                depth += c == OPEN ? 1 : -1;
                s++;
                if (depth == 0) return s;
            }
        }
        return NULL;
    }
    /* number, true, false, null */
    while (s < end && *s != ',' && *s != '}' && *s != ']' && *s != ' ' && *s != '\t' &&
           *s != '\r' && *s != '\n')
        s++;
    return s;
}

static int key_is(span key, const char *name) {
    size_t n = strlen(name);
    return key.n == n + 2 && key.p[0] == '"' && memcmp(key.p + 1, name, n) == 0;
}

/* Find the top-level values of "type", "id" and "legal" in one message. */
static int parse(const char *s, const char *end, span *type, span *id, span *legal) {
    type->p = id->p = legal->p = NULL;
    type->n = id->n = legal->n = 0;
    s = skip_ws(s, end);
    if (s >= end || *s != '{') return 0;
    s = skip_ws(s + 1, end);
    while (s < end && *s == '"') {
        span key = {s, 0};
        const char *after = skip_string(s, end);
        if (!after) return 0;
        key.n = (size_t)(after - s);
        s = skip_ws(after, end);
        if (s >= end || *s != ':') return 0;
        s = skip_ws(s + 1, end);
        const char *value_end = skip_value(s, end);
        if (!value_end) return 0;
        span value = {s, (size_t)(value_end - s)};
        if (key_is(key, "type")) *type = value;
        else if (key_is(key, "id")) *id = value;
        else if (key_is(key, "legal")) *legal = value;
        s = skip_ws(value_end, end);
        if (s < end && *s == ',') s = skip_ws(s + 1, end);
    }
    return 1;
}

/* Write all of buf to stdout; 0 on failure. */
static int write_all(const char *buf, size_t n) {
    while (n > 0) {
        ssize_t w = write(1, buf, n);
        if (w < 0) return 0;
        buf += w;
        n -= (size_t)w;
    }
    return 1;
}

int main(void) {
    char *line = NULL, *out = NULL;
    size_t cap = 0, out_cap = 0;
    ssize_t len;
    static const char ready[] = "{\"type\":\"ready\",\"name\":\"first-legal\"}\n";
    static const char head[] = "{\"type\":\"decision\",\"id\":";
    static const char middle[] = ",\"decision\":";
    init_classes();
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        const char *end = line + len;
        span type, id, legal;
        if (!parse(line, end, &type, &id, &legal) || !type.p) continue;
        if (key_is(type, "decide")) {
            if (!id.p || !legal.p || *legal.p != '[') continue;
            const char *first = skip_ws(legal.p + 1, legal.p + legal.n);
            const char *first_end = skip_value(first, legal.p + legal.n);
            if (!first_end || *first == ']') continue;
            size_t n_first = (size_t)(first_end - first);
            size_t need = sizeof head + id.n + sizeof middle + n_first + 2;
            if (need > out_cap) {
                out = realloc(out, need);
                if (!out) return 1;
                out_cap = need;
            }
            char *o = out;
            memcpy(o, head, sizeof head - 1); o += sizeof head - 1;
            memcpy(o, id.p, id.n); o += id.n;
            memcpy(o, middle, sizeof middle - 1); o += sizeof middle - 1;
            memcpy(o, first, n_first); o += n_first;
            *o++ = '}';
            *o++ = '\n';
            if (!write_all(out, (size_t)(o - out))) return 1;
        } else if (key_is(type, "start")) {
            if (!write_all(ready, sizeof ready - 1)) return 1;
        } else if (key_is(type, "quit")) {
            break;
        }
    }
    free(line);
    free(out);
    return 0;
}
