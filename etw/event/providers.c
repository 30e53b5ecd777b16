/* The built-in provider table and name resolution (see providers.h).
 * GUIDs are those of docs/perfview-collection.md §3.2, §4.3, §4.5 and §4.7;
 * entries without a GUID are EventSources whose GUID is the hash of their
 * name (the tests check the hashes against the GUIDs those sections list). */
#include "etw/event/providers.h"

#include "etw/event/eventsource_guid.h"
#include "etw/event/providers_os.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

const struct provider_entry providers_known[] = {
  /* The CLR and its companions (§4.3). */
  { "Microsoft-Windows-DotNETRuntime", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", "Clr", &keywords_clr },
  { "Microsoft-Windows-DotNETRuntimeRundown", "a669021c-c450-4609-a035-5af59af4df18", "ClrRundown", &keywords_clr_rundown },
  { "Microsoft-Windows-DotNETRuntimeStress", "cc2bcbba-16b6-4cf3-8990-d74c2e8af500", "ClrStress", NULL },
  { "Microsoft-Windows-DotNETRuntimePrivate", "763fd754-7086-4dfe-95eb-c01a46faf4ca", "ClrPrivate", NULL },
  { "ClrNative", "47c3ba0c-77f1-4eb0-8d4d-aef447f16a85", NULL, &keywords_clr },
  { "ClrNativePrivate", "1095638c-8748-4c7a-b39e-baea27b9c589", NULL, NULL },
  { "ASP.NET", "aff081fe-0247-4275-9c4e-021f3dc1da35", "AspNetTrace", NULL },
  { "Win32HeapRanges", "d781ca11-61c0-4387-b83d-af52d3d2dd6a", NULL, NULL },
  { "System.Threading.Tasks.TplEventSource", "2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5", ".NetTasks", &keywords_tpl },
  { "System.Diagnostics.Eventing.FrameworkEventSource", "8e9f5090-2d75-4d03-8a81-e5afbf85daf1", ".NetFramework", NULL },
  { "System.Linq.Parallel.PlinqEventSource", "159eeeec-4a14-4418-a8fe-faabcd987887", ".NetPLinq", NULL },
  { "System.Collections.Concurrent.ConcurrentCollectionsEventSource", "35167f8e-49b2-4b96-ab86-435b59336b5e", ".NetConcurrentCollections", NULL },
  { "System.Threading.SynchronizationEventSource", "ec631d38-466b-4290-9306-834971ba0217", ".NetSync", NULL },
  { "MeasurementBlock", "143a31db-0372-40b6-b8f1-b4b16adb5f54", NULL, NULL },
  { "CodeMarkers", "641d7f6c-481c-42e8-ab7e-d18dc5e5cb9e", NULL, NULL },
  { "Heap Trace Provider", "222962ab-6180-4b88-a825-346b75f2a24a", NULL, NULL },
  { "InteropEventProvider", "c4ac552a-e1eb-4fa2-a651-b200efd7aa91", NULL, NULL },
  { "ETWClrProfiler", "6652970f-1756-5d8d-0805-e9aad152aa84", NULL, NULL },
  { "ETWCLrProfiler Diagnostics", "6652970f-1756-5d8d-0805-e9aad152aa79", NULL, NULL },
  /* PerfView's own logger and the default user-mode set (§4.7). */
  { "PerfView", NULL, NULL, NULL },
  /* etwcap's own TraceLogging provider (src/os/own_provider.h): marks and
   * /MonitorPerfCounter values. */
  { "etwcap", NULL, NULL, NULL },
  { "DotNet", "319dc449-ada5-50f7-428e-957db6791668", NULL, NULL },
  { "Microsoft-Windows-Kernel-EventTracing", "b675ec37-bdb6-4648-bc92-f3fdc74d3ca2", NULL, NULL },
  { "Microsoft-Windows-Kernel-File", "edd08927-9cc4-4e65-b970-c2560fb5c289", NULL, NULL },
  { "Microsoft-Windows-Kernel-Process", "22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716", NULL, NULL },
  { "Microsoft-Windows-Kernel-Memory", "d1d93ef7-e1f2-4f45-9943-03d245fe6c00", NULL, NULL },
  { "Microsoft-Windows-Kernel-Power", "331c3b3a-2005-44c2-ac5e-77220c37d6b4", NULL, NULL },
  { "Microsoft-Windows-Kernel-Processor-Power", "0f67e49f-fe51-4e9f-b490-6f2948cc6027", NULL, NULL },
  { "Microsoft-Windows-Kernel-Network", "7dd42a49-5329-4832-8dfd-43d979153a88", NULL, NULL },
  { "Microsoft-Windows-Kernel-Disk", "c7bde69a-e1e0-4177-b6ef-283ad1525271", NULL, NULL },
  { "Microsoft-Windows-Kernel-Registry", "70eb4f03-c1de-4f73-a051-33d13d5413bd", NULL, NULL },
  { "Microsoft-Windows-ASPNET", NULL, NULL, NULL },
  { "Microsoft-Windows-IIS", "de4649c9-15e8-4fea-9d85-1cdda520c334", NULL, NULL },
  { "Microsoft-PerfTrack-IEFRAME", "b2a40f1f-a05a-4dfd-886a-4c4f18c4334c", NULL, NULL },
  { "Microsoft-PerfTrack-MSHTML", "ffdb9886-80f3-4540-aa8b-b85192217ddf", NULL, NULL },
  { "Microsoft-Windows-WinINet", "43d1a55c-76d6-4f7e-995c-64c711e5cafe", NULL, NULL },
  { "Microsoft-Windows-Application Server-Applications", "c651f5f6-1c0d-492e-8ae1-b4efd7c9d503", NULL, NULL },
  { "Microsoft-IE", "9e3b3947-ca5d-4614-91a2-7b624e0e7244", NULL, NULL },
  { "Microsoft-Windows-DNS-Client", "1c95126e-7eea-49a9-a3fe-a378b03ddb4d", NULL, NULL },
  { "Microsoft-Windows-DirectComposition", "c44219d0-f344-11df-a5e2-b307dfd72085", NULL, NULL },
  { "Microsoft-Windows-Immersive-Shell", "315a8872-923e-4ea2-9889-33cd4754bf64", NULL, NULL },
  { "Microsoft-Windows-XAML", "531a35ab-63ce-4bcf-aa98-f88c7a89e455", NULL, NULL },
  { "Microsoft-JScript", "57277741-3638-4a4b-bdba-0ac6e45da56c", NULL, NULL },
  { "Microsoft.Tasks.Nuget", NULL, NULL, NULL },
  { "Microsoft-AdoNet-SystemData", NULL, NULL, NULL },
  { "Microsoft-Diagnostics-DiagnosticSource", NULL, NULL, NULL },
  { "Microsoft-AspNetCore-Hosting", NULL, NULL, NULL },
  { "Microsoft-ApplicationInsights-Core", NULL, NULL, NULL },
  { "Microsoft-Windows-PowerCpl", "b1f90b27-4551-49d6-b2bd-dfc6453762a6", NULL, NULL },
  { "Microsoft-Windows-PowerCfg", "9f0c4ea8-ec01-4200-a00d-b9701cbea5d8", NULL, NULL },
  { "Microsoft-Antimalware-Engine", "0a002690-3839-4e3a-b3b6-96d8df868d99", NULL, NULL },
  { "Microsoft-Antimalware-AMFilter", "cfeb0608-330e-4410-b00d-56d8da9986e6", NULL, NULL },
  { "Microsoft-Antimalware-Service", "751ef305-6c6e-4fed-b847-02ef79d26aef", NULL, NULL },
  { "Microsoft-Antimalware-RTP", "8e92deef-5e17-413b-b927-59b2f06a3cfc", NULL, NULL },
  { "Microsoft-Antimalware-Protection", "e4b70372-261f-4c54-8fa6-a5a7914d73da", NULL, NULL },
  { "Microsoft-Windows-HttpService", "dd5ef90a-6398-47a4-ad34-4dcecdef795f", NULL, NULL },
  { "Microsoft-Windows-TCPIP", "2f07e2ee-15db-40f1-90ef-9d7ba282188a", NULL, NULL },
  { "Microsoft-Windows-NDIS-PacketCapture", "2ed6006e-4729-4609-b423-3ee7bcd678ef", NULL, NULL },
  { "Microsoft-Windows-WebIO", "50b3e73c-9370-461d-bb9f-26f32d68887d", NULL, NULL },
  { "Microsoft-Windows-WinHttp", "7d44233d-3055-4b9c-ba64-0d47ca40a232", NULL, NULL },
  { "Microsoft-Windows-RPC", "6ad52b32-d609-4be9-ae07-ce8dae937e39", NULL, NULL },
  { "Microsoft-Windows-Win32k", "8c416c79-d49b-4f01-a467-e56d3aa8234c", NULL, NULL },
  /* Modern .NET EventSources named in runbooks: GUIDs are the name hashes. */
  { "Microsoft.AspNetCore.Hosting", NULL, NULL, NULL },
  { "Microsoft-AspNetCore-Server-Kestrel", NULL, NULL, NULL },
  { "System.Net.Http", NULL, NULL, NULL },
  { "System.Net.NameResolution", NULL, NULL, NULL },
  { "System.Net.Security", NULL, NULL, NULL },
  { "System.Net.Sockets", NULL, NULL, NULL },
  { "System.Runtime", NULL, NULL, NULL },
  { "Microsoft-Extensions-Logging", NULL, NULL, NULL },
  { "System.Diagnostics.Metrics", NULL, NULL, NULL },
  { "System.Buffers.ArrayPoolEventSource", NULL, NULL, NULL },
  { "Private.InternalDiagnostics.System.Net.Http", NULL, NULL, NULL },
  { "Private.InternalDiagnostics.System.Net.Sockets", NULL, NULL, NULL },
  { "Private.InternalDiagnostics.System.Net.Security", NULL, NULL, NULL },
  { "Private.InternalDiagnostics.System.Net.NameResolution", NULL, NULL, NULL },
};

const size_t providers_known_count = sizeof(providers_known) / sizeof(providers_known[0]);

const struct etw_guid providers_system_trace_guid = {
  0x9e814aad, 0x3204, 0x11d2, { 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 }
};

void providers_guid_of(const struct provider_entry *p, struct etw_guid *out)
{
  if (p->guid) {
    if (guid_parse(p->guid, out) == 0)
      return;
  }
  /* Table names are ASCII, so hashing cannot fail. */
  if (eventsource_guid(p->name, out) != 0)
    memset(out, 0, sizeof(*out));
}

static int name_is(const char *candidate, const char *name, size_t len)
{
  return candidate && strlen(candidate) == len && str_ncaseeq(candidate, name, len);
}

const struct provider_entry *providers_find_name(const char *name, size_t len)
{
  size_t i;
  for (i = 0; i < providers_known_count; i++)
    if (name_is(providers_known[i].name, name, len) || name_is(providers_known[i].alias, name, len))
      return &providers_known[i];
  return NULL;
}

const struct provider_entry *providers_find_guid(const struct etw_guid *g)
{
  size_t i;
  for (i = 0; i < providers_known_count; i++) {
    struct etw_guid k;
    providers_guid_of(&providers_known[i], &k);
    if (guid_equal(&k, g))
      return &providers_known[i];
  }
  return NULL;
}

static void set_name(struct provider_ref *out, const char *name, size_t len)
{
  if (len >= sizeof(out->name))
    len = sizeof(out->name) - 1;
  memcpy(out->name, name, len);
  out->name[len] = '\0';
}

int providers_resolve(const char *text, size_t len, struct provider_ref *out, char *err,
                      size_t err_size)
{
  const struct provider_entry *known;
  int rc;

  memset(out, 0, sizeof(*out));
  if (len == 0) {
    snprintf(err, err_size, "a provider spec starts with an empty provider name");
    return ETWCAP_E_USAGE;
  }
  if (guid_parse_n(text, len, &out->guid) == 0) {
    char g[GUID_STRING_SIZE];
    out->source = PROVIDER_FROM_GUID;
    out->known = providers_find_guid(&out->guid);
    guid_format(&out->guid, g);
    set_name(out, out->known ? out->known->name : g, strlen(out->known ? out->known->name : g));
  } else if (text[0] == '*') {
    char name[256];
    if (len - 1 == 0 || len - 1 >= sizeof(name)) {
      snprintf(err, err_size, "'%.*s': an EventSource name after '*' must have 1 to 255 bytes",
               (int)(len > 300 ? 300 : len), text);
      return ETWCAP_E_USAGE;
    }
    memcpy(name, text + 1, len - 1);
    name[len - 1] = '\0';
    if (eventsource_guid(name, &out->guid) != 0) {
      snprintf(err, err_size, "'%.*s' is not a valid EventSource name (bad UTF-8)",
               (int)(len > 300 ? 300 : len), text);
      return ETWCAP_E_USAGE;
    }
    out->source = PROVIDER_FROM_EVENTSOURCE;
    out->known = providers_find_guid(&out->guid);
    set_name(out, name, len - 1);
  } else if ((known = providers_find_name(text, len)) != NULL) {
    out->source = PROVIDER_FROM_TABLE;
    out->known = known;
    providers_guid_of(known, &out->guid);
    set_name(out, known->name, strlen(known->name));
  } else if ((rc = providers_os_lookup(text, len, &out->guid)) == 0) {
    out->source = PROVIDER_FROM_OS;
    out->known = providers_find_guid(&out->guid);
    set_name(out, text, len);
  } else {
    snprintf(err, err_size,
             "unknown provider '%.*s': it is not one etwcap knows%s. Give its GUID, or write "
             "'*%.*s' if it is an EventSource (its GUID is then the hash of the name)",
             (int)(len > 300 ? 300 : len), text,
             rc == ETWCAP_E_NOENT ? " nor registered with this system" : " (and the lookup "
                                                                         "of registered "
                                                                         "providers failed)",
             (int)(len > 300 ? 300 : len), text);
    return ETWCAP_E_USAGE;
  }
  if (guid_equal(&out->guid, &providers_system_trace_guid)) {
    snprintf(err, err_size, "'%.*s' is the kernel logger; choose kernel events with "
             "/KernelEvents instead of /Providers", (int)(len > 300 ? 300 : len), text);
    return ETWCAP_E_USAGE;
  }
  return 0;
}
