/*
 * avs_c_device.c: an example external device for pto-avs, in C.
 *
 * It speaks the pto-avs device protocol (plugins/protocol.md, version 1.1):
 * JSON lines over stdin/stdout. It announces itself with a `hello`, answers
 * each `execute` request with one `results` line, and exits on `shutdown` or
 * end of input. Diagnostics go to stderr, never to stdout.
 *
 * What it implements (everything else is answered `unsupported`):
 *   - the instruction words of a TCVT bundle: BSTART.TEPL (selector TCVT),
 *     B.DATR, B.DIM, C.B.DIMI, B.IOT (one source, one destination), BSTOP and
 *     C.BSTOP, decoded from the bit fields of spec/catalog/command-forms.json;
 *   - the bundle checks of a single-binding TCVT bundle and their fault
 *     classes, destination rename to the first free index of the hand,
 *     capacity accounting, padding (Zero, Max, Min, Null);
 *   - TCVT between the ten integer types (wrap or saturate, both profiles);
 *   - under hw-ieee: FP32, FP16 and BF16 to one another, IEEE 754 conversion
 *     with all seven rounding modes, saturation, canonical NaN, gradual
 *     underflow, tininess after rounding and the five sticky flags;
 *   - under pto-v0: the reference profile's raw-carrier rule for the
 *     floating types it knows (FP32, FP16, BF16).
 * Tiles are held by logical coordinate, so the layout transforms between
 * RowMajor, ColumnMajor, ZN and NZ change only the descriptor here; CUBE
 * layouts are not supported.
 * It has no global memory, one GPR file and no shared tile registers: its
 * hello says "memory", "events" and "shared_tiles" false (so the adapter does
 * not send a case that gives or expects memory, memory events, a fault address
 * or shared tiles), and a case whose state still carries memory, per-PE GPR
 * files or shared tiles (version 1.1 sends every device per-PE GPRs) is
 * answered `unsupported`, as is every memory operation (TLOAD, TSTORE, ...:
 * only TCVT runs).
 *
 * WHERE A LAB PLUGS IN ITS SIMULATOR
 * The protocol half of this file (JSON reading and writing, the request
 * loop, state loading, observation writing) is reusable as is. The machine
 * half is what a lab replaces:
 *   run_case()       -> load the initial state into the simulator (tiles,
 *                       GPRs, status, tile capacity), feed it the program
 *                       words, run it to completion;
 *   write_observation() -> read back the fault class, the NumericStatus
 *                       flags and every allocated tile (descriptor, the Word
 *                       at each logical coordinate, definedness).
 * Each place is marked "LAB:" below. Capabilities announced in the hello
 * (operations, data types, observable aspects) must say what the wrapped
 * simulator can really do.
 *
 * Build: cc -O2 -std=c11 -Wall -Wextra -o avs_c_device avs_c_device.c
 * Usage: avs_c_device [--profile hw-ieee|pto-v0] [--max-batch N]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROTOCOL_NAME "pto-avs-device"
#define PROTOCOL_VERSION "1.1"
#define DEVICE_NAME "avs-c-device 1.0"

/* ------------------------------------------------------------------------ */
/* Memory                                                                     */
/* ------------------------------------------------------------------------ */

static void die(const char *what)
{
    fprintf(stderr, "avs_c_device: fatal: %s\n", what);
    exit(70);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

/* A bump allocator for one request: everything parsed from a line is freed at once. */
typedef struct ArenaBlock {
    struct ArenaBlock *next;
    size_t used, size;
    unsigned char data[];
} ArenaBlock;

typedef struct {
    ArenaBlock *head;
} Arena;

static void *arena_alloc(Arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->head->size - a->head->used < n) {
        size_t size = n > (1u << 20) ? n : (1u << 20);
        ArenaBlock *b = xmalloc(sizeof *b + size);
        b->next = a->head;
        b->used = 0;
        b->size = size;
        a->head = b;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += n;
    return p;
}

static void arena_free(Arena *a)
{
    while (a->head) {
        ArenaBlock *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

/* ------------------------------------------------------------------------ */
/* JSON values and parser                                                     */
/* ------------------------------------------------------------------------ */

typedef enum { J_NULL, J_BOOL, J_INT, J_REAL, J_STR, J_ARR, J_OBJ } JType;

typedef struct JVal JVal;
struct JVal {
    JType type;
    bool boolean;
    bool negative;      /* J_INT: the value is -magnitude */
    uint64_t magnitude; /* J_INT: exact; 64-bit words never pass through a double */
    const char *str;    /* J_STR */
    JVal **items;       /* J_ARR, J_OBJ */
    const char **keys;  /* J_OBJ */
    size_t count;
};

typedef struct {
    const char *p, *end;
    Arena *arena;
    int depth;
    char err[160];
} Parser;

#define JSON_MAX_DEPTH 64

static void skip_ws(Parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' || *ps->p == '\n'))
        ps->p++;
}

static JVal *parse_error(Parser *ps, const char *msg)
{
    if (!ps->err[0])
        snprintf(ps->err, sizeof ps->err, "%s at byte %ld", msg, (long)(ps->end - ps->p));
    return NULL;
}

static JVal *new_val(Parser *ps, JType t)
{
    JVal *v = arena_alloc(ps->arena, sizeof *v);
    memset(v, 0, sizeof *v);
    v->type = t;
    return v;
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xC0 | (cp >> 6));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xE0 | (cp >> 12));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | (cp >> 18));
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static bool parse_hex4(Parser *ps, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        if (ps->p >= ps->end)
            return false;
        char c = *ps->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return false;
    }
    *out = v;
    return true;
}

static const char *parse_string_raw(Parser *ps)
{
    ps->p++; /* opening quote */
    const char *start = ps->p;
    /* Decoded text is never longer than the encoded text. */
    while (ps->p < ps->end && *ps->p != '"') {
        if (*ps->p == '\\')
            ps->p++;
        ps->p++;
    }
    if (ps->p >= ps->end) {
        parse_error(ps, "unterminated string");
        return NULL;
    }
    size_t len = (size_t)(ps->p - start);
    char *out = arena_alloc(ps->arena, len + 1);
    size_t n = 0;
    ps->p = start;
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        if (c < 0x20) {
            parse_error(ps, "control character in string");
            return NULL;
        }
        if (c != '\\') {
            out[n++] = (char)c;
            continue;
        }
        char e = *ps->p++;
        switch (e) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (!parse_hex4(ps, &cp)) {
                parse_error(ps, "bad \\u escape");
                return NULL;
            }
            if (cp >= 0xD800 && cp < 0xDC00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
                unsigned lo;
                ps->p += 2;
                if (!parse_hex4(ps, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                    parse_error(ps, "bad surrogate pair");
                    return NULL;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            put_utf8(out, &n, cp);
            break;
        }
        default:
            parse_error(ps, "bad escape in string");
            return NULL;
        }
    }
    ps->p++; /* closing quote */
    out[n] = '\0';
    return out;
}

static JVal *parse_value(Parser *ps);

static JVal *parse_number(Parser *ps)
{
    JVal *v = new_val(ps, J_INT);
    if (*ps->p == '-') {
        v->negative = true;
        ps->p++;
    }
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
        return parse_error(ps, "bad number");
    bool overflow = false;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
        unsigned d = (unsigned)(*ps->p++ - '0');
        if (v->magnitude > (UINT64_MAX - d) / 10)
            overflow = true;
        v->magnitude = v->magnitude * 10 + d;
    }
    if (ps->p < ps->end && (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E')) {
        v->type = J_REAL; /* accepted by the grammar; never a valid integer field */
        if (*ps->p == '.') {
            ps->p++;
            while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
                ps->p++;
        }
        if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
            ps->p++;
            if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
                ps->p++;
            while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
                ps->p++;
        }
        return v;
    }
    if (overflow)
        return parse_error(ps, "integer does not fit in 64 bits");
    return v;
}

/* Collects children in a growing heap array, then moves them into the arena. */
typedef struct {
    JVal **items;
    const char **keys;
    size_t count, cap;
} Children;

static void children_push(Children *c, const char *key, JVal *item)
{
    if (c->count == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->items = xrealloc(c->items, c->cap * sizeof *c->items);
        c->keys = xrealloc(c->keys, c->cap * sizeof *c->keys);
    }
    c->items[c->count] = item;
    c->keys[c->count] = key;
    c->count++;
}

static JVal *finish_container(Parser *ps, JVal *v, Children *c)
{
    v->count = c->count;
    if (c->count) { /* an empty container keeps NULL items and keys */
        v->items = arena_alloc(ps->arena, c->count * sizeof *v->items);
        memcpy(v->items, c->items, c->count * sizeof *v->items);
        if (v->type == J_OBJ) {
            v->keys = arena_alloc(ps->arena, c->count * sizeof *v->keys);
            memcpy(v->keys, c->keys, c->count * sizeof *v->keys);
        }
    }
    free(c->items);
    free(c->keys);
    return v;
}

