/* The strict check of JSON text (json_strict.h): one pass, no allocation, recursion no
 * deeper than the nesting it accepts. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "problems/json_strict.h"

/* cJSON copies at most 63 characters of a number before converting it; a longer one
 * would fail inside cJSON, where the failure would read as out of memory. */
#define NUMBER_MAX_CHARS 63

typedef struct scan {
    const unsigned char *s;
    size_t n, at; /* the text, its length, the place being read */
    int depth;
    json_strict_size size;
    char why[96]; /* what is wrong at `at` */
} scan;

static int fail(scan *c, const char *why)
{
    snprintf(c->why, sizeof c->why, "%s", why);
    return 0;
}

static int is_digit(unsigned char b) { return b >= '0' && b <= '9'; }

static void skip_space(scan *c)
{
    while (c->at < c->n && (c->s[c->at] == ' ' || c->s[c->at] == '\t' || c->s[c->at] == '\r' || c->s[c->at] == '\n'))
        ++c->at;
}

/* The length of the UTF-8 sequence at s: 0 unless it is the shortest form of a scalar
 * value (no surrogates, at most U+10FFFF), as RFC 3629 defines it. */
static size_t utf8_length(const unsigned char *s, size_t avail)
{
    size_t len;
    unsigned long cp;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2, cp = s[0] & 0x1Fu;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        len = 3, cp = s[0] & 0x0Fu;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        len = 4, cp = s[0] & 0x07u;
    else
        return 0;
    if (avail < len) return 0;
    for (size_t i = 1; i < len; ++i) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* The four hex digits after "\u" (c->at on the first), as a code unit. */
static int hex4(scan *c, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; ++i, ++c->at) {
        const unsigned char h = c->at < c->n ? c->s[c->at] : 0;
        const int d = is_digit(h) ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0) return fail(c, "\\u needs four hexadecimal digits");
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return 1;
}

/* An escape of a UTF-16 code unit, c->at after its "\u"; a surrogate must come as a pair,
 * as cJSON decodes it. */
static int unicode_escape(scan *c)
{
    const size_t start = c->at - 2;
    unsigned u, low;
    if (!hex4(c, &u)) return 0;
    if (u == 0) {
        c->at = start;
        return fail(c, "\\u0000 in a string (a NUL character cannot be kept)");
    }
    if (u >= 0xDC00 && u <= 0xDFFF) {
        c->at = start;
        return fail(c, "lone low surrogate escape in a string");
    }
    if (u < 0xD800 || u > 0xDBFF) return 1;
    if (c->n - c->at < 2 || c->s[c->at] != '\\' || c->s[c->at + 1] != 'u' || (c->at += 2, !hex4(c, &low)) ||
        low < 0xDC00 || low > 0xDFFF) {
        c->at = start;
        return fail(c, "high surrogate escape without its low half in a string");
    }
    return 1;
}

static int string(scan *c)
{
    const size_t start = ++c->at; /* past the opening quote */
    while (c->at < c->n) {
        const unsigned char b = c->s[c->at];
        if (b == '"') {
            ++c->at;
            ++c->size.strings;
            c->size.string_bytes += c->at - start;
            return 1;
        }
        if (b == '\0') return fail(c, "NUL byte in a string");
        if (b < 0x20) return fail(c, "raw control character in a string (write it escaped: \\n, \\t, \\u0001)");
        if (b == '\\') {
            if (++c->at >= c->n) break;
            const unsigned char e = c->s[c->at++];
            if (e == 'u' && !unicode_escape(c)) return 0;
            if (e != 'u' && !strchr("\"\\/bfnrt", e)) {
                c->at -= 2;
                return fail(c, "invalid escape in a string");
            }
            continue;
        }
        const size_t len = utf8_length(c->s + c->at, c->n - c->at);
        if (!len) return fail(c, "invalid UTF-8 in a string");
        c->at += len;
    }
    return fail(c, "unterminated string");
}

