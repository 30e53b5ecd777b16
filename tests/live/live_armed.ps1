# Live test of the captures that stay armed (issue #17) on a real, elevated Windows with
# .NET (Windows PowerShell runs on it):
#   1. collect /InMemoryCircularBuffer /SnapshotOnTrigger /EventLog: a child PowerShell throws
#      TimeoutExceptions; each fire (at most /CollectMultiple:2) must write live.N.etl.zip
#      while the sessions keep running (ControlTrace FLUSH on a running ring), and the
#      Application log must hold etwcap's entries (1000 start, 1001 fire, 1002 snapshot),
#      each reading as its text through etwcap.exe's message table (the source registered);
#   2. collect /SegmentSec:20 /KeepSegments:2 /RundownPeriodSec:10: the sessions switch files
#      (ControlTrace UPDATE) every 20 s; two segment zips must be left, each with kernel
#      Process and Image events (a system logger kept its kernel events across the switch)
#      and CLR rundown events (the periodic rundown landed in the files); the event types of
#      each segment, by route, are live_rotation.ps1's;
#   3. schedule create /WhatIf and a registration that schtasks /Query then lists.
# What the build machine checked only against fakes; see README ("Week-long capture").
#
# Not registered with ctest: Wine's ETW records nothing. Exit 0 = passed, 1 = failed,
# 77 = skipped (not real, elevated Windows with .NET).
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_armed.ps1 -Etwcap build\windows\etwcap.exe
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live-armed")
)

. "$PSScriptRoot\common.ps1"
$ps = Join-Path $env:windir "System32\WindowsPowerShell\v1.0\powershell.exe"
if (-not (Test-Path $ps)) { Skip "no Windows PowerShell (.NET Framework) to throw exceptions" }
$thrower = '$i = 0; Start-Sleep 4; while ($i -lt 240) { try { throw (New-Object System.TimeoutException "etwcap live armed") } catch {}; Start-Sleep -Milliseconds 500; $i++ }'
Run @("abort") | Out-Null

# --- 1. snapshots ----------------------------------------------------------------------
$data = Join-Path $WorkDir "live.etl"
Remove-Item "$WorkDir\live*" -Force -ErrorAction SilentlyContinue
$since = Get-Date
$child = Start-Process -FilePath $ps -ArgumentList @("-NoProfile", "-Command", $thrower) -PassThru -WindowStyle Hidden
$r = Run @("collect", $data, "/InMemoryCircularBuffer", "/CircularMB:128", "/BufferSizeMB:16",
           "/SnapshotOnTrigger", "/SnapshotCooldownSec:10", "/CollectMultiple:2",
           "/StopOnException:TimeoutException", "/DelayAfterTriggerSec:2", "/MaxCollectSec:120",
           "/RundownTimeout:30", "/EventLog")
Stop-Process -Id $child.Id -Force -ErrorAction SilentlyContinue
Check ($r.Code -eq 0) "collect /SnapshotOnTrigger exits 0 ($($r.Code)): $($r.Text)"
Check (Test-Path (Join-Path $WorkDir "live.1.etl.zip")) "live.1.etl.zip written by the first fire"
Check (Test-Path (Join-Path $WorkDir "live.2.etl.zip")) "live.2.etl.zip written by the second"
Check ($r.Text -match "the sessions go on") "the rings were written while the sessions ran"
$entries = @(Get-WinEvent -FilterHashtable @{ LogName = "Application"; ProviderName = "etwcap"; StartTime = $since } -ErrorAction SilentlyContinue)
foreach ($id in 1000, 1001, 1002, 1006) {
  Check (@($entries | Where-Object { $_.Id -eq $id }).Count -ge 1) "Application log holds etwcap's entry $id"
}
# The elevated /EventLog capture registered its source with etwcap.exe's message table, so
# each entry's message is its text alone, with no "description ... cannot be found" line.
$src = Get-ItemProperty "HKLM:\SYSTEM\CurrentControlSet\Services\EventLog\Application\etwcap" -ErrorAction SilentlyContinue
Check ($src -and $src.EventMessageFile -like "*etwcap.exe" -and $src.TypesSupported -eq 7) "the source etwcap names etwcap.exe as its message file: $($src.EventMessageFile)"
$started = @($entries | Where-Object { $_.Id -eq 1000 })
Check ($started.Count -ge 1 -and $started[0].Message -like "etwcap started capturing*") "entry 1000 reads as its text: $($started[0].Message)"
Check (@($entries | Where-Object { $_.Message -match "cannot be found" }).Count -eq 0) "no entry says its description cannot be found"

# --- 2. segments and the periodic rundown ------------------------------------------------
$seg = Join-Path $WorkDir "seg.etl"
Remove-Item "$WorkDir\seg*" -Force -ErrorAction SilentlyContinue
$child = Start-Process -FilePath $ps -ArgumentList @("-NoProfile", "-Command", $thrower) -PassThru -WindowStyle Hidden
$r = Run @("collect", $seg, "/SegmentSec:20", "/KeepSegments:2", "/RundownPeriodSec:10",
           "/MaxCollectSec:70", "/BufferSizeMB:16", "/RundownTimeout:30")
Stop-Process -Id $child.Id -Force -ErrorAction SilentlyContinue
Check ($r.Code -eq 0) "collect /SegmentSec /RundownPeriodSec exits 0 on every route ($($r.Code))"
$zips = @(Get-ChildItem -Path $WorkDir -Filter "seg.*Z.etl.zip")
Check ($zips.Count -eq 2) "/KeepSegments:2 left two segments ($($zips.Count))"
foreach ($z in $zips) {
  $info = (Run @("info", $z.FullName)).Text
  Check ($info -match "kernel:Process" -and $info -match "kernel:Image") "$($z.Name) holds kernel process and image events"
  Check ($info -match "DotNETRuntimeRundown") "$($z.Name) holds the CLR rundown"
}

# --- 3. schedule -----------------------------------------------------------------------------
$r = Run @("schedule", "create", "etwcap-live", "collect", (Join-Path $WorkDir "task.etl"), "/StopOnGen2GC")
Check ($r.Code -eq 0) "schedule create registered the task ($($r.Code)): $($r.Text)"
$q = (& schtasks /Query /TN "\etwcap\etwcap-live" /XML 2>&1 | Out-String)
Check ($q -match "S-1-5-18" -and $q -match "PT0S" -and $q -match "abort") "schtasks shows the task as etwcap wrote it"
Run @("schedule", "delete", "etwcap-live") | Out-Null

Run @("abort") | Out-Null
if ($failures) { Write-Output "$failures check(s) failed"; exit 1 }
Write-Output "all live armed-capture checks passed"
exit 0
