# Live check of rotation and the periodic rundown (docs/win32-contract.md, sections 4.5-4.7
# and 8.4-8.6; section 16 items 2 and 5), checked on the build machine only against the fakes:
#   1. on each kernel route (groupMask; systemProviders too on build 20348 and later) a
#      /ThreadTime capture in three segments (/SegmentSec:15) with /RundownPeriodSec:10 while
#      a CPU-bound job and a Windows PowerShell (.NET Framework) child run: every segment's zip
#      must hold CSwitch and SampledProfile (the kernel events put back after each
#      ControlTrace UPDATE), Process and Image DCStart or DCEnd (its own kernel rundown) and
#      the CLR rundown's MethodDCEndVerbose and ModuleDCEnd (its own CLR rundown), and its
#      LogFile.txt no group lost at a switch. The census of each segment of each route is
#      printed side by side;
#   2. /RundownPeriodSec:10 with /Merge:false: the user session's own file (X.etl, not the
#      rundown session's X.clrRundown.etl) holds MethodDCEndVerbose, so the periodic
#      enable + capture-state request on the CLR rundown provider named the methods, and each
#      X.kernelRundown.<n>.etl its Process DCStart;
#   3. segments with OS heap tracing are refused before any session starts (exit 2): the heap
#      session is never sent an UPDATE (section 4.5).
# Unrun here (no PowerShell and no real ETW on the build machine): written for a real,
# elevated Windows with Windows PowerShell 5.1. Exit 0 = passed, 1 = failed, 77 = skipped.
#
#   powershell -ExecutionPolicy Bypass -File tests\live\live_rotation.ps1 -Etwcap build\windows\etwcap.exe
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live-rotation")
)

. "$PSScriptRoot\common.ps1"
if ([Environment]::OSVersion.Version -lt [Version]"6.2") { Skip "Windows 7 has no private kernel sessions to rotate and run down" }
$ps = Join-Path $env:windir "System32\WindowsPowerShell\v1.0\powershell.exe"
if (-not (Test-Path $ps)) { Skip "no Windows PowerShell (.NET Framework) for the CLR rundown" }
# A managed child that keeps compiling: a new script block each turn is JIT'ed code.
$managed = '$i = 0; while ($i -lt 600) { [scriptblock]::Create("param(`$x) `$x * $i").Invoke($i) | Out-Null; Start-Sleep -Milliseconds 200; $i++ }'
Run @("abort") | Out-Null

# --- 1. three segments on each route ---------------------------------------------------
$routes = @("groupMask")
$build = [Environment]::OSVersion.Version.Build
if ($build -ge 20348) { $routes += "systemProviders" } else { Write-Output "info build $build has no System Providers: groupMask only" }
$report = New-Object System.Collections.Generic.List[string]
foreach ($route in $routes) {
  $data = Join-Path $WorkDir "rot-$route.etl"
  Remove-Item (Join-Path $WorkDir "rot-$route*") -Force -ErrorAction SilentlyContinue
  $child = Start-Process -FilePath $ps -ArgumentList @("-NoProfile", "-Command", $managed) -PassThru -WindowStyle Hidden
  $busy = Start-Job { $end = (Get-Date).AddSeconds(50); while ((Get-Date) -lt $end) { [Math]::Sqrt((Get-Random)) | Out-Null } }
  $r = Run @("collect", $data, "/ThreadTime", "/KernelRoute:$route", "/SegmentSec:15", "/MaxCollectSec:44",
             "/RundownPeriodSec:10", "/BufferSizeMB:32", "/CpuSampleMSec:10", "/RundownTimeout:30")
  Stop-Job $busy -ErrorAction SilentlyContinue; Remove-Job $busy -Force -ErrorAction SilentlyContinue
  Stop-Process -Id $child.Id -Force -ErrorAction SilentlyContinue
  Check ($r.Code -eq 0) "collect /KernelRoute:$route /SegmentSec:15 exits 0 ($($r.Code)): $($r.Text)"
  $zips = @(Get-ChildItem -Path $WorkDir -Filter "rot-$route.*Z.etl.zip" | Sort-Object Name)
  Check ($zips.Count -eq 3) "$route`: three segments ($($zips.Count))"
  $n = 0
  foreach ($z in $zips) {
    $n++
    $c = Census $z.FullName
    $report.Add("info $route segment $n ($($z.Name)): $(CensusLine $c)")
    foreach ($name in @("CSwitch", "SampledProfile", "MethodDCEndVerbose", "ModuleDCEnd")) {
      Check ($c[$name] -gt 0) "$route segment $n holds $name ($($c[$name]))"
    }
    Check (($c["Process/DCStart"] + $c["Process/DCEnd"]) -gt 0) "$route segment $n names its processes (Process DCStart/DCEnd)"
    Check (($c["Image/DCStart"] + $c["Image/DCEnd"]) -gt 0) "$route segment $n names its images (Image DCStart/DCEnd)"
    $log = ZipText $z.FullName "LogFile.txt"
    Check (-not ($log -match "lost PERF_\S+ at its switch")) "$route segment $n`: no kernel group lost at a switch"
  }
}
$report | ForEach-Object { Write-Output $_ }

# --- 2. the periodic rundown lands in the user session's own file ----------------------
$data = Join-Path $WorkDir "periodic.etl"
Remove-Item (Join-Path $WorkDir "periodic*") -Force -ErrorAction SilentlyContinue
$child = Start-Process -FilePath $ps -ArgumentList @("-NoProfile", "-Command", $managed) -PassThru -WindowStyle Hidden
Start-Sleep -Seconds 3
$r = Run @("collect", $data, "/RundownPeriodSec:10", "/MaxCollectSec:25", "/Merge:false", "/CircularMB:256",
           "/BufferSizeMB:32", "/RundownTimeout:30")
Stop-Process -Id $child.Id -Force -ErrorAction SilentlyContinue
Check ($r.Code -eq 0) "collect /RundownPeriodSec:10 /Merge:false exits 0 ($($r.Code))"
$c = Census $data
Write-Output "info periodic.etl (the user session): $(CensusLine $c)"
Check ($c["MethodDCEndVerbose"] -gt 0) "the periodic CLR rundown named methods in the user session's file ($($c["MethodDCEndVerbose"]))"
$files = @(Get-ChildItem -Path $WorkDir -Filter "periodic.kernelRundown.*.etl")
Check ($files.Count -ge 2) "a kernel rundown file per period ($($files.Count))"
foreach ($f in $files) {
  $k = Census $f.FullName
  Check ($k["Process/DCStart"] -gt 0) "$($f.Name) holds Process DCStart ($($k["Process/DCStart"]))"
}

# --- 3. no rotation of a heap session --------------------------------------------------
$r = Run @("collect", (Join-Path $WorkDir "heap-seg.etl"), "/SegmentSec:15", "/OSHeapProcess:$PID", "/MaxCollectSec:5")
Check ($r.Code -eq 2 -and $r.Text -match "do not combine with /SegmentSec") "collect /SegmentSec /OSHeapProcess is refused with exit 2 ($($r.Code)): $($r.Text)"

Run @("abort") | Out-Null
if ($failures) { Write-Output "$failures check(s) failed"; exit 1 }
Write-Output "all live rotation checks passed"
exit 0