static JVal *parse_container(Parser *ps, bool object)
{
    if (++ps->depth > JSON_MAX_DEPTH)
        return parse_error(ps, "nesting too deep");
    JVal *v = new_val(ps, object ? J_OBJ : J_ARR);
    Children c = {0};
    char close = object ? '}' : ']';
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        ps->depth--;
        return finish_container(ps, v, &c);
    }
    for (;;) {
        const char *key = NULL;
        skip_ws(ps);
        if (object) {
            if (ps->p >= ps->end || *ps->p != '"')
                goto fail_msg_key;
            key = parse_string_raw(ps);
            if (!key)
                goto fail;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                parse_error(ps, "expected ':'");
                goto fail;
            }
            ps->p++;
        }
        JVal *item = parse_value(ps);
        if (!item)
            goto fail;
        children_push(&c, key, item);
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            break;
        }
        parse_error(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
        goto fail;
    }
    ps->depth--;
    return finish_container(ps, v, &c);
fail_msg_key:
    parse_error(ps, "expected a string key");
fail:
    free(c.items);
    free(c.keys);
    return NULL;
}

static bool match_word(Parser *ps, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, w, n) == 0) {
        ps->p += n;
        return true;
    }
    return false;
}

static JVal *parse_value(Parser *ps)
{
    skip_ws(ps);
    if (ps->p >= ps->end)
        return parse_error(ps, "unexpected end of input");
    switch (*ps->p) {
    case '{': return parse_container(ps, true);
    case '[': return parse_container(ps, false);
    case '"': {
        const char *s = parse_string_raw(ps);
        if (!s)
            return NULL;
        JVal *v = new_val(ps, J_STR);
        v->str = s;
        return v;
    }
    case 't':
    case 'f': {
        JVal *v = new_val(ps, J_BOOL);
        if (match_word(ps, "true"))
            v->boolean = true;
        else if (!match_word(ps, "false"))
            return parse_error(ps, "bad literal");
        return v;
    }
    case 'n':
        if (!match_word(ps, "null"))
            return parse_error(ps, "bad literal");
        return new_val(ps, J_NULL);
    default:
        if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
            return parse_number(ps);
        return parse_error(ps, "unexpected character");
    }
}

/* Parses one complete JSON text; NULL with `err` filled on failure. */
static JVal *json_parse(const char *text, size_t len, Arena *arena, char *err, size_t errlen)
{
    Parser ps = {.p = text, .end = text + len, .arena = arena};
    JVal *v = parse_value(&ps);
    if (v) {
        skip_ws(&ps);
        if (ps.p != ps.end) {
            parse_error(&ps, "trailing characters");
            v = NULL;
        }
    }
    if (!v)
        snprintf(err, errlen, "%s", ps.err);
    return v;
}

static const JVal *jget(const JVal *obj, const char *key)
{
    if (!obj || obj->type != J_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

/* An unsigned integer in [0, max]. */
static bool juint(const JVal *v, uint64_t max, uint64_t *out)
{
    if (!v || v->type != J_INT || v->negative || v->magnitude > max)
        return false;
    *out = v->magnitude;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Output buffer and JSON writing                                             */
/* ------------------------------------------------------------------------ */

typedef struct {
    char *data;
    size_t len, cap;
} Buf;

static void buf_put(Buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->data = xrealloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

static void buf_printf(Buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    buf_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void buf_u64(Buf *b, uint64_t v)
{
    char tmp[24];
    int i = 23;
    tmp[i] = '\0';
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    buf_put(b, tmp + i, (size_t)(23 - i));
}

static void buf_json_string(Buf *b, const char *s)
{
    buf_put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            buf_put(b, esc, 2);
        } else if (c < 0x20) {
            buf_printf(b, "\\u%04x", c);
        } else {
            buf_put(b, (const char *)&c, 1);
        }
    }
    buf_put(b, "\"", 1);
}

/* ------------------------------------------------------------------------ */
/* Data types (codes and lane widths: asl/arch/data-types/tile-data-types.asl) */
/* ------------------------------------------------------------------------ */

typedef enum { K_FLOAT, K_SIGNED, K_UNSIGNED } Kind;

typedef struct {
    const char *name;
    unsigned code;
    unsigned bits; /* logical element (lane) width */
    Kind kind;
    bool handled; /* this device converts it (announced in the hello) */
    uint64_t pad_max, pad_min; /* PadValue Max / Min words (digest 3.5) */
} DType;

#define ALL_ONES UINT64_MAX
#define TOP_BIT 0x8000000000000000ull

static const DType DTYPES[] = {
    {"FP64", 0, 64, K_FLOAT, false, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull},
    {"FP32", 1, 32, K_FLOAT, true, 0x7F7FFFFF, 0xFF7FFFFF},
    {"TF32", 2, 32, K_FLOAT, false, 0x7F7FE000, 0xFF7FE000},
    {"HF32", 3, 32, K_FLOAT, false, 0x7F7FF000, 0xFF7FF000},
    {"FP16", 4, 16, K_FLOAT, true, 0x7BFF, 0xFBFF},
    {"BF16", 5, 16, K_FLOAT, true, 0x7F7F, 0xFF7F},
    {"HiF8", 6, 8, K_FLOAT, false, ALL_ONES, TOP_BIT},
    {"E4M3", 7, 8, K_FLOAT, false, 0x7E, 0xFE},
    {"E5M2", 8, 8, K_FLOAT, false, 0x7B, 0xFB},
    {"E3M2", 9, 8, K_FLOAT, false, ALL_ONES, TOP_BIT},
    {"E2M3", 10, 8, K_FLOAT, false, ALL_ONES, TOP_BIT},
    {"E2M1X2", 11, 4, K_FLOAT, false, ALL_ONES, TOP_BIT},
    {"E1M2X2", 12, 4, K_FLOAT, false, ALL_ONES, TOP_BIT},
    {"E8M0", 13, 8, K_FLOAT, false, ALL_ONES, TOP_BIT},
    {"HiF4X2", 14, 4, K_FLOAT, false, ALL_ONES, TOP_BIT},
    {"S64", 16, 64, K_SIGNED, true, 0x7FFFFFFFFFFFFFFFull, TOP_BIT},
    {"S32", 17, 32, K_SIGNED, true, 0x7FFFFFFF, 0x80000000},
    {"S16", 18, 16, K_SIGNED, true, 0x7FFF, 0x8000},
    {"S8", 19, 8, K_SIGNED, true, 0x7F, 0x80},
    {"S4X2", 20, 4, K_SIGNED, true, ALL_ONES, TOP_BIT},
    {"U64", 24, 64, K_UNSIGNED, true, ALL_ONES, 0},
    {"U32", 25, 32, K_UNSIGNED, true, 0xFFFFFFFF, 0},
    {"U16", 26, 16, K_UNSIGNED, true, 0xFFFF, 0},
    {"U8", 27, 8, K_UNSIGNED, true, 0xFF, 0},
    {"U4X2", 28, 4, K_UNSIGNED, true, ALL_ONES, 0},
};
#define N_DTYPES (sizeof DTYPES / sizeof DTYPES[0])
#define DTYPE_NONE_CODE 31

static const DType *dtype_by_name(const char *name)
{
    for (size_t i = 0; i < N_DTYPES; i++)
        if (strcmp(DTYPES[i].name, name) == 0)
            return &DTYPES[i];
    return NULL;
}

static const DType *dtype_by_code(unsigned code)
{
    for (size_t i = 0; i < N_DTYPES; i++)
        if (DTYPES[i].code == code)
            return &DTYPES[i];
    return NULL;
}

static uint64_t lane_mask(const DType *t) { return t->bits == 64 ? ALL_ONES : ((uint64_t)1 << t->bits) - 1; }

/* ------------------------------------------------------------------------ */
/* Tile state                                                                 */
/* ------------------------------------------------------------------------ */

typedef enum { LAY_ROWMAJOR, LAY_COLMAJOR, LAY_ZN, LAY_NZ, LAY_CUBE_M16, LAY_CUBE_M32, LAY_CUBE_N8 } Layout;
static const char *const LAYOUT_NAMES[] = {"RowMajor", "ColumnMajor", "ZN", "NZ", "CUBE_M16", "CUBE_M32", "CUBE_N8"};

typedef enum { LOC_VECTOR, LOC_MATRIX, LOC_MEMORY, LOC_ANY } Location;
static const char *const LOCATION_NAMES[] = {"Vector", "Matrix", "Memory", "Any"};

#define N_TILES 64
#define TILES_PER_HAND 16
#define PACKED_ELEMENT_LIMIT 32768 /* above this many elements a tile uses the packed carrier */

typedef struct {
    bool allocated;
    const DType *dt;
    uint64_t capacity; /* TSize in bytes */
    unsigned rows, cols, vrows, vcols;
    Layout layout;
    Location location;
    unsigned mask; /* allocation PE mask, bit 3 = first character of "b3b2b1b0" */
    uint64_t *words;        /* rows*cols Words by logical coordinate (r*cols + c) */
    unsigned char *defined; /* rows*cols definedness */
} Tile;

typedef struct {
    bool pto_v0; /* numeric profile: false = hw-ieee */
    uint64_t tile_capacity;
    unsigned status; /* NumericStatus flags, NV=1 DZ=2 OF=4 UF=8 NX=16 */
    uint64_t gpr[24];
    Tile tiles[N_TILES];
} Machine;

/* A tile stores whole Words unless it is packed (4-bit lanes or more than 32768
 * elements); a packed carrier keeps only the lane bits (digest 3.4). */
static bool tile_packed(const Tile *t) { return t->dt->bits == 4 || (uint64_t)t->rows * t->cols > PACKED_ELEMENT_LIMIT; }

static uint64_t tile_store_value(const Tile *t, uint64_t v) { return tile_packed(t) ? v & lane_mask(t->dt) : v; }

static unsigned popcount4(unsigned m) { return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1); }

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* rows = capacity*8 / (cols*bits), or 0 when cols is not a power of two or it does not divide. */
static unsigned derived_rows(uint64_t capacity, unsigned cols, const DType *t)
{
    if (!is_pow2(cols))
        return 0;
    uint64_t bits = capacity * 8, per_row = (uint64_t)cols * t->bits;
    if (bits % per_row)
        return 0;
    uint64_t rows = bits / per_row;
    return rows > 0xFFFFFFFFu ? 0 : (unsigned)rows;
}

static void tile_release(Tile *t)
{
    free(t->words);
    free(t->defined);
    memset(t, 0, sizeof *t);
}

static void machine_reset(Machine *m, bool pto_v0)
{
    for (int i = 0; i < N_TILES; i++)
        tile_release(&m->tiles[i]);
    memset(m, 0, sizeof *m);
    m->pto_v0 = pto_v0;
    m->tile_capacity = 262144;
}

/* ------------------------------------------------------------------------ */
/* Case outcome                                                               */
/* ------------------------------------------------------------------------ */

typedef enum { OUT_DONE, OUT_UNSUPPORTED, OUT_ERROR } OutcomeKind;

typedef struct {
    OutcomeKind kind;
    const char *fault; /* OUT_DONE: NULL or a fault class name */
    char message[256]; /* OUT_UNSUPPORTED / OUT_ERROR */
} Outcome;

static bool outcome_set(Outcome *o, OutcomeKind kind, const char *fmt, ...)
{
    o->kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->message, sizeof o->message, fmt, ap);
    va_end(ap);
    return false;
}

#define UNSUPPORTED(o, ...) outcome_set((o), OUT_UNSUPPORTED, __VA_ARGS__)
#define BAD_CASE(o, ...) outcome_set((o), OUT_ERROR, __VA_ARGS__)

static const char *const F_ILLEGAL = "Fault_IllegalInstruction";
static const char *const F_BUNDLE = "Fault_BundleControl";
static const char *const F_LEGALITY = "Fault_TileLegality";
static const char *const F_ALLOC = "Fault_TileAllocation";

/* ------------------------------------------------------------------------ */
/* Loading the initial state (vectors/FORMAT.md "state")                      */
/* ------------------------------------------------------------------------ */

static bool parse_mask_string(const char *s, unsigned *out)
{
    if (strlen(s) != 4)
        return false;
    unsigned m = 0;
    for (int i = 0; i < 4; i++) {
        if (s[i] != '0' && s[i] != '1')
            return false;
        m = (m << 1) | (unsigned)(s[i] - '0');
    }
    *out = m;
    return true;
}

static bool name_index(const char *const *names, int n, const char *s, int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0) {
            *out = i;
            return true;
        }
    return false;
}

