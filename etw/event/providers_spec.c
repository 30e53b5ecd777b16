/* The /Providers item parser (grammar in providers_spec.h).  Every error
 * names the offending token so a typo in a week-long capture's command line
 * is caught before anything starts. */
#include "etw/event/providers_spec.h"

#include "etw/event/keywords.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

#define SHOW(len) ((int)((len) > 200 ? 200 : (len)))

/* Registered MOF names that contain ':' themselves ("IIS: WWW Server"). */
static size_t provider_field_length(const char *text)
{
  static const char *const colon_prefixes[] = { "Active Directory", "IIS", "Security" };
  size_t i;
  for (i = 0; i < sizeof(colon_prefixes) / sizeof(colon_prefixes[0]); i++) {
    size_t n = strlen(colon_prefixes[i]);
    if (str_ncaseeq(text, colon_prefixes[i], n) && text[n] == ':') {
      const char *next = strchr(text + n + 1, ':');
      return next ? (size_t)(next - text) : strlen(text);
    }
  }
  return strcspn(text, ":");
}

static int parse_keywords(const char *f, size_t len, const struct provider_ref *p, uint64_t *out,
                          char *err, size_t err_size)
{
  const char *end = f + len, *tok = f;
  uint64_t value = 0;
  if (len == 1 && f[0] == '*') {
    *out = ~0ull;
    return 0;
  }
  while (tok <= end) {
    const char *bar = memchr(tok, '|', (size_t)(end - tok));
    size_t tl = bar ? (size_t)(bar - tok) : (size_t)(end - tok);
    char buf[40];
    uint64_t v;
    if (tl == 0 || tl >= sizeof(buf)) {
      snprintf(err, err_size, "provider %s: keywords '%.*s' have an empty or overlong token",
               p->name, SHOW(len), f);
      return ETWCAP_E_USAGE;
    }
    memcpy(buf, tok, tl);
    buf[tl] = '\0';
    /* PerfView reads keywords as hex, with or without 0x; a manifest name is
     * accepted where etwcap knows the provider's keywords. */
    if (str_parse_hex_uint64(buf, &v) != 0) {
      const struct keyword_set *set = p->known ? p->known->keywords : NULL;
      if (!set || keywords_lookup(set, buf, tl, &v) != 0) {
        if (set)
          snprintf(err, err_size, "provider %s: '%s' is neither hex nor one of its keyword "
                   "names", p->name, buf);
        else
          snprintf(err, err_size, "provider %s: keyword '%s' is not hex, and etwcap knows no "
                   "keyword names for this provider; give the value in hex", p->name, buf);
        return ETWCAP_E_USAGE;
      }
    }
    value |= v;
    if (!bar)
      break;
    tok = bar + 1;
  }
  *out = value;
  return 0;
}

static int parse_id_list(const char *key, const char *v, uint32_t *u32, uint16_t *u16,
                         size_t max, size_t *count, char *err, size_t err_size)
{
  const char *p = v;
  *count = 0;
  for (;;) {
    char buf[24];
    size_t n;
    uint64_t x;
    while (*p == ' ' || *p == ',')
      p++;
    if (!*p)
      break;
    n = strcspn(p, " ,");
    if (n >= sizeof(buf) || (memcpy(buf, p, n), buf[n] = '\0', str_parse_uint64(buf, &x) != 0) ||
        x > (u16 ? 0xFFFFu : 0xFFFFFFFFu)) {
      snprintf(err, err_size, "%s: '%.*s' is not a valid %s", key, SHOW(n), p,
               u16 ? "event id (0-65535)" : "process id");
      return ETWCAP_E_USAGE;
    }
    if (*count == max) {
      snprintf(err, err_size, "%s: more than %u entries (ETW's limit)", key, (unsigned)max);
      return ETWCAP_E_USAGE;
    }
    if (u16)
      u16[*count] = (uint16_t)x;
    else
      u32[*count] = (uint32_t)x;
    (*count)++;
    p += n;
  }
  if (!*count) {
    snprintf(err, err_size, "%s needs at least one number", key);
    return ETWCAP_E_USAGE;
  }
  return 0;
}

