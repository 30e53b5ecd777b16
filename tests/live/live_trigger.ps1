# Live test of the triggers of etwcap.exe: real ETW sessions on a real, elevated Windows
# with .NET (Windows PowerShell runs on it).
#   1. collect /StopOnException:TimeoutException: a child PowerShell throws a .NET
#      TimeoutException a few seconds in; the capture must stop on it (well before
#      /MaxCollectSec), name the trigger in LogFile.txt and the capture manifest, log the
#      trigger session's cost, and leave no session running;
#   2. collect /CollectMultiple:2 with the same trigger and a /StopCommand: two captures,
#      live.1.etl.zip and live.2.etl.zip, and the command run after each.
#
# Not registered with ctest: Wine's real-time ETW delivers nothing. Exit 0 = passed,
# 1 = failed, 77 = skipped (not real, elevated Windows with .NET).
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_trigger.ps1 -Etwcap build\windows\etwcap.exe
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live-trigger")
)

. "$PSScriptRoot\common.ps1"
$ps = Join-Path $env:windir "System32\WindowsPowerShell\v1.0\powershell.exe"
if (-not (Test-Path $ps)) { Skip "no Windows PowerShell (.NET Framework) to throw exceptions" }

# A small .NET program that throws: a TimeoutException every half second from 4 s on.
$thrower = '$i = 0; Start-Sleep 4; while ($i -lt 120) { try { throw (New-Object System.TimeoutException "etwcap live trigger") } catch {}; Start-Sleep -Milliseconds 500; $i++ }'

Run @("abort") | Out-Null

# --- 1. StopOnException --------------------------------------------------------------
$data = Join-Path $WorkDir "live.etl"
Remove-Item "$data*" -Force -ErrorAction SilentlyContinue
$child = Start-Process -FilePath $ps -ArgumentList @("-NoProfile", "-Command", $thrower) -PassThru -WindowStyle Hidden
$watch = [Diagnostics.Stopwatch]::StartNew()
$r = Run @("collect", $data, "/StopOnException:TimeoutException", "/DelayAfterTriggerSec:2",
           "/MaxCollectSec:120", "/CircularMB:64", "/BufferSizeMB:16", "/RundownTimeout:30")
$watch.Stop()
Stop-Process -Id $child.Id -Force -ErrorAction SilentlyContinue
Check ($r.Code -eq 0) "collect exits 0 ($($r.Code)): $($r.Text)"
Check ($watch.Elapsed.TotalSeconds -lt 100) "the exception ended the capture ($([int]$watch.Elapsed.TotalSeconds) s, /MaxCollectSec is 120)"
Check (Test-Path "$data.zip") "collect wrote $data.zip"
if (Test-Path "$data.zip") {
  $log = ZipText "$data.zip" "LogFile.txt"
  $manifest = ZipText "$data.zip" "etwcap-capture.json"
  Check ($log -match "trigger /StopOnException:TimeoutException fired") "LogFile.txt names the fire"
  Check ($log -match "trigger session: \d+ events seen") "LogFile.txt has the trigger session's cost"
  Check ($manifest -match "StopOnException") "the capture manifest names the trigger"
}
$r = Run @("listSessions")
Check (-not ($r.Text -match "etwcapTrigger_")) "the trigger session is stopped"

# --- 2. CollectMultiple and StopCommand ----------------------------------------------------
Remove-Item "$WorkDir\live*" -Force -ErrorAction SilentlyContinue
$marks = Join-Path $WorkDir "stopcommand.txt"
$child = Start-Process -FilePath $ps -ArgumentList @("-NoProfile", "-Command", $thrower) -PassThru -WindowStyle Hidden
$r = Run @("collect", $data, "/StopOnException:TimeoutException", "/DelayAfterTriggerSec:1",
           "/CollectMultiple:2", "/MaxCollectSec:120", "/CircularMB:64", "/BufferSizeMB:16",
           "/RundownTimeout:30", "/StopCommand:echo %OUTPUTBASENAME%>>`"$marks`"")
Stop-Process -Id $child.Id -Force -ErrorAction SilentlyContinue
Check ($r.Code -eq 0) "collect /CollectMultiple:2 exits 0 ($($r.Code)): $($r.Text)"
Check (Test-Path (Join-Path $WorkDir "live.1.etl.zip")) "live.1.etl.zip written"
Check (Test-Path (Join-Path $WorkDir "live.2.etl.zip")) "live.2.etl.zip written"
Check (-not (Test-Path "$data.zip")) "no plain live.etl.zip with /CollectMultiple"
$lines = @()
if (Test-Path $marks) { $lines = @(Get-Content $marks | ForEach-Object { $_.Trim() }) }
Check ($lines -contains "live.1" -and $lines -contains "live.2") "/StopCommand ran after each capture ($($lines -join ', '))"
$r = Run @("listSessions")
Check (-not ($r.Text -match "(?m)^\*")) "no etwcap session left"

if ($failures) { Write-Output "$failures check(s) failed"; exit 1 }
Write-Output "all live trigger checks passed"
exit 0
