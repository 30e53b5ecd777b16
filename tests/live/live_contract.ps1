# Live checks of the ETW contract points that could only be checked against
# the fake advapi32 (tests/fakes/README.md; docs/win32-contract.md, section
# 16): the kernel routes (sections 3.2-3.3), EventSource arguments (6), the
# ring's FLUSH (4.4), stack caching (7.4) and the system logger's own GUID
# (1.8):
#   1. /ThreadTime: the kernel route this Windows takes (EnableFlags + group
#      mask from Windows 8, the default on every build), the applied group mask
#      read back without a lost group, and CSwitch / SampledProfile /
#      ReadyThread events in the trace;
#   2. EventSource arguments for processes started later: the
#      ControllerData_Session_<id> value under
#      HKLM\Software\Wow6432Node\...\Winevt\Publishers\{guid} while the
#      capture runs, gone after stop; a second capture of the same EventSource
#      takes another session keyword of 44..47 (its record and stored data say which);
#   3. /InMemoryCircularBuffer: the FLUSH at stop writes X.kernel.etl and X.etl;
#   4. /KernelRoute (docs/win32-contract.md, sections 3.4, 3.3 rule 4, 7.4;
#      section 16 items 1 and 4): on build 20348 and later the same
#      /ThreadTime capture once by each route, systemProviders and groupMask,
#      and the census of kernel event types of each, diffed: SystemConfig,
#      Process/Thread/Image DCStart and DCEnd, SampledProfile, CSwitch,
#      ReadyThread, FileIo Create (with FileIOInit), StackWalk; plus each
#      file's size and its StackWalk Reference/Delete counts (what stack
#      caching with WPR's sizes does). A type one route has and the other lacks
#      is a failure: the opt-in System Providers route can become the default
#      only when it gives all the group mask gives, the DCStart rundown first.
# Unrun here (no PowerShell and no real ETW on the build machine): written for
# a real, elevated Windows. Exit 0 = passed, 1 = failed, 77 = skipped.
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_contract.ps1 -Etwcap build\windows\etwcap.exe
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live")
)

. "$PSScriptRoot\common.ps1"

Run @("abort") | Out-Null

# --- 1. /ThreadTime: route, read-back, events ----------------------------------------
$data = Join-Path $WorkDir "threadtime.etl"
Remove-Item "$data*" -Force -ErrorAction SilentlyContinue
$plan = (Run @("plan", "/ThreadTime", "/Json")).Text | ConvertFrom-Json
$kernel = $plan.sessions | Where-Object { $_.role -eq "kernel" } | Select-Object -First 1
Write-Output "info kernel route on this Windows ($($plan.windows.version)): $($kernel.kernel.route)"
$busy = Start-Job { 1..200000 | ForEach-Object { [Math]::Sqrt($_) } | Out-Null }
$r = Run @("collect", $data, "/ThreadTime", "/MaxCollectSec:10", "/CircularMB:128")
Wait-Job $busy | Remove-Job
Check ($r.Code -eq 0) "collect /ThreadTime exits 0 ($($r.Code))"
$log = ZipText "$data.zip" "LogFile.txt"
Check ($log -match "started kernel session '.*' .*by $($kernel.kernel.route)") "the kernel session took the planned route ($($kernel.kernel.route))"
Check (-not ($log -match "did not apply every kernel group")) "no kernel group lost (read-back of TraceSystemTraceEnableFlagsInfo)"
if ($log -match "cannot read back the kernel group mask") { Write-Output "info this Windows offered no read-back of the group mask" }
Check (-not ($log -match "Windows refused kernel stack caching")) "stack caching with WPR's sizes accepted"
$dump = (Run @("dump", "$data.zip")).Text
Check ($dump -match "CSwitch") "the trace holds CSwitch events"
Check ($dump -match "SampledProfile|SampleProf") "the trace holds SampledProfile events"
Check ($dump -match "ReadyThread") "the trace holds ReadyThread events"

