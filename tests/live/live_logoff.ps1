# Live check of docs/win32-contract.md, section 11.2: a capture running as
# SYSTEM (a scheduled task, session 0) survives a user's logoff (its console
# handler answers CTRL_LOGOFF_EVENT with TRUE) and finishes with its zip and
# no session left. It needs a second, disposable interactive session to log
# off: give its id (`query session`) with -LogoffSessionId; without it the
# script skips (77). Unrun here: written for a real, elevated Windows.
#
# HandlerRoutine's page: a console program that loads user32.dll or gdi32.dll
# gets no CTRL_LOGOFF_EVENT / CTRL_SHUTDOWN_EVENT (docs/win32-contract.md,
# section 11.4). etwcap.exe imports neither, but loads pdh.dll, wevtapi.dll
# and tdh.dll at run time; the capture here runs a /StopOnPerfCounter trigger
# (pdh) so the script can record the modules loaded then (modules.txt) and
# fail if user32 or gdi32 is among them.
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_logoff.ps1 -Etwcap C:\etwcap\etwcap.exe -LogoffSessionId 3
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = "C:\etwcap-live-logoff",
  [int]$LogoffSessionId = -1
)

if ($LogoffSessionId -lt 0) {
  Write-Output "SKIP: give -LogoffSessionId of a disposable interactive session (query session)"
  exit 77
}
. "$PSScriptRoot\common.ps1"
$data = Join-Path $WorkDir "logoff.etl"
Remove-Item "$data*" -Force -ErrorAction SilentlyContinue

$task = "etwcapLiveLogoff"
schtasks /Delete /TN $task /F 2>$null | Out-Null
# A counter that never reaches its threshold: the trigger only loads pdh.dll.
schtasks /Create /TN $task /RU SYSTEM /SC ONCE /ST 00:00 /F /TR "`"$Etwcap`" collect `"$data`" /MaxCollectSec:40 /CircularMB:64 `"/StopOnPerfCounter:Processor:% Processor Time:_Total>1000`"" | Out-Null
schtasks /Run /TN $task | Out-Null
Start-Sleep 10
$modules = @(Get-Process etwcap -ErrorAction SilentlyContinue | ForEach-Object { $_.Modules } | ForEach-Object { $_.ModuleName } | Sort-Object -Unique)
$modules | Set-Content (Join-Path $WorkDir "modules.txt")
Write-Output "info modules of the running capture: $($modules -join ', ')"
Check (-not ($modules | Where-Object { $_ -match "^(user32|gdi32)\.dll$" })) "no user32.dll or gdi32.dll in the capture (its logoff/shutdown handler would not be called)"
logoff $LogoffSessionId
Start-Sleep 5
$running = (Get-Process etwcap -ErrorAction SilentlyContinue) -ne $null
Check $running "the SYSTEM capture still runs after the logoff of session $LogoffSessionId"
$deadline = (Get-Date).AddSeconds(180)
while ((Get-Process etwcap -ErrorAction SilentlyContinue) -and (Get-Date) -lt $deadline) { Start-Sleep 2 }
Check (Test-Path "$data.zip") "the capture finished with $data.zip"
$list = & $Etwcap listSessions 2>&1 | Out-String
Check (-not ($list -match "(?m)^\*")) "no etwcap session left"
schtasks /Delete /TN $task /F | Out-Null
if ($failures) { Write-Output "$failures check(s) failed"; exit 1 }
Write-Output "the SYSTEM capture survived the logoff"
exit 0
