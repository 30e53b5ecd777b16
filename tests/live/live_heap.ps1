# Live test of OS heap tracing (/OSHeapProcess, /OSHeapExe): what was
# checked only against the fake advapi32 and the registry fakes
# (tests/fakes/README.md).  The heap session's extension block must make
# Windows write heap events (provider 222962ab-..., hook group 0x10) of the
# process given; /OSHeapExe's IFEO TracingFlags must be 1 while a capture
# runs and gone after stop, and after `abort` of a killed collect.
#
# Not registered with ctest: it needs real, elevated Windows.  Exit 0 =
# passed, 1 = failed, 77 = skipped.  Unrun (see README.md).
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_heap.ps1 -Etwcap build\windows\etwcap.exe
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live-heap")
)

. "$PSScriptRoot\common.ps1"
Remove-Item -Recurse -Force $WorkDir -ErrorAction SilentlyContinue
New-Item -ItemType Directory -Force -Path $WorkDir | Out-Null
Set-Location $WorkDir
$ifeo = "HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Image File Execution Options"
$probe = "etwcapheapprobe.exe"

function HeapEvents([string]$zip) {
  $dump = & $Etwcap dump $zip 2>&1 | Out-String
  return ([regex]::Matches($dump, "222962ab|grp=16,")).Count
}

function TracingFlags {
  $p = Get-ItemProperty -Path "$ifeo\$probe" -Name TracingFlags -ErrorAction SilentlyContinue
  if ($p) { return $p.TracingFlags } else { return $null }
}

# 1. A running process: a PowerShell that allocates for a while.
$child = Start-Process -PassThru -WindowStyle Hidden powershell.exe `
  -ArgumentList "-NoProfile", "-Command", "1..200 | % { [string]::new('x', 4096) | Out-Null; Start-Sleep -Milliseconds 50 }"
$r = Run @("start", "$WorkDir\p.etl", "/OSHeapProcess:$($child.Id)", "/CircularMB:0")
Check ($r.Code -eq 0) "start /OSHeapProcess:$($child.Id) ($($r.Code)): $($r.Text)"
Start-Sleep -Seconds 5
$r = Run @("stop", "$WorkDir\p.etl")
Check ($r.Code -eq 0) "stop ($($r.Code))"
Check ((HeapEvents "$WorkDir\p.etl.zip") -gt 0) "heap events of process $($child.Id) in the merged trace"
Stop-Process -Id $child.Id -Force -ErrorAction SilentlyContinue

# 2. A program by name, started after the capture: a copy of where.exe.
Copy-Item "$env:windir\System32\where.exe" "$WorkDir\$probe"
Remove-ItemProperty -Path "$ifeo\$probe" -Name TracingFlags -ErrorAction SilentlyContinue
$r = Run @("start", "$WorkDir\e.etl", "/OSHeapExe:$probe", "/CircularMB:0")
Check ($r.Code -eq 0) "start /OSHeapExe:$probe ($($r.Code)): $($r.Text)"
Check ((TracingFlags) -eq 1) "TracingFlags of $probe is 1 while the capture runs"
& "$WorkDir\$probe" /R $env:windir notepad.exe | Out-Null
$r = Run @("stop", "$WorkDir\e.etl")
Check ($r.Code -eq 0) "stop ($($r.Code))"
Check ($null -eq (TracingFlags)) "TracingFlags of $probe is gone after stop"
Check ((HeapEvents "$WorkDir\e.etl.zip") -gt 0) "heap events of $probe in the merged trace"

# 3. A collect killed while it runs: abort puts the value back from the record.
$c = Start-Process -PassThru -WindowStyle Hidden $Etwcap -ArgumentList "collect", "$WorkDir\k.etl", "/OSHeapExe:$probe", "/MaxCollectSec:120", "/NoGui"
Start-Sleep -Seconds 10
Check ((TracingFlags) -eq 1) "TracingFlags is 1 while collect runs"
Stop-Process -Id $c.Id -Force
$r = Run @("abort", "/DataFile:$WorkDir\k.etl")
Check ($r.Code -eq 0) "abort after a killed collect ($($r.Code)): $($r.Text)"
Check ($null -eq (TracingFlags)) "TracingFlags of $probe is gone after abort"
$left = (& $Etwcap listSessions 2>&1 | Out-String)
Check (-not ($left -match "etwcapHeap")) "no heap session left running"

if ($failures) { exit 1 }
exit 0