# --- 2. EventSource arguments in the registry ----------------------------------------
$data = Join-Path $WorkDir "esargs.etl"
Remove-Item "$data*" -Force -ErrorAction SilentlyContinue
$spec = "/Providers:*etwcapLiveSource::EventCounterIntervalSec=1"
$plan = (Run @("plan", $spec, "/Json")).Text | ConvertFrom-Json
$user = $plan.sessions | Where-Object { $_.role -eq "user" } | Select-Object -First 1
$guid = ($user.providers | Where-Object { $_.name -eq "etwcapLiveSource" } | Select-Object -First 1).guid
$key = "HKLM:\Software\Wow6432Node\Microsoft\Windows\CurrentVersion\Winevt\Publishers\{$guid}"
$r = Run @("start", $data, $spec, "/CircularMB:64")
Check ($r.Code -eq 0) "start with EventSource arguments exits 0"
$values = @()
if (Test-Path $key) { $values = @((Get-Item $key).Property | Where-Object { $_ -like "ControllerData_Session_*" }) }
Check ($values.Count -ge 1) "ControllerData_Session_<id> is stored under $key"
if ($values.Count) {
  $bytes = (Get-ItemProperty $key)."$($values[0])"
  $text = [Text.Encoding]::UTF8.GetString($bytes)
  Check ($text.StartsWith("EtwSessionName`0etwcap`0EtwSessionKeyword`0")) "the stored data starts as TraceEvent's (EtwSessionName, EtwSessionKeyword)"
}
# A second capture of the same EventSource takes another session keyword (TraceEvent's
# FindFreeSessionKeyword: the lowest of 44..47 no enabling session holds), named in its
# MatchAllKeyword, its stored data and its session record.
$data2 = Join-Path $WorkDir "esargs2.etl"
Remove-Item "$data2*" -Force -ErrorAction SilentlyContinue
$r = Run @("start", $data2, $spec, "/CircularMB:64", "/SessionName:etwcapLiveSecond")
Check ($r.Code -eq 0) "a second start on the same EventSource exits 0 ($($r.Code)): $($r.Text)"
$bits = @()
foreach ($d in $data, $data2) {
  $rec = Get-Content "$d.etwcap-session.json" -Raw -ErrorAction SilentlyContinue | ConvertFrom-Json
  $p = $rec.sessions | ForEach-Object { $_.providers } | Where-Object { $_.name -eq "etwcapLiveSource" } | Select-Object -First 1
  $bits += $p.sessionKeywordBit
}
Check ($bits.Count -eq 2 -and $bits[0] -ge 44 -and $bits[1] -le 47 -and $bits[0] -ne $bits[1]) "the two captures hold different session keywords: $($bits -join ', ')"
$second = @()
if (Test-Path $key) { $second = @((Get-Item $key).Property | Where-Object { $_ -like "ControllerData_Session_*" } | ForEach-Object { [Text.Encoding]::UTF8.GetString((Get-ItemProperty $key).$_) } | Where-Object { $_ -like "EtwSessionName`0etwcapLiveSecond`0*" }) }
Check ($second.Count -eq 1 -and $second[0] -like "*EtwSessionKeyword`0$($bits[1])`0*") "the second capture's stored data names its keyword $($bits[1])"
Run @("stop", $data2) | Out-Null
$r = Run @("stop", $data)
Check ($r.Code -eq 0) "stop exits 0"
$left = @()
if (Test-Path $key) { $left = @((Get-Item $key).Property | Where-Object { $_ -like "ControllerData_Session_*" }) }
Check ($left.Count -eq 0) "stop removed the stored arguments"

# --- 3. /InMemoryCircularBuffer: the flush block -------------------------------------
$data = Join-Path $WorkDir "ring.etl"
Remove-Item "$data*", (Join-Path $WorkDir "ring.*") -Force -ErrorAction SilentlyContinue
$r = Run @("collect", $data, "/InMemoryCircularBuffer", "/CircularMB:64", "/MaxCollectSec:5", "/Merge:false")
Check ($r.Code -eq 0) "collect /InMemoryCircularBuffer exits 0 ($($r.Code))"
Check (Test-Path (Join-Path $WorkDir "ring.kernel.etl")) "FLUSH wrote ring.kernel.etl"
Check (Test-Path $data) "FLUSH wrote ring.etl"
Check (-not ((Run @("listSessions")).Text -match "(?m)^\*")) "no etwcap session left"

# --- 4. /KernelRoute: the census of each route ----------------------------------------
# Census and $CensusTypes: common.ps1.
$build = [Environment]::OSVersion.Version.Build
if ($build -lt 20348) {
  Write-Output "info build $build has one route only (systemProviders needs 20348): section 4 skipped"
} else {
  $census = @{}
  foreach ($route in @("systemProviders", "groupMask")) {
    $data = Join-Path $WorkDir "route-$route.etl"
    Remove-Item "$data*" -Force -ErrorAction SilentlyContinue
    $busy = Start-Job { 1..200000 | ForEach-Object { [Math]::Sqrt($_); Get-Item $env:TEMP | Out-Null } | Out-Null }
    $r = Run @("collect", $data, "/ThreadTime", "/KernelEvents:ThreadTime+FileIOInit", "/KernelRoute:$route", "/MaxCollectSec:10", "/CircularMB:128")
    Wait-Job $busy | Remove-Job
    Check ($r.Code -eq 0) "collect /KernelRoute:$route exits 0 ($($r.Code))"
    $census[$route] = Census "$data.zip"
    $size = (Get-Item "$data.zip").Length
    $line = CensusLine $census[$route]
    Write-Output "info $route`: $size bytes; $line"
  }
  foreach ($name in $CensusTypes.Keys) {
    $sp = $census["systemProviders"][$name]; $gm = $census["groupMask"][$name]
    if ($name -like "StackWalk/Key*") { continue } # counts, not presence: printed above
    Check ((($sp -gt 0) -eq ($gm -gt 0))) "$name in both routes or in neither (systemProviders $sp, groupMask $gm)"
  }
}

if ($failures) { Write-Output "$failures check(s) failed"; exit 1 }
Write-Output "all live contract checks passed"
exit 0