static bool load_tile(Machine *m, const JVal *jt, Outcome *o)
{
    uint64_t index, capacity, cols, vr, vc;
    if (!juint(jget(jt, "index"), N_TILES - 1, &index))
        return BAD_CASE(o, "state tile: 'index' must be a TileIndex 0..63");
    const JVal *jk = jget(jt, "storage_kind");
    if (jk && (jk->type != J_STR || strcmp(jk->str, "numeric") != 0))
        return UNSUPPORTED(o, "state tile %u: storage kind other than numeric (packed predicate tiles)",
                           (unsigned)index);
    const JVal *jd = jget(jt, "dtype");
    const DType *dt = jd && jd->type == J_STR ? dtype_by_name(jd->str) : NULL;
    if (!dt)
        return BAD_CASE(o, "state tile %u: 'dtype' must be a DataType name", (unsigned)index);
    if (!dt->handled)
        return UNSUPPORTED(o, "DataType %s", dt->name);
    Tile *t = &m->tiles[index];
    if (t->allocated)
        return BAD_CASE(o, "state tile %u is configured twice", (unsigned)index);

    Layout layout = LAY_ROWMAJOR;
    const JVal *jl = jget(jt, "layout");
    if (jl) {
        int li;
        if (jl->type != J_STR || !name_index(LAYOUT_NAMES, 7, jl->str, &li))
            return BAD_CASE(o, "state tile %u: unknown layout", (unsigned)index);
        layout = (Layout)li;
    }
    if (layout >= LAY_CUBE_M16)
        return UNSUPPORTED(o, "CUBE layout %s", LAYOUT_NAMES[layout]);
    Location loc = LOC_ANY;
    const JVal *jloc = jget(jt, "location");
    if (jloc) {
        int li;
        if (jloc->type != J_STR || !name_index(LOCATION_NAMES, 4, jloc->str, &li))
            return BAD_CASE(o, "state tile %u: unknown location", (unsigned)index);
        loc = (Location)li;
    }
    unsigned mask = 0xF;
    const JVal *jm = jget(jt, "mask");
    if (jm && (jm->type != J_STR || !parse_mask_string(jm->str, &mask)))
        return BAD_CASE(o, "state tile %u: 'mask' must be a string like \"1111\"", (unsigned)index);

    if (!juint(jget(jt, "capacity"), 1u << 20, &capacity) || capacity == 0)
        return BAD_CASE(o, "state tile %u: 'capacity' must be a positive byte count", (unsigned)index);
    if (!juint(jget(jt, "cols"), 1u << 20, &cols))
        return BAD_CASE(o, "state tile %u: 'cols' is required for layout %s", (unsigned)index, LAYOUT_NAMES[layout]);
    unsigned rows = derived_rows(capacity, (unsigned)cols, dt);
    if (!rows)
        return BAD_CASE(o, "state tile %u: capacity %u with %u columns of %s gives no whole number of rows",
                        (unsigned)index, (unsigned)capacity, (unsigned)cols, dt->name);
    const JVal *jv = jget(jt, "valid");
    if (!jv || jv->type != J_ARR || jv->count != 2 || !juint(jv->items[0], rows, &vr) ||
        !juint(jv->items[1], cols, &vc))
        return BAD_CASE(o, "state tile %u: 'valid' must be [rows <= %u, cols <= %u]", (unsigned)index, rows,
                        (unsigned)cols);

    size_t n = (size_t)rows * cols;
    *t = (Tile){.allocated = true, .dt = dt, .capacity = capacity, .rows = rows, .cols = (unsigned)cols,
                .vrows = (unsigned)vr, .vcols = (unsigned)vc, .layout = layout, .location = loc, .mask = mask};
    t->words = xmalloc(n * sizeof *t->words);
    t->defined = xmalloc(n);
    memset(t->words, 0, n * sizeof *t->words);

    const JVal *jdata = jget(jt, "data"), *jfill = jget(jt, "fill");
    if (jdata) {
        if (jdata->type != J_ARR || jdata->count != vr)
            return BAD_CASE(o, "state tile %u: 'data' must hold %u rows", (unsigned)index, (unsigned)vr);
        for (unsigned r = 0; r < vr; r++) {
            const JVal *row = jdata->items[r];
            if (row->type != J_ARR || row->count != vc)
                return BAD_CASE(o, "state tile %u: data row %u must hold %u values", (unsigned)index, r,
                                (unsigned)vc);
            for (unsigned c = 0; c < vc; c++) {
                uint64_t v;
                if (!juint(row->items[c], UINT64_MAX, &v))
                    return BAD_CASE(o, "state tile %u: data[%u][%u] must be an unsigned 64-bit integer",
                                    (unsigned)index, r, c);
                t->words[(size_t)r * cols + c] = tile_store_value(t, v);
            }
        }
    } else if (jfill) {
        uint64_t v;
        if (!juint(jfill, UINT64_MAX, &v))
            return BAD_CASE(o, "state tile %u: 'fill' must be an unsigned 64-bit integer", (unsigned)index);
        for (unsigned r = 0; r < vr; r++)
            for (unsigned c = 0; c < vc; c++)
                t->words[(size_t)r * cols + c] = tile_store_value(t, v);
    }
    const JVal *jel = jget(jt, "elements");
    if (jel) {
        if (jel->type != J_OBJ)
            return BAD_CASE(o, "state tile %u: 'elements' must be an object", (unsigned)index);
        for (size_t i = 0; i < jel->count; i++) {
            unsigned r, c;
            uint64_t v;
            if (sscanf(jel->keys[i], " %u , %u", &r, &c) != 2 || r >= rows || c >= cols)
                return BAD_CASE(o, "state tile %u: element key '%s' is not a coordinate inside %ux%u",
                                (unsigned)index, jel->keys[i], rows, (unsigned)cols);
            if (!juint(jel->items[i], UINT64_MAX, &v))
                return BAD_CASE(o, "state tile %u: element '%s' must be an unsigned 64-bit integer",
                                (unsigned)index, jel->keys[i]);
            t->words[(size_t)r * cols + c] = tile_store_value(t, v);
        }
    }
    const char *defined = "valid";
    const JVal *jdef = jget(jt, "defined");
    if (jdef) {
        if (jdef->type != J_STR)
            return BAD_CASE(o, "state tile %u: 'defined' must be valid, all or none", (unsigned)index);
        defined = jdef->str;
    }
    bool all = strcmp(defined, "all") == 0, none = strcmp(defined, "none") == 0;
    if (!all && !none && strcmp(defined, "valid") != 0)
        return BAD_CASE(o, "state tile %u: 'defined' must be valid, all or none", (unsigned)index);
    for (unsigned r = 0; r < rows; r++)
        for (unsigned c = 0; c < cols; c++)
            t->defined[(size_t)r * cols + c] = all || (!none && r < vr && c < vc);
    return true;
}