static int set_id_filter(struct provider_id_filter *f, int filter_in, const char *key,
                         const char *value, char *err, size_t err_size)
{
  if (f->present) {
    snprintf(err, err_size, "%s: only one of ...ToEnable and ...ToDisable may be given (ETW "
             "takes one event-id filter of each kind per provider)", key);
    return ETWCAP_E_USAGE;
  }
  f->present = 1;
  f->filter_in = filter_in;
  return parse_id_list(key, value, NULL, f->ids, PROVIDER_SPEC_MAX_EVENT_IDS, &f->count, err,
                       err_size);
}

static int exe_names(const char *value, char **out, char *err, size_t err_size)
{
  /* Space-separated on the command line, ';'-separated on the wire. */
  size_t len = strlen(value), i, j = 0;
  char *s = etwcap_malloc(len + 1);
  if (!s)
    return ETWCAP_E_NOMEM;
  for (i = 0; i < len; i++) {
    char c = value[i] == ' ' ? ';' : value[i];
    if (c == ';' && (j == 0 || s[j - 1] == ';'))
      continue;
    s[j++] = c;
  }
  while (j && s[j - 1] == ';')
    j--;
  s[j] = '\0';
  /* The UTF-16 form with its NUL must stay under 1024 bytes; UTF-8 length
   * bounds the UTF-16 unit count from above. */
  if (j == 0 || (j + 1) * 2 >= 1024) {
    snprintf(err, err_size, "@ProcessNameFilter: needs 1 to 510 characters of names");
    etwcap_free(s);
    return ETWCAP_E_USAGE;
  }
  *out = s;
  return 0;
}

static int add_arg(struct provider_spec *spec, const char *k, size_t kl, const char *v, size_t vl)
{
  struct provider_kv *grown =
      etwcap_reallocarray(spec->args, spec->arg_count + 1, sizeof(*grown));
  if (!grown)
    return ETWCAP_E_NOMEM;
  spec->args = grown;
  grown[spec->arg_count].key = etwcap_strndup(k, kl);
  grown[spec->arg_count].value = etwcap_strndup(v, vl);
  spec->arg_count++;
  if (!grown[spec->arg_count - 1].key || !grown[spec->arg_count - 1].value)
    return ETWCAP_E_NOMEM;
  return 0;
}

static int parse_pair(struct provider_spec *spec, const char *item, size_t len, char *err,
                      size_t err_size)
{
  const char *eq = memchr(item, '=', len);
  char key[64], value[1100];
  size_t kl, vl;
  if (!eq) {
    snprintf(err, err_size, "provider %s: '%.*s' is not key=value", spec->provider.name,
             SHOW(len), item);
    return ETWCAP_E_USAGE;
  }
  kl = (size_t)(eq - item);
  vl = len - kl - 1;
  if (kl == 0) {
    snprintf(err, err_size, "provider %s: '%.*s' has an empty key", spec->provider.name,
             SHOW(len), item);
    return ETWCAP_E_USAGE;
  }
  if (item[0] != '@')
    return add_arg(spec, item, kl, eq + 1, vl);
  if (kl >= sizeof(key) || vl >= sizeof(value)) {
    snprintf(err, err_size, "provider %s: '%.*s' is too long", spec->provider.name, SHOW(len),
             item);
    return ETWCAP_E_USAGE;
  }
  memcpy(key, item, kl);
  key[kl] = '\0';
  memcpy(value, eq + 1, vl);
  value[vl] = '\0';
  if (str_caseeq(key, "@StacksEnabled")) {
    if (str_caseeq(value, "true"))
      spec->stacks = 1;
    else if (str_caseeq(value, "false"))
      spec->stacks = 0;
    else {
      snprintf(err, err_size, "@StacksEnabled: '%s' is not true or false", value);
      return ETWCAP_E_USAGE;
    }
    spec->stacks_given = 1;
    return 0;
  }
  if (str_caseeq(key, "@ProcessIDFilter"))
    return parse_id_list(key, value, spec->pids, NULL, PROVIDER_SPEC_MAX_PIDS, &spec->pid_count,
                         err, err_size);
  if (str_caseeq(key, "@ProcessNameFilter")) {
    etwcap_free(spec->exe_names);
    spec->exe_names = NULL;
    return exe_names(value, &spec->exe_names, err, err_size);
  }
  if (str_caseeq(key, "@EventIDsToEnable"))
    return set_id_filter(&spec->events, 1, key, value, err, err_size);
  if (str_caseeq(key, "@EventIDsToDisable"))
    return set_id_filter(&spec->events, 0, key, value, err, err_size);
  if (str_caseeq(key, "@EventIDStacksToEnable"))
    return set_id_filter(&spec->stack_events, 1, key, value, err, err_size);
  if (str_caseeq(key, "@EventIDStacksToDisable"))
    return set_id_filter(&spec->stack_events, 0, key, value, err, err_size);
  snprintf(err, err_size, "provider %s: unknown filter '%s' (known: @StacksEnabled, "
           "@ProcessIDFilter, @ProcessNameFilter, @EventIDsToEnable, @EventIDsToDisable, "
           "@EventIDStacksToEnable, @EventIDStacksToDisable)", spec->provider.name, key);
  return ETWCAP_E_USAGE;
}

