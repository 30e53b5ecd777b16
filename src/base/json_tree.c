/* The small JSON reader (see json_tree.h): recursive descent
 * with a depth limit, every allocation through alloc.h. */
#include "src/base/json_tree.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

struct parser {
  const char *s;
  size_t len, pos;
  char *why;
  size_t why_size;
  int nomem;
};

static int fail(struct parser *p, const char *what)
{
  if (p->nomem)
    return ETWCAP_E_NOMEM;
  snprintf(p->why, p->why_size, "%s at byte %lu", what, (unsigned long)p->pos);
  return ETWCAP_E_FORMAT;
}

static void skip_ws(struct parser *p)
{
  while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                             p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
    p->pos++;
}

static int literal(struct parser *p, const char *word)
{
  size_t n = strlen(word);
  if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
    return 0;
  p->pos += n;
  return 1;
}

struct buf {
  char *data;
  size_t len, cap;
};

static int put(struct buf *b, const char *bytes, size_t n)
{
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 32;
    char *grown;
    while (cap < b->len + n + 1)
      cap *= 2;
    if (!(grown = etwcap_realloc(b->data, cap)))
      return ETWCAP_E_NOMEM;
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, bytes, n);
  b->len += n;
  b->data[b->len] = '\0';
  return 0;
}

static int put_utf8(struct buf *b, uint32_t cp)
{
  char u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  return put(b, u, n);
}