/* LAB: load the initial state into your simulator here instead. */
static bool load_state(Machine *m, const JVal *state, Outcome *o)
{
    if (!state)
        return true;
    if (state->type != J_OBJ)
        return BAD_CASE(o, "'state' must be an object");
    const JVal *v;
    /* LAB: a simulator with global memory reads state.memory here (size and regions: integer
     * addresses, bytes as hex strings), state.pe_gprs (PE 1..3 files) and state.shared_tiles. */
    static const char *const not_modelled[][2] = {
        {"memory", "global memory"}, {"pe_gprs", "per-PE GPR files"}, {"shared_tiles", "shared tile registers"}};
    for (size_t i = 0; i < sizeof not_modelled / sizeof not_modelled[0]; i++)
        if ((v = jget(state, not_modelled[i][0])) && v->type != J_NULL)
            return UNSUPPORTED(o, "this device models no %s (state.%s)", not_modelled[i][1], not_modelled[i][0]);
    if ((v = jget(state, "tile_capacity")) && !juint(v, UINT64_MAX, &m->tile_capacity))
        return BAD_CASE(o, "state: 'tile_capacity' must be an unsigned integer");
    uint64_t status = 0;
    if ((v = jget(state, "status")) && !juint(v, 31, &status))
        return BAD_CASE(o, "state: 'status' must be 0..31");
    m->status = (unsigned)status;
    if ((v = jget(state, "gprs"))) {
        if (v->type != J_OBJ)
            return BAD_CASE(o, "state: 'gprs' must be an object");
        for (size_t i = 0; i < v->count; i++) {
            char *end;
            long idx = strtol(v->keys[i], &end, 10);
            if (*end || idx < 1 || idx > 23 || !juint(v->items[i], UINT64_MAX, &m->gpr[idx]))
                return BAD_CASE(o, "state: GPR '%s' must be 1..23 with an unsigned 64-bit value", v->keys[i]);
        }
    }
    if ((v = jget(state, "tiles"))) {
        if (v->type != J_ARR)
            return BAD_CASE(o, "state: 'tiles' must be a list");
        for (size_t i = 0; i < v->count; i++)
            if (!load_tile(m, v->items[i], o))
                return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Conversions                                                                */
/* ------------------------------------------------------------------------ */

enum { FLAG_NV = 0x01, FLAG_DZ = 0x02, FLAG_OF = 0x04, FLAG_UF = 0x08, FLAG_NX = 0x10 };

/* B.DATR RMode codes: 0 NONE (operation default), 1 RNE, 2 RTZ, 3 RTM, 4 RTP, 5 RNA, 6 RTO, 7 RHB. */
enum { RM_NONE, RM_RNE, RM_RTZ, RM_RTM, RM_RTP, RM_RNA, RM_RTO, RM_RHB };

typedef struct {
    unsigned rmode; /* resolved, never RM_NONE */
    bool sat, canon;
} Control;

/* The value of an integer element: sign-extend (signed types) or zero-extend the lane. */
static uint64_t normalize_integer(uint64_t v, const DType *t)
{
    if (t->bits == 64)
        return v;
    uint64_t m = lane_mask(t);
    v &= m;
    if (t->kind == K_SIGNED && (v >> (t->bits - 1)) & 1)
        v |= ~m;
    return v;
}

/* Integer to integer, both profiles (digest 2.5a; project decision 8): Sat=0 wraps, Sat=1 clamps. */
static uint64_t convert_integer(uint64_t v, const DType *src, const DType *dst, bool sat)
{
    uint64_t s = normalize_integer(v, src);
    if (!sat)
        return normalize_integer(s, dst);
    bool src_signed = src->kind == K_SIGNED, dst_signed = dst->kind == K_SIGNED;
    if (src_signed && (int64_t)s < 0) {
        if (!dst_signed)
            return 0;
        int64_t min = dst->bits == 64 ? INT64_MIN : -((int64_t)1 << (dst->bits - 1));
        return (int64_t)s < min ? normalize_integer((uint64_t)min, dst) : s;
    }
    uint64_t max = dst_signed ? lane_mask(dst) >> 1 : lane_mask(dst);
    return s > max ? max : normalize_integer(s, dst);
}

/* An IEEE binary interchange format with sign, exponent and fraction fields. */
typedef struct {
    unsigned frac_bits, exp_bits;
    int bias;
    uint64_t canonical_nan;
} BinaryFormat;

static const BinaryFormat FMT_FP16 = {10, 5, 15, 0x7E00};
static const BinaryFormat FMT_BF16 = {7, 8, 127, 0x7FC0};

static unsigned bit_length(uint64_t v)
{
    unsigned n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* Rounds the magnitude sig / 2^k to an integer under `rmode` for a value of sign `neg`.
 * Sets *inexact when bits were dropped. The result may carry into a new bit. */
static uint64_t round_shift(uint64_t sig, unsigned k, bool neg, unsigned rmode, bool *inexact)
{
    if (k == 0) {
        *inexact = false;
        return sig;
    }
    uint64_t kept, rem;
    int cmp; /* remainder against half a unit in the last place: -1 below, 0 tie, 1 above */
    if (k > 64) {
        kept = 0;
        rem = sig;
        cmp = -1;
    } else if (k == 64) {
        kept = 0;
        rem = sig;
        cmp = sig < TOP_BIT ? -1 : sig == TOP_BIT ? 0 : 1;
    } else {
        uint64_t half = (uint64_t)1 << (k - 1);
        kept = sig >> k;
        rem = sig & (((uint64_t)1 << k) - 1);
        cmp = rem < half ? -1 : rem == half ? 0 : 1;
    }
    *inexact = rem != 0;
    if (!*inexact)
        return kept;
    bool up;
    switch (rmode) {
    case RM_RNE: up = cmp > 0 || (cmp == 0 && (kept & 1)); break;
    case RM_RNA: up = cmp >= 0; break;
    case RM_RHB: up = cmp > 0 || (cmp == 0 && !neg); break; /* exact ties toward +infinity */
    case RM_RTP: up = !neg; break;
    case RM_RTM: up = neg; break;
    case RM_RTO: return kept | 1; /* inexact: the candidate with an odd last bit */
    default: up = false; break;   /* RTZ */
    }
    return kept + up;
}

static const BinaryFormat FMT_FP32 = {23, 8, 127, 0x7FC00000};

static const BinaryFormat *binary_format(const DType *t)
{
    switch (t->code) {
    case 1: return &FMT_FP32;
    case 4: return &FMT_FP16;
    case 5: return &FMT_BF16;
    default: return NULL;
    }
}

/* hw-ieee: one binary format to another (FP32, FP16, BF16 either way): IEEE 754
 * conversion under the hardware profile JSON and project decisions 1, 4, 5, 6,
 * 10, 11, 12. Widening is exact; narrowing rounds once. */
static uint64_t binary_to_binary(uint64_t word, const BinaryFormat *s, const BinaryFormat *f, const Control *ctl,
                                 unsigned *flags)
{
    unsigned src_width = 1 + s->exp_bits + s->frac_bits; /* bits above the element width are ignored */
    bool neg = (word >> (src_width - 1)) & 1;
    unsigned e = (unsigned)((word >> s->frac_bits) & (((uint64_t)1 << s->exp_bits) - 1));
    uint64_t frac = word & (((uint64_t)1 << s->frac_bits) - 1);
    unsigned src_exp_all_ones = (1u << s->exp_bits) - 1;
    unsigned width = 1 + f->exp_bits + f->frac_bits;
    uint64_t sign = (uint64_t)neg << (width - 1);
    uint64_t exp_all_ones = ((uint64_t)1 << f->exp_bits) - 1;
    uint64_t inf = exp_all_ones << f->frac_bits;
    uint64_t max_finite = inf - 1;
    int p = (int)f->frac_bits + 1; /* precision */
    int emax = f->bias, emin = 1 - f->bias;

    if (e == src_exp_all_ones && frac) { /* NaN: the destination's canonical NaN; NV only for a signalling source */
        bool quiet = (frac >> (s->frac_bits - 1)) & 1;
        if (!quiet && !ctl->canon)
            *flags |= FLAG_NV;
        return f->canonical_nan;
    }
    if (e == src_exp_all_ones) { /* infinity: exact, or the largest finite value under saturation */
        if (!ctl->sat)
            return sign | inf;
        *flags |= FLAG_OF | FLAG_NX;
        return sign | max_finite;
    }
    if (e == 0 && frac == 0)
        return sign;

    uint64_t sig = e ? frac | ((uint64_t)1 << s->frac_bits) : frac;
    int exp = (e ? (int)e : 1) - s->bias - (int)s->frac_bits; /* value = sig * 2^exp */
    int top = exp + (int)bit_length(sig) - 1; /* floor(log2(value)) */
    int q = (top > emin ? top : emin) - (p - 1); /* exponent of the destination's last place */
    bool inexact = false;
    uint64_t mag;
    if (exp >= q)
        mag = sig << (exp - q);
    else
        mag = round_shift(sig, (unsigned)(q - exp), neg, ctl->rmode, &inexact);
    if (mag >> p) { /* carried into a new bit */
        mag >>= 1;
        q++;
    }
    if (mag && q + p - 1 > emax) { /* overflow */
        *flags |= FLAG_OF | FLAG_NX;
        bool to_inf;
        switch (ctl->rmode) {
        case RM_RNE: case RM_RNA: case RM_RHB: to_inf = true; break;
        case RM_RTP: to_inf = !neg; break;
        case RM_RTM: to_inf = neg; break;
        default: to_inf = false; break; /* RTZ, RTO */
        }
        return sign | (to_inf && !ctl->sat ? inf : max_finite);
    }
    if (inexact) {
        *flags |= FLAG_NX;
        /* Tininess after rounding: the value rounded to p bits with an unbounded
         * exponent range is below the smallest normal number. */
        bool tiny = false;
        if (top < emin) {
            bool unused;
            int n = (int)bit_length(sig);
            uint64_t r = n > p ? round_shift(sig, (unsigned)(n - p), neg, ctl->rmode, &unused) : sig;
            bool carried = n > p && (r >> p);
            tiny = !(carried && top + 1 >= emin);
        }
        if (tiny)
            *flags |= FLAG_UF;
    }
    if (mag >> (p - 1)) /* normal */
        return sign | ((uint64_t)(q + p - 1 + f->bias) << f->frac_bits) | (mag & (((uint64_t)1 << f->frac_bits) - 1));
    return sign | mag; /* subnormal or zero (a negative value rounding to zero gives -0) */
}

static bool conversion_supported(const Machine *m, const DType *src, const DType *dst)
{
    if (!src->handled || !dst->handled)
        return false;
    if (src->kind != K_FLOAT && dst->kind != K_FLOAT)
        return true;
    if (m->pto_v0)
        return true; /* raw-carrier rule for every handled type */
    return binary_format(src) && binary_format(dst); /* FP32, FP16, BF16 among themselves */
}

/* LAB: the numeric core; a simulator does this in hardware. */
static uint64_t convert_element(const Machine *m, uint64_t v, const DType *src, const DType *dst, const Control *ctl,
                                unsigned *flags)
{
    if (src->kind != K_FLOAT && dst->kind != K_FLOAT)
        return convert_integer(v, src, dst, ctl->sat);
    if (m->pto_v0) {
        /* pto-v0 reference profile (TileConvertValue): a floating side converts
         * no value; an integer destination takes the raw bits normalized. */
        return dst->kind == K_FLOAT ? v : normalize_integer(v, dst);
    }
    return binary_to_binary(v, binary_format(src), binary_format(dst), ctl, flags);
}

/* ------------------------------------------------------------------------ */
/* Instruction decode (spec/catalog/command-forms.json)                       */
/* ------------------------------------------------------------------------ */

typedef enum {
    OP_OTHER, /* a defined form this device does not implement */
    OP_BSTOP, OP_C_BSTOP, OP_BSTART_TEPL, OP_B_DATR, OP_B_DIM, OP_C_B_DIMI, OP_B_IOT_DST, OP_B_IOT_SRC_ONLY,
} Op;

typedef struct {
    unsigned bits;
    uint32_t mask, match;
    const char *mnemonic;
    Op op;
} Form;

/* Every 16- and 32-bit form of the catalog, in decode order: most mask bits
 * first, ties by form_id. The first form whose mask/match fits is the
 * instruction; a word that fits none is Fault_IllegalInstruction. */
static const Form FORMS[] = {
    {32, 0xffffffff, 0x00007101, "BSTART.FP", OP_OTHER},
    {32, 0xffffffff, 0x00005101, "BSTART.FP", OP_OTHER},
    {32, 0xffffffff, 0x00007001, "BSTART.STD", OP_OTHER},
    {32, 0xffffffff, 0x00005001, "BSTART.STD", OP_OTHER},
    {32, 0xffffffff, 0x00000001, "BSTOP", OP_BSTOP},
    {32, 0xffff7fff, 0x00001033, "B.HINT", OP_OTHER},
    {32, 0x07ffffff, 0x00d11181, "BSTART.GMOV", OP_OTHER},
    {32, 0xf83fffff, 0x50166001, "BSTART.ICALL", OP_OTHER},
    {32, 0x07ffffff, 0x00411181, "BSTART.MGATHER", OP_OTHER},
    {32, 0x07ffffff, 0x00811181, "BSTART.MGATHER.CAS", OP_OTHER},
    {32, 0x07ffffff, 0x00611181, "BSTART.MGATHER.MASK", OP_OTHER},
    {32, 0x07ffffff, 0x00511181, "BSTART.MSCATTER", OP_OTHER},
    {32, 0x07ffffff, 0x00711181, "BSTART.MSCATTER.MASK", OP_OTHER},
    {32, 0x07ffffff, 0x01031181, "BSTART.TGEMV", OP_OTHER},
    {32, 0x07ffffff, 0x01231181, "BSTART.TGEMV.ACC", OP_OTHER},
    {32, 0x07ffffff, 0x01131181, "BSTART.TGEMV.BIAS", OP_OTHER},
    {32, 0x07ffffff, 0x01431181, "BSTART.TGEMVMX", OP_OTHER},
    {32, 0x07ffffff, 0x01631181, "BSTART.TGEMVMX.ACC", OP_OTHER},
    {32, 0x07ffffff, 0x01531181, "BSTART.TGEMVMX.BIAS", OP_OTHER},
    {32, 0x07ffffff, 0x00011181, "BSTART.TLOAD", OP_OTHER},
    {32, 0x07ffffff, 0x00031181, "BSTART.TMATMUL", OP_OTHER},
    {32, 0x07ffffff, 0x00231181, "BSTART.TMATMUL.ACC", OP_OTHER},
    {32, 0x07ffffff, 0x00131181, "BSTART.TMATMUL.BIAS", OP_OTHER},
    {32, 0x07ffffff, 0x00431181, "BSTART.TMATMULMX", OP_OTHER},
    {32, 0x07ffffff, 0x00631181, "BSTART.TMATMULMX.ACC", OP_OTHER},
    {32, 0x07ffffff, 0x00531181, "BSTART.TMATMULMX.BIAS", OP_OTHER},
    {32, 0x07ffffff, 0x00211181, "BSTART.TMOV", OP_OTHER},
    {32, 0x07ffffff, 0x00311181, "BSTART.TPREFETCH", OP_OTHER},
    {32, 0x07ffffff, 0x00111181, "BSTART.TSTORE", OP_OTHER},
    {32, 0xfbf07fff, 0x00000023, "B.CATR", OP_OTHER},
    {32, 0xfff0707f, 0x00006013, "B.IOT", OP_OTHER}, /* destination-only form */
    {32, 0xfc07f07f, 0x00005013, "B.IOT", OP_B_IOT_SRC_ONLY},
    {32, 0x000fffff, 0x00019181, "BSTART.TEPL", OP_BSTART_TEPL},
    {32, 0xf00871ff, 0x00001013, "B.IOS", OP_OTHER},
    {32, 0x06007fff, 0x00003031, "ERCOV", OP_OTHER},
    {32, 0x06007fff, 0x00002031, "ESAVE", OP_OTHER},
    {32, 0x06007fff, 0x00000031, "MCOPY", OP_OTHER},
    {32, 0x06007fff, 0x00001031, "MSET", OP_OTHER},
    {32, 0x00087fff, 0x00000033, "B.HINT", OP_OTHER},
    {32, 0xfc00707f, 0x00005013, "B.IOT", OP_B_IOT_DST},
    {16, 0xffff, 0x0840, "C.BSTART.SYS", OP_OTHER},
    {16, 0xffff, 0x0000, "C.BSTOP", OP_C_BSTOP},
    {32, 0xf83f000f, 0x50160002, "BSTART.CALL", OP_OTHER},
    {32, 0x00007fff, 0x00003101, "BSTART.FP", OP_OTHER},
    {32, 0x00007fff, 0x00002101, "BSTART.FP", OP_OTHER},
    {32, 0x00007fff, 0x00001101, "BSTART.FP", OP_OTHER},
    {32, 0x00007fff, 0x00003001, "BSTART.STD", OP_OTHER},
    {32, 0x00007fff, 0x00001001, "BSTART.STD", OP_OTHER},
    {32, 0x00007fff, 0x00002001, "BSTART.STD", OP_OTHER},
    {32, 0x00007fff, 0x00001081, "BSTART.SYS", OP_OTHER},
    {32, 0x00007fff, 0x00006f81, "XB", OP_OTHER},
    {32, 0x0007f07f, 0x00004013, "B.IOT", OP_OTHER}, /* two sources, no destination */
    {32, 0x00007e7f, 0x00002023, "B.FPATR", OP_OTHER},
    {16, 0xc7ff, 0x0080, "C.BSTART.FP", OP_OTHER},
    {16, 0xc7ff, 0x0000, "C.BSTART.STD", OP_OTHER},
    {32, 0x000c707f, 0x00001023, "B.DATR", OP_B_DATR},
    {32, 0x0600707f, 0x00000013, "B.IOR", OP_OTHER},
    {32, 0x0000707f, 0x00002043, "B.DIM", OP_B_DIM},
    {32, 0x0000707f, 0x00000043, "B.DIM", OP_B_DIM},
    {32, 0x0000707f, 0x00001043, "B.DIM", OP_B_DIM},
    {32, 0x0000707f, 0x00004013, "B.IOT", OP_OTHER}, /* two sources and a destination */
    {32, 0x0000707f, 0x00000041, "FENTRY", OP_OTHER},
    {32, 0x0000707f, 0x00001041, "FEXIT", OP_OTHER},
    {32, 0x0000707f, 0x00002041, "FRET.RA", OP_OTHER},
    {32, 0x0000707f, 0x00003041, "FRET.STK", OP_OTHER},
    {32, 0x0000007f, 0x00000011, "BSTART", OP_OTHER},
    {32, 0x0000007f, 0x00000021, "BSTART", OP_OTHER},
    {16, 0x003f, 0x003c, "C.B.DIMI", OP_C_B_DIMI},
    {16, 0x000f, 0x0004, "C.BSTART", OP_OTHER},
    {16, 0x000f, 0x0002, "C.BSTART", OP_OTHER},
};
#define N_FORMS (sizeof FORMS / sizeof FORMS[0])

static const Form *decode_form(uint32_t word, unsigned bits)
{
    for (size_t i = 0; i < N_FORMS; i++)
        if (FORMS[i].bits == bits && (word & FORMS[i].mask) == FORMS[i].match)
            return &FORMS[i];
    return NULL;
}

static unsigned field(uint32_t word, unsigned hi, unsigned lo) { return (word >> lo) & ((1u << (hi - lo + 1)) - 1); }

#define TEPL_TCVT_MODE 0
#define TEPL_TCVT_FUNCTION 27

/* B.DATR Layout code -> (source layout, destination layout); -1 = not a TCVT transform. */
typedef struct {
    int src, dst;
} Transform;

static Transform tcvt_transform(unsigned code)
{
    switch (code) {
    case 0: return (Transform){LAY_ROWMAJOR, LAY_ROWMAJOR};  /* NORM */
    case 1: return (Transform){LAY_ROWMAJOR, LAY_COLMAJOR};  /* ND2DN */
    case 3: return (Transform){LAY_ROWMAJOR, LAY_ZN};        /* ND2ZN */
    case 4: return (Transform){LAY_ROWMAJOR, LAY_NZ};        /* ND2NZ */
    case 6: return (Transform){LAY_COLMAJOR, LAY_ROWMAJOR};  /* DN2ND */
    case 8: return (Transform){LAY_COLMAJOR, LAY_ZN};        /* DN2ZN */
    case 9: return (Transform){LAY_COLMAJOR, LAY_NZ};        /* DN2NZ */
    case 17: return (Transform){LAY_ZN, LAY_ROWMAJOR};       /* ZN2ND */
    case 18: return (Transform){LAY_ZN, LAY_COLMAJOR};       /* ZN2DN */
    case 20: return (Transform){LAY_ZN, LAY_NZ};             /* ZN2NZ */
    case 27: return (Transform){LAY_NZ, LAY_ROWMAJOR};       /* NZ2ND */
    case 28: return (Transform){LAY_NZ, LAY_COLMAJOR};       /* NZ2DN */
    case 30: return (Transform){LAY_NZ, LAY_ZN};             /* NZ2ZN */
    default: return (Transform){-1, -1};
    }
}

static bool datr_layout_code_valid(unsigned code)
{
    return tcvt_transform(code).src >= 0 || (code >= 21 && code <= 26);
}

/* PEMode -> allocation mask b3b2b1b0 (PTOv0PEMaskOfPEMode). */
static const unsigned PE_MODE_MASK[8] = {0x0, 0x8, 0x4, 0x2, 0x1, 0xC, 0xE, 0xF};

/* ------------------------------------------------------------------------ */
/* Bundles                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct {
    bool active, body_started, zero_participation;
    const DType *type; /* BSTART DataType */
    bool datr;
    unsigned cmode, pad, sat, canon, datr_type, rmode, layout_code;
    bool lb_set[3];
    unsigned lb[3];
    bool bound; /* the one destination binding */
    unsigned src, mask, size_code, hand;
    bool last;
} Bundle;

/* The descriptor-only legality of a destination (TileDescriptorLegal, ordinary layouts). */
static bool fractal_indexing_ok(Layout layout, unsigned rows, unsigned cols, const DType *t)
{
    if (layout != LAY_ZN && layout != LAY_NZ)
        return true;
    return rows % 16 == 0 && cols % (256 / t->bits) == 0;
}

static bool source_contents_defined(const Tile *t)
{
    for (unsigned r = 0; r < t->vrows; r++)
        for (unsigned c = 0; c < t->vcols; c++)
            if (!t->defined[(size_t)r * t->cols + c])
                return false;
    return true;
}

static uint64_t pad_word(unsigned pad, const DType *t)
{
    switch (pad) {
    case 1: return t->pad_max;
    case 2: return t->pad_min;
    default: return 0; /* Zero; Null stores 0 and leaves it undefined */
    }
}

/* Commits a TCVT bundle (digest 4, 4.1). Returns false with `o` set when the
 * case cannot go on (unsupported); a fault is recorded in o->fault. */
static bool commit_tcvt(Machine *m, const Bundle *b, Outcome *o)
{
    if (b->zero_participation && !b->bound)
        return true; /* PE mask 0000: strict no-op */
    if (!b->bound || !b->last) {
        o->fault = F_BUNDLE; /* no destination binding, or the stream is not terminated */
        return true;
    }
    unsigned pad = b->datr ? b->pad : 3; /* B.DATR omitted: Null */
    if (b->datr && b->cmode) {
        o->fault = F_LEGALITY; /* CMode is not applicable to TCVT */
        return true;
    }
    Transform tr = tcvt_transform(b->datr ? b->layout_code : 0);
    if (tr.src < 0)
        return UNSUPPORTED(o, "B.DATR layout code %u (a CUBE transport) has no TCVT meaning in the spec", b->layout_code);

    /* Closed TCVT schema, checked before allocation: Fault_TileLegality. */
    if (!b->lb_set[0] || b->lb[0] < 1 || (b->lb_set[1] && !b->lb[1]) || (b->lb_set[2] && !b->lb[2])) {
        o->fault = F_LEGALITY;
        return true;
    }
    const Tile *src = &m->tiles[b->src];
    if (!src->allocated || !source_contents_defined(src) || src->dt != b->type) {
        o->fault = F_LEGALITY;
        return true;
    }
    const DType *dst_type = !b->datr || b->datr_type == DTYPE_NONE_CODE ? b->type : dtype_by_code(b->datr_type);
    if (dst_type->code == 13 && src->dt->code != 1 && src->dt->code != 4 && src->dt->code != 5) {
        o->fault = F_LEGALITY; /* E8M0 destination needs an FP32, FP16 or BF16 source */
        return true;
    }
    bool private_src = src->location == LOC_MATRIX;
    if (private_src != (b->datr && b->canon)) {
        o->fault = F_LEGALITY;
        return true;
    }
    if (private_src ? (b->layout_code != 0 || src->layout != LAY_ROWMAJOR) : (int)src->layout != tr.src) {
        o->fault = F_LEGALITY;
        return true;
    }
    if (!conversion_supported(m, src->dt, dst_type))
        return UNSUPPORTED(o, "TCVT %s -> %s under %s", src->dt->name, dst_type->name, m->pto_v0 ? "pto-v0" : "hw-ieee");

    /* Destination: shape, rename to the first free index of the hand, capacity (Fault_TileAllocation). */
    uint64_t size = (uint64_t)128 << (b->size_code - 1);
    unsigned vcols = b->lb[0], vrows = b->lb_set[1] ? b->lb[1] : 1, cols = b->lb_set[2] ? b->lb[2] : b->lb[0];
    unsigned rows = derived_rows(size, cols, dst_type);
    if (!rows || vrows > rows || vcols > cols || (uint64_t)vrows * vcols > size * 8 / dst_type->bits) {
        o->fault = F_ALLOC;
        return true;
    }
    int index = -1;
    for (unsigned i = b->hand * TILES_PER_HAND; i < (b->hand + 1) * TILES_PER_HAND; i++)
        if (!m->tiles[i].allocated) {
            index = (int)i;
            break;
        }
    uint64_t in_use = popcount4(b->mask) * size;
    for (int i = 0; i < N_TILES; i++)
        if (m->tiles[i].allocated)
            in_use += popcount4(m->tiles[i].mask) * m->tiles[i].capacity;
    if (index < 0 || in_use > m->tile_capacity) {
        o->fault = F_ALLOC;
        return true;
    }
    /* Operand legality after allocation (rolled back on failure): Fault_TileLegality. */
    if (!fractal_indexing_ok((Layout)tr.dst, rows, cols, dst_type) || rows != src->rows || cols != src->cols ||
        vrows != src->vrows || vcols != src->vcols) {
        o->fault = F_LEGALITY;
        return true;
    }

    /* Execute and publish atomically. */
    Tile d = {.allocated = true, .dt = dst_type, .capacity = size, .rows = rows, .cols = cols, .vrows = vrows,
              .vcols = vcols, .layout = (Layout)tr.dst, .location = LOC_ANY, .mask = b->mask};
    size_t n = (size_t)rows * cols;
    d.words = xmalloc(n * sizeof *d.words);
    d.defined = xmalloc(n);
    Control ctl = {.rmode = b->datr ? b->rmode : RM_NONE, .sat = b->datr && b->sat, .canon = b->datr && b->canon};
    if (ctl.rmode == RM_NONE)
        ctl.rmode = src->dt->kind == K_FLOAT && dst_type->kind != K_FLOAT ? RM_RTZ : RM_RNE;
    unsigned flags = 0;
    uint64_t padding = tile_store_value(&d, pad_word(pad, dst_type));
    for (unsigned r = 0; r < rows; r++)
        for (unsigned c = 0; c < cols; c++) {
            size_t i = (size_t)r * cols + c;
            if (r < vrows && c < vcols) {
                d.words[i] = tile_store_value(&d, convert_element(m, src->words[i], src->dt, dst_type, &ctl, &flags));
                d.defined[i] = 1;
            } else {
                d.words[i] = padding;
                d.defined[i] = pad != 3;
            }
        }
    m->tiles[index] = d;
    m->status |= flags;
    return true;
}

static bool commit(Machine *m, Bundle *b, Outcome *o)
{
    bool ok = commit_tcvt(m, b, o);
    memset(b, 0, sizeof *b);
    return ok;
}

/* Runs the program; stops at the first fault. Returns false when unsupported. */
static bool run_program(Machine *m, const JVal *program, Outcome *o)
{
    if (!program || program->type != J_ARR)
        return BAD_CASE(o, "'program' must be a list of instruction items");
    Bundle b = {0};
    for (size_t i = 0; i < program->count && !o->fault; i++) {
        const JVal *item = program->items[i];
        uint64_t word, bits;
        if (jget(item, "call"))
            return UNSUPPORTED(o, "direct calls");
        if (!juint(jget(item, "word"), UINT32_MAX, &word) || !juint(jget(item, "bits"), 32, &bits) ||
            (bits != 16 && bits != 32) || (bits == 16 && word > 0xFFFF))
            return BAD_CASE(o, "program item %zu must be {\"word\": <16/32-bit value>, \"bits\": 16|32}", i);
        uint32_t w = (uint32_t)word;
        const Form *f = decode_form(w, (unsigned)bits);
        if (!f) {
            o->fault = F_ILLEGAL;
            break;
        }
        if (strcmp(f->mnemonic, "B.IOT") == 0 && field(w, 11, 9) == 0 &&
            (f->op != OP_B_IOT_DST || (field(w, 18, 15) >= 1 && field(w, 18, 15) <= 10))) {
            /* PEMode 000: a strict no-op before placement, duplicate, schema and
             * allocation checks (B.IOT contract); it only marks zero participation. */
            if (b.active)
                b.zero_participation = true;
            continue;
        }
        switch (f->op) {
        case OP_OTHER:
            return UNSUPPORTED(o, "instruction %s (0x%08X)", f->mnemonic, (unsigned)w);
        case OP_BSTOP:
        case OP_C_BSTOP:
            if (!b.active)
                o->fault = F_BUNDLE;
            else if (!commit(m, &b, o))
                return false;
            break;
        case OP_BSTART_TEPL: {
            const DType *t = dtype_by_code(field(w, 31, 27));
            if (!t) {
                o->fault = F_ILLEGAL;
                break;
            }
            if (b.active && !commit(m, &b, o))
                return false;
            if (o->fault)
                break;
            if (field(w, 26, 25) != TEPL_TCVT_MODE || field(w, 24, 20) != TEPL_TCVT_FUNCTION)
                return UNSUPPORTED(o, "TEPL operation Mode %u Function %u (only TCVT)", field(w, 26, 25),
                                   field(w, 24, 20));
            if (!t->handled)
                return UNSUPPORTED(o, "DataType %s", t->name);
            b.active = true;
            b.type = t;
            break;
        }
        case OP_B_DATR: {
            unsigned cmode = field(w, 31, 29), type = field(w, 24, 20), layout = field(w, 11, 7);
            if (cmode > 5 || (type != DTYPE_NONE_CODE && !dtype_by_code(type)) || !datr_layout_code_valid(layout)) {
                o->fault = F_ILLEGAL;
                break;
            }
            if (b.zero_participation)
                return UNSUPPORTED(o, "B.DATR after a PE-mask-0000 binding");
            if (!b.active || b.body_started || b.datr) {
                o->fault = F_BUNDLE;
                break;
            }
            b.datr = true;
            b.cmode = cmode;
            b.pad = field(w, 28, 27);
            b.sat = field(w, 26, 26);
            b.canon = field(w, 25, 25);
            b.datr_type = type;
            b.rmode = field(w, 17, 15);
            b.layout_code = layout;
            if (type != DTYPE_NONE_CODE && type != 0 && !dtype_by_code(type)->handled)
                return UNSUPPORTED(o, "DataType %s", dtype_by_code(type)->name);
            if (type == 0 && !dtype_by_code(0)->handled)
                return UNSUPPORTED(o, "DataType FP64 (B.DATR DataType code 0)");
            break;
        }
        case OP_B_DIM:
        case OP_C_B_DIMI: {
            unsigned lb, value;
            if (f->op == OP_B_DIM) {
                unsigned reg = field(w, 19, 15);
                if (reg >= 24) {
                    o->fault = F_ILLEGAL;
                    break;
                }
                lb = field(w, 14, 12);
                uint64_t uimm17 = ((uint64_t)field(w, 11, 7) << 12) | field(w, 31, 20);
                value = (unsigned)((m->gpr[reg] + uimm17) & 0xFFFF); /* GPR 0 is always zero */
            } else {
                lb = field(w, 15, 14);
                if (lb == 3) {
                    o->fault = F_ILLEGAL;
                    break;
                }
                value = field(w, 13, 6);
            }
            if (b.zero_participation)
                return UNSUPPORTED(o, "B.DIM after a PE-mask-0000 binding");
            if (!b.active || b.body_started || b.lb_set[lb]) {
                o->fault = F_BUNDLE;
                break;
            }
            b.lb_set[lb] = true;
            b.lb[lb] = value;
            break;
        }
        case OP_B_IOT_SRC_ONLY:
            return UNSUPPORTED(o, "source-only B.IOT binding");
        case OP_B_IOT_DST: {
            unsigned size = field(w, 18, 15), pe_mode = field(w, 11, 9); /* PEMode 0 was handled above */
            if (size < 1 || size > 10) {
                o->fault = F_ILLEGAL;
                break;
            }
            if (!b.active || b.last) {
                o->fault = F_BUNDLE;
                break;
            }
            if (b.bound)
                return UNSUPPORTED(o, "more than one B.IOT binding in a bundle");
            b.body_started = true;
            b.bound = true;
            b.src = field(w, 25, 20);
            b.last = field(w, 19, 19);
            b.size_code = size;
            b.mask = PE_MODE_MASK[pe_mode];
            b.hand = field(w, 8, 7);
            if (!b.last)
                return UNSUPPORTED(o, "a B.IOT binding without <last>");
            break;
        }
        }
    }
    /* A block still open at the end of the program is never committed. */
    return true;
}

/* ------------------------------------------------------------------------ */
/* Observation and the request loop                                           */
/* ------------------------------------------------------------------------ */

/* LAB: read back fault class, flags and every allocated tile from your simulator.
 * Report each Word whole, padding included, exactly as the tile holds it: a vector's
 * `padding.word` compares the full 64 bits of padded coordinates (an S8 Min pad is the
 * Word 0x80, a HiF8 Max pad in a small tile the all-ones Word). */
static void write_observation(Buf *out, const Machine *m, const char *fault)
{
    buf_puts(out, "{\"fault\":");
    if (fault)
        buf_json_string(out, fault);
    else
        buf_puts(out, "null");
    buf_printf(out, ",\"flags\":%u,\"tiles\":{", m->status);
    bool first = true;
    for (int i = 0; i < N_TILES; i++) {
        const Tile *t = &m->tiles[i];
        if (!t->allocated)
            continue;
        buf_printf(out, "%s\"%d\":{\"dtype\":\"%s\",\"layout\":\"%s\",\"location\":\"%s\",", first ? "" : ",", i,
                   t->dt->name, LAYOUT_NAMES[t->layout], LOCATION_NAMES[t->location]);
        first = false;
        buf_printf(out, "\"rows\":%u,\"cols\":%u,\"valid\":[%u,%u],\"capacity\":", t->rows, t->cols, t->vrows,
                   t->vcols);
        buf_u64(out, t->capacity);
        buf_printf(out, ",\"mask\":\"%u%u%u%u\",\"words\":[", (t->mask >> 3) & 1, (t->mask >> 2) & 1,
                   (t->mask >> 1) & 1, t->mask & 1);
        for (unsigned r = 0; r < t->rows; r++) {
            buf_puts(out, r ? ",[" : "[");
            for (unsigned c = 0; c < t->cols; c++) {
                if (c)
                    buf_put(out, ",", 1);
                buf_u64(out, t->words[(size_t)r * t->cols + c]);
            }
            buf_put(out, "]", 1);
        }
        buf_puts(out, "],\"defined\":[");
        for (unsigned r = 0; r < t->rows; r++) {
            buf_puts(out, r ? ",[" : "[");
            for (unsigned c = 0; c < t->cols; c++)
                buf_puts(out, t->defined[(size_t)r * t->cols + c] ? (c ? ",true" : "true") : (c ? ",false" : "false"));
            buf_put(out, "]", 1);
        }
        buf_puts(out, "]}");
    }
    buf_puts(out, "}}");
}

typedef struct {
    bool pto_v0;
    unsigned max_batch;
} Options;

/* LAB: run_case is the seam: state in, program in, observation out. */
static void run_case(const Options *opt, const JVal *jcase, Buf *out)
{
    static Machine m; /* large; reused between cases */
    Outcome o = {.kind = OUT_DONE};
    const JVal *id = jget(jcase, "id");
    buf_puts(out, "{\"id\":");
    if (id && id->type == J_STR)
        buf_json_string(out, id->str);
    else
        buf_puts(out, "null");

    machine_reset(&m, opt->pto_v0);
    const JVal *op = jget(jcase, "operation"), *profile = jget(jcase, "profile");
    const char *own_profile = opt->pto_v0 ? "pto-v0" : "hw-ieee";
    if (!id || id->type != J_STR)
        BAD_CASE(&o, "case without a string 'id'");
    else if (profile && (profile->type != J_STR || strcmp(profile->str, own_profile) != 0))
        UNSUPPORTED(&o, "profile %s (this device implements %s)", profile->type == J_STR ? profile->str : "?",
                    own_profile);
    else if (op && (op->type != J_STR || strcmp(op->str, "TCVT") != 0))
        UNSUPPORTED(&o, "operation %s", op->type == J_STR ? op->str : "?");
    else if (load_state(&m, jget(jcase, "state"), &o))
        run_program(&m, jget(jcase, "program"), &o);

    switch (o.kind) {
    case OUT_DONE:
        buf_puts(out, ",\"observation\":");
        write_observation(out, &m, o.fault);
        break;
    case OUT_UNSUPPORTED:
        buf_puts(out, ",\"unsupported\":");
        buf_json_string(out, o.message);
        break;
    case OUT_ERROR:
        buf_puts(out, ",\"error\":");
        buf_json_string(out, o.message);
        break;
    }
    buf_puts(out, "}");
    machine_reset(&m, opt->pto_v0);
}

static void emit(Buf *out)
{
    buf_put(out, "\n", 1);
    fwrite(out->data, 1, out->len, stdout);
    fflush(stdout);
    out->len = 0;
}

static void emit_error(Buf *out, const JVal *batch, const char *message)
{
    buf_puts(out, "{\"type\":\"error\",");
    if (batch && batch->type == J_INT && !batch->negative) {
        buf_puts(out, "\"batch\":");
        buf_u64(out, batch->magnitude);
        buf_puts(out, ",");
    }
    buf_puts(out, "\"message\":");
    buf_json_string(out, message);
    buf_puts(out, "}");
    emit(out);
}

static void emit_hello(Buf *out, const Options *opt)
{
    buf_puts(out, "{\"type\":\"hello\",\"protocol\":\"" PROTOCOL_NAME "\",\"version\":\"" PROTOCOL_VERSION "\",");
    buf_printf(out, "\"device\":\"" DEVICE_NAME " (%s)\",\"capabilities\":{", opt->pto_v0 ? "pto-v0" : "hw-ieee");
    buf_printf(out, "\"profile\":\"%s\",\"operations\":[\"TCVT\"],\"dtypes\":[", opt->pto_v0 ? "pto-v0" : "hw-ieee");
    bool first = true;
    for (size_t i = 0; i < N_DTYPES; i++)
        if (DTYPES[i].handled) {
            buf_printf(out, "%s\"%s\"", first ? "" : ",", DTYPES[i].name);
            first = false;
        }
    /* Not observed: storage placement (tiles are held by logical coordinate)
     * and encoding (the device receives words, never assembly text). */
    buf_puts(out, "],\"aspects\":[\"fault\",\"flags\",\"descriptor\",\"payload\",\"carrier\","
                  "\"padding_defined\",\"padding_value\",\"sources\"],\"direct_calls\":false,");
    /* Protocol 1.1: no global memory, no memory-event log, no shared tile registers. */
    buf_puts(out, "\"memory\":false,\"events\":false,\"shared_tiles\":false,");
    buf_printf(out, "\"max_batch\":%u}}", opt->max_batch);
    emit(out);
}

static void usage(void)
{
    fprintf(stderr, "usage: avs_c_device [--profile hw-ieee|pto-v0] [--max-batch N]\n");
    exit(64);
}

int main(int argc, char **argv)
{
    Options opt = {.pto_v0 = false, .max_batch = 64};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
            const char *p = argv[++i];
            if (strcmp(p, "pto-v0") == 0)
                opt.pto_v0 = true;
            else if (strcmp(p, "hw-ieee") != 0)
                usage();
        } else if (strcmp(argv[i], "--max-batch") == 0 && i + 1 < argc) {
            long n = strtol(argv[++i], NULL, 10);
            if (n < 1 || n > 1000000)
                usage();
            opt.max_batch = (unsigned)n;
        } else {
            usage();
        }
    }
    Buf out = {0};
    emit_hello(&out, &opt);

    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        Arena arena = {0};
        char err[200];
        JVal *msg = json_parse(line, (size_t)len, &arena, err, sizeof err);
        const JVal *type = jget(msg, "type");
        if (!msg) {
            emit_error(&out, NULL, err);
        } else if (!type || type->type != J_STR) {
            emit_error(&out, NULL, "request without a string 'type'");
        } else if (strcmp(type->str, "shutdown") == 0) {
            arena_free(&arena);
            break;
        } else if (strcmp(type->str, "execute") == 0) {
            const JVal *batch = jget(msg, "batch"), *cases = jget(msg, "cases");
            if (!batch || batch->type != J_INT || batch->negative || !cases || cases->type != J_ARR) {
                emit_error(&out, batch, "execute needs an integer 'batch' and a list 'cases'");
            } else if (cases->count > opt.max_batch) {
                emit_error(&out, batch, "batch larger than max_batch");
            } else {
                buf_puts(&out, "{\"type\":\"results\",\"batch\":");
                buf_u64(&out, batch->magnitude);
                buf_puts(&out, ",\"results\":[");
                for (size_t i = 0; i < cases->count; i++) {
                    if (i)
                        buf_put(&out, ",", 1);
                    run_case(&opt, cases->items[i], &out);
                }
                buf_puts(&out, "]}");
                emit(&out);
            }
        } else {
            emit_error(&out, jget(msg, "batch"), "unknown request type");
        }
        arena_free(&arena);
    }
    free(line);
    free(out.data);
    return 0;
}