static int parse_pairs(struct provider_spec *spec, const char *text, char *err, size_t err_size)
{
  const char *p = text;
  for (;;) {
    size_t n = strcspn(p, ";");
    if (n) {
      int rc = parse_pair(spec, p, n, err, err_size);
      if (rc)
        return rc;
    }
    if (!p[n])
      return 0;
    p += n + 1;
  }
}

int provider_spec_parse(const char *text, struct provider_spec *out, char *err, size_t err_size)
{
  const char *p = text;
  size_t n;
  int rc, field;

  memset(out, 0, sizeof(*out));
  out->keywords = ~0ull;
  out->level = LEVEL_VERBOSE;
  n = provider_field_length(p);
  rc = providers_resolve(p, n, &out->provider, err, err_size);
  if (rc)
    return rc;
  p += n;
  /* Positional fields: keywords, level, stack, until one contains '='. */
  for (field = 0; *p == ':'; field++) {
    const char *f = p + 1;
    size_t fl = strcspn(f, ":");
    if (memchr(f, '=', fl) || memchr(f, ';', fl)) {
      rc = parse_pairs(out, f, err, err_size);
      goto done;
    }
    p = f + fl;
    if (fl == 0)
      continue; /* an empty field keeps the default */
    if (field == 0) {
      rc = parse_keywords(f, fl, &out->provider, &out->keywords, err, err_size);
      if (rc)
        goto done;
      out->keywords_given = 1;
    } else if (field == 1) {
      if (fl == 1 && f[0] == '*')
        out->level = LEVEL_VERBOSE;
      else if (level_parse(f, fl, &out->level) != 0) {
        snprintf(err, err_size, "provider %s: '%.*s' is not a level (0-255, or Critical, "
                 "Error, Warning, Informational, Verbose)", out->provider.name, SHOW(fl), f);
        rc = ETWCAP_E_USAGE;
        goto done;
      }
      out->level_given = 1;
    } else if (field == 2 && ((fl == 5 && str_ncaseeq(f, "stack", 5)) ||
                              (fl == 6 && str_ncaseeq(f, "stacks", 6)))) {
      out->stacks = 1;
    } else {
      snprintf(err, err_size, "provider %s: unexpected field '%.*s' (the form is "
               "PROVIDER:KEYWORDS:LEVEL:stack:key=value;...)", out->provider.name, SHOW(fl), f);
      rc = ETWCAP_E_USAGE;
      goto done;
    }
  }
  rc = 0;
done:
  if (rc)
    provider_spec_release(out);
  return rc;
}

void provider_spec_release(struct provider_spec *spec)
{
  size_t i;
  for (i = 0; i < spec->arg_count; i++) {
    etwcap_free(spec->args[i].key);
    etwcap_free(spec->args[i].value);
  }
  etwcap_free(spec->args);
  etwcap_free(spec->exe_names);
  spec->args = NULL;
  spec->arg_count = 0;
  spec->exe_names = NULL;
}

int provider_spec_is_disable(const struct provider_spec *spec)
{
  return spec->level_given && spec->level == 0 && spec->keywords_given && spec->keywords == 0;
}
