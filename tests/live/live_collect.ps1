# Live tests of etwcap.exe: real ETW sessions on a real, elevated Windows.
#   1. collect -> info/dump: a 5-second capture that must hold kernel process
#      events and the CLR rundown of this PowerShell (a .NET process), zipped
#      with LogFile.txt and the capture manifest;
#   2. start / listSessions / stop in separate processes, then abort;
# and, at the end, no etwcap session left running.
#
# Not registered with ctest: nothing here can run under Wine or Linux, whose
# ETW is a stub. Exit 0 = passed, 1 = failed, 77 = skipped (not real,
# elevated Windows).
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_collect.ps1 -Etwcap build\windows\etwcap.exe
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live")
)

. "$PSScriptRoot\common.ps1"

function OurSessions {
  $r = Run @("listSessions")
  return @($r.Text -split "`n" | Where-Object { $_ -match '^\*' })
}

# A clean slate: sessions of an earlier, killed run would make start refuse.
Run @("abort") | Out-Null

# --- 1. collect -> info / dump ----------------------------------------------------
$data = Join-Path $WorkDir "live.etl"
Remove-Item "$data*" -Force -ErrorAction SilentlyContinue
$busy = Start-Job { Start-Sleep 2; cmd /c "dir /s $env:windir\System32\drivers > nul" }
$r = Run @("collect", $data, "/MaxCollectSec:5", "/CircularMB:64", "/BufferSizeMB:16", "/RundownTimeout:30")
Wait-Job $busy | Remove-Job
Check ($r.Code -eq 0) "collect exits 0 ($($r.Code)): $($r.Text)"
Check (Test-Path "$data.zip") "collect wrote $data.zip"
Check (-not (Test-Path "$data.etwcap-session.json")) "collect removed its session record"
$r = Run @("info", "$data.zip")
Check ($r.Code -eq 0) "info reads the capture"
Check ($r.Text -match "kernel:Process") "the capture holds kernel process events"
Check ($r.Text -match "a669021c-c450-4609-a035-5af59af4df18") "the capture holds the CLR rundown"
$r = Run @("dump", "$data.zip")
Check ($r.Code -eq 0 -and ($r.Text -split "`n").Count -gt 100) "dump lists the events"
Add-Type -AssemblyName System.IO.Compression.FileSystem
$zip = [IO.Compression.ZipFile]::OpenRead("$data.zip")
$names = @($zip.Entries | ForEach-Object { $_.FullName })
$zip.Dispose()
Check ($names -contains "LogFile.txt") "the zip has LogFile.txt"
Check ($names -contains "etwcap-capture.json") "the zip has the capture manifest"
Check ((OurSessions).Count -eq 0) "no etwcap session left after collect"

# --- 2. start / stop in separate processes, then abort ------------------------------
$data = Join-Path $WorkDir "pair.etl"
Remove-Item "$data*" -Force -ErrorAction SilentlyContinue
$r = Run @("start", $data, "/CircularMB:64", "/BufferSizeMB:16")
Check ($r.Code -eq 0) "start exits 0 ($($r.Code)): $($r.Text)"
Check (Test-Path "$data.etwcap-session.json") "start left the session record"
$ours = OurSessions
Check ($ours.Count -ge 2) "listSessions shows the two sessions start left running"
$r = Run @("start", $data)
Check ($r.Code -eq 7 -and $r.Text -match "etwcap abort") "a second start is refused with exit code 7"
Start-Sleep 2
$r = Run @("stop", $data, "/RundownTimeout:30")
Check ($r.Code -eq 0) "stop exits 0 ($($r.Code)): $($r.Text)"
Check (Test-Path "$data.zip") "stop wrote $data.zip"
Check ((OurSessions).Count -eq 0) "no etwcap session left after stop"
$r = Run @("start", $data, "/CircularMB:64", "/BufferSizeMB:16")
$r = Run @("abort", "/DataFile:$data")
Check ($r.Code -eq 0) "abort exits 0"
Check ((OurSessions).Count -eq 0) "abort stopped every etwcap session"
Check (-not (Test-Path "$data.etwcap-session.json")) "abort removed the session record"

if ($failures) { Write-Output "$failures check(s) failed"; exit 1 }
Write-Output "all live checks passed"
exit 0
