# Live test of the PerfView collection features of issue #15 that were
# checked only against fakes (tests/fakes/README.md): hardware counters
# (ListCpuCounters, /CpuCounters), `mark` and /MonitorPerfCounter through
# etwcap's own TraceLogging provider, packet capture (/NetworkCapture),
# /Wpr, and the NGEN PDBs a merged zip carries.  Each part checks what only
# Windows can show: the events in the merged trace, the files beside it.
#
# Not registered with ctest: it needs real, elevated Windows.  Exit 0 =
# passed, 1 = failed, 77 = skipped.  Unrun (see README.md).
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_parity.ps1 -Etwcap build\windows\etwcap.exe
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live-parity")
)

. "$PSScriptRoot\common.ps1"
Remove-Item -Recurse -Force $WorkDir -ErrorAction SilentlyContinue
New-Item -ItemType Directory -Force -Path $WorkDir | Out-Null
Set-Location $WorkDir
$ownProvider = "e45c2f6f-cd71-5917-d0b1-1a492ba0ca1c"   # etwcap's TraceLogging provider
$packetProvider = "2ed6006e-4729-4609-b423-3ee7bcd678ef" # Microsoft-Windows-NDIS-PacketCapture

# Lines of `etwcap dump` matching a pattern (a provider GUID, a hook).
function Count([string]$trace, [string]$pattern) {
  $dump = & $Etwcap dump $trace 2>&1 | Out-String
  return ([regex]::Matches($dump, $pattern)).Count
}

# A child PowerShell (.NET Framework: its assemblies are NGEN images) that
# keeps a CPU busy for a while.
function Busy([int]$seconds) {
  $cmd = "`$end = (Get-Date).AddSeconds($seconds); while ((Get-Date) -lt `$end) { [math]::Sqrt(12345) | Out-Null }"
  return Start-Process -PassThru -WindowStyle Hidden powershell.exe -ArgumentList "-NoProfile", "-Command", $cmd
}

# 1. Hardware counters: the machine's profile sources, then one of them
# sampled (PMC_Interrupt, hook 0x0F2F).  Virtual machines often offer only
# Timer, whose samples are the ordinary profile.
$r = Run @("ListCpuCounters")
Check ($r.Code -eq 0 -and $r.Text -match "profile sources") "ListCpuCounters ($($r.Code)): $($r.Text)"
$sources = @([regex]::Matches($r.Text, "(?m)^(\S+)\s+\d+\s+\d+\s+\d+\s+\d+\s*$") | ForEach-Object { $_.Groups[1].Value })
$pmc = $sources | Where-Object { $_ -ne "Timer" } | Select-Object -First 1
if ($pmc) {
  $child = Busy 10
  $r = Run @("start", "$WorkDir\pmc.etl", "/CpuCounters:${pmc}:65536")
  Check ($r.Code -eq 0) "start /CpuCounters:${pmc}:65536 ($($r.Code)): $($r.Text)"
  Start-Sleep -Seconds 5
  $r = Run @("stop", "$WorkDir\pmc.etl")
  Check ($r.Code -eq 0) "stop ($($r.Code))"
  Check ((Count "$WorkDir\pmc.etl.zip" "grp=15,op=47\)") -gt 0) "PMC samples of $pmc in the merged trace"
  Stop-Process -Id $child.Id -Force -ErrorAction SilentlyContinue
} else {
  Write-Output "note: no profile source but Timer on this machine; /CpuCounters not tried"
}

# 2. mark: one Mark event from etwcap's own provider inside a capture.
$r = Run @("start", "$WorkDir\mark.etl")
Check ($r.Code -eq 0) "start ($($r.Code)): $($r.Text)"
$r = Run @("mark", "live parity mark")
Check ($r.Code -eq 0) "mark ($($r.Code)): $($r.Text)"
$r = Run @("stop", "$WorkDir\mark.etl")
Check ($r.Code -eq 0) "stop ($($r.Code))"
Check ((Count "$WorkDir\mark.etl.zip" $ownProvider) -ge 1) "the Mark event in the merged trace"

# 3. /MonitorPerfCounter: a value every second for five seconds.
$r = Run @("collect", "$WorkDir\monitor.etl", "/MonitorPerfCounter:Processor:% Processor Time:_Total@1", "/MaxCollectSec:5")
Check ($r.Code -eq 0) "collect /MonitorPerfCounter ($($r.Code)): $($r.Text)"
Check ((Count "$WorkDir\monitor.etl.zip" $ownProvider) -ge 3) "PerformanceCounterUpdate events in the merged trace"

# 4. /NetworkCapture: packets as NDIS-PacketCapture events, netsh's own
# file gone after the stop.
$r = Run @("start", "$WorkDir\net.etl", "/NetworkCapture")
Check ($r.Code -eq 0) "start /NetworkCapture ($($r.Code)): $($r.Text)"
Resolve-DnsName -Name "www.microsoft.com" -DnsOnly -ErrorAction SilentlyContinue | Out-Null
try { Invoke-WebRequest -UseBasicParsing -TimeoutSec 5 "http://www.msftconnecttest.com/connecttest.txt" | Out-Null } catch { }
Start-Sleep -Seconds 3
$r = Run @("stop", "$WorkDir\net.etl", "/NetworkCapture")
Check ($r.Code -eq 0) "stop /NetworkCapture ($($r.Code)): $($r.Text)"
Check ((Count "$WorkDir\net.etl.zip" $packetProvider) -gt 0) "packets in the merged trace"
Check (-not (Test-Path "$WorkDir\net.netmon.etl")) "netsh's own file deleted after the stop"

# 5. /Wpr: WPR's kernel events, no zip by default.
$r = Run @("start", "$WorkDir\wpr.etl", "/Wpr")
Check ($r.Code -eq 0) "start /Wpr ($($r.Code)): $($r.Text)"
Start-Sleep -Seconds 3
$r = Run @("stop", "$WorkDir\wpr.etl", "/Wpr")
Check ($r.Code -eq 0) "stop /Wpr ($($r.Code)): $($r.Text)"
Check ((Test-Path "$WorkDir\wpr.etl") -and -not (Test-Path "$WorkDir\wpr.etl.zip")) "/Wpr leaves wpr.etl, no zip"
Check ((Count "$WorkDir\wpr.etl" "kernel:") -gt 0) "kernel events in wpr.etl"

# 6. NGEN PDBs: samples in a .NET Framework program's native images give
# symbols/NAME.ni.pdb/GUIDAGE/NAME.ni.pdb members (ngen createPDB).
$ngen = Join-Path $env:windir "Microsoft.NET\Framework64\v4.0.30319\ngen.exe"
if (Test-Path $ngen) {
  $child = Busy 10
  $r = Run @("collect", "$WorkDir\ngen.etl", "/MaxCollectSec:6")
  Check ($r.Code -eq 0) "collect while a .NET Framework program runs ($($r.Code)): $($r.Text)"
  Stop-Process -Id $child.Id -Force -ErrorAction SilentlyContinue
  Add-Type -AssemblyName System.IO.Compression.FileSystem
  $zip = [IO.Compression.ZipFile]::OpenRead("$WorkDir\ngen.etl.zip")
  $pdbs = @($zip.Entries | Where-Object { $_.FullName -like "symbols/*.ni.pdb/*/*.ni.pdb" })
  $zip.Dispose()
  Check ($pdbs.Count -gt 0) "NGEN PDBs in the zip: $($pdbs.Count)"
} else {
  Write-Output "note: no .NET Framework 4 ngen.exe here; NGEN PDBs not tried"
}

if ($failures) { exit 1 }
exit 0
