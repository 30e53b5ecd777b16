/* See demo_tables.h. */
#include "tests/tools/demo_tables.h"

#include "tests/tools/demo_script.h"

void demo_rng_init(struct demo_rng *r, uint64_t seed)
{
  r->state = seed;
}

uint64_t demo_rng_next(struct demo_rng *r)
{
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t demo_rng_below(struct demo_rng *r, uint32_t n)
{
  return n ? (uint32_t)(demo_rng_next(r) % n) : 0;
}

uint16_t demo_cpu_of(uint32_t tid)
{
  return (uint16_t)((tid / 4u) % DEMO_CPUS);
}

const struct demo_thread demo_threads[] = {
  { 6416, 1000000, 716, 0, "main" },
  { 6420, 1150000, 6416, 0, "finalizer" },
  { 6424, 1900000, 6416, 0, "tiered compilation" },
  { 6428, 2100000, 6416, 0, "thread pool gate / timer" },
  { 6432, 1600000, 6416, 1, "worker" },
  { 6436, 1620000, 6416, 1, "worker" },
  { 6440, 1640000, 6416, 1, "worker" },
  { 6444, 1660000, 6416, 1, "worker" },
  { 6448, DEMO_BGC1_US, 6432, 0, "background GC" },
  /* Starvation: the pool injects workers once the retries block them. */
  { 6452, 42500000, 6428, 1, "worker (injected)" },
  { 6456, 43000000, 6428, 1, "worker (injected)" },
  { 6460, 43500000, 6428, 1, "worker (injected)" },
  { 6464, 44000000, 6428, 1, "worker (injected)" },
  { 6468, 46000000, 6428, 1, "worker (injected)" },
  { 6472, 46500000, 6428, 1, "worker (injected)" },
};
const size_t demo_thread_count = sizeof(demo_threads) / sizeof(demo_threads[0]);

#define FX "C:\\Program Files\\dotnet\\shared\\Microsoft.NETCore.App\\8.0.4\\"
#define APP "C:\\Services\\OrderService\\"
#define SYS "C:\\Windows\\System32\\"
#define PKT ", Version=8.0.0.0, Culture=neutral, PublicKeyToken=b03f5f7f11d50a3a"
#define PKT_MS ", Version=8.0.0.0, Culture=neutral, PublicKeyToken=adb9793829ddae60"
#define PKT_CORE ", Version=8.0.0.0, Culture=neutral, PublicKeyToken=7cec85d7bea7798e"

const struct demo_module demo_modules[] = {
  /* The host and the runtime, mapped as the process starts. */
  { APP "OrderService.exe", NULL, 0x2D000, 1000200 },
  { SYS "ntdll.dll", NULL, 0x1F8000, 1000300 },
  { SYS "kernel32.dll", NULL, 0xC4000, 1001100 },
  { SYS "KernelBase.dll", NULL, 0x3A8000, 1001400 },
  { SYS "ucrtbase.dll", NULL, 0x12A000, 1002600 },
  { SYS "advapi32.dll", NULL, 0xB0000, 1003100 },
  { SYS "msvcrt.dll", NULL, 0xA7000, 1003300 },
  { SYS "sechost.dll", NULL, 0x9C000, 1003500 },
  { SYS "rpcrt4.dll", NULL, 0x116000, 1003700 },
  { "C:\\Program Files\\dotnet\\host\\fxr\\8.0.4\\hostfxr.dll", NULL, 0x5A000, 1012000 },
  { FX "hostpolicy.dll", NULL, 0x55000, 1031000 },
  { FX "coreclr.dll", NULL, 0x4E8000, 1052000 },
  { SYS "ole32.dll", NULL, 0x19C000, 1061000 },
  { SYS "combase.dll", NULL, 0x354000, 1061400 },
  { SYS "bcrypt.dll", NULL, 0x28000, 1070000 },
  /* Managed assemblies, in the order the loader takes them (1.2 s on,
   * 60 ms apart), each mapped 200 us before its AssemblyLoad. */
  { FX "System.Private.CoreLib.dll", "System.Private.CoreLib" PKT_CORE, 0xF1E000, 1199800 },
  { APP "OrderService.dll", "OrderService, Version=3.4.1.0, Culture=neutral, PublicKeyToken=null",
    0x3C000, 1259800 },
  { FX "System.Runtime.dll", "System.Runtime" PKT, 0x11000, 1319800 },
  { APP "Microsoft.Extensions.Hosting.dll", "Microsoft.Extensions.Hosting" PKT_MS, 0x2E000,
    1379800 },
  { APP "Microsoft.Extensions.Hosting.Abstractions.dll",
    "Microsoft.Extensions.Hosting.Abstractions" PKT_MS, 0x12000, 1439800 },
  { APP "Microsoft.Extensions.DependencyInjection.dll",
    "Microsoft.Extensions.DependencyInjection" PKT_MS, 0x2A000, 1499800 },
  { APP "Microsoft.Extensions.Configuration.dll", "Microsoft.Extensions.Configuration" PKT_MS,
    0x15000, 1559800 },
  { APP "Microsoft.Extensions.Logging.dll", "Microsoft.Extensions.Logging" PKT_MS, 0x1C000,
    1619800 },
  { APP "Microsoft.Extensions.Options.dll", "Microsoft.Extensions.Options" PKT_MS, 0x13000,
    1679800 },
  { FX "System.Collections.dll", "System.Collections" PKT, 0x3D000, 1739800 },
  { FX "System.Collections.Concurrent.dll", "System.Collections.Concurrent" PKT, 0x37000,
    1799800 },
  { FX "System.Linq.dll", "System.Linq" PKT, 0x8E000, 1859800 },
  { FX "System.Memory.dll", "System.Memory" PKT_CORE, 0x2B000, 1919800 },
  { FX "System.Threading.dll", "System.Threading" PKT, 0x1A000, 1979800 },
  { FX "System.Text.Json.dll", "System.Text.Json" PKT_CORE, 0x10C000, 2039800 },
  { FX "System.Diagnostics.DiagnosticSource.dll", "System.Diagnostics.DiagnosticSource" PKT_CORE,
    0x56000, 2099800 },
  { APP "Microsoft.Extensions.Http.dll", "Microsoft.Extensions.Http" PKT_MS, 0x20000, 2159800 },
  { FX "System.Net.Http.dll", "System.Net.Http" PKT, 0x1E8000, 2219800 },
  { FX "System.Net.Primitives.dll", "System.Net.Primitives" PKT, 0x3E000, 2279800 },
  { FX "System.Net.Sockets.dll", "System.Net.Sockets" PKT, 0x8C000, 2339800 },
  { FX "System.Net.Security.dll", "System.Net.Security" PKT, 0x10E000, 2399800 },
  { FX "System.Security.Cryptography.dll", "System.Security.Cryptography" PKT, 0x1AE000,
    2459800 },
  { APP "Polly.Core.dll", "Polly.Core, Version=8.0.0.0, Culture=neutral, "
    "PublicKeyToken=c8a3ffc3f8f825cc", 0x4C000, 2519800 },
  { APP "OrderService.Inventory.dll",
    "OrderService.Inventory, Version=3.4.1.0, Culture=neutral, PublicKeyToken=null", 0x16000,
    2579800 },
  /* The JIT, at the first method it compiles; sockets' native side. */
  { FX "clrjit.dll", NULL, 0x1E6000, 1299000 },
  { SYS "ws2_32.dll", NULL, 0x6F000, 2340500 },
  { SYS "mswsock.dll", NULL, 0x6A000, 2341000 },
};
const size_t demo_module_count = sizeof(demo_modules) / sizeof(demo_modules[0]);

int demo_in_surge(uint32_t t)
{
  return t >= DEMO_SURGE_START_US && t < DEMO_SURGE_END_US;
}

int demo_in_blackout(uint32_t t)
{
  return t >= DEMO_BLACKOUT_START_US && t < DEMO_BLACKOUT_END_US;
}

uint32_t demo_grid_next(uint32_t t, uint32_t normal_step, uint32_t surge_step)
{
  return t + (demo_in_surge(t) ? surge_step : normal_step);
}
