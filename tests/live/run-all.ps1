# Every live test in one command, for a bug report: runs each live_*.ps1 in
# this folder (among them the kernel-route comparison, live_contract.ps1
# section 4, and the rotation check, live_rotation.ps1: the two that decide
# the route and rotation questions of docs/win32-contract.md section 16) and
# `etwcap selftest`, and writes one summary file (the
# Windows version, etwcap's version, each script's and selftest's exit code
# and full output). Plain PowerShell 5.1. Unrun on the build machine (it has
# no PowerShell and no real ETW); see README.md.
#
#   powershell -ExecutionPolicy Bypass -File tests\live\run-all.ps1 -Etwcap build\windows\etwcap.exe
param(
  [string]$Etwcap = "etwcap.exe",
  [string]$WorkDir = (Join-Path $env:TEMP "etwcap-live"),
  [string]$Summary = (Join-Path (Get-Location) "etwcap-live-summary.txt")
)

$Etwcap = (Resolve-Path $Etwcap).Path
New-Item -ItemType Directory -Force -Path $WorkDir | Out-Null
$lines = New-Object System.Collections.Generic.List[string]
$os = Get-CimInstance Win32_OperatingSystem -ErrorAction SilentlyContinue
$lines.Add("etwcap live summary, $(Get-Date -Format o)")
if ($os) { $lines.Add("Windows: $($os.Caption) $($os.Version) build $($os.BuildNumber)") }
$lines.Add("etwcap: $Etwcap")
$lines.Add(((& $Etwcap version 2>&1) | Out-String).Trim())
$results = @()

$scripts = Get-ChildItem -Path $PSScriptRoot -Filter "live_*.ps1" | Sort-Object Name
foreach ($s in $scripts) {
  $out = & powershell -NoProfile -ExecutionPolicy Bypass -File $s.FullName -Etwcap $Etwcap -WorkDir $WorkDir 2>&1 | Out-String
  $code = $LASTEXITCODE
  $verdict = if ($code -eq 0) { "PASS" } elseif ($code -eq 77) { "SKIP" } else { "FAIL" }
  $results += "$verdict $($s.Name) (exit $code)"
  $lines.Add("")
  $lines.Add("===== $($s.Name): exit $code ($verdict)")
  $lines.Add($out.TrimEnd())
}

# `etwcap selftest` prints PASS/FAIL/SKIP lines and exits 0 only when nothing failed.
Push-Location $WorkDir
$out = & $Etwcap selftest 2>&1 | Out-String
$code = $LASTEXITCODE
Pop-Location
$verdict = if ($code -eq 0) { "PASS" } else { "FAIL" }
$results += "$verdict etwcap selftest (exit $code)"
$lines.Add("")
$lines.Add("===== etwcap selftest: exit $code ($verdict); its files are in $WorkDir")
$lines.Add($out.TrimEnd())

$lines.Insert(4, "")
$lines.Insert(5, "Results:")
for ($i = 0; $i -lt $results.Count; $i++) { $lines.Insert(6 + $i, "  " + $results[$i]) }
$lines | Set-Content -Path $Summary -Encoding UTF8
Write-Output ($results -join "`n")
Write-Output "Summary: $Summary (attach it, with etwcap-selftest.txt from $WorkDir, to a report)"
if ($results | Where-Object { $_ -like "FAIL*" }) { exit 1 }
exit 0