static int hex4(struct parser *p, uint32_t *out)
{
  uint32_t v = 0;
  int i;
  if (p->len - p->pos < 4)
    return 0;
  for (i = 0; i < 4; i++) {
    char c = p->s[p->pos + (size_t)i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (uint32_t)(c - 'A' + 10);
    else
      return 0;
  }
  p->pos += 4;
  *out = v;
  return 1;
}

/* At the opening quote; *out is allocated. */
static int string(struct parser *p, char **out)
{
  struct buf b = { NULL, 0, 0 };
  int rc = 0;
  p->pos++;
  if ((rc = put(&b, "", 0)) != 0)
    goto nomem;
  while (p->pos < p->len && p->s[p->pos] != '"') {
    char c = p->s[p->pos++];
    if ((unsigned char)c < 0x20) {
      etwcap_free(b.data);
      return fail(p, "control character in a string");
    }
    if (c != '\\') {
      if ((rc = put(&b, &c, 1)) != 0)
        goto nomem;
      continue;
    }
    if (p->pos >= p->len)
      break;
    c = p->s[p->pos++];
    switch (c) {
    case '"':
    case '\\':
    case '/':
      rc = put(&b, &c, 1);
      break;
    case 'b':
      rc = put(&b, "\b", 1);
      break;
    case 'f':
      rc = put(&b, "\f", 1);
      break;
    case 'n':
      rc = put(&b, "\n", 1);
      break;
    case 'r':
      rc = put(&b, "\r", 1);
      break;
    case 't':
      rc = put(&b, "\t", 1);
      break;
    case 'u': {
      uint32_t cp, lo;
      if (!hex4(p, &cp)) {
        etwcap_free(b.data);
        return fail(p, "bad \\u escape");
      }
      if (cp >= 0xD800 && cp < 0xDC00 && literal(p, "\\u") && hex4(p, &lo) && lo >= 0xDC00 &&
          lo < 0xE000)
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      rc = put_utf8(&b, cp);
      break;
    }
    default:
      etwcap_free(b.data);
      return fail(p, "bad escape");
    }
    if (rc)
      goto nomem;
  }
  if (p->pos >= p->len) {
    etwcap_free(b.data);
    return fail(p, "unterminated string");
  }
  p->pos++;
  *out = b.data;
  return 0;
nomem:
  etwcap_free(b.data);
  p->nomem = 1;
  return ETWCAP_E_NOMEM;
}

static int value(struct parser *p, struct json_node *v, int depth);

static int push(struct parser *p, struct json_node *parent, struct json_node **slot)
{
  struct json_node *grown =
      etwcap_reallocarray(parent->items, parent->count + 1, sizeof(*parent->items));
  if (!grown) {
    p->nomem = 1;
    return ETWCAP_E_NOMEM;
  }
  parent->items = grown;
  *slot = &parent->items[parent->count++];
  memset(*slot, 0, sizeof(**slot));
  return 0;
}

static int container(struct parser *p, struct json_node *v, int depth, char close)
{
  int rc;
  p->pos++;
  skip_ws(p);
  if (p->pos < p->len && p->s[p->pos] == close) {
    p->pos++;
    return 0;
  }
  for (;;) {
    struct json_node *item;
    char *key = NULL;
    skip_ws(p);
    if (close == '}') {
      if (p->pos >= p->len || p->s[p->pos] != '"')
        return fail(p, "expected a member name");
      if ((rc = string(p, &key)) != 0)
        return rc;
      skip_ws(p);
      if (p->pos >= p->len || p->s[p->pos] != ':') {
        etwcap_free(key);
        return fail(p, "expected ':'");
      }
      p->pos++;
    }
    if ((rc = push(p, v, &item)) != 0) {
      etwcap_free(key);
      return rc;
    }
    item->key = key;
    if ((rc = value(p, item, depth + 1)) != 0)
      return rc;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ',') {
      p->pos++;
      continue;
    }
    if (p->pos < p->len && p->s[p->pos] == close) {
      p->pos++;
      return 0;
    }
    return fail(p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static int value(struct parser *p, struct json_node *v, int depth)
{
  char c;
  if (depth > MAX_DEPTH)
    return fail(p, "nested too deeply");
  skip_ws(p);
  if (p->pos >= p->len)
    return fail(p, "unexpected end");
  c = p->s[p->pos];
  if (c == '{') {
    v->type = JSON_OBJECT;
    return container(p, v, depth, '}');
  }
  if (c == '[') {
    v->type = JSON_ARRAY;
    return container(p, v, depth, ']');
  }
  if (c == '"') {
    v->type = JSON_STRING;
    return string(p, &v->text);
  }
  if (literal(p, "true")) {
    v->type = JSON_BOOL;
    v->boolean = 1;
    return 0;
  }
  if (literal(p, "false")) {
    v->type = JSON_BOOL;
    return 0;
  }
  if (literal(p, "null")) {
    v->type = JSON_NULL;
    return 0;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    size_t start = p->pos;
    while (p->pos < p->len && strchr("+-0123456789.eE", p->s[p->pos]))
      p->pos++;
    v->type = JSON_NUMBER;
    if (!(v->text = etwcap_strndup(p->s + start, p->pos - start))) {
      p->nomem = 1;
      return ETWCAP_E_NOMEM;
    }
    return 0;
  }
  return fail(p, "unexpected character");
}

static void release(struct json_node *v)
{
  size_t i;
  for (i = 0; i < v->count; i++)
    release(&v->items[i]);
  etwcap_free(v->items);
  etwcap_free(v->key);
  etwcap_free(v->text);
}

void json_free(struct json_node *v)
{
  if (!v)
    return;
  release(v);
  etwcap_free(v);
}

int json_parse(const char *text, size_t len, struct json_node **out, char *why,
                      size_t why_size)
{
  struct parser p;
  struct json_node *root = etwcap_calloc(1, sizeof(*root));
  int rc;
  *out = NULL;
  if (!root)
    return ETWCAP_E_NOMEM;
  memset(&p, 0, sizeof(p));
  p.s = text;
  p.len = len;
  p.why = why;
  p.why_size = why_size;
  rc = value(&p, root, 0);
  if (!rc) {
    skip_ws(&p);
    if (p.pos != p.len)
      rc = fail(&p, "text after the document");
  }
  if (rc) {
    json_free(root);
    return rc;
  }
  *out = root;
  return 0;
}

const struct json_node *json_get(const struct json_node *obj, const char *key)
{
  size_t i;
  if (!obj || obj->type != JSON_OBJECT)
    return NULL;
  for (i = 0; i < obj->count; i++)
    if (obj->items[i].key && strcmp(obj->items[i].key, key) == 0)
      return &obj->items[i];
  return NULL;
}

const char *json_string(const struct json_node *obj, const char *key,
                               const char *fallback)
{
  const struct json_node *v = json_get(obj, key);
  return v && v->type == JSON_STRING ? v->text : fallback;
}

int64_t json_int(const struct json_node *obj, const char *key, int64_t fallback)
{
  const struct json_node *v = json_get(obj, key);
  char *end;
  long long n;
  if (!v || v->type != JSON_NUMBER)
    return fallback;
  n = strtoll(v->text, &end, 10);
  return *end ? fallback : (int64_t)n;
}

int json_bool(const struct json_node *obj, const char *key, int fallback)
{
  const struct json_node *v = json_get(obj, key);
  return v && v->type == JSON_BOOL ? v->boolean : fallback;
}