static int digits(scan *c)
{
    const size_t from = c->at;
    while (c->at < c->n && is_digit(c->s[c->at])) ++c->at;
    return c->at > from;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(scan *c)
{
    const size_t start = c->at;
    if (c->s[c->at] == '-') ++c->at;
    if (c->at >= c->n || !is_digit(c->s[c->at])) return fail(c, "a number needs a digit here");
    if (c->s[c->at] == '0' && c->at + 1 < c->n && is_digit(c->s[c->at + 1]))
        return fail(c, "number with a leading zero");
    digits(c);
    if (c->at < c->n && c->s[c->at] == '.' && (++c->at, !digits(c)))
        return fail(c, "a number needs a digit after its decimal point");
    if (c->at < c->n && (c->s[c->at] == 'e' || c->s[c->at] == 'E')) {
        ++c->at;
        if (c->at < c->n && (c->s[c->at] == '+' || c->s[c->at] == '-')) ++c->at;
        if (!digits(c)) return fail(c, "a number needs a digit in its exponent");
    }
    if (c->at - start > NUMBER_MAX_CHARS) {
        c->at = start;
        return fail(c, "number longer than 63 characters");
    }
    return 1;
}

static int word(scan *c, const char *w)
{
    const size_t len = strlen(w);
    if (c->n - c->at < len || memcmp(c->s + c->at, w, len) != 0) return fail(c, "expected a value");
    c->at += len;
    return 1;
}

static int value(scan *c);

/* What follows an element or a member: a comma (1, more to come) or the closing
 * bracket (0, done); -1 for anything else. */
static int next_or_close(scan *c, unsigned char close)
{
    skip_space(c);
    if (c->at < c->n && c->s[c->at] == ',') return ++c->at, 1;
    if (c->at < c->n && c->s[c->at] == close) return ++c->at, --c->depth, 0;
    return fail(c, close == ']' ? "expected ',' or ']'" : "expected ',' or '}'") - 1;
}

/* `[` or `{` at c->at: one level deeper, and whether it closes at once. */
static int open(scan *c, unsigned char close, int *empty)
{
    if (++c->depth > CJSON_NESTING_LIMIT) {
        snprintf(c->why, sizeof c->why, "nested deeper than %d", CJSON_NESTING_LIMIT);
        return 0;
    }
    ++c->at;
    skip_space(c);
    *empty = c->at < c->n && c->s[c->at] == close;
    if (*empty) ++c->at, --c->depth;
    return 1;
}

static int array(scan *c)
{
    int empty, more = 1;
    if (!open(c, ']', &empty)) return 0;
    while (!empty && more == 1)
        if (!value(c) || (more = next_or_close(c, ']')) < 0) return 0;
    return 1;
}

static int object(scan *c)
{
    int empty, more = 1;
    if (!open(c, '}', &empty)) return 0;
    while (!empty && more == 1) {
        skip_space(c);
        if (c->at >= c->n || c->s[c->at] != '"') return fail(c, "expected a member name in double quotes");
        if (!string(c)) return 0;
        skip_space(c);
        if (c->at >= c->n || c->s[c->at] != ':') return fail(c, "expected ':' after a member name");
        ++c->at;
        if (!value(c) || (more = next_or_close(c, '}')) < 0) return 0;
    }
    return 1;
}

static int value(scan *c)
{
    skip_space(c);
    if (c->at >= c->n) return fail(c, "unexpected end of the text");
    ++c->size.values;
    const unsigned char b = c->s[c->at];
    switch (b) {
    case '{':
        return object(c);
    case '[':
        return array(c);
    case '"':
        return string(c);
    case 't':
        return word(c, "true");
    case 'f':
        return word(c, "false");
    case 'n':
        return word(c, "null");
    case '\0':
        return fail(c, "NUL byte");
    default:
        return b == '-' || is_digit(b) ? number(c) : fail(c, "expected a value");
    }
}

double json_strict_tree_bytes(const json_strict_size *size)
{
    /* 16 bytes of allocator overhead per allocation, 32 at least for a string */
    return (double)size->values * (double)(sizeof(cJSON) + 16) + (double)size->strings * 32.0 +
           (double)size->string_bytes;
}

sp_status json_strict_check(const char *text, size_t length, json_strict_size *size, sp_input_error *err)
{
    scan c = {.s = (const unsigned char *)text, .n = length};
    /* cJSON skips a UTF-8 byte-order mark, which editors on some systems write */
    if (length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) c.at = 3;
    int ok = value(&c);
    if (ok) {
        skip_space(&c);
        if (c.at < c.n) ok = fail(&c, c.s[c.at] == '\0' ? "content after the document (a NUL byte)" : "content after the document");
    }
    if (ok) {
        *size = c.size;
        return SP_OK;
    }
    int line = 1, column = 1; /* of byte c.at, both counted from 1 */
    for (size_t i = 0; i < c.at && i < c.n; ++i) {
        if (c.s[i] == '\n')
            ++line, column = 1;
        else
            ++column;
    }
    snprintf(err->message, sizeof err->message, "malformed JSON at line %d, column %d: %s", line, column, c.why);
    return SP_ERR_INVALID;
}
